"""Privacy-profile figure of one results file: delta against eps, certified and exact.

Called by audit_plots.py for files of [profile] runs (<experiment>_profile.png). One panel per
scenario (up to six, spread over the sweep), the larger-eps direction of each:
  - the exact profile delta(eps) where the last iterate is a listed 1-D Gaussian mixture;
  - the certified lower bound delta_lo(eps) of each score's family (shaded below it: every
    profile above the band is consistent with the samples; valid for every eps at once at the
    run's confidence, each score on its own); the plug-in of the same sets is in the file but
    not drawn (a set with no P' trajectory makes it flat in eps: a diagnostic, not a curve);
  - the certified eps_lo(delta) at each audited delta (a bar from 0 to it);
  - every (eps, delta) claim and Renyi-bound conversion as a marker at (claimed eps, delta):
    filled red where the audit found it violated, open otherwise. A claim is violated when
    the true profile passes to the right of its marker.
"""

import numpy as np

MAX_PANELS = 6
KIND_MARKERS = {"claim": "D", "conversion": "s", "profile theorem": "^", "profile heuristic": "v"}
KIND_COLOURS = {"conversion": "tab:orange", "profile theorem": "tab:brown",
                "profile heuristic": "tab:pink"}
# exact profiles: a listed mixture's, and the exact-law engine's bracket (value its midpoint)
EXACT_PROFILES = ("exact-profile", "exact-chain-profile")


def direction_of(profile):
    """The direction with the larger certified (or exact) eps at the first delta."""
    best, d_best = -1.0, 0
    for row in profile.rows:
        v = row["epsilon_value" if row["method"] in EXACT_PROFILES else "epsilon_lower"]
        if len(v) and v[0] > best:
            best, d_best = float(v[0]), row["direction"]
    return d_best


def claim_verdicts(audit, scenario):
    """{(claim name, delta): violated in any direction} from /audit/cells."""
    if audit is None or "delta" not in audit.cells:
        return {}
    c = audit.cells
    names = audit.bound_names
    out = {}
    for i in range(len(c["scenario"])):
        if int(c["scenario"][i]) != scenario or np.isnan(c["delta"][i]):
            continue
        key = (names[int(c["bound"][i])], float(c["delta"][i]))
        out[key] = out.get(key, False) or str(c["verdict"][i]).startswith("violated")
    return out


def draw_panel(ax, s, audit):
    p, claims = s.profile(), s.claims()
    d = direction_of(p)
    eps = p.epsilons
    floor = max(1e-12, 0.1 * float(np.min(p.deltas)))
    right = 0.0  # the largest eps with something above the floor, or a claim

    def shown(values):  # below the axis: not drawn (a clamp would look like a value)
        v = np.asarray(values, dtype=float)
        return np.where(v >= floor, v, np.nan)

    for row in p.rows:
        if row["direction"] != d:
            continue
        above = eps[np.asarray(row["delta_value" if row["method"] in EXACT_PROFILES
                                    else "delta_lower"]) >= floor]
        right = max(right, float(above.max()) if above.size else 0.0)
        if row["method"] == "exact-profile":
            ax.plot(eps, shown(row["delta_value"]), color="k", lw=1.6, label="exact δ(ε)")
            continue
        if row["method"] == "exact-chain-profile":
            ax.fill_between(eps, shown(row["delta_lower"]), shown(row["delta_upper"]),
                            color="k", alpha=0.35, lw=0)
            ax.plot(eps, shown(row["delta_value"]), color="k", lw=1.6,
                    label="exact δ(ε) (engine bracket)")
            continue
        low = shown(row["delta_lower"])
        ax.fill_between(eps, floor, low, where=~np.isnan(low), color="tab:blue", alpha=0.18,
                        lw=0)
        ax.plot(eps, low, color="tab:blue", lw=1.2, label=f"certified δ_lo(ε) ({row['method']})")
        for j, delta in enumerate(p.deltas):
            e_lo = float(row["epsilon_lower"][j])
            ax.plot([0, e_lo], [delta, delta], color="tab:green", lw=2.2, alpha=0.8,
                    label="certified ε_lo(δ)" if j == 0 else None)
    if claims is not None:
        verdicts = claim_verdicts(audit, s.index)
        labelled = set()
        for i, name in enumerate(claims.names):
            kind = str(claims.kinds[i])
            color = KIND_COLOURS.get(kind, "tab:purple")
            for j, delta in enumerate(claims.deltas):
                e = float(claims.values[i, j])
                if not np.isfinite(e) or e > eps[-1]:
                    continue
                right = max(right, e)
                bad = verdicts.get((str(name), float(delta)), False)
                label = None
                if (kind, bad) not in labelled:
                    label = f"{kind}{' (violated)' if bad else ''}"
                    labelled.add((kind, bad))
                ax.plot([e], [delta], KIND_MARKERS.get(kind, "o"), ms=6,
                        mfc="red" if bad else "none", mec="red" if bad else color, label=label)
    ax.set_yscale("log")
    ax.set_ylim(floor, 1.0)
    ax.set_xlim(0, min(float(eps[-1]), 1.1 * right) if right > 0 else float(eps[-1]))
    ax.set_xlabel("ε")
    ax.set_ylabel("δ")
    ax.grid(True, which="major", alpha=0.3)
    ax.set_title(f"scenario {s.index}: " + ("P against P'" if d == 0 else "P' against P"),
                 fontsize=9)


def profile_figure(results, audit, plt):
    """The figure, or None when no scenario has a profile."""
    scenarios = [s for s in results.scenarios if s.profile() is not None]
    if not scenarios:
        return None
    if len(scenarios) > MAX_PANELS:
        idx = np.unique(np.linspace(0, len(scenarios) - 1, MAX_PANELS).round().astype(int))
        scenarios = [scenarios[i] for i in idx]
    n = len(scenarios)
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.6 * rows), squeeze=False)
    for ax, s in zip(axes.flat, scenarios):
        draw_panel(ax, s, audit)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=7,
               bbox_to_anchor=(0.5, -0.02 - 0.04 * ((len(labels) + 2) // 3)))
    fig.suptitle("privacy profile of the last iterate: δ against ε", fontsize=10)
    fig.text(0.5, -0.01 - 0.04 * ((len(labels) + 2) // 3) - 0.06,
             "Shaded: below the certified lower bound δ_lo(ε), valid for every ε and δ at once "
             "at the run's confidence. A claim (ε, δ) is violated when the profile passes to "
             "its right; red: the audit (Holm over all cells) found it violated.",
             ha="center", fontsize=7, wrap=True)
    fig.tight_layout()
    return fig
