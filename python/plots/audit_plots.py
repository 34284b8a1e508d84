"""Audit plots of one results file: empirical Rényi divergences against the analytic bounds.

usage: /usr/bin/python3 python/plots/audit_plots.py RESULTS.h5 [--out DIR]

Writes, into DIR (default: the directory of RESULTS.h5), and prints the paths of:
  <experiment>_renyi.png       R_alpha against the swept time axis, one row per audited order,
                               one column per value of the other swept keys: the applicable
                               bounds, the point estimate, the rigorous lower bound, violations
  <experiment>_tightness.png   the same layout, bound / estimate per bound (1 = tight)
  <experiment>_margin.png      the same layout, bound / certified lower bound per bound: the
                               margin a "not rejected" cell was tested with; cells flagged
                               "close" (margin below the file's close_margin) are marked
  <experiment>_profile.png     [profile] runs: delta against eps with the certified band, the
                               exact profile, the (eps, delta) claims and the Renyi bounds'
                               conversions (profile_plots.py)
  <experiment>_histograms.png  last-iterate histograms of D and D' (coordinate 0) for up to six
                               scenarios spread over the sweep
A file without /audit (format < 1.2) gets the histograms only. Exit status 2, with a
one-line message, when RESULTS is not a readable results file. Layout of the file:
docs/results-format.md.
"""

import argparse
import os
import sys
import textwrap
from collections import OrderedDict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402
import numpy as np  # noqa: E402

from profile_plots import profile_figure  # noqa: E402  (the script's own folder)
from rdpaudit import FormatError, load  # noqa: E402

# Swept keys that can serve as the time axis, in order of preference, with axis labels.
TIME_KEYS = (("training.epochs", "epochs K"), ("training.steps", "steps T"))
EXACT_METHOD = "exact-quadrature"
# Rows whose value is exact (drawn filled, listed first): the quadrature, the exact chain's
# bracket midpoint (format 2.4).
EXACT_METHODS = (EXACT_METHOD, "exact-chain")
ESTIMATE_MARKERS = ("o", "s", "D", "v", "P", "X")  # one per estimate method, exact first
MAX_HISTOGRAMS = 6
BOTTOM = 0.04  # height (fraction of the panel) of values a log axis cannot show


def short_key(key):
    """'training.differing_batch' -> 'differing_batch' (titles have little room)."""
    return key.rsplit(".", 1)[-1]


def sweep_items(s):
    """[(key, text)] of a scenario's sweep point, text as written in the experiment file."""
    keys = s.attrs.get("sweep_keys", [])
    texts = s.attrs.get("sweep_text", [f"{v:g}" for v in s.attrs.get("sweep_values", [])])
    return list(zip(keys, texts))


def sweep_label(s, keys=None):
    """'epochs=5, scheme=poisson' for the given (default: all) swept keys of a scenario."""
    items = [(k, t) for k, t in sweep_items(s) if keys is None or k in keys]
    return ", ".join(f"{short_key(k)}={t}" for k, t in items) or f"scenario {s.index}"


class Layout:
    """Where each scenario goes: its x on the time axis and its column (group).

    x is the swept `training.epochs`, else the swept `training.steps`, else the scenario
    index. In a product sweep the other swept keys split the scenarios into groups, one
    column each; in a zip sweep (or when x would repeat within a group) they vary together
    with x, so there is a single column and x falls back to the scenario index where needed.
    """

    def __init__(self, results):
        scenarios = results.scenarios
        swept = list(results.attrs.get("swept_keys", []))
        self.time_key, self.xlabel = next(((k, lbl) for k, lbl in TIME_KEYS if k in swept),
                                          (None, "scenario"))
        group_keys = [k for k in swept if k != self.time_key]
        if self.time_key is None or results.attrs.get("sweep_mode") == "zip":
            group_keys = []
        self.groups = OrderedDict()  # group label -> [scenario], in scenario order
        for s in scenarios:
            label = sweep_label(s, group_keys) if group_keys else ""
            self.groups.setdefault(label, []).append(s)
        self.x = {s.index: (s.sweep[self.time_key] if self.time_key else float(s.index))
                  for s in scenarios}
        if any(len({self.x[s.index] for s in g}) < len(g) for g in self.groups.values()):
            self.time_key, self.xlabel = None, "scenario"
            self.groups = OrderedDict([("", list(scenarios))])
            self.x = {s.index: float(s.index) for s in scenarios}
        for label in self.groups:  # points of a line in order of x
            self.groups[label].sort(key=lambda s: self.x[s.index])
        xs = np.array(list(self.x.values()))
        self.log_x = bool(xs.min() > 0 and xs.max() / xs.min() > 10)
        # Without a time key, tick each scenario with its sweep point.
        self.ticks = None if self.time_key else {s.index: sweep_label(s) for s in scenarios}

    def format_axis(self, ax, group):
        if self.log_x:
            ax.set_xscale("log")
        xs = [self.x[s.index] for s in group]
        if self.ticks is None and not self.log_x and all(float(x).is_integer() for x in xs):
            # Whole epochs or steps: no tick between two of them (1.5, 2.5).
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if self.ticks is not None:
            ax.set_xticks(xs)
            ax.set_xticklabels([self.ticks[s.index] for s in group], rotation=30, ha="right",
                               fontsize=6)


class CellGrid:
    """The /audit/cells table on a grid [scenario, bound, alpha, direction], reduced to what
    the plots show: the bounds are direction-free (they bound both directions), so the
    empirical values are the larger of the two directions per (scenario, alpha)."""

    def __init__(self, audit, scenarios):
        c = audit.cells
        # (eps, delta) claim cells and GDP claims' mu cells have no order (alpha NaN):
        # profile_plots draws the claims.
        renyi = ~np.isnan(c["alpha"])
        if not renyi.all():
            c = {k: v[renyi] for k, v in c.items()}
        self.names = audit.bound_names
        self.alphas = np.unique(c["alpha"])
        self.row = {s.index: i for i, s in enumerate(scenarios)}
        shape = (len(scenarios), len(self.names), len(self.alphas), 2)
        at = (np.array([self.row[int(i)] for i in c["scenario"]], dtype=int),
              c["bound"].astype(int), np.searchsorted(self.alphas, c["alpha"]),
              c["direction"].astype(int))
        num = {}
        for k in ("bound_value", "estimate", "lower", "tightness_estimate", "tightness_lower"):
            num[k] = np.full(shape, np.nan)
            num[k][at] = c[k]
        method = np.full(shape, "", dtype=object)
        method[at] = c["estimate_method"]
        violated = np.zeros(shape, dtype=bool)
        violated[at] = np.char.startswith(c["verdict"].astype(str), "violated")
        close = np.zeros(shape, dtype=bool)
        close[at] = c["close"] != 0
        not_rejected = np.zeros(shape, dtype=bool)
        not_rejected[at] = c["verdict"] == "not rejected"
        with np.errstate(invalid="ignore"):
            # Bound values do not depend on the direction; take whichever is stored.
            self.bound = np.fmax(num["bound_value"][..., 0], num["bound_value"][..., 1])
            # bound / max-direction estimate = the smaller tightness of the two directions.
            self.tightness = np.fmin(num["tightness_estimate"][..., 0],
                                     num["tightness_estimate"][..., 1])
            # The margin a bound was tested with: the smaller of the two directions, over
            # not-rejected cells only (a violated or exact cell has no margin to speak of).
            margin = np.where(not_rejected, num["tightness_lower"], np.nan)
            self.margin = np.fmin(margin[..., 0], margin[..., 1])
        self.violated = violated.any(axis=3)
        self.close = close.any(axis=3)
        # The estimate and the lower bound belong to (scenario, alpha, direction), repeated
        # on the cells of every bound (the lower bound only on tested cells: applicable,
        # finite bound; 0 elsewhere): reduce over bounds and directions together. The maximum
        # of simultaneously valid lower bounds is still valid; 0 (uninformative) is not drawn.
        est = np.moveaxis(num["estimate"], 1, 2).reshape(shape[0], shape[2], -1)
        meth = np.moveaxis(method, 1, 2).reshape(shape[0], shape[2], -1)
        low = np.moveaxis(num["lower"], 1, 2).reshape(shape[0], shape[2], -1)
        has_est = ~np.all(np.isnan(est), axis=2)
        best = np.argmax(np.where(np.isnan(est), -np.inf, est), axis=2)
        self.estimate = np.where(has_est, np.take_along_axis(est, best[..., None], 2)[..., 0],
                                 np.nan)
        self.estimate_method = np.where(has_est,
                                        np.take_along_axis(meth, best[..., None], 2)[..., 0], "")
        lower = np.where(np.isnan(low), 0.0, low).max(axis=2)
        self.lower = np.where(lower > 0, lower, np.nan)


def positive(values):
    """NaN where a value cannot be drawn on a log axis (<= 0, inf, NaN)."""
    v = np.asarray(values, dtype=float)
    return np.where(np.isfinite(v) & (v > 0), v, np.nan)


def bound_styles(grid):
    """A colour and line style per bound, the same in every panel and both figures. Only the
    bounds that apply somewhere take colours, so that they differ as much as they can."""
    shown = [b for b in range(len(grid.names)) if np.isfinite(grid.bound[:, b]).any()]
    if len(shown) <= 10:
        colors = plt.get_cmap("tab10").colors
    else:  # tab20's dark shades first: neighbours in the catalogue stay apart
        colors = plt.get_cmap("tab20").colors[0::2] + plt.get_cmap("tab20").colors[1::2]
    dashes = ("-", "--", "-.", ":")
    styles = [dict(color="0.5", ls="-", lw=1.3) for _ in grid.names]
    for i, b in enumerate(shown):
        styles[b] = dict(color=colors[i % len(colors)],
                         ls=dashes[(i // len(colors)) % len(dashes)], lw=1.3)
    return styles


def estimate_label(method):
    return f"exact R_α ({method})" if method in EXACT_METHODS else f"estimated R_α ({method})"


def at_bottom(values):
    """Finite values <= 0 (a log axis cannot show them; some printed formulas go negative),
    NaN elsewhere: they are drawn as markers on the bottom edge of the panel."""
    v = np.asarray(values, dtype=float)
    return np.where(np.isfinite(v) & (v <= 0), v, np.nan)


def plot_bounds(ax, per_bound, xs, styles, names):
    """A line per bound through per_bound[point, bound] where it can be drawn, values <= 0 as
    triangles on the bottom edge; whether anything was drawn. Markers on the line too: a
    bound that applies at a single point is no line."""
    drawn = False
    ms = 4 if len(xs) > 1 else 8
    for b, name in enumerate(names):
        y = positive(per_bound[:, b])
        if np.any(~np.isnan(y)):
            ax.plot(xs, y, marker=".", ms=ms, label=name, **styles[b])
            drawn = True
        low = ~np.isnan(at_bottom(per_bound[:, b]))
        if low.any():
            ax.plot(xs[low], np.full(low.sum(), BOTTOM), "v", ms=6, color=styles[b]["color"],
                    label=name, transform=ax.get_xaxis_transform())
            drawn = True
    return drawn


def draw_renyi(ax, grid, rows, xs, a, styles, methods):
    """One panel of the Rényi figure at order a: bounds, estimate, lower bound, violations.
    Returns whether there was anything to draw."""
    drawn = plot_bounds(ax, grid.bound[rows, :, a], xs, styles, grid.names)
    est = positive(grid.estimate[rows, a])
    low = positive(grid.lower[rows, a])
    band = ~np.isnan(est) & ~np.isnan(low)
    if band.any():
        ax.fill_between(xs, np.where(band, low, np.nan), np.where(band, est, np.nan),
                        color="0.5", alpha=0.25, lw=0, label="valid lower bound … estimate")
        # The band has no width at an isolated point: a segment shows it there too.
        ax.vlines(xs[band], low[band], est[band], color="0.4", lw=1.0, alpha=0.7)
    only_low = ~np.isnan(low) & np.isnan(est)
    if only_low.any():
        ax.plot(xs[only_low], low[only_low], "^", color="0.3", ms=5,
                label="valid lower bound (no estimate)")
    for m, method in enumerate(methods):
        sel = (grid.estimate_method[rows, a] == method) & ~np.isnan(est)
        if sel.any():
            ax.plot(xs[sel], est[sel], ESTIMATE_MARKERS[m % len(ESTIMATE_MARKERS)],
                    color="k", ms=4.5, mfc="white" if method not in EXACT_METHODS else "k",
                    label=estimate_label(method))
    mark_violations(ax, grid, rows, xs, a, grid.bound[rows, :, a])
    return drawn or not np.all(np.isnan(est) & np.isnan(low))


def draw_tightness(ax, grid, rows, xs, a, styles, methods):
    """One panel of the tightness figure at order a: bound / estimate per bound. Returns
    whether there was anything to draw."""
    ax.axhline(1.0, color="k", lw=0.8, ls=":", label="bound = estimate")
    drawn = plot_bounds(ax, grid.tightness[rows, :, a], xs, styles, grid.names)
    mark_violations(ax, grid, rows, xs, a, grid.tightness[rows, :, a])
    # Keep the line at 1 clear of the bottom edge, where values <= 0 sit.
    lo, hi = ax.get_ylim()
    ax.set_ylim(min(lo, 0.3), max(hi, 3.0))
    return drawn


def draw_margin(ax, grid, rows, xs, a, styles, methods, close_margin=1.2):
    """One panel of the margin figure at order a: bound / certified lower bound per bound
    where the cell was not rejected, orange squares on close cells. Returns whether there was
    anything to draw."""
    ax.axhline(1.0, color="k", lw=0.8, ls=":", label="bound = certified lower bound")
    ax.axhline(close_margin, color="tab:orange", lw=0.8, ls="--",
               label=f"close: margin < {close_margin:g}")
    m = grid.margin[rows, :, a]
    drawn = plot_bounds(ax, m, xs, styles, grid.names)
    pts, bs = np.nonzero(grid.close[rows, :, a] & ~np.isnan(positive(m)))
    if len(pts):
        # A cell whose point estimate exceeds the bound is close whatever its margin: such a
        # square can sit above the line.
        ax.plot(xs[pts], m[pts, bs], ls="none", marker="s", ms=9, mfc="none",
                mec="tab:orange", mew=1.4,
                label=f"close cell: margin < {close_margin:g} or estimate > bound")
    lo, hi = ax.get_ylim()
    ax.set_ylim(min(lo, 0.8), max(hi, 3.0))
    return drawn


def mark_violations(ax, grid, rows, xs, a, y):
    """Red circles where y[point, bound] is drawn, for every (scenario, bound) violated at
    order a: at the value, or on the bottom edge where it is <= 0."""
    style = dict(ls="none", marker="o", ms=11, mfc="none", mec="red", mew=1.6,
                 label="verdict: violated")
    violated = grid.violated[rows, :, a]
    pts, bs = np.nonzero(violated & ~np.isnan(positive(y)))
    sizes = ring_sizes(pts, np.log(y[pts, bs]) if len(pts) else [])
    for size in sorted(set(sizes)):
        sel = sizes == size
        ax.plot(xs[pts[sel]], y[pts[sel], bs[sel]], **dict(style, ms=size))
    pts, bs = np.nonzero(violated & ~np.isnan(at_bottom(y)))
    sizes = ring_sizes(pts, np.zeros(len(pts)))
    for size in sorted(set(sizes)):
        sel = sizes == size
        ax.plot(xs[pts[sel]], np.full(sel.sum(), BOTTOM), transform=ax.get_xaxis_transform(),
                **dict(style, ms=size))


def ring_sizes(pts, log_y, base=11, step=5, near=0.08):
    """Marker sizes for circles at (pts, exp(log_y)): a circle that would cover one already
    drawn at the same point (log values within `near`) is drawn larger, a ring around it, so
    that two violated bounds that coincide show as two rings."""
    sizes = np.full(len(pts), base, dtype=float)
    for i in range(len(pts)):
        same = [j for j in range(i) if pts[j] == pts[i] and abs(log_y[j] - log_y[i]) < near]
        if same:
            sizes[i] = max(sizes[j] for j in same) + step
    return sizes


def audit_figure(results, grid, layout, draw, ylabel, title, note, empty):
    """One row per audited order, one column per group; draw(ax, ...) fills a panel, or
    the panel says `empty`."""
    styles = bound_styles(grid)
    methods = sorted({m for m in grid.estimate_method.ravel() if m},
                     key=lambda m: (EXACT_METHODS.index(m) if m in EXACT_METHODS
                                    else len(EXACT_METHODS), m))
    groups = list(layout.groups.items())
    nrows, ncols = len(grid.alphas), len(groups)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.3 * ncols, 2.9 * nrows + 0.9),
                             squeeze=False, sharex="col")
    for a, alpha in enumerate(grid.alphas):
        for col, (label, group) in enumerate(groups):
            ax = axes[a, col]
            rows = np.array([grid.row[s.index] for s in group])
            xs = np.array([layout.x[s.index] for s in group], dtype=float)
            ax.set_title(f"α = {alpha:g}" + (f"  ·  {label}" if label else ""), fontsize=9)
            ax.set_yscale("log")
            if not draw(ax, grid, rows, xs, a, styles, methods):
                ax.text(0.5, 0.5, empty, ha="center", va="center", transform=ax.transAxes,
                        fontsize=8, color="0.4")
            layout.format_axis(ax, group)
            ax.grid(True, which="major", alpha=0.3)
            if col == 0:
                ax.set_ylabel(ylabel)
            if a == nrows - 1:
                ax.set_xlabel(layout.xlabel)
    # One legend for the figure: every series that appears in some panel, once.
    entries = OrderedDict()
    for ax in axes.ravel():
        for h, lbl in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(lbl, h)
    if entries:
        fig.legend(entries.values(), entries.keys(), loc="upper left",
                   bbox_to_anchor=(1.0, 0.94), fontsize=8, frameon=False)
    fig.suptitle(f"{results.attrs.get('experiment_name', '')}: {title}", fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    # Below the panels (savefig's tight bounding box takes it in), wrapped to the figure.
    fig.text(0.01, 0.0, textwrap.fill(note, width=max(70, int(fig.get_figwidth() * 17))),
             fontsize=7.5, va="top")
    return fig


def histogram_figure(results):
    """Last-iterate histograms of D and D' (coordinate 0) for up to six scenarios."""
    scenarios = results.scenarios
    picks = np.unique(np.round(np.linspace(0, len(scenarios) - 1,
                                           min(MAX_HISTOGRAMS, len(scenarios)))).astype(int))
    ncols = min(3, len(picks))
    nrows = -(-len(picks) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.8 * ncols, 2.8 * nrows + 0.6),
                             squeeze=False)
    for ax, i in zip(axes.ravel(), picks):
        s = scenarios[i]
        for side, color, label in (("D", "tab:blue", "D"), ("Dprime", "tab:orange", "D'")):
            counts, edges = s.histogram(side)
            # Log scale: empty bins are drawn as gaps rather than as a drop to zero.
            ax.stairs(np.where(counts > 0, counts, np.nan), edges, color=color, label=label)
        ax.set_yscale("log")
        ax.set_title(sweep_label(s), fontsize=9)
        ax.set_xlabel(f"last iterate θ_T, coordinate 0 (d = {s.attrs.get('dim', 1)})", fontsize=8)
        ax.set_ylabel("count", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=7)
    for ax in axes.ravel()[len(picks):]:
        ax.set_visible(False)
    fig.suptitle(f"{results.attrs.get('experiment_name', '')}: last iterates, coordinate 0\n"
                 f"({results.attrs.get('trajectories', '?')} trajectories per dataset; "
                 "under/overflow bins not shown)", fontsize=10)
    fig.tight_layout()
    return fig


def save(fig, path):
    fig.savefig(path, dpi=110, bbox_inches="tight")  # takes in the legend and the note
    plt.close(fig)
    return path


def audit_figures(r, audit):
    """{suffix: figure} of the Rényi and tightness plots."""
    grid = CellGrid(audit, r.scenarios)
    layout = Layout(r)
    level = audit.attrs.get("level", float("nan"))
    common = ("Empirical values: the larger of R_α(P‖P') and R_α(P'‖P) per scenario and "
              "order (the bounds bound both directions). ")
    if np.all(np.isnan(grid.estimate)):
        common += "No point estimates in this file (disabled or uninformative). "
    verdicts = (f"Red circles (rings around each other where two bounds coincide): cells "
                f"violated, by the samples (rigorous lower bound above the bound; "
                f"{audit.attrs.get('correction', '?')} over "
                f"m = {audit.attrs.get('hypotheses', '?')} cells, family-wise level "
                f"δ = {level:g}) or by the exact value. Samples can show a bound violated, "
                "never valid: elsewhere a bound is only not rejected, or valid where the exact "
                "value shows it.")
    close_margin = float(audit.attrs.get("close_margin", 1.2))

    def edge(values, what):
        return (f"Triangles on the bottom edge: {what} ≤ 0, which a log axis cannot show. "
                if np.any(~np.isnan(at_bottom(values))) else "")

    return {
        "renyi": audit_figure(
            r, grid, layout, draw_renyi, "R_α",
            "Rényi divergence of the last iterate\nagainst the bounds",
            common + "Shaded: from the rigorous lower bound (valid simultaneously for all "
            "cells at level δ) up to the point estimate. " + edge(grid.bound, "bounds")
            + verdicts,
            "no applicable bound, no informative estimate"),
        "tightness": audit_figure(
            r, grid, layout, draw_tightness, "bound ÷ estimate",
            "tightness of the bounds, bound ÷ point estimate\n"
            "(below 1: the bound is below the empirical value)",
            common + edge(grid.tightness, "bound ÷ estimate") + verdicts,
            "no applicable bound with an estimate"),
        "margin": audit_figure(
            r, grid, layout,
            lambda *a: draw_margin(*a, close_margin=close_margin), "bound ÷ lower bound",
            "margin of the bounds not rejected, bound ÷ certified lower bound\n"
            f"(below {close_margin:g}: close — more trajectories could reject the bound)",
            common + "Drawn only where the cell was tested and not rejected (violated cells "
            "are circled in the Rényi and tightness figures); the certified lower bound is "
            "simultaneous over all cells at level δ. Orange squares: close cells, whose margin "
            f"is below {close_margin:g} or whose point estimate is above the bound (those can "
            f"sit above the {close_margin:g} line).",
            "no bound not rejected here"),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="results file (HDF5) written by `rdpaudit run`")
    ap.add_argument("--out", help="output directory (default: that of RESULTS)")
    args = ap.parse_args(argv)
    out = args.out or os.path.dirname(os.path.abspath(args.results))
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:  # a file at --out or above it, no permission: a message, no trace
        print(f"audit_plots: error: --out {out}: {e.strerror or e}", file=sys.stderr)
        return 2

    try:
        r = load(args.results)
    except (OSError, FormatError) as e:  # missing, not HDF5, not ours: a message, no trace
        where = "" if isinstance(e, FormatError) else f"{args.results}: "  # FormatError has it
        print(f"audit_plots: error: {where}{e}", file=sys.stderr)
        return 2
    try:
        with r:
            name = r.attrs.get("experiment_name") or \
                os.path.splitext(os.path.basename(args.results))[0]
            audit = r.audit()
            figures = {}
            if audit is None:
                print(f"note: {args.results} has no /audit group (format "
                      f"{r.format_version[0]}.{r.format_version[1]}); drawing the histograms "
                      "only")
            elif len(audit) == 0:
                print(f"note: {args.results} has an empty /audit/cells table; "
                      "drawing the histograms only")
            else:
                figures = audit_figures(r, audit)
            profile = profile_figure(r, audit, plt)
            if profile is not None:
                figures["profile"] = profile
            figures["histograms"] = histogram_figure(r)
    except Exception as e:  # a damaged file: one line naming it, no traceback, nothing drawn
        plt.close("all")
        print(f"audit_plots: error: {args.results}: not an intact results file "
              f"({type(e).__name__}: {str(e)[:200]})", file=sys.stderr)
        return 2
    for suffix, fig in figures.items():
        print(save(fig, os.path.join(out, f"{name}_{suffix}.png")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
