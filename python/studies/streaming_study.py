"""Power and memory of the two-phase estimation (issue 10), through the command line.

usage: /usr/bin/python3 python/studies/streaming_study.py [--part rss|power|detect|all]
       [--seeds N] [--jobs J] [--out docs/studies/streaming.md]

Paper setting (lambda = 1, n = 50, b = 2, eta = 0.02, sigma^2 = 4, S_g = 4), shuffle and
partition, 1-D quadratic loss: the exact R_alpha is known (quadrature), so each run's
simultaneous lower bound (/audit/cells/lower: level delta / (m k) per cell, as the verdicts use
it) is held against it.

  rss     peak resident memory and the estimation share of the wall time at 10^6, 10^7 and
          10^8 trajectories per dataset (K = 1), d = 1; d = 2 and d = 8 through the logistic
          loss (the learned score), 10^6 and 10^7.
  power   lower / exact at alpha = 2, 4, 8, 16, both directions, K = 1 at 10^8 and K = 50 at
          10^7, over --seeds seeds: median and worst.
  detect  a custom bound at 0.9 x the exact R_alpha (alpha = 2, 4, 8, 16; samples only,
          bounds.exact_verdicts = false): in how many of --seeds runs it is found violated, at
          10^6, 10^7 and 10^8.
Writes a Markdown report (default docs/studies/streaming.md) with the commands and the tables.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from rdpaudit import load

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("RDPAUDIT_CLI", os.path.join(ROOT, "build", "release", "rdpaudit"))
ALPHAS = [2, 4, 8, 16]

PAPER = """[experiment]
name = "{name}"
seed = {seed}
trajectories = {trajectories}
[model]
loss = "quadratic"
dim = {dim}
lambda = 1.0
[data]
preset = "quadratic_worst_case"
n = 50
sensitivity = 4.0
[training]
scheme = "shuffle_partition"
eta = 0.02
batch_size = 2
epochs = {epochs}
[noise]
sigma2 = 4.0
[estimate]
bootstrap = 0
[bounds]
alphas = [2, 4, 8, 16]
exact_verdicts = false
audit = [{audit}]
{custom}
"""


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def run(cfg, out, extra=()):
    """Runs rdpaudit; returns (wall seconds, peak RSS in MB of this child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.time()
    proc = subprocess.run([CLI, "run", cfg, "-o", out, *extra], capture_output=True, text=True)
    wall = time.time() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{cfg}: exit {proc.returncode}: {proc.stderr[-2000:]}")
    # ru_maxrss of RUSAGE_CHILDREN is the largest child so far: run the biggest last.
    return wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0, before


def ratios(path):
    """{(alpha, direction): lower / exact} from /audit/cells of the gaussian_composition row
    (any tested bound carries the same lower bound) and the exact estimates."""
    with load(path) as r:
        c = r.audit().cells
        alpha, d, lower, exact = c["alpha"], c["direction"], c["lower"], c["exact"]
        out = {}
        for a in ALPHAS:
            for k in (0, 1):
                sel = (np.abs(alpha - a) < 1e-9) & (d == k) & np.isfinite(exact)
                if sel.any():
                    out[(a, k)] = float(np.max(lower[sel]) / exact[sel][0])
        return out


def exact_values(work, epochs):
    """Exact R_alpha (both directions equal here? no: take the smaller) of the setting."""
    cfg = write(os.path.join(work, f"exact_{epochs}.toml"),
                PAPER.format(dim=1, name="exact", seed=1, trajectories=20000, epochs=epochs,
                             audit='"gaussian_composition"', custom=""))
    out = os.path.join(work, f"exact_{epochs}.h5")
    run(cfg, out)
    with load(out) as r:
        c = r.audit().cells
        alpha, exact = c["alpha"], c["exact"]
        return {a: float(min(exact[(np.abs(alpha - a) < 1e-9)])) for a in ALPHAS}


def part_rss(work, lines, dims):
    lines += ["## Memory and estimation time (K = 1; d > 1: learned scores)", "",
              "| d | trajectories per dataset | wall s | estimation s (share) | peak RSS MB |",
              "| ---: | ---: | ---: | ---: | ---: |"]
    for dim in dims:
        for n in ((10**6, 10**7, 10**8) if dim == 1 else (10**7, 10**8)):
            cfg = write(os.path.join(work, f"rss_{dim}_{n}.toml"),
                        PAPER.format(dim=dim, name="rss", seed=1, trajectories=n, epochs=1,
                                     audit='"gaussian_composition"', custom=""))
            out = os.path.join(work, f"rss_{dim}_{n}.h5")
            t0 = time.time()
            # Peak RSS of this run alone: GNU time's maximum resident set size.
            proc = subprocess.run(["/usr/bin/time", "-f", "%M", CLI, "run", cfg, "-o", out],
                                  capture_output=True, text=True)
            wall = time.time() - t0
            if proc.returncode != 0:
                raise RuntimeError(proc.stderr[-2000:])
            rss = int(proc.stderr.strip().splitlines()[-1]) / 1024.0
            with load(out) as r:
                est = float(r.scenarios[0].attrs["estimation_seconds"])
            lines.append(f"| {dim} | {n:.0e} | {wall:.1f} | {est:.2f} ({est / wall:.1%}) | "
                         f"{rss:.0f} |")
            print(lines[-1], flush=True)
    lines.append("")


def part_power(work, seeds, lines):
    lines += ["## Simultaneous lower bound ÷ exact R_α", "",
              "| K | trajectories per dataset | α | median over seeds (both directions) | worst |",
              "| ---: | ---: | ---: | ---: | ---: |"]
    for epochs, n in ((1, 10**8), (50, 10**7)):
        per = {a: [] for a in ALPHAS}
        for seed in range(1, seeds + 1):
            cfg = write(os.path.join(work, f"power_{epochs}_{seed}.toml"),
                        PAPER.format(dim=1, name="power", seed=seed, trajectories=n, epochs=epochs,
                                     audit='"gaussian_composition"', custom=""))
            out = os.path.join(work, f"power_{epochs}_{seed}.h5")
            run(cfg, out)
            for (a, _), r in ratios(out).items():
                per[a].append(r)
            print(f"K={epochs} seed {seed}: " + ", ".join(
                f"{a}: {min(per[a][-2:]):.3f}" for a in ALPHAS), flush=True)
        for a in ALPHAS:
            lines.append(f"| {epochs} | {n:.0e} | {a} | {statistics.median(per[a]):.3f} | "
                         f"{min(per[a]):.3f} |")
    lines.append("")


def part_detect(work, seeds, lines):
    exact = exact_values(work, 1)
    formula = " : ".join(f"alpha == {a} ? {0.9 * exact[a]!r}" for a in ALPHAS) + " : 1e300"
    custom = ('[[bounds.custom]]\nname = "truth_x0.9"\nformula = "' + formula +
              '"\nexpect = "violated"\n')
    lines += ["## Detection of a bound at 0.9 × the exact R_α (K = 1)", "",
              f"Exact R_α (quadrature): " + ", ".join(f"α = {a}: {exact[a]:.6g}" for a in ALPHAS),
              "", "| trajectories per dataset | found violated | runs |", "| ---: | ---: | ---: |"]
    for n in (10**6, 10**7, 10**8):
        found = 0
        for seed in range(1, seeds + 1):
            cfg = write(os.path.join(work, f"detect_{n}_{seed}.toml"),
                        PAPER.format(dim=1, name="detect", seed=seed, trajectories=n, epochs=1,
                                     audit='"truth_x0.9"', custom=custom))
            out = os.path.join(work, f"detect_{n}_{seed}.h5")
            run(cfg, out)
            with load(out) as r:
                outcome = str(r.audit().bounds["outcome"][0])
            found += outcome.startswith("violated")
        lines.append(f"| {n:.0e} | {found} | {seeds} |")
        print(lines[-1], flush=True)
    lines.append("")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", default="all", choices=("rss", "power", "detect", "all"))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--dims", default="1,2,8", help="dimensions of the rss part")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "studies", "streaming.md"))
    args = ap.parse_args()
    lines = ["# Two-phase estimation: memory, power, detection (issue 10)", "",
             f"Command: `/usr/bin/python3 python/studies/streaming_study.py --part {args.part} "
             f"--seeds {args.seeds}` (2-core machine).", ""]
    with tempfile.TemporaryDirectory() as work:
        if args.part in ("rss", "all"):
            part_rss(work, lines, [int(d) for d in args.dims.split(",")])
        if args.part in ("power", "all"):
            part_power(work, args.seeds, lines)
        if args.part in ("detect", "all"):
            part_detect(work, args.seeds, lines)
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
