#!/usr/bin/python3
"""Replication study of the Rényi-divergence estimators against exact truth.

Runs the hidden Catch2 test "[.study]" (tests/statistical/test_estimate_study.cpp) for each
configuration, collects its CSV lines and writes Markdown tables:

    /usr/bin/python3 python/studies/estimate_study.py --build build/release \\
        --out docs/studies/estimate_study.md

Configurations (samples per side x replications):
  * accuracy and power: 10^7 x 20 on every case (plug-in error, bound / truth ratio);
  * coverage: 10^5 x 200 on every case and 10^6 x 200 on four cases (simultaneous coverage of
    the rigorous bound over the whole order grid and both directions; per-order coverage of
    the plug-in's bootstrap interval, which is a diagnostic).
--quick shrinks everything for a smoke test.
"""
import argparse
import collections
import os
import statistics
import subprocess
import sys
import time

from rdpaudit.stats import clopper_pearson_lower

ALL_CASES = ["pair10", "pair15", "pair20", "sgm", "sgm25", "sgm_far", "fig2_k1", "fig2_k10",
             "fig2_k50", "pair2d"]
TABLE_ALPHAS = [1.1, 2, 4, 8, 12, 16, 32, 64]


def run(binary, cases, n, reps, boot, first=1):
    env = dict(os.environ, RDPAUDIT_STUDY_CASES=",".join(cases), RDPAUDIT_STUDY_N=str(int(n)),
               RDPAUDIT_STUDY_REPS=str(reps), RDPAUDIT_STUDY_BOOT=str(boot),
               RDPAUDIT_STUDY_FIRST=str(first))
    t0 = time.time()
    out = subprocess.run([binary, "[.study]"], env=env, check=True, capture_output=True,
                         text=True).stdout
    print(f"  {','.join(cases)} n={n:.0e} reps={reps}: {time.time() - t0:.0f} s", file=sys.stderr)
    rows, simul = [], []
    for line in out.splitlines():
        f = line.split(",")
        if f[0] == "R":
            rows.append(dict(case=f[1], n=int(f[2]), rep=int(f[3]), method=f[4], alpha=float(f[5]),
                             direction=int(f[6]), truth=float(f[7]), value=float(f[8]),
                             lower=float(f[9]), upper=float(f[10]), informative=int(f[11])))
        elif f[0] == "S":
            simul.append(dict(case=f[1], n=int(f[2]), rep=int(f[3]), method=f[4],
                              covered=int(f[5]), informative=int(f[6]), total=int(f[7])))
    return rows, simul


def direction_name(d):
    return "P‖P'" if d == 0 else "P'‖P"


def per_order_table(by, cases, kind, default_method, cell):
    """Rows case x method (containing `kind`) x direction, one column per order of TABLE_ALPHAS."""
    out = ["| case | direction | " + " | ".join(f"α={a:g}" for a in TABLE_ALPHAS) + " |",
           "|---|---|" + "---|" * len(TABLE_ALPHAS)]
    for c in cases:
        for m in sorted({k[1] for k in by if k[0] == c and kind in k[1]}):
            for d in (0, 1):
                cells = [cell(by.get((c, m, d, a), [])) for a in TABLE_ALPHAS]
                label = c if m == default_method else f"{c} ({m})"
                out.append(f"| {label} | {direction_name(d)} | " + " | ".join(cells) + " |")
    return out


def plugin_cell(rs):
    inf = [r for r in rs if r["informative"]]
    if not inf:
        return "–"
    errs = [r["value"] / r["truth"] - 1 for r in inf]
    sd = statistics.stdev(errs) if len(errs) > 1 else 0.0
    cell = (f"{100 * statistics.mean(errs):+.1f} ± {100 * sd:.1f} "
            f"[{100 * max(abs(e) for e in errs):.1f}]")
    return cell + (f" ({len(inf)}/{len(rs)})" if len(inf) < len(rs) else "")


def bound_cell(rs):
    if not rs:
        return ""
    ratios = [r["lower"] / r["truth"] for r in rs]
    return f"{statistics.median(ratios):.3f} [{min(ratios):.3f}]"


def accuracy_tables(rows):
    by = collections.defaultdict(list)
    for r in rows:
        by[(r["case"], r["method"], r["direction"], r["alpha"])].append(r)
    cases = [c for c in ALL_CASES if any(k[0] == c for k in by)]
    out = ["### Plug-in: relative error (value / truth - 1) in %, mean ± sd over replications "
           "[largest |error|]; '–' where uninformative in every replication, (k/R) where "
           "informative in only k of R", ""]
    out += per_order_table(by, cases, "plugin", "histogram-plugin", plugin_cell)
    out += ["", "### Rigorous bounds: lower / truth, median [smallest] over replications", ""]
    out += per_order_table(by, cases, "rigorous", "rigorous-cp", bound_cell)
    return out


def coverage_tables(rows, simul):
    out = ["### Rigorous bounds: simultaneous coverage (every order of the grid, both "
           "directions), nominal 95 %", "",
           "| case | n per side | method | replications | covered | coverage | "
           "95 % lower confidence bound on coverage | orders informative |",
           "|---|---|---|---|---|---|---|---|"]
    groups = collections.defaultdict(list)
    for s in simul:
        if "rigorous" in s["method"]:
            groups[(s["case"], s["n"], s["method"])].append(s)
    for (c, n, m), ss in sorted(groups.items(), key=lambda kv: (kv[0][1], ALL_CASES.index(kv[0][0]))):
        k = sum(s["covered"] for s in ss)
        inf = sum(s["informative"] for s in ss) / sum(s["total"] for s in ss)
        out.append(f"| {c} | {n:.0e} | {m} | {len(ss)} | {k} | {100 * k / len(ss):.1f} % | "
                   f"{100 * clopper_pearson_lower(k, len(ss), miss=0.05):.1f} % | {100 * inf:.0f} % |")
    out += ["", "### Plug-in bootstrap interval (diagnostic): share of replications whose "
            "95 % percentile interval contains the truth, both directions pooled, among "
            "informative estimates", "",
            "| case | n per side | " + " | ".join(f"α={a:g}" for a in TABLE_ALPHAS) + " |",
            "|---|---|" + "---|" * len(TABLE_ALPHAS)]
    by = collections.defaultdict(list)
    for r in rows:
        if "plugin" in r["method"] and r["informative"]:
            by[(r["case"], r["n"], r["alpha"])].append(r)
    keys = sorted({(k[0], k[1]) for k in by}, key=lambda k: (k[1], ALL_CASES.index(k[0])))
    for c, n in keys:
        cells = []
        for a in TABLE_ALPHAS:
            rs = by.get((c, n, a), [])
            cov = sum(1 for r in rs if r["lower"] <= r["truth"] <= r["upper"])
            cells.append(f"{100 * cov / len(rs):.0f} %" if rs else "–")
        out.append(f"| {c} | {n:.0e} | " + " | ".join(cells) + " |")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build/release")
    ap.add_argument("--out", default="docs/studies/estimate_study.md")
    ap.add_argument("--quick", action="store_true", help="tiny sizes, for a smoke test")
    args = ap.parse_args()
    binary = os.path.join(args.build, "tests", "test_statistical")
    quick = args.quick
    t0 = time.time()
    n_acc, reps_acc = (1e5, 2) if quick else (1e7, 20)
    boot = 20 if quick else 100
    print("accuracy and power:", file=sys.stderr)
    acc_rows, acc_simul = [], []
    for c in ALL_CASES:
        r, s = run(binary, [c], n_acc, reps_acc, boot)
        acc_rows += r
        acc_simul += s
    print("coverage:", file=sys.stderr)
    cov_rows, cov_simul = [], []
    for cases, n, reps, first in [(ALL_CASES, 1e4 if quick else 1e5, 5 if quick else 200, 1001),
                                  (["pair15", "sgm25", "fig2_k10", "pair2d"],
                                   1e5 if quick else 1e6, 3 if quick else 200, 2001)]:
        for c in cases:
            r, s = run(binary, [c], n, reps, boot, first=first)
            cov_rows += r
            cov_simul += s
    lines = [
        "# Estimator study: accuracy, power and coverage against exact truth", "",
        "Produced by `/usr/bin/python3 python/studies/estimate_study.py"
        + (" --quick" if quick else "") + f"` in {(time.time() - t0) / 60:.0f} min on 2 shared "
        "cores, from the hidden test `test_statistical \"[.study]\"` "
        "(tests/statistical/test_estimate_study.cpp). Truth: exact_renyi (quadrature, checked "
        "against closed forms and mpmath in tests/unit/test_estimate_exact.cpp). Seeds: "
        "replication r uses seed r (accuracy runs 1..20, coverage runs from 1001 and 2001).", "",
        "Cases (tests/statistical/test_estimate_support.hpp): pair10/15/20 = N(2ρ, 2²) vs "
        "N(0, 2²) with ρ = 0.10/0.15/0.20; sgm = 0.5 N(0, 2²) + 0.5 N(0.4, 2²) vs N(0, 2²); "
        "sgm25 the same with mean 0.5; sgm_far = 0.9 N(0, 2²) + 0.1 N(2, 2²) vs N(0, 2²); "
        "fig2_kK = the paper's Figure 2 quadratic-loss last iterate after K epochs (P under D, "
        "P' under D'); pair2d = 2-D correlated pair, Mahalanobis shift 0.142 (logistic score). "
        "Within reach at α = 16 (90 % of the tilted law within 3.7 sd of P'): pair10, pair15, "
        "sgm; at the edge: pair20, sgm25; beyond: sgm_far (16 sd out). The Figure 2 laws are "
        "within reach at every order but their divergences are tiny (R_2 = 4e-4 to 1.6e-3).", "",
        "1-D methods: histogram-plugin on all n samples per side in bins from an independent "
        "10^5-sample pilot; rigorous-cp (partition + Clopper–Pearson) on the raw samples, "
        "30 % selection / 70 % evaluation; rigorous-bernstein (Hölder + Bernstein) on the raw "
        "samples, 10 % selection / 90 % evaluation; both at confidence 0.95 family-wise over "
        "the whole default grid (153 orders) and both directions. 2-D: the same on the "
        "logistic-regression score (its plug-in counts only the 70 % evaluation split; "
        "rigorous-bernstein chooses on the next 10 % of the rows and evaluates on the last "
        "60 %).", "",
        f"## Accuracy and power at n = {n_acc:.0e} samples per side, {reps_acc} replications", ""]
    lines += accuracy_tables(acc_rows)
    lines += ["", "## Coverage", ""]
    lines += coverage_tables(cov_rows + acc_rows, cov_simul + acc_simul)
    lines += ["", "## Accuracy and power at smaller n (from the coverage runs)", ""]
    for n in sorted({r["n"] for r in cov_rows}):
        lines += [f"### n = {n:.0e}", ""]
        lines += [x.replace("### ", "#### ") for x in accuracy_tables([r for r in cov_rows if r["n"] == n])]
        lines.append("")
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
