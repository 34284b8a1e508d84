"""The audit plots and the reader's bounds/ and /audit accessors on synthetic results files.

Usage: PYTHONPATH=python:python/plots /usr/bin/python3 tests/python/test_audit_plots.py
Writes small results files that follow docs/results-format.md (format 2.0, with and without
/audit) with h5py into a temporary directory, checks what the reader returns, runs
python/plots/audit_plots.py on each and checks the PNGs it writes. Needs no build.
Prints '<n> passed, <m> failed' and exits non-zero on any failure.
"""

import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

import audit_plots  # python/plots, on PYTHONPATH (tests/CMakeLists.txt)
from checks import check, finish  # this folder
from rdpaudit import load  # python/, on PYTHONPATH or installed

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "python", "plots", "audit_plots.py")


# ---------------------------------------------------------------------------------------------
# A synthetic results file. The last iterate is N(0, s²) under D and N(mu, s²) under D' in
# coordinate 0, so R_alpha = alpha mu² / (2 s²) in both directions; mu shrinks with the epochs.

STR = h5py.string_dtype("utf-8")  # variable-length UTF-8, as the C++ writer stores strings
BINS, BINS_2D, TRAJ, S = 48, 16, 4000, 1.0
BOUND_NAMES = ["ys_thm2.1_naive", "ys_thm4.2_shuffle_partition", "too_small"]
BOUND_KINDS = ["theorem", "theorem", "custom"]
AUDIT_ALPHAS = np.array([2.0, 10.0])
LEVEL = 0.05


def strings(group, name, values):
    group.create_dataset(name, data=np.array(values, dtype=object), dtype=STR)


def str_attr(obj, name, values):
    obj.attrs.create(name, np.array(values, dtype=object), dtype=STR)


def i64(v):
    return np.int64(v)


def shift(epochs):
    return 2.0 / np.sqrt(epochs)


def renyi(alpha, epochs):
    return alpha * shift(epochs) ** 2 / (2 * S ** 2)


def bound_values(epochs, scheme):
    """[bound, alpha]: the naive bound grows with K, the shuffle bound applies to
    shuffle_partition only and not at K = 1, the custom one is below the truth (violated)."""
    naive = AUDIT_ALPHAS * 8.0 * epochs
    shuffle = AUDIT_ALPHAS * 4.0 if scheme == "shuffle_partition" and epochs > 1 else \
        np.full(len(AUDIT_ALPHAS), np.nan)
    small = renyi(AUDIT_ALPHAS, epochs) / 3
    return np.vstack([naive, shuffle, small])


def write_side(g, samples, edges, proj_edges, joint_edges):
    d = samples.shape[1]
    g.attrs["trajectories"] = i64(len(samples))
    counts = []
    for k in range(d):
        inner, _ = np.histogram(samples[:, k], edges[k])
        counts.append(np.concatenate([[np.sum(samples[:, k] < edges[k][0])], inner,
                                      [np.sum(samples[:, k] >= edges[k][-1])]]))
    g.create_dataset("coordinate_counts", data=np.array(counts, dtype=np.int64))
    if d > 1:
        proj, _ = np.histogram(samples[:, 0], proj_edges)
        g.create_dataset("projection_counts",
                         data=np.concatenate([[0], proj, [0]]).astype(np.int64))
        joint = np.zeros((BINS_2D + 2, BINS_2D + 2), dtype=np.int64)
        joint[1:-1, 1:-1], _, _ = np.histogram2d(samples[:, 0], samples[:, 1],
                                                 [joint_edges, joint_edges])
        g.create_dataset("joint_counts", data=joint)
    g.create_dataset("mean", data=samples.mean(axis=0))
    g.create_dataset("covariance", data=np.atleast_2d(np.cov(samples.T)))


def write_scenario(g, index, sweep, epochs, scheme, dim, rng, estimates, audit):
    keys = list(sweep)
    g.attrs["index"] = i64(index)
    str_attr(g, "sweep_keys", keys)
    g.attrs["sweep_values"] = np.array(
        [np.nan if k == "training.scheme" else float(sweep[k]) for k in keys])
    str_attr(g, "sweep_text", [str(sweep[k]) for k in keys])
    logistic = dim > 1
    n, b = 20, 2
    for name, value in [("loss", "logistic" if logistic else "quadratic"), ("dim", i64(dim)),
                        ("features", i64(2 if logistic else 0)),
                        ("classes", i64(2 if logistic else 0)), ("lambda", 1.0),
                        ("feature_clip", np.inf), ("clip_norm", np.inf), ("eta", 0.02),
                        ("n", i64(n)), ("batch_size", i64(b)), ("scheme", scheme),
                        ("epochs", i64(epochs)), ("steps", i64(epochs * n // b)),
                        ("steps_per_epoch", i64(n // b)), ("differing_batch", i64(-1)),
                        ("sampling_rate", 0.0), ("projection_diameter", np.inf),
                        ("noise_key", "sigma2"), ("noise_value", 4.0), ("step_std", 0.4),
                        ("sigma", 2.0), ("sigma2", 4.0), ("noise_multiplier", 20.0),
                        ("blog_sigma", 20.0), ("sensitivity", 4.0), ("init_std", 0.0),
                        ("seconds", 0.01)]:
        g.attrs[name] = value
    g.create_dataset("init_mean", data=np.zeros(dim))
    g.create_dataset("projection_center", data=np.zeros(dim))

    data = g.create_group("data")
    data.attrs["preset"] = "logistic_synthetic" if logistic else "quadratic_worst_case"
    data.attrs["differing_index"] = i64(0)
    data.attrs["replacement_label"] = i64(1 if logistic else 0)
    p = 2 if logistic else dim
    data.create_dataset("points", data=np.zeros((n, p)))
    data.create_dataset("replacement", data=np.full(p, 4.0))
    if logistic:
        data.create_dataset("labels", data=np.arange(n, dtype=np.int32) % 2)

    mu = shift(epochs)
    x = rng.normal(0.0, S, (TRAJ, dim))
    xp = rng.normal(0.0, S, (TRAJ, dim))
    xp[:, 0] += mu
    lo, hi = min(x.min(), xp.min()), max(x.max(), xp.max())
    edges = np.tile(np.linspace(lo, hi, BINS + 1), (dim, 1))
    binning = g.create_group("binning")
    binning.attrs["source"] = "pilot"
    binning.attrs["pilot_trajectories"] = i64(500)
    binning.attrs["bins"] = i64(BINS)
    binning.create_dataset("coordinate_edges", data=edges)
    binning.create_dataset("moment_shift", data=np.zeros(dim))
    proj_edges = joint_edges = None
    if dim > 1:
        proj_edges = edges[0]
        joint_edges = np.linspace(lo, hi, BINS_2D + 1)
        binning.create_dataset("projection_direction", data=np.eye(dim)[0])
        binning.create_dataset("projection_edges", data=proj_edges)
        binning.create_dataset("joint_edges_x", data=joint_edges)
        binning.create_dataset("joint_edges_y", data=joint_edges)
    write_side(g.create_group("D"), x, edges, proj_edges, joint_edges)
    write_side(g.create_group("Dprime"), xp, edges, proj_edges, joint_edges)

    est = g.create_group("estimates")
    est.attrs["enabled"] = i64(1 if estimates else 0)
    est.attrs["confidence"] = 1 - LEVEL
    est.attrs["selection_fraction"] = 0.3
    est.attrs["samples_per_dataset"] = i64(TRAJ)
    est.attrs["mixture"] = "enumerated: the batch of the differing record" if estimates else ""
    grid = np.array([2.0, 10.0]) if estimates else np.zeros(0)
    rows = [(m, dr, a) for m in ("exact-quadrature", "rigorous-cp") for dr in (0, 1)
            for a in grid]
    est.create_dataset("alpha_grid", data=grid)
    strings(est, "method", [m for m, _, _ in rows])
    est.create_dataset("direction", data=np.array([dr for _, dr, _ in rows], dtype=np.int32))
    est.create_dataset("alpha", data=np.array([a for _, _, a in rows], dtype=float))
    value = np.array([renyi(a, epochs) for _, _, a in rows], dtype=float)
    est.create_dataset("value", data=value)
    est.create_dataset("lower", data=0.8 * value)
    est.create_dataset("upper", data=1.2 * value)
    est.create_dataset("informative", data=np.ones(len(rows), dtype=np.int32))
    strings(est, "interval", ["diagnostic"] * len(rows))
    strings(est, "reason", [""] * len(rows))

    if audit:
        bounds = g.create_group("bounds")
        values = bound_values(epochs, scheme)
        bounds.create_dataset("alphas", data=AUDIT_ALPHAS)
        strings(bounds, "names", BOUND_NAMES)
        bounds.create_dataset("values", data=values)
        strings(bounds, "reasons", ["not at K = 1 and only for shuffle_partition"
                                    if np.isnan(v[0]) else "" for v in values])


def cell_rows(index, epochs, scheme, estimates, method):
    """The /audit/cells rows of one scenario. Direction 1 carries the larger estimate (the
    plots must show the larger of the two directions)."""
    rows = []
    values = bound_values(epochs, scheme)
    for bi in range(len(BOUND_NAMES)):
        for ai, alpha in enumerate(AUDIT_ALPHAS):
            for direction in (0, 1):
                bound = values[bi, ai]
                truth = renyi(alpha, epochs) * (1.1 if direction else 1.0)
                estimate = truth if estimates else np.nan
                lower = 0.8 * truth if estimates else 0.0
                applicable = not np.isnan(bound)
                violated = applicable and lower > bound
                verdict = ("not applicable" if not applicable else "violated" if violated
                           else "not rejected" if estimates else "inconclusive")
                margin = bound / lower if lower > 0 else np.inf
                rows.append(dict(
                    scenario=index, bound=bi, alpha=alpha, direction=direction,
                    bound_value=bound, estimate=estimate,
                    estimate_method=method if estimates else "",
                    exact=estimate if method == "exact-quadrature" else np.nan,
                    exact_lower=np.nan, exact_upper=np.nan,
                    lower=lower, lower_method="rigorous-cp" if estimates else "",
                    p_method="rigorous-cp" if estimates else "",
                    p_value=1e-6 if violated else 1.0, p_holm=1e-5 if violated else 1.0,
                    verdict=verdict, tightness_estimate=bound / estimate,
                    tightness_lower=margin,
                    close=int(verdict == "not rejected" and margin < 1.2),
                    note="" if applicable else "not applicable"))
    return rows


CELL_TYPES = dict(scenario=np.int64, bound=np.int64, alpha=float, direction=np.int32,
                  bound_value=float, estimate=float, estimate_method=str, exact=float,
                  exact_lower=float, exact_upper=float, lower=float, lower_method=str,
                  p_method=str, p_value=float, p_holm=float, verdict=str,
                  tightness_estimate=float, tightness_lower=float, close=np.int32, note=str)


def write_audit(f, cells):
    audit = f.create_group("audit")
    verdict = np.array([c["verdict"] for c in cells])
    bound = np.array([c["bound"] for c in cells])
    tested = np.array([c["verdict"] != "not applicable" for c in cells])
    audit.attrs["level"] = LEVEL
    audit.attrs["correction"] = "holm"
    audit.attrs["hypotheses"] = i64(tested.sum())
    audit.attrs["violated_cells"] = i64((verdict == "violated").sum())
    expect = ["holds", "holds", "violated"]
    outcome = []
    for bi in range(len(BOUND_NAMES)):
        v = verdict[bound == bi]
        outcome.append("violated" if (v == "violated").any() else "not rejected"
                       if (v == "not rejected").any() else "inconclusive"
                       if (v == "inconclusive").any() else "not applicable")
    as_expected = [int(o == e or (e == "holds" and not o.startswith("violated")))
                   for o, e in zip(outcome, expect)]
    audit.attrs["unexpected"] = i64(len(as_expected) - sum(as_expected))
    bg = audit.create_group("bounds")
    strings(bg, "name", BOUND_NAMES)
    strings(bg, "kind", BOUND_KINDS)
    strings(bg, "source", ["Ye & Shokri 2022, Theorem 2.1", "Ye & Shokri 2022, Theorem 4.2",
                           "experiment file"])
    strings(bg, "expect", expect)
    strings(bg, "outcome", outcome)
    bg.create_dataset("as_expected", data=np.array(as_expected, dtype=np.int32))
    audit.attrs["close_margin"] = 1.2
    for v in ("violated (exact)", "violated", "not rejected", "valid (exact)", "inconclusive",
              "not applicable"):
        key = v.replace(" (exact)", "_exact").replace(" ", "_")
        bg.create_dataset("cells_" + key, data=np.array(
            [((bound == bi) & (verdict == v)).sum() for bi in range(len(BOUND_NAMES))],
            dtype=np.int64))
    strings(bg, "evidence", ["scenario 0, alpha = 10: lower bound above the bound"
                             if o == "violated" else "" for o in outcome])
    cg = audit.create_group("cells")
    for name, kind in CELL_TYPES.items():
        column = [c[name] for c in cells]
        if kind is str:
            strings(cg, name, column)
        else:
            cg.create_dataset(name, data=np.array(column, dtype=kind))


def write_results(path, sweep_points, swept_keys, dim=1, estimates=True, audit=True,
                  name="synthetic", sweep_mode="product"):
    """sweep_points: one dict {swept key: value} per scenario, in the order of the sweep."""
    rng = np.random.default_rng(7)
    with h5py.File(path, "w") as f:
        for key, value in [("filetype", "rdpaudit-results"), ("tool_version", "0.1.0"),
                           ("git_hash", "0000000"), ("build_type", "Release"),
                           ("compiler", "g++ 12.2.0"), ("libraries", "HDF5 1.10.8"),
                           ("hdf5_version", "1.10.8"), ("created_utc", "2026-01-01T00:00:00Z"),
                           ("command_line", "synthetic"), ("threads", i64(2)),
                           ("experiment_name", name), ("description", ""),
                           ("config_path", f"experiments/{name}.toml"),
                           ("config_text", "# synthetic\n"), ("config_sha256", "0" * 64),
                           ("seed", np.uint64(1)), ("trajectories", i64(TRAJ)),
                           ("sweep_mode", sweep_mode), ("scenario_count", i64(len(sweep_points)))]:
            f.attrs[key] = value
        f.attrs["format_version"] = np.array([2, 0], dtype=np.int64)
        str_attr(f, "swept_keys", swept_keys)
        scenarios = f.create_group("scenarios")
        cells = []
        for i, sweep in enumerate(sweep_points):
            epochs = int(sweep.get("training.epochs", 5))
            scheme = sweep.get("training.scheme", "shuffle_partition")
            write_scenario(scenarios.create_group(f"{i:04d}"), i, sweep, epochs, scheme, dim,
                           rng, estimates, audit)
            method = "exact-quadrature" if i % 2 == 0 else "histogram-plugin"
            cells += cell_rows(i, epochs, scheme, estimates, method)
        if audit:
            write_audit(f, cells)


def run_plots(path, out):
    """Runs the script as the CLI will; returns (exit status, printed lines)."""
    p = subprocess.run([sys.executable, SCRIPT, path, "--out", out], capture_output=True,
                       text=True)
    if p.returncode != 0:
        print(p.stdout, p.stderr)
    return p.returncode, p.stdout.splitlines()


def check_pngs(out, name, suffixes, lines, what):
    for suffix in suffixes:
        png = os.path.join(out, f"{name}_{suffix}.png")
        check(os.path.isfile(png) and os.path.getsize(png) > 1000, f"{what}: {png} written")
        check(png in lines, f"{what}: {png} printed")


with tempfile.TemporaryDirectory() as work:
    # 1. Three scenarios over the epochs: reader accessors and all three plots.
    main = os.path.join(work, "main.h5")
    write_results(main, [{"training.epochs": k} for k in (1, 5, 20)], ["training.epochs"])
    with load(main) as r:
        check(r.format_version == (2, 0), f"format version {r.format_version}")
        b = r.scenarios[0].bounds()
        alphas, names, values, reasons = b  # unpacks as a tuple too
        check(names == BOUND_NAMES and isinstance(names[0], str), f"bound names {names}")
        check(np.array_equal(alphas, AUDIT_ALPHAS), "bound alphas")
        check(values.shape == (3, 2) and np.isnan(values[1]).all(), "values; n/a is NaN")
        check(reasons[1] != "" and reasons[0] == "", f"reasons {reasons}")
        check(np.allclose(r.scenarios[2].bounds().values[0], AUDIT_ALPHAS * 160),
              "bound values of scenario 2")
        a = r.audit()
        check(a is not None and a is r.audit(), "audit read once")
        check(a.attrs["level"] == LEVEL and a.attrs["correction"] == "holm", "audit attrs")
        check(len(a) == 3 * 3 * 2 * 2, f"cells: {len(a)}")
        check(a.bound_names == BOUND_NAMES, "audit bound names")
        check(a.cells["verdict"].dtype.kind == "U", "string columns decoded")
        check(a.cells["scenario"].dtype == np.int64 and a.cells["direction"].dtype == np.int32,
              "integer columns keep their types")
        violated = a.cells["verdict"] == "violated"
        check(violated.sum() == a.attrs["violated_cells"] > 0, "violated cells counted")
        check(set(a.cells["bound"][violated]) == {2}, "only the custom bound is violated")
        check(list(a.bounds["outcome"]) == ["not rejected", "not rejected", "violated"],
              f"outcomes {list(a.bounds['outcome'])}")
        check(a.attrs["unexpected"] == 0 and a.bounds["as_expected"].all(), "as expected")
        # The plots show the larger direction of each (scenario, alpha), here direction 1.
        grid = audit_plots.CellGrid(a, r.scenarios)
        check(np.allclose(grid.estimate[1], 1.1 * renyi(AUDIT_ALPHAS, 5)),
              "plotted estimate: the larger direction")
        check(np.allclose(grid.lower[1], 0.88 * renyi(AUDIT_ALPHAS, 5)),
              "plotted lower bound: the larger direction")
        check(grid.estimate_method[1, 0] == "histogram-plugin", "estimate method carried")
        check(grid.violated[:, 2, :].all() and not grid.violated[:, :2, :].any(),
              "violations on the grid")
        layout = audit_plots.Layout(r)
        check(layout.time_key == "training.epochs" and layout.log_x and
              list(layout.groups) == [""], "time axis: epochs, log scale, one column")
    out = os.path.join(work, "plots")
    rc, lines = run_plots(main, out)
    check(rc == 0, "plots of the main file")
    check_pngs(out, "synthetic", ("renyi", "tightness", "margin", "histograms"), lines, "main")

    # 2. Product sweep of scheme x epochs: one column per scheme; default --out.
    grouped = os.path.join(work, "grouped.h5")
    points = [{"training.scheme": s, "training.epochs": k}
              for s in ("shuffle_partition", "sample_without_replacement") for k in (1, 10)]
    write_results(grouped, points, ["training.scheme", "training.epochs"], name="grouped")
    with load(grouped) as r:
        layout = audit_plots.Layout(r)
        check(list(layout.groups) == ["scheme=shuffle_partition",
                                      "scheme=sample_without_replacement"],
              f"groups {list(layout.groups)}")
    p = subprocess.run([sys.executable, SCRIPT, grouped], capture_output=True, text=True)
    check(p.returncode == 0, "plots of the grouped file")
    check_pngs(work, "grouped", ("renyi", "tightness", "histograms"), p.stdout.splitlines(),
               "grouped")

    # Layouts without plotting: a zip sweep has one column (the other keys vary with the
    # epochs); without a swept time key, x is the scenario index, ticked with the sweep point.
    zipped = os.path.join(work, "zip.h5")
    write_results(zipped, [{"training.scheme": s, "training.epochs": k} for s, k in
                           (("shuffle_partition", 1), ("sample_without_replacement", 10))],
                  ["training.scheme", "training.epochs"], sweep_mode="zip")
    with load(zipped) as r:
        layout = audit_plots.Layout(r)
        check(list(layout.groups) == [""] and layout.time_key == "training.epochs",
              "zip sweep: one column over the epochs")
    untimed = os.path.join(work, "untimed.h5")
    write_results(untimed, [{"training.scheme": s} for s in ("shuffle_partition", "poisson")],
                  ["training.scheme"])
    with load(untimed) as r:
        layout = audit_plots.Layout(r)
        check(layout.time_key is None and layout.x == {0: 0.0, 1: 1.0} and
              layout.ticks[1] == "scheme=poisson", "no time key: scenario index")

    # Whole epochs on a linear axis: ticks at whole numbers only (not 1.5, 2.5); the margin
    # figure's note mentions no red circles (it draws none) and explains the close squares.
    whole = os.path.join(work, "whole.h5")
    write_results(whole, [{"training.epochs": k} for k in (1, 2, 3)], ["training.epochs"],
                  name="whole")
    with load(whole) as r:
        figures = audit_plots.audit_figures(r, r.audit())
        for suffix, fig in figures.items():
            fig.canvas.draw()
            ticks = [t for ax in fig.axes if ax.get_visible() for t in ax.get_xticks()
                     if 1 <= t <= 3]
            check(ticks and all(float(t).is_integer() for t in ticks),
                  f"{suffix}: ticks at whole epochs only ({sorted(set(ticks))})")
        note = " ".join(t.get_text() for t in figures["margin"].texts)
        check("Red circles" not in note and "point estimate is above the bound" in note,
              f"margin note: no red circles, close squares explained ({note[-160:]!r})")
        renyi_note = " ".join(t.get_text() for t in figures["renyi"].texts)
        check("Red circles" in renyi_note, "the Rényi note explains its red circles")
        for fig in figures.values():
            audit_plots.plt.close(fig)
    # Two violated bounds at one point and (nearly) one value: two rings, not one circle.
    sizes = audit_plots.ring_sizes(np.array([0, 0, 0, 1]), np.log([2.0, 2.02, 5.0, 2.0]))
    check(list(sizes) == [11, 16, 11, 11], f"coinciding violations drawn as rings ({sizes})")

    # 3. One logistic scenario (d = 6), no sweep, estimates disabled.
    single = os.path.join(work, "single.h5")
    write_results(single, [{}], [], dim=6, estimates=False, name="single")
    with load(single) as r:
        check(r.scenarios[0].histogram("D", with_flow=True)[0].sum() == TRAJ, "d = 6 counts")
        check(np.isnan(r.audit().cells["estimate"]).all(), "no estimates")
    rc, lines = run_plots(single, out)
    check(rc == 0, "plots of the single-scenario file")
    check_pngs(out, "single", ("renyi", "tightness", "margin", "histograms"), lines, "single")

    # 4. A file without bounds/ and /audit (estimation and audit off): accessors give None, histograms only.
    old = os.path.join(work, "old.h5")
    write_results(old, [{"training.epochs": k} for k in (1, 5)], ["training.epochs"],
                  audit=False, name="old")
    with load(old) as r:
        check(r.format_version == (2, 0), "format 2.0 without an audit")
        check(r.audit() is None and r.scenarios[0].bounds() is None, "1.1: no audit, no bounds")
    rc, lines = run_plots(old, out)
    check(rc == 0, "plots of the 1.1 file")
    check(any(line.startswith("note:") for line in lines), "note on the missing audit")
    check_pngs(out, "old", ("histograms",), lines, "1.1")
    check(not os.path.exists(os.path.join(out, "old_renyi.png")), "no audit plots for 1.1")

    # 5. Not a results file: a one-line message and exit status 2, as the CLI's bad input.
    bogus = os.path.join(work, "bogus.h5")
    with open(bogus, "w") as f:
        f.write("not HDF5\n")
    p = subprocess.run([sys.executable, SCRIPT, bogus], capture_output=True, text=True)
    check(p.returncode == 2 and p.stderr.startswith("audit_plots: error: " + bogus),
          f"bad input refused: {p.returncode} {p.stderr!r}")

    # 6. The real file in the repository, when present (format 1.1 or later).
    quickstart = os.path.join(ROOT, "results", "quickstart.h5")
    if os.path.isfile(quickstart):
        with load(quickstart) as r:
            audited = r.audit() is not None
        rc, lines = run_plots(quickstart, out)
        check(rc == 0, "plots of results/quickstart.h5")
        check_pngs(out, "quickstart", ("renyi", "tightness", "histograms") if audited
                   else ("histograms",), lines, "quickstart")

finish()
