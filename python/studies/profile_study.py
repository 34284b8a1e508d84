#!/usr/bin/python3
"""Certified privacy profiles and (eps, delta) claims, through the whole command line (issue 14).

    /usr/bin/python3 python/studies/profile_study.py [ceiling] [accuracy] [coverage] [blog] \\
        [--binary build/release/rdpaudit] [--jobs 2] [--runs 200] [--coverage-trajectories 1e5]

Prints the figures of docs/studies/profile.md (markdown tables), one part per argument (all
four without arguments):

  ceiling   what any set-based Clopper-Pearson bound can keep at 10^7 trajectories: the best
            tail set with its expected counts (no sampling noise), at the per-bound miss of the
            run's family (0.05 / (2 x 80)), for the Gaussian pair and subsampled Gaussians;
  accuracy  experiments/profile_cases.toml (q = 1: Gaussian pair, q = 0.5 and, added here,
            q = 0.1 with mu / s = 2: T = 1 Poisson-subsampled Gaussians) at 10^7 trajectories,
            seeds 1..5: certified eps(1e-5) / exact eps(1e-5), larger direction;
  coverage  the same file at --coverage-trajectories (default 10^5) for seeds 1..--runs:
            runs in which every certified delta_lo(eps) (the default eps grid 0 .. 10) and
            eps_lo(delta) of every score and direction lies below the exact profile
            (simultaneous coverage, nominal >= 95 %), runs in which the exactly tight claim is
            called violated (false violations, nominal <= 5 %), runs in which the claim at half
            the truth is found violated (power), each with a Clopper-Pearson 95 % interval;
  blog      experiments/profile_blog.toml at 10^4 .. 10^7 trajectories, seeds 1..5: in how
            many runs the blog's Theorem 1 is found violated as a Renyi bound and through its
            (eps, delta) consequence (samples alone).
"""
import argparse
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy import stats
from scipy.optimize import brentq

from rdpaudit import load
from rdpaudit.stats import clopper_pearson, clopper_pearson_lower, clopper_pearson_upper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CASES = "experiments/profile_cases.toml"
BLOG = "experiments/profile_blog.toml"


def run(binary, config, out, seed, trajectories, threads=1):
    proc = subprocess.run([binary, "run", config, "--seed", str(seed), "--trajectories",
                           str(int(trajectories)), "-o", out, "--threads", str(threads)],
                          cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{config} seed {seed}: exit {proc.returncode}: {proc.stderr}")
    return out


def profiles(path):
    """Per scenario: {(method, direction): row dict} of estimates/profile."""
    out = []
    with load(path) as r:
        for s in r.scenarios:
            p = s.profile()
            rows = {(row["method"], row["direction"]):
                    {k: row[k] for k in ("delta_value", "delta_lower", "epsilon_value",
                                         "epsilon_lower", "epsilon_upper")}
                    for row in p.rows}
            out.append({"rows": rows, "deltas": p.deltas, "epsilons": p.epsilons})
    return out


def audit_rows(path):
    """{bound name: outcome} of /audit/bounds."""
    with load(path) as r:
        b = r.audit().bounds
        return dict(zip(r.audit().bound_names, (str(o) for o in b["outcome"])))


def violated_cells(path, name):
    """The scenario of every violated cell of bound `name`, one entry per cell."""
    with load(path) as r:
        a = r.audit()
        row = a.bound_names.index(name)
        c = a.cells
        return [int(s) for s, b, v in zip(c["scenario"], c["bound"], c["verdict"])
                if b == row and v.startswith("violated")]


def claim_violations(path, name):
    """Scenarios in which some cell of `name` is violated."""
    return set(violated_cells(path, name))


# ---------------------------------------------------------------- ceiling

def subsampled_delta(eps, q, mu):
    """delta(eps) of (1 - q) N(0, 1) + q N(mu, 1) against N(0, 1) (monotone ratio)."""
    r = (np.exp(eps) - (1 - q)) / q
    t = (np.log(r) + mu * mu / 2) / mu
    return (1 - q) * stats.norm.sf(t) + q * stats.norm.sf(t - mu) - np.exp(eps) * stats.norm.sf(t)


def ceiling(n=1e7, delta=1e-5, cuts=80, level=0.05):
    miss = level / (2 * cuts)
    print(f"\n### Ceiling at n = {n:.0e}, delta = {delta:g} (best tail set, expected counts, "
          f"one-sided miss {miss:.2g} per bound)\n")
    print("| case | true eps(delta) | best certified | ratio | P(S) count | P'(S) count |")
    print("| --- | --- | --- | --- | --- | --- |")
    for q, mu in [(1.0, 1.0), (0.5, 1.0), (0.2, 1.0), (0.1, 1.0), (0.1, 2.0), (0.01, 4.0)]:
        truth = brentq(lambda e: subsampled_delta(e, q, mu) - delta, 1e-9, 50, xtol=1e-13)
        best, counts = 0.0, None
        for t in np.arange(-2.0, 12.0, 0.01):
            p = (1 - q) * stats.norm.sf(t) + q * stats.norm.sf(t - mu)
            pp = stats.norm.sf(t)
            kp, kq = round(p * n), round(pp * n)
            if kp == 0:
                continue
            lo = clopper_pearson_lower(kp, n, miss)
            hi = clopper_pearson_upper(kq, n, miss)
            if lo > delta and np.log((lo - delta) / hi) > best:
                best, counts = np.log((lo - delta) / hi), (kp, kq)
        name = "Gaussian pair mu/s = 1" if q == 1 else f"subsampled q = {q:g}, mu/s = {mu:g}"
        print(f"| {name} | {truth:.4f} | {best:.4f} | {best / truth:.3f} | {counts[0]} | "
              f"{counts[1]} |")


# ---------------------------------------------------------------- accuracy

def accuracy(binary, work, seeds=5, trajectories=1e7):
    # The file's two cases plus q = 0.1, mu / s = 2 (S_g = 2); claims removed (their formula
    # knows the first two cases only).
    with open(os.path.join(ROOT, CASES)) as f:
        body = f.read().split("[[profile.claims]]")[0]
    body = body.replace("sensitivity = [10.0, 5.0]", "sensitivity = [10.0, 5.0, 2.0]")
    body = body.replace("sampling_rate = [1.0, 0.5]", "sampling_rate = [1.0, 0.5, 0.1]")
    config = os.path.join(work, "accuracy.toml")
    with open(config, "w") as f:
        f.write(body)
    labels = ["Gaussian pair (q = 1, mu/s = 1)", "subsampled (q = 0.5, mu/s = 1)",
              "subsampled (q = 0.1, mu/s = 2)"]
    ratios = [[] for _ in labels]
    for seed in range(1, seeds + 1):
        path = run(binary, config, os.path.join(work, f"acc{seed}.h5"), seed, trajectories, 2)
        for k, sc in enumerate(profiles(path)):
            rows = sc["rows"]
            d = max((0, 1), key=lambda x: rows[("exact-profile", x)]["epsilon_value"][0])
            ratios[k].append(rows[("profile-cp", d)]["epsilon_lower"][0] /
                             rows[("exact-profile", d)]["epsilon_value"][0])
    print(f"\n### Certified eps(1e-5) / exact, {trajectories:.0e} trajectories, seeds 1..{seeds}\n")
    print("| case | ratios | median | smallest |")
    print("| --- | --- | --- | --- |")
    for label, r in zip(labels, ratios):
        print(f"| {label} | {', '.join(f'{x:.3f}' for x in r)} | {np.median(r):.3f} | "
              f"{min(r):.3f} |")


# ---------------------------------------------------------------- coverage

def coverage(binary, work, runs, trajectories, jobs):
    def one(seed):
        path = run(binary, CASES, os.path.join(work, f"cov{seed}.h5"), seed, trajectories)
        covered = []
        for sc in profiles(path):
            rows, ok = sc["rows"], True
            for (m, d), row in rows.items():
                if m == "exact-profile":
                    continue
                exact = rows[("exact-profile", d)]
                ok &= bool(np.all(row["delta_lower"] <= exact["delta_value"] + 1e-12))
                ok &= bool(np.all(row["epsilon_lower"] <= exact["epsilon_upper"]))
            covered.append(ok)
        tight, half = claim_violations(path, "tight"), claim_violations(path, "half")
        conv = claim_violations(path, "gaussian_composition (eps, delta)")
        os.remove(path)
        return covered, tight, half, conv

    with ThreadPoolExecutor(jobs) as pool:
        results = list(pool.map(one, range(1, runs + 1)))
    print(f"\n### Coverage and claims over {runs} runs of {CASES} at {trajectories:.0e} "
          "trajectories\n")
    print("| scenario | simultaneous coverage | 95 % CI | tight claim violated | 95 % CI | "
          "half claim violated | conversion violated |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for k, label in enumerate(["Gaussian pair", "subsampled q = 0.5"]):
        cov = sum(r[0][k] for r in results)
        tight = sum(k in r[1] for r in results)
        half = sum(k in r[2] for r in results)
        conv = sum(k in r[3] for r in results)
        lo, hi = clopper_pearson(cov, runs)
        tlo, thi = clopper_pearson(tight, runs)
        print(f"| {label} | {cov} / {runs} | [{lo:.3f}, {hi:.3f}] | {tight} / {runs} | "
              f"[{tlo:.3f}, {thi:.3f}] | {half} / {runs} | {conv} / {runs} |")
    anyt = sum(bool(r[1]) for r in results)
    lo, hi = clopper_pearson(anyt, runs)
    print(f"\nRuns with any false violation of the tight claim (either scenario): {anyt} / "
          f"{runs}, 95 % CI [{lo:.3f}, {hi:.3f}] (nominal level 0.05, family-wise per run).")


# ---------------------------------------------------------------- blog

def blog(binary, work, seeds=5):
    print(f"\n### Blog Theorem 1 at T = 1, L = sigma = 1: runs (of {seeds}) finding it violated\n")
    print("| trajectories | as a Renyi bound | through (eps, delta) | (eps, delta) cells violated, "
          "mean of 6 |")
    print("| --- | --- | --- | --- |")
    for n in (1e4, 3e4, 1e5, 3e5, 1e6, 3e6, 1e7):
        renyi = conv = cells = 0
        for seed in range(1, seeds + 1):
            path = run(binary, BLOG, os.path.join(work, f"blog{seed}.h5"), seed, n, 2)
            rows = audit_rows(path)
            renyi += rows["blog_thm1_saturation"].startswith("violated")
            conv += rows["blog_thm1_saturation (eps, delta)"].startswith("violated")
            cells += len(violated_cells(path, "blog_thm1_saturation (eps, delta)"))
            os.remove(path)
        print(f"| {n:.0e} | {renyi} | {conv} | {cells / seeds:.1f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("parts", nargs="*", default=["ceiling", "accuracy", "coverage", "blog"])
    ap.add_argument("--binary", default=os.path.join(ROOT, "build/release/rdpaudit"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--coverage-trajectories", type=float, default=1e5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        for part in args.parts:
            if part == "ceiling":
                ceiling()
            elif part == "accuracy":
                accuracy(args.binary, work)
            elif part == "coverage":
                coverage(args.binary, work, args.runs, args.coverage_trajectories, args.jobs)
            elif part == "blog":
                blog(args.binary, work)
            else:
                sys.exit(f"unknown part {part!r}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
