#!/usr/bin/python3
"""WBK 2019 Theorem 27 in mpmath, shared by bounds_reference.py and literature_reference.py.

Wang, Balle, Kasiviswanathan 2019, "Subsampled Renyi DP and analytical moments accountant",
Theorem 27 (Gaussian mechanism, sampling without replacement, replace-one neighbours), in the
form Google's dp_accounting evaluates it (rdp_privacy_accountant._compute_rdp_sample_wor_
gaussian_int; the paper's own text was not reachable here):
  A = 1 + sum_{i=2}^alpha q^i C(alpha,i) min{4 sqrt(D_{2 floor(i/2)} D_{2 ceil(i/2)}),
                                              2 e^{(i-1) eps(i)}},
  eps(i) = i/(2 z^2), D_l = l-th forward difference at 0 of j -> e^{(j-1) eps(j)},
  RDP = log(A)/(alpha-1); fractional alpha by Corollary 10's linear interpolation of log(A).
D_l is the alternating binomial sum itself, at a working precision raised until two successive
precisions agree to 40 digits (the C++ code sums in long double where the sum barely cancels
and integrates E[(Y-1)^l] numerically elsewhere: a different method).
"""

import mpmath as mp


def M(x):
    return mp.mpf(x)


_FDIFF_CACHE = {}


def _fdiff_at(z, l, dps):
    with mp.workdps(dps):
        c = 1 / (2 * M(z) ** 2)
        return mp.fsum(mp.binomial(l, k) * (-1) ** (l - k) * mp.exp(c * k * (k - 1))
                       for k in range(l + 1))


def forward_difference(z, l):
    """The l-th forward difference at 0 of j -> e^{j(j-1)/(2 z^2)}, to 40 digits."""
    key = (z, l)
    if key not in _FDIFF_CACHE:
        dps = 60
        prev = _fdiff_at(z, l, dps)
        while True:
            dps *= 2
            cur = _fdiff_at(z, l, dps)
            if cur != 0 and abs(cur - prev) <= mp.mpf(10) ** -40 * abs(cur):
                break
            prev = cur
        with mp.workdps(50):
            _FDIFF_CACHE[key] = +cur
    return _FDIFF_CACHE[key]


def wbk27_cgf(q, z, a):
    """(alpha - 1) * RDP of Theorem 27 at integer alpha = a >= 1."""
    if a == 1:
        return mp.mpf(0)
    q, zz = M(q), M(z)
    total = mp.mpf(1)
    for i in range(2, a + 1):
        forward = 4 * mp.sqrt(forward_difference(z, 2 * (i // 2)) *
                              forward_difference(z, 2 * ((i + 1) // 2)))
        plain = 2 * mp.exp((i - 1) * mp.mpf(i) / (2 * zz ** 2))
        total += q ** i * mp.binomial(a, i) * min(forward, plain)
    return mp.log(total)


def wbk27_rdp(q, z, alpha):
    if q == 1:
        return M(alpha) / (2 * M(z) ** 2)
    lo, hi = int(mp.floor(alpha)), int(mp.ceil(alpha))
    if lo == hi:
        return wbk27_cgf(q, z, lo) / (M(alpha) - 1)
    t = M(alpha) - lo
    return ((1 - t) * wbk27_cgf(q, z, lo) + t * wbk27_cgf(q, z, hi)) / (M(alpha) - 1)
