#!/usr/bin/python3
"""Can a 1-D loss make the last iterate leak more than the last-iterate heuristic?

Run:  /usr/bin/python3 python/studies/heuristic_storage_study.py

Independent of the C++ code (numpy and scipy only). The heuristic of Steinke et al. (ICLR 2025)
is the privacy profile of P = Binomial(T, q) + N(0, z^2 T) against Q = N(0, z^2 T), both
orders; the unit of the push is the step's sensitivity, z the noise multiplier. Printed, at
delta = 1e-5:

1. the heuristic, by direct numerical integration of the mixture (a second reading of
   bounds/last_iterate_heuristic.cpp);
2. one record alone (no other records), pushing by a theta-dependent amount in [-1, 1] when
   sampled ("sign": away from 0, "anti": towards 0): the last iterate's law on a fine grid.
   No policy tried beats the constant push;
3. what a last iterate could hold if the loss of the other records (present in D and D')
   quantised theta to a lattice much wider than the noise and used it to store a running sum
   of each step's binned observation: the T-fold composition of the binned step (B bins).
   With B = 4 bins this exceeds the heuristic, with many bins it is the full composition. It
   is the shape of a counterexample, not one: it assumes the storage is exact, i.e. a shared
   map applied with strength 1 at every step, which under Poisson sampling needs many other
   records (their count is random) -- beyond the exact engine today (issue 34).
"""
import numpy as np
from scipy.stats import binom, norm

DELTA = 1e-5


def eps_of(delta_of, target):
    lo, hi = 0.0, 40.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if delta_of(mid) > target else (lo, mid)
    return hi


def hockey(p, q, eps):
    return max(np.maximum(p - np.exp(eps) * q, 0).sum(), np.maximum(q - np.exp(eps) * p, 0).sum())


def heuristic(T, q, z):
    s = z * np.sqrt(T)
    x = np.linspace(-14 * s, T + 14 * s, 600001)
    dx = x[1] - x[0]
    k = np.arange(T + 1)
    p = (binom.pmf(k, T, q)[None, :] * norm.pdf(x[:, None], k[None, :], s)).sum(1) * dx
    return eps_of(lambda e: hockey(p, norm.pdf(x, 0, s) * dx, e), DELTA)


def one_record(T, q, z, push, L=60.0, h=0.004):
    x = np.arange(-L, L + h / 2, h)
    p = np.zeros_like(x)
    p[np.argmin(abs(x))] = 1.0
    r = p.copy()
    k = np.arange(-int(8 * z / h) - 1, int(8 * z / h) + 2) * h
    kernel = norm.pdf(k, 0, z) * h
    kernel /= kernel.sum()
    for _ in range(T):
        moved = np.zeros_like(p)
        idx = np.clip(np.round((x + push(x) - x[0]) / h).astype(int), 0, len(x) - 1)
        np.add.at(moved, idx, p)
        p = np.convolve((1 - q) * p + q * moved, kernel, mode="same")
        r = np.convolve(r, kernel, mode="same")
    return eps_of(lambda e: hockey(p, r, e), DELTA)


def binned_composition(T, q, z, edges, h=2e-3):
    e = np.concatenate([[-np.inf], edges, [np.inf]])
    p = q * (norm.cdf((e[1:] - 1) / z) - norm.cdf((e[:-1] - 1) / z)) + (1 - q) * (
        norm.cdf(e[1:] / z) - norm.cdf(e[:-1] / z))
    r = norm.cdf(e[1:] / z) - norm.cdf(e[:-1] / z)
    base = np.round(np.log(p / r) / h).astype(int)
    base -= base.min()
    dp, dr = np.zeros(base.max() + 1), np.zeros(base.max() + 1)
    np.add.at(dp, base, p)
    np.add.at(dr, base, r)
    a, b = np.array([1.0]), np.array([1.0])
    for _ in range(T):
        a, b = np.convolve(a, dp), np.convolve(b, dr)
    return eps_of(lambda eps: hockey(a, b, eps), DELTA)


def best_binned(T, q, z, bins):
    best = 0.0
    for top in np.linspace(1.0, 4.0, 7):
        for width in (0.5, 1.0):
            edges = np.array([top]) if bins == 2 else np.linspace(top - width * (bins - 2) / 2,
                                                                  top, bins - 1)
            best = max(best, binned_composition(T, q, z, edges))
    return best


def main():
    print(f"eps(delta = {DELTA:g}) of the last iterate; push = 1 (the sensitivity), noise z\n")
    print("| T | q | z | heuristic | one record: sign | anti | stored 2 bins | 4 bins | 8 bins "
          "| composition |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for T, q, z in [(5, 0.2, 1.0), (20, 0.2, 1.0)]:
        row = [heuristic(T, q, z),
               one_record(T, q, z, lambda x: np.where(x >= 0, 1.0, -1.0)),
               one_record(T, q, z, lambda x: np.where(x >= 0, -1.0, 1.0))]
        row += [best_binned(T, q, z, b) for b in (2, 4, 8)]
        row.append(binned_composition(T, q, z, np.linspace(-6, 8, 200)))
        print(f"| {T} | {q:g} | {z:g} | " + " | ".join(f"{v:.4f}" for v in row) + " |")


if __name__ == "__main__":
    main()
