#!/usr/bin/python3
"""The exact Gaussian-DP parameter of the Poisson-subsampled Gaussian read off an eps grid, at
50 digits: the reference of tests/unit/test_gdp_claims.cpp and of the numbers in
docs/methods.md, section 5 ("The grid finding").

P = (1 - q) N(0, 1) + q N(m, 1) against P' = N(0, 1) (q = 1/2, m = 1). Its likelihood ratio
(1 - q) + q e^{m x - m^2/2} increases in x, so delta(eps) = P(x > t) - e^eps P'(x > t) with
t = (log((e^eps - (1 - q)) / q) + m^2/2) / m (Balle et al. 2018, Theorem 1). mu(eps) is the mu
whose GDP profile Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) reaches delta(eps) (bisection
on mu). The grid is the one audit::gdp_epsilon_grid adds, 0, 0.25, ..., 64, stopped where
delta(eps) < 1e-250 (audit::kMuDeltaFloor).

Usage:  /usr/bin/python3 python/reference/gdp_subsampled_mu.py
Prints  mu at a few eps, and the supremum over the grid with the eps where it is attained.
"""

import mpmath as mp

mp.mp.dps = 50
Q, M = mp.mpf("0.5"), mp.mpf(1)


def upper(x):
    return mp.erfc(x / mp.sqrt(2)) / 2


def delta_subsampled(eps):
    e = mp.e**eps
    t = (mp.log((e - (1 - Q)) / Q) + M * M / 2) / M
    return (1 - Q) * upper(t) + Q * upper(t - M) - e * upper(t)


def gdp_delta(mu, eps):
    return upper(eps / mu - mu / 2) - mp.e**eps * upper(eps / mu + mu / 2)


def mu_from_delta(eps, d):
    lo, hi = mp.mpf("1e-6"), mp.mpf(10)
    for _ in range(200):
        mid = (lo + hi) / 2
        if gdp_delta(mid, eps) < d:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


if __name__ == "__main__":
    best, at = mp.mpf(0), None
    for k in range(0, 257):
        eps = mp.mpf(k) / 4
        d = delta_subsampled(eps)
        if d < mp.mpf("1e-250"):
            break
        mu = mu_from_delta(eps, d)
        if k in (0, 4, 16, 26, 27, 32, 40, 80, 120):
            print(f"eps {float(eps):6.2f}: delta {mp.nstr(d, 6):>12}, mu {mp.nstr(mu, 12)}")
        if mu > best:
            best, at = mu, eps
    print(f"supremum over the grid: mu = {mp.nstr(best, 15)} at eps = {float(at)}")
