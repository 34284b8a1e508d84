#!/usr/bin/python3
"""Reference values of R_alpha for the estimator tests, computed independently of the C++ code.

Run:  /usr/bin/python3 python/studies/estimate_reference.py > docs/studies/estimate_reference.md

Everything here uses mpmath at 40 significant digits:
  * the sampled Gaussian mechanism (1-q) N(0, s^2) + q N(mu, s^2) vs N(0, s^2): R_alpha by
    tanh-sinh quadrature in both directions, and for integer alpha also by the binomial
    expansion (Mironov, Talwar & Zhang 2019), as a cross-check of the quadrature;
  * the quadratic-loss last iterate of the paper's Figure 2 setting (lambda = 1, S_g = 4,
    n = 50, b = 2, eta = 0.02, sigma^2 = 4, shuffle and partition, K in {1, 10, 50}): the
    mixture is built by running the affine recursion theta <- a theta + eta lambda xbar_B + s z
    step by step on the mean of every batch position j and on the variance (not the closed-form
    sums the C++ uses), then integrated by quadrature.
  * Poisson subsampling with the quadratic loss at T = 1 (one step), with a random start
    theta_0 ~ N(m0, s0^2): the batch size k + I (k others of n - 1, I = 1[i0 in B]) scales
    the start by a = 1 - eta lambda (k + I) / (q n), so the 2n components have different
    variances a^2 s0^2 + s^2. Built here by summing over the 2^n inclusion patterns of the
    records one by one (not the binomial counting the C++ uses), then integrated.
The output is a Markdown table whose numbers tests/unit/test_estimate_exact.cpp quotes.
"""
import itertools
import mpmath as mp

mp.mp.dps = 40
ALPHAS = [mp.mpf("1.1"), mp.mpf("1.5"), mp.mpf(2), mp.mpf("3.5"), mp.mpf(8), mp.mpf(16),
          mp.mpf(32), mp.mpf(64)]


def log_mixture(x, weights, means, var):
    variances = var if isinstance(var, list) else [var] * len(weights)
    terms = [mp.log(w) - (x - m) ** 2 / (2 * v) - mp.log(2 * mp.pi * v) / 2
             for w, m, v in zip(weights, means, variances)]
    top = max(terms)
    return top + mp.log(mp.fsum(mp.e ** (t - top) for t in terms))


def renyi(alpha, la, lb, centre, sd):
    """R_alpha(A || B) for log densities la, lb; integration breakpoints around the tilted mass."""
    f = lambda x: mp.e ** (alpha * la(x) + (1 - alpha) * lb(x))
    pts = [-mp.inf] + [centre + k * sd for k in (-40, -12, -4, 0, 4, 12, 40)] + [mp.inf]
    return mp.log(mp.quad(f, pts)) / (alpha - 1)


def tilted_centre(alpha, la, lb, lo, hi):
    """Crude location of the maximum of alpha la + (1 - alpha) lb (a breakpoint for quad)."""
    best, arg = None, lo
    for i in range(801):
        x = lo + (hi - lo) * i / 800
        v = alpha * la(x) + (1 - alpha) * lb(x)
        if best is None or v > best:
            best, arg = v, x
    return arg


def table(name, weights_p, means_p, weights_q, means_q, var, note="", var_q=None):
    var_q = var if var_q is None else var_q
    sd = mp.sqrt(max(var if isinstance(var, list) else [var]))
    la = lambda x: log_mixture(x, weights_p, means_p, var)
    lb = lambda x: log_mixture(x, weights_q, means_q, var_q)
    print(f"\n### {name}\n")
    if note:
        print(note + "\n")
    print("| alpha | R_alpha(P‖P') | R_alpha(P'‖P) |")
    print("|---|---|---|")
    lo = min(means_p + means_q) - 80 * sd
    hi = max(means_p + means_q) + 80 * sd
    for a in ALPHAS:
        c1 = tilted_centre(a, la, lb, lo, hi)
        c2 = tilted_centre(a, lb, la, lo, hi)
        r1 = renyi(a, la, lb, c1, sd / mp.sqrt(a))
        r2 = renyi(a, lb, la, c2, sd / mp.sqrt(a))
        print(f"| {mp.nstr(a, 4)} | {mp.nstr(r1, 15)} | {mp.nstr(r2, 15)} |")


def sgm_binomial(q, shift, alpha):
    s = mp.fsum(mp.binomial(alpha, k) * (1 - q) ** (alpha - k) * q ** k *
                mp.e ** (k * (k - 1) * shift ** 2 / 2) for k in range(alpha + 1))
    return mp.log(s) / (alpha - 1)


def figure2(epochs, lam=1, sg=4, n=50, b=2, eta=mp.mpf("0.02"), sigma2=4):
    a = 1 - eta * lam
    m = n // b
    s2 = 2 * eta * sigma2
    xprime = mp.mpf(sg) / lam
    means = [mp.mpf(0)] * m  # mean of theta_t under D' when i0 sits in batch j
    var = mp.mpf(0)
    for t in range(epochs * m):
        batch = t % m
        means = [a * mu + (eta * lam * xprime / b if j == batch else 0) for j, mu in enumerate(means)]
        var = a * a * var + s2
    return means, var


def poisson_one_step(n=8, b=2, eta=mp.mpf("0.3"), lam=1, xprime=4, s=mp.mpf("0.5"),
                     m0=mp.mpf("0.5"), s0=mp.mpf("0.3")):
    """Law of theta_1 under D (x_i = 0) and D' (x'_0 = xprime), record 0 differing; one
    component per inclusion pattern of all n records (2^n of them)."""
    q = mp.mpf(b) / n
    c = eta * lam / (q * n)
    law = {False: {}, True: {}}  # (mean, variance) -> weight: equal components merged
    for pattern in itertools.product((0, 1), repeat=n):
        size = sum(pattern)
        w = q ** size * (1 - q) ** (n - size)
        a = 1 - c * size
        var = a * a * s0 * s0 + s * s
        for prime in (False, True):
            total = xprime * pattern[0] if prime else 0  # the other records are 0
            key = (a * m0 + c * total, var)
            law[prime][key] = law[prime].get(key, 0) + w
    return tuple(([w for w in law[p].values()], [k[0] for k in law[p]], [k[1] for k in law[p]])
                 for p in (False, True))


def main():
    print("# Reference values for the estimator tests")
    print("\nProduced by `/usr/bin/python3 python/studies/estimate_reference.py` (mpmath, 40 digits).")
    q, mu, s = mp.mpf("0.5"), mp.mpf("0.5"), mp.mpf(2)
    table("Sampled Gaussian mechanism, q = 0.5, mu = 0.5, s = 2 (P = mixture, P' = N(0, 4))",
          [1 - q, q], [mp.mpf(0), mu], [mp.mpf(1)], [mp.mpf(0)], s * s)
    print("\nBinomial expansion, integer alpha (forward direction):\n")
    print("| alpha | R_alpha(P‖P') |")
    print("|---|---|")
    for a in (2, 8, 16, 32, 64):
        print(f"| {a} | {mp.nstr(sgm_binomial(q, mu / s, a), 15)} |")
    for epochs in (1, 10, 50):
        means, var = figure2(epochs)
        table(f"Figure 2 quadratic loss, K = {epochs} (P = theta_K under D, P' = under D')",
              [mp.mpf(1)], [mp.mpf(0)], [mp.mpf(1) / len(means)] * len(means), means, var,
              f"variance {mp.nstr(var, 15)}, component means {mp.nstr(min(means), 12)} .. "
              f"{mp.nstr(max(means), 12)}")
    d, dprime = poisson_one_step()
    table("Poisson subsampling, T = 1: n = 8, q = 0.25, eta = 0.3, lambda = 1, x' = 4, s = 0.5, "
          "theta_0 ~ N(0.5, 0.3^2) (P = theta_1 under D, P' = under D')",
          d[0], d[1], dprime[0], dprime[1], d[2],
          "2^8 inclusion patterns; variances a^2 s0^2 + s^2 with a = 1 - 0.15 |B|",
          var_q=dprime[2])


if __name__ == "__main__":
    main()
