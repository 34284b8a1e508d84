"""Draws the analytic bound curves of Figures 1 and 2 of Ye & Shokri 2022 (epsilon of the
(alpha, epsilon)-RDP guarantee against epochs K) from `rdpaudit bounds --csv`.

    /usr/bin/python3 python/plots/paper_bound_curves.py [--rdpaudit build/release/rdpaudit]

Writes results/paper_fig1_bounds.png and results/paper_fig2_bounds.png. The empirical
overlays (issue 5) are drawn by the audit's own plots; these are the bounds alone.
"""

import argparse
import csv
import io
import os
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def bound_rows(rdpaudit, experiment):
    out = subprocess.run([rdpaudit, "bounds", experiment, "--csv", "--applicable"],
                         check=True, capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


def curve(rows, bound, alpha, **where):
    pts = [(int(r["K"]), float(r["value"])) for r in rows
           if r["bound"] == bound and float(r["alpha"]) == alpha
           and all(r[k] == str(v) for k, v in where.items())]
    return zip(*sorted(pts)) if pts else ([], [])


STYLE = {10: "tab:blue", 15: "tab:red"}


def panel(ax, rows, series, title, **where):
    for alpha in (10, 15):
        for bound, label, ls, lw in series:
            k, v = curve(rows, bound, alpha, **where)
            if k:
                ax.plot(k, v, ls, lw=lw, color=STYLE[alpha], label=f"{label}, α={alpha}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("epochs K")
    ax.set_ylabel("ε of (α, ε)-RDP")
    ax.set_title(title)
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rdpaudit", default=os.path.join(ROOT, "build/release/rdpaudit"))
    ap.add_argument("--out", default=os.path.join(ROOT, "results"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    fig1 = bound_rows(args.rdpaudit, os.path.join(ROOT, "experiments/paper_fig1.toml"))
    series1 = [("ys_thm3.3_fixed_order", "Thm 3.3 (privacy dynamics)", "-", 2.0),
               ("ys_thm2.1_naive", "Thm 2.1 (naive)", "-", 0.8),
               ("ys_thmD.5_balle_composed", "Balle et al. + composition", "--", 1.0)]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    panel(axes[0], fig1, series1, "Figure 1(a): first batch (j0 = 0)", j0=0)
    panel(axes[1], fig1, series1, "Figure 1(b): last batch (j0 = 24)", j0=24)
    fig.suptitle("fixed order; λ=1, β=4, S_g=4, n=50, η=0.02, σ²=4, b=2")
    fig.tight_layout()
    p1 = os.path.join(args.out, "paper_fig1_bounds.png")
    fig.savefig(p1, dpi=120)

    fig2 = bound_rows(args.rdpaudit, os.path.join(ROOT, "experiments/paper_fig2.toml"))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    panel(axes[0], fig2, [("ys_thm4.2_shuffle_partition", "Thm 4.2 (shuffle & partition)", "-", 2.0),
                          ("ys_thm3.3_worst_batch", "Thm 3.3, last batch", "--", 0.8),
                          ("ys_fig2_composition_approx", "composition baseline", "-", 0.8)],
          "Figure 2(a): shuffle and partition", scheme="shuffle_partition")
    panel(axes[1], fig2, [("ys_thm4.3_sample_wor", "Thm 4.3 (sample w/o replacement)", "-", 2.0),
                          ("ys_fig2_composition_approx", "composition baseline", "-", 0.8)],
          "Figure 2(b): sampling without replacement", scheme="sample_without_replacement")
    fig.suptitle("λ=1, β=4, S_g=4, n=50, η=0.02, σ²=4, b=2")
    fig.tight_layout()
    p2 = os.path.join(args.out, "paper_fig2_bounds.png")
    fig.savefig(p2, dpi=120)
    print(f"wrote {p1} and {p2}")


if __name__ == "__main__":
    sys.exit(main())
