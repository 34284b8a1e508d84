#!/usr/bin/python3
"""Independent high-precision reference values for the bounds rdpaudit added from the literature
after its two sources (tests/unit/test_bounds_literature.cpp).

Written from the statements, not from the C++ code:
  * Wang, Balle, Kasiviswanathan 2019 (WBK), "Subsampled Renyi DP and analytical moments
    accountant", Theorem 27 (Gaussian mechanism, sampling without replacement, replace-one
    neighbours), in the form Google's dp_accounting evaluates it
    (rdp_privacy_accountant._compute_rdp_sample_wor_gaussian_int; the paper's own text was not
    reachable here):
      A = 1 + sum_{i=2}^alpha q^i C(alpha,i) min{4 sqrt(D_{2 floor(i/2)} D_{2 ceil(i/2)}),
                                                  2 e^{(i-1) eps(i)}},
      eps(i) = i/(2 z^2), D_l = l-th forward difference at 0 of j -> e^{(j-1) eps(j)},
      RDP = log(A)/(alpha-1); fractional alpha by Corollary 10's linear interpolation of
      log(A).  D_l is the alternating binomial sum itself, evaluated at a working precision
      raised until two successive precisions agree to 40 digits (the C++ code integrates
      E[(Y-1)^l] numerically or sums in long double: a different method).
  * The Gaussian mechanism's privacy profile (Balle & Wang 2018, as Feldman & Shenfeld 2025
    Lemma A.2 state it): delta(eps) = Phi(1/(2 sigma) - eps sigma) - e^eps Phi(-1/(2 sigma) -
    eps sigma); mu-GDP is the Gaussian with sigma = 1/mu, so delta_mu(eps) = Phi(-eps/mu +
    mu/2) - e^eps Phi(-eps/mu - mu/2), and its Renyi divergence is alpha mu^2/2.
  * Feldman & Shenfeld 2025, "Privacy amplification by random allocation", Theorem 4.1 (first
    part): for an (eps0, delta0)-DP randomizer R and any eps, delta > 0,
      delta_{A_t(R)}(eps) <= delta_{P_{t,eta}(R)}(eps) + t delta0 + delta,
      eta = 1/(t (1 - gamma)),  gamma = min{cosh(eps0) sqrt(2 ln(1/delta)/t), 1 - 1/t};
    for the Gaussian randomizer delta0 = delta_{N_sigma}(eps0) and the Poisson term is bounded
    through the RDP of t Poisson-subsampled Gaussian steps at rate eta (MTZ, from
    bounds_reference.py) and Canonne-Kamath-Steinke Prop. 12 (= their Lemma A.1), minimised
    over a grid of integer orders. The profile bound fs25_thm4.1_random_allocation is its
    minimum over a fixed grid of the free eps0 and delta (allocation_epsilon: the splits of the
    target delta; allocation_delta_min: t delta0 and delta on powers of 10), eps0 the smallest
    whose t delta0 fits the split (the Gaussian's exact eps at delta0).

Usage:  /usr/bin/python3 python/reference/literature_reference.py [--out-dir tests/data]
Writes  literature_reference.csv: quantity, arguments (';'-separated Python reprs), value.
"""

import csv
import datetime
import os
import sys

import mpmath as mp

import bounds_reference as br  # MTZ's sampled Gaussian, shared (the script's own folder)
from wbk_theorem27 import forward_difference, wbk27_rdp

mp.mp.dps = 50


def M(x):
    return mp.mpf(x)


# ---- Gaussian mechanism / Gaussian DP ------------------------------------------------------

def gdp_delta(mu, eps):
    mu, eps = M(mu), M(eps)
    return mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)


def gdp_epsilon(mu, delta):
    """The eps >= 0 with gdp_delta(mu, eps) = delta (0 when delta >= delta(0))."""
    if gdp_delta(mu, 0) <= delta:
        return mp.mpf(0)
    lo, hi = mp.mpf(0), mp.mpf(1)
    while gdp_delta(mu, hi) > delta:  # delta(eps) decreases in eps
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if gdp_delta(mu, mid) > delta:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


# ---- Feldman & Shenfeld 2025, Theorem 4.1 --------------------------------------------------

def allocation_rate(t, eps0, delta):
    t = M(t)
    gamma = min(mp.cosh(M(eps0)) * mp.sqrt(2 * mp.log(1 / M(delta)) / t), 1 - 1 / t)
    return 1 / (t * (1 - gamma))


def delta_improved(alphas, rdps, eps):
    """Canonne-Kamath-Steinke 2020 Prop. 12 solved for delta, minimised, capped at 1."""
    best = None
    for a, r in zip(alphas, rdps):
        a = M(a)
        ld = (a - 1) * (r - eps) + (a - 1) * mp.log((a - 1) / a) - mp.log(a)
        if best is None or ld < best[0]:
            best = (ld, a)
    return min(mp.exp(best[0]), mp.mpf(1)), best[1]


ALLOCATION_ALPHAS = list(range(2, 65))


def allocation_delta(z, t, eps, eps0, delta_tail):
    eta = allocation_rate(t, eps0, delta_tail)
    rdps = [t * br.mtz_rdp(eta, M(z), M(a)) for a in ALLOCATION_ALPHAS]
    poisson, _ = delta_improved(ALLOCATION_ALPHAS, rdps, M(eps))
    local = t * gdp_delta(1 / M(z), eps0)
    return min(poisson + local + M(delta_tail), mp.mpf(1)), poisson, local, eta


def epsilon_improved(alphas, rdps, delta):
    """Canonne-Kamath-Steinke 2020 Prop. 12 solved for eps, minimised over the orders, >= 0."""
    best = min(r + mp.log(1 - 1 / M(a)) - (mp.log(delta) + mp.log(a)) / (M(a) - 1)
               for a, r in zip(alphas, rdps))
    return max(best, mp.mpf(0))


def allocation_eps0(z, t, local):
    """The smallest eps0 with t delta0(eps0) <= local (Theorem 4.1 needs eps0 > 0: where the
    Gaussian is (0, local/t)-DP already, any eps0 > 0 does, and cosh(eps0) -> 1)."""
    e = gdp_epsilon(1 / M(z), M(local) / t)
    return e if e > 0 else mp.mpf(5e-324)


# The grids of the C++ minimum (bounds/allocation.hpp), as its documentation states them.
SPLIT_FRACTIONS = [0.5, 0.2, 0.1, 0.01, 0.001]


def allocation_epsilon(z, t, delta):
    """min over t delta0 = f_L delta, tail = f_T delta (f_L + f_T < 1) of the eps whose Poisson
    term, at rate eta, stays within delta - t delta0 - tail."""
    delta = M(delta)
    best = mp.inf
    for fl in SPLIT_FRACTIONS:
        eps0 = allocation_eps0(z, t, M(fl) * delta)
        local = t * gdp_delta(1 / M(z), eps0)
        for ft in SPLIT_FRACTIONS:
            if fl + ft >= 1:
                continue
            tail = M(ft) * delta
            rest = delta - local - tail
            if rest <= 0:
                continue
            eta = allocation_rate(t, eps0, tail)
            rdps = [t * br.mtz_rdp(eta, M(z), M(a)) for a in ALLOCATION_ALPHAS]
            best = min(best, epsilon_improved(ALLOCATION_ALPHAS, rdps, rest))
    return best


def allocation_delta_min(z, t, eps):
    """min over t delta0 = 10^-k and tail = 10^-k, k = 1 ... 15, of Theorem 4.1's delta."""
    best = mp.mpf(1)
    for kl in range(1, 16):
        eps0 = allocation_eps0(z, t, mp.mpf(10) ** -kl)
        for kt in range(1, 16):
            best = min(best, allocation_delta(z, t, eps, eps0, mp.mpf(10) ** -kt)[0])
    return best


# ---- the table -----------------------------------------------------------------------------

WBK_Q = [0.001, 0.01, 0.04, 0.1, 0.5, 0.9]
WBK_Z = [0.3, 0.5, 1.0, 2.5, 5.0, 10.0, 100.0, 10000.0]
WBK_ALPHA = [1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 8.0, 10.0, 10.5, 16.0, 31.0, 32.0, 64.0, 100.0,
             128.0, 255.0, 256.0]
FDIFF_L = [2, 4, 6, 8, 16, 64, 128, 256, 512, 1024]
GDP_MU = [0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0]
GDP_EPS = [0.0, 0.1, 1.0, 5.0, 20.0, 50.0]
GDP_DELTA = [0.5, 1e-3, 1e-5, 1e-10]
ALLOC_RATE = [(10, 0.5, 1e-5), (1000, 0.5, 1e-5), (1000, 2.0, 1e-10), (10**6, 1.0, 1e-10),
              (10**4, 0.1, 1e-6)]
# (z, t, eps, eps0, delta_tail)
ALLOC_DELTA = [(5.0, 1000, 1.0, 0.5, 1e-8), (10.0, 10000, 0.5, 0.3, 1e-10),
               (2.0, 100, 2.0, 2.0, 1e-6), (20.0, 100000, 0.2, 0.2, 1e-9)]
# (z, t, delta) and (z, t, eps): the minima over the grids
ALLOC_EPSILON = [(10.0, 100, 1e-5), (5.0, 1000, 1e-5), (10.0, 1000, 1e-3), (2.0, 10000, 1e-5),
                 (0.5, 100, 1e-6)]
ALLOC_DELTA_MIN = [(10.0, 100, 0.1), (5.0, 1000, 0.05), (2.0, 10000, 0.3)]


fmt = br.fmt


def main():
    out_dir = br.out_dir_from_args(__doc__)
    rows = []
    for q in WBK_Q:
        for z in WBK_Z:
            for a in WBK_ALPHA:
                rows.append(["wbk27_rdp", "%r;%r;%r" % (q, z, a), fmt(wbk27_rdp(q, z, a))])
            print("wbk27 q=%g z=%g done" % (q, z), file=sys.stderr)
    for z in WBK_Z:
        for l in FDIFF_L:
            rows.append(["wbk27_log_fdiff", "%r;%d" % (z, l), fmt(mp.log(forward_difference(z, l)))])
    for mu in GDP_MU:
        for e in GDP_EPS:
            rows.append(["gdp_delta", "%r;%r" % (mu, e), fmt(gdp_delta(mu, e))])
        for d in GDP_DELTA:
            rows.append(["gdp_epsilon", "%r;%r" % (mu, d), fmt(gdp_epsilon(mu, d))])
    for t, e0, d in ALLOC_RATE:
        rows.append(["allocation_rate", "%d;%r;%r" % (t, e0, d), fmt(allocation_rate(t, e0, d))])
    for z, t, e, e0, d in ALLOC_DELTA:
        total, poisson, local, eta = allocation_delta(z, t, e, e0, d)
        key = "%r;%d;%r;%r;%r" % (z, t, e, e0, d)
        rows.append(["allocation_delta", key, fmt(total)])
        rows.append(["allocation_delta_poisson", key, fmt(poisson)])
        rows.append(["allocation_delta_local", key, fmt(local)])
    for z, t, d in ALLOC_EPSILON:
        rows.append(["allocation_epsilon", "%r;%d;%r" % (z, t, d), fmt(allocation_epsilon(z, t, d))])
    for z, t, e in ALLOC_DELTA_MIN:
        rows.append(["allocation_delta_min", "%r;%d;%r" % (z, t, e),
                     fmt(allocation_delta_min(z, t, e))])
        print("allocation_delta_min z=%g t=%d done" % (z, t), file=sys.stderr)
    path = os.path.join(out_dir, "literature_reference.csv")
    with open(path, "w", newline="") as f:
        f.write("# Reference values for the literature bounds (tests/unit/test_bounds_literature.cpp).\n")
        f.write("# Produced by: /usr/bin/python3 python/reference/literature_reference.py\n")
        f.write("# mpmath %s at %d digits (forward differences to 40 digits at adaptive precision), "
                "python %s, on %s. Do not edit by hand.\n"
                % (mp.__version__, mp.mp.dps, sys.version.split()[0],
                   datetime.date.today().isoformat()))
        f.write("# arguments: wbk27_rdp q;z;alpha  wbk27_log_fdiff z;l  gdp_delta mu;eps  "
                "gdp_epsilon mu;delta  allocation_rate t;eps0;delta  allocation_delta* "
                "z;t;eps;eps0;delta_tail  allocation_epsilon z;t;delta  "
                "allocation_delta_min z;t;eps (integer orders 2..64)\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["quantity", "arguments", "value"])
        w.writerows(rows)
    print("%d rows -> %s" % (len(rows), path))


if __name__ == "__main__":
    main()
