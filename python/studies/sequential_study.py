"""Sequential audit (rdpaudit run --until-decided) over seeds: how many trajectories it needs.

usage: /usr/bin/python3 python/studies/sequential_study.py [--seeds 10] [--max 10000000]

Runs experiments/blog_sequential.toml (the blog's Theorem 1 at L / sigma = 0.25, about half
the true R_alpha) with --until-decided for each seed and prints, per seed, the looks, the
trajectories per dataset counted and why the run stopped; then the same on an exactly tight
valid bound (the Gaussian pair of tests/data/audit_regression.toml against its own R_alpha,
samples only), which must spend the budget without a violation.
"""

import argparse
import os
import subprocess
import sys
import tempfile

from rdpaudit import load

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("RDPAUDIT_CLI", os.path.join(ROOT, "build", "release", "rdpaudit"))


def run(cfg, out, seed, budget):
    subprocess.run([CLI, "run", cfg, "-o", out, "--seed", str(seed), "--until-decided",
                    "--max-trajectories", str(budget)], check=True, capture_output=True)
    with load(out) as r:
        a = r.attrs
        return (int(a["looks"]), int(a["looks_planned"]), int(a["trajectories"]),
                a["stop_reason"], str(r.audit().bounds["outcome"][0]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--max", type=int, default=10_000_000)
    args = ap.parse_args()
    print(f"Command: /usr/bin/python3 python/studies/sequential_study.py --seeds {args.seeds} "
          f"--max {args.max}\n")
    with tempfile.TemporaryDirectory() as work:
        blog = os.path.join(ROOT, "experiments", "blog_sequential.toml")
        print("| case | seed | looks (planned) | trajectories per dataset | stopped | outcome |")
        print("| --- | ---: | ---: | ---: | --- | --- |")
        used = []
        for seed in range(1, args.seeds + 1):
            looks, planned, n, stop, outcome = run(blog, os.path.join(work, "b.h5"), seed,
                                                   args.max)
            used.append(n)
            print(f"| blog Theorem 1, L/σ = 0.25 | {seed} | {looks} ({planned}) | {n} | {stop} | "
                  f"{outcome} |", flush=True)
        text = open(os.path.join(ROOT, "tests", "data", "audit_regression.toml")).read()
        text = text.replace('audit = ["gaussian_composition", "ten_times_too_small", '
                            '"ten_times_loose"]',
                            'audit = ["gaussian_composition"]\nexact_verdicts = false')
        text = text.replace("trajectories = 200000", "trajectories = 100000")
        tight = os.path.join(work, "tight.toml")
        open(tight, "w").write(text)
        for seed in range(1, 4):
            looks, planned, n, stop, outcome = run(tight, os.path.join(work, "t.h5"), seed,
                                                   args.max)
            print(f"| exactly tight Gaussian bound | {seed} | {looks} ({planned}) | {n} | {stop} "
                  f"| {outcome} |", flush=True)
        used.sort()
        print(f"\nblog: median {used[len(used) // 2]} trajectories per dataset, "
              f"range {used[0]} - {used[-1]}")


if __name__ == "__main__":
    sys.exit(main())
