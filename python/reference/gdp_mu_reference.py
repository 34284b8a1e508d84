#!/usr/bin/python3
"""Independent high-precision reference values for the Gaussian-DP parameter of a pair
(bounds/gdp.hpp: normal_quantile, mu_of_set, mu_from_delta; tests/unit/test_gdp_mu.cpp).

Written from the definitions, not from the C++ code (Dong, Roth & Su 2022, as the R package
fdp documents them): G_mu(a) = Phi(Phi^{-1}(1 - a) - mu) = T(N(0, 1), N(mu, 1)), and mu-GDP
implies (eps, delta_mu(eps))-DP with delta_mu(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu -
mu/2).
  * normal_quantile(p): the x with Phi(x) = p, by bisection on log Phi at 50 digits (for p > 1/2
    as -Phi^{-1}(1 - p), 1 - p exact in mpmath);
  * mu_of_set(p, q) = max(0, Phi^{-1}(p) - Phi^{-1}(q)): the smallest mu with
    p <= Phi(Phi^{-1}(q) + mu);
  * mu_from_delta(eps, delta): the mu with delta_mu(eps) = delta, by bisection on mu.

Usage:  /usr/bin/python3 python/reference/gdp_mu_reference.py [--out-dir tests/data]
Writes  gdp_mu_reference.csv: quantity, arguments (';'-separated Python reprs), value.
"""

import datetime
import os
import sys

import mpmath as mp

import bounds_reference as br  # fmt, out_dir_from_args (the script's own folder)

mp.mp.dps = 50


def M(x):
    return mp.mpf(x)


def lower_quantile(p):
    """Phi^{-1}(p) for 0 < p <= 1/2, bisection on log Phi(x) = log p over [-80, 0]."""
    target = mp.log(p)
    lo, hi = M(-80), M(0)
    for _ in range(250):
        mid = (lo + hi) / 2
        if mp.log(mp.ncdf(mid)) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def normal_quantile(p):
    p = M(p)
    return lower_quantile(p) if p <= M(1) / 2 else -lower_quantile(1 - p)


def mu_of_set(p, q):
    return max(M(0), normal_quantile(p) - normal_quantile(q))


def gdp_delta(mu, eps):
    mu, eps = M(mu), M(eps)
    return mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)


def mu_from_delta(eps, delta):
    """The mu > 0 with gdp_delta(mu, eps) = delta (delta_mu(eps) increases in mu)."""
    lo, hi = M(0), M(1)
    while gdp_delta(hi, eps) < delta:
        lo, hi = hi, 2 * hi
    for _ in range(250):
        mid = (lo + hi) / 2
        if gdp_delta(mid, eps) < delta:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


QUANTILE_P = [1e-300, 1e-100, 1e-20, 1e-5, 0.01, 0.1, 0.3, 0.49, 0.51, 0.7, 0.9, 0.99,
              1 - 1e-5, 1 - 1e-12]
SET_PQ = [(0.9, 0.1), (0.5, 1e-6), (1e-5, 1e-9), (0.999, 0.5), (0.3, 0.2999), (0.6, 0.4),
          (1 - 1e-9, 1e-9), (0.2, 0.7)]
MU_EPS = [0.0, 0.5, 1.0, 5.0, 20.0]
MU_DELTA = [0.5, 1e-3, 1e-6, 1e-12]


def main():
    out_dir = br.out_dir_from_args(__doc__)
    rows = []
    for p in QUANTILE_P:
        rows.append(["normal_quantile", "%r" % p, br.fmt(normal_quantile(p))])
    for p, q in SET_PQ:
        rows.append(["mu_of_set", "%r;%r" % (p, q), br.fmt(mu_of_set(p, q))])
    for e in MU_EPS:
        for d in MU_DELTA:
            if e == 0.0 and d < 1e-9:
                # mu ~ 2.5 d: gdp::delta(mu, 0) = Phi(mu/2) - Phi(-mu/2) is formed from two
                # logs of about log(1/2), so it keeps only ~1e-19 absolute accuracy there.
                continue
            rows.append(["mu_from_delta", "%r;%r" % (e, d), br.fmt(mu_from_delta(e, d))])
    br.write_csv(os.path.join(out_dir, "gdp_mu_reference.csv"), [
        "# Reference values for the Gaussian-DP parameter (tests/unit/test_gdp_mu.cpp).",
        "# Produced by: /usr/bin/python3 python/reference/gdp_mu_reference.py",
        "# mpmath %s at %d digits, python %s, on %s. Do not edit by hand."
        % (mp.__version__, mp.mp.dps, sys.version.split()[0], datetime.date.today().isoformat()),
        "# arguments: normal_quantile p  mu_of_set p;q  mu_from_delta eps;delta"], rows)


if __name__ == "__main__":
    main()
