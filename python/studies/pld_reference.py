#!/usr/bin/python3
"""Exact single-step privacy profile of the Poisson-subsampled Gaussian (add/remove), with
mpmath: the independent reference for the T = 1 brackets of the C++ PLD accountant
(include/rdpaudit/bounds/pld.hpp, docs/pld.md).

For the ordered pair (P, Q) the hockey-stick divergence is
    delta(eps) = integral (p(x) - e^eps q(x))_+ dx,
with remove: P = (1-q) N(0, z^2) + q N(1, z^2), Q = N(0, z^2), and add: the reverse; the
add/remove value is the larger of the two. The density ratio is monotone in x, so the
integrand is positive on a half line; its end is found by root finding on p - e^eps q and the
integral is done by mpmath quadrature (50 digits). eps(delta) solves delta(eps) = delta.

Run with Debian's interpreter (numpy/scipy/mpmath):  /usr/bin/python3 pld_reference.py
"""
import mpmath as mp

mp.mp.dps = 50


def pdf(x, mean, z):
    return mp.exp(-((x - mean) ** 2) / (2 * z * z)) / (z * mp.sqrt(2 * mp.pi))


def hockey(q, z, eps, remove):
    q, z = mp.mpf(q), mp.mpf(z)
    a = mp.exp(eps)
    mix = lambda x: (1 - q) * pdf(x, 0, z) + q * pdf(x, 1, z)
    if remove:
        g = lambda x: mix(x) - a * pdf(x, 0, z)
    else:
        g = lambda x: pdf(x, 0, z) - a * mix(x)
    lo, hi = -40 * z, 40 * z + 1
    if (g(hi) if remove else g(lo)) <= 0:
        return mp.mpf(0)
    for _ in range(300):  # bisection on the sign change
        mid = (lo + hi) / 2
        if (g(mid) > 0) == remove:
            hi = mid
        else:
            lo = mid
    x0 = (lo + hi) / 2
    if remove:
        return mp.quad(g, [x0, x0 + z, x0 + 4 * z, x0 + 10 * z, mp.inf])
    return mp.quad(g, [-mp.inf, x0 - 10 * z, x0 - 4 * z, x0 - z, x0])


def delta_add_remove(q, z, eps):
    return max(hockey(q, z, eps, True), hockey(q, z, eps, False))


def epsilon_add_remove(q, z, delta):
    f = lambda e: delta_add_remove(q, z, e) - delta
    if f(0) <= 0:
        return mp.mpf(0)
    lo, hi = mp.mpf(0), mp.mpf(1)
    while f(hi) > 0:
        hi *= 2
    for _ in range(60):
        mid = (lo + hi) / 2
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


if __name__ == "__main__":
    print("q,z,T,delta,epsilon_exact")
    for q in (1e-3, 256 / 60000, 0.01, 0.1):
        for z in (0.8, 1.1, 2.0, 5.0):
            e = epsilon_add_remove(q, z, mp.mpf("1e-5"))
            print(f"{q:.10g},{z},1,1e-05,{mp.nstr(e, 12)}", flush=True)
