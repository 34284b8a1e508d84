#!/usr/bin/python3
"""Independent high-precision reference values for rdpaudit's analytic bounds.

Written from the source texts, not from the C++ code:
  * Ye & Shokri, "Differentially Private Learning Needs Hidden State (Or Much Faster
    Convergence)", NeurIPS 2022, arXiv:2203.05363 (cited as "paper").
  * "Privacy Saturation", a blog post (it names no author) on privacy amplification by
    iteration for projected noisy SGD, whose Theorem 1 follows Altschuler & Talwar, "Privacy
    of Noisy Stochastic Gradient Descent: More Iterations without More Privacy Loss",
    NeurIPS 2022, arXiv:2205.13710 ("blog").
  * Mironov, Talwar, Zhang 2019, "Renyi Differential Privacy of the Sampled Gaussian
    Mechanism" (MTZ): A_alpha = E_{z~mu0}[(mu(z)/mu0(z))^alpha], mu0 = N(0, sigma^2),
    mu = (1-q) mu0 + q N(1, sigma^2); RDP = log(A_alpha) / (alpha - 1).
  * Wang, Balle, Kasiviswanathan 2019, "Subsampled Renyi DP and analytical moments
    accountant" (WBK), Theorem 9 (integer alpha) and Corollary 10 (interpolation); Theorem 27
    (the Gaussian-specific strengthening) from wbk_theorem27.py.
  * Mironov 2017 Proposition 3 and Canonne-Kamath-Steinke 2020 / Asoodeh et al. 2021 for
    RDP -> (epsilon, delta).

Everything is evaluated with mpmath at 50 significant digits.  The deliberate differences from
the C++ implementation (so that agreement means something):
  * geometric sums are summed term by term (no closed forms, no expm1);
  * Theorem 4.2's log-average-exp is evaluated directly in mpmath's unbounded exponent range
    (no shift), Theorem 4.3's recursion runs on S itself (not on log S);
  * MTZ for fractional alpha is a numerical integral of the definition (C++: the series of
    MTZ Section 3.3); MTZ for integer alpha is the plain binomial sum (C++: log-space sum of
    the terms of A - 1).
The input parameters are the binary doubles written to the points file; mpmath converts them
exactly (mpf(float)), so both sides evaluate the same numbers.

Usage:  /usr/bin/python3 python/reference/bounds_reference.py [--out-dir tests/data]
Writes  bounds_reference_points.csv (one row per scenario) and bounds_reference.csv
        (one row per scenario x bound x alpha, plus epsilon rows) and prints a summary.
"""

import argparse
import csv
import datetime
import math
import os
import sys

import mpmath as mp

import wbk_theorem27  # the script's own folder is on the path

mp.mp.dps = 50
INF = float("inf")
DELTA = 1e-5  # delta of the (epsilon, delta) rows

# ----------------------------------------------------------------------------------------------
# Scenarios.  Conventions (see docs/bounds.md):
#   step_std s : standard deviation of the Gaussian noise added to the iterate in one step.
#                Paper Alg. 1: s = sqrt(2 eta sigma^2).  Blog: s = eta sigma_blog.
#                Paper Alg. 2: s = eta sigma_mul S_g / (2 b).
#   S_g        : l2-sensitivity of the total gradient sum_i grad l(theta; x_i) (paper App. A).
#   L          : bound on every per-example gradient norm on the domain (blog).
#   D          : diameter of the domain the iterates are projected onto (inf = unconstrained).
# ----------------------------------------------------------------------------------------------

FIG = dict(loss="quadratic", eta=0.02, lam=1.0, beta=4.0, S_g=4.0, L=INF, D=INF, n=50, b=2,
           init="fixed", feature_clip=float("nan"), eps_norm=0.0, j0=0)


def fig_s(sigma2=4.0, eta=0.02):
    """Per-step noise std of Algorithm 1 for the paper's sigma^2 (computed in mpmath)."""
    return float(mp.sqrt(2 * mp.mpf(eta) * mp.mpf(sigma2)))


def point(name, scheme, alphas, **kw):
    p = dict(FIG)
    p["step_std"] = fig_s()
    p.update(kw)
    p["name"] = name
    p["scheme"] = scheme
    n, b = p["n"], p["b"]
    if "T" not in p:
        p["T"] = p["K"] * (n // b)  # whole epochs of floor(n/b) steps
    p["alphas"] = alphas
    return p


def poisson_point(name, q, n, alphas, K, **kw):
    """Poisson sampling at rate q: each record joins each step with probability q and the sum
    is divided by the expected batch size q*n, which need not be whole.  b = q*n when it is a
    whole number, else 0 (no batch of b records exists).  T = K floor(1/q) steps, as the
    simulator counts a Poisson epoch (docs/experiments.md)."""
    qn = q * n
    b = round(qn) if round(qn) >= 1 and abs(round(qn) - qn) <= 1e-9 * qn else 0
    p = point(name, "poisson", alphas, n=n, b=b, K=K, T=K * math.floor(1 / q + 1e-9), **kw)
    p["q"] = q
    return p


A_FIG = [10.0, 15.0]
A_WIDE = [1.5, 2.0, 10.0, 15.0, 64.0, 256.5, 1024.0]

POINTS = [
    # Figure 1 (fixed ordering), first and last batch, and a middle batch.
    point("fig1_first_K200", "fixed_order", A_FIG + [2.0, 1024.0], K=200, j0=0),
    point("fig1_last_K200", "fixed_order", A_FIG + [1.5, 1024.0], K=200, j0=24),
    point("fig1_first_K1", "fixed_order", A_FIG, K=1, j0=0),
    point("fig1_mid_K7", "fixed_order", A_FIG + [3.25], K=7, j0=11),
    point("fig1_last_K1e5", "fixed_order", [10.0, 1024.0], K=100000, j0=24),
    # Figure 2 (a): shuffle and partition.
    point("fig2a_K1", "shuffle_partition", A_FIG, K=1),
    point("fig2a_K200", "shuffle_partition", A_WIDE, K=200),
    point("fig2a_K1e5", "shuffle_partition", [2.0, 10.0, 1024.0], K=100000),
    # Figure 2 (b): (re)sample without replacement.
    point("fig2b_K50", "sample_without_replacement", A_FIG + [2.0, 2.5, 64.0], K=50),
    point("fig2b_K200", "sample_without_replacement", A_FIG + [1024.0], K=200),
    point("fig2b_K1e5", "sample_without_replacement", [10.0], K=100000),
    # Poisson subsampling with the Figure-2 constants (composition baselines only).
    point("fig_poisson_K200", "poisson", A_FIG + [1.5, 2.5, 64.0, 100.5, 1024.0], K=200),
    # Full-batch noisy GD (b = n), with Chourasia et al.'s Gaussian initialisation.
    point("fullbatch_gauss_init", "full_batch", A_FIG + [1024.0], b=50, K=200,
          init="gaussian_chourasia"),
    point("fullbatch_fixed_init_K1e5", "full_batch", [2.0, 15.0], b=50, K=100000, eta=0.2),
    # Footnote 3: b does not divide n (n = 51, b = 2 -> floor(n/b) = 25 batches).
    point("nondivisible_fixed", "fixed_order", A_FIG, n=51, K=30, j0=3),
    point("nondivisible_shuffle", "shuffle_partition", A_FIG, n=51, K=30),
    point("nondivisible_swor", "sample_without_replacement", A_FIG, n=51, K=30),
    # Odd number of batches (n/b = 7): floor(n/(2b)) = 3.
    point("odd_batches_shuffle", "shuffle_partition", [2.0, 7.5, 30.0], n=70, b=10, K=40,
          lam=0.5, beta=2.0, eta=0.3, step_std=0.35),
    # Reshuffled every epoch: only plain composition applies.
    point("shuffle_each_epoch", "shuffle_each_epoch", A_FIG, K=20),
    # Regularised logistic regression (Corollary 5.3): feature clip 1, gradient clip S_g/2 = 1.
    point("logreg_shuffle", "shuffle_partition", [2.0, 8.0, 32.0], loss="logistic", lam=0.01,
          beta=(1.0 ** 2 + 1) / 2 + 0.01, S_g=2.0, n=1000, b=50, K=100, eta=0.5,
          step_std=0.5 * 2.0 * 2.0 / (2 * 50), feature_clip=1.0, eps_norm=0.0),
    point("logreg_shuffle_epsnorm", "shuffle_partition", [4.0], loss="logistic", lam=0.05,
          beta=(2.0 ** 2 + 1) / 2 + 0.05, S_g=1.0, n=600, b=20, K=15, eta=0.3,
          step_std=0.3 * 1.5 * 1.0 / (2 * 20), feature_clip=2.0, eps_norm=0.125),
    # Linear loss <g_i, theta> on a bounded domain: convex, beta = 0, not strongly convex.
    point("linear_blog_swor_short", "sample_without_replacement", [2.0, 10.0, 100.0], loss="linear", lam=0.0,
          beta=0.0, S_g=2.0, L=1.0, D=2.0, n=100, b=10, K=3, eta=0.1, step_std=0.05),
    point("linear_blog_swor_long", "sample_without_replacement", [2.0, 10.0, 100.0], loss="linear", lam=0.0,
          beta=0.0, S_g=2.0, L=1.0, D=2.0, n=100, b=10, K=600, eta=0.1, step_std=0.05),
    point("linear_fixed_unbounded", "fixed_order", [2.0, 10.0], loss="linear", lam=0.0,
          beta=0.0, S_g=2.0, L=1.0, n=100, b=10, K=5, j0=4, eta=0.1, step_std=0.05),
    # Quadratic loss projected onto a ball (blog applies, the paper's unconstrained bounds do not).
    # Data in the ball of radius R = 1: S_g = 2 lambda R, L = lambda (D/2 + R).
    point("quadratic_projected_swor", "sample_without_replacement", [3.0, 20.0], lam=0.5, beta=0.5, S_g=1.0,
          L=0.5 * (1.5 + 1.0), D=3.0, n=40, b=4, K=25, eta=0.4, step_std=0.3),
    # Preconditions violated: step size too large (eta >= 2/(lambda+beta)), and n/b < 2.
    point("big_step_shuffle", "shuffle_partition", A_FIG, eta=0.5, K=10),
    point("single_batch_shuffle", "shuffle_partition", A_FIG, b=50, K=10),
    # Large noise: tiny RDP values (checks relative accuracy near zero).
    point("tiny_rdp_poisson", "poisson", [1.5, 2.0, 3.5, 12.0], K=10, step_std=1.0, n=1000, b=10),
    # Poisson with q = 1/2 (n = 4, b = 2): the MTZ fractional-order series converges slowly here.
    point("poisson_half_rate", "poisson", [1.01, 1.25, 1.5, 2.5, 7.5], n=4, K=10),
    point("poisson_half_rate_noisy", "poisson", [1.01, 1.5, 3.5], n=4, K=10, step_std=4.0),
    # Poisson at a rate whose expected batch q n is not whole (issue 13 item 1): n = 20,
    # q = 0.03 -> q n = 0.6 (below one record); n = 1000, q = 0.0015 -> q n = 1.5.  The
    # simulator divides by q n, so the baselines use q and sensitivity eta S_g / (q n).
    poisson_point("poisson_qn_0.6", 0.03, 20, [2.0, 4.0, 8.0, 2.5], K=2, S_g=1.0, step_std=0.1,
                  eta=0.1),
    poisson_point("poisson_qn_1.5", 0.0015, 1000, [2.0, 4.0, 10.0], K=1, S_g=1.0, step_std=0.05,
                  eta=0.1),
    # Poisson with a whole expected batch given as a rate: q = 0.04, n = 50 -> b = 2.
    poisson_point("poisson_rate_whole", 0.04, 50, [10.0, 15.0], K=20),
    point("tiny_rdp_swor", "sample_without_replacement", [1.5, 2.0, 3.5, 12.0], K=10, step_std=1.0, n=1000,
          b=10),
]

# ----------------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------------


def M(x):
    """Exact conversion of a binary double (or int) to mpf."""
    if isinstance(x, float) and math.isinf(x):
        return mp.inf
    return mp.mpf(x)


class NA(Exception):
    """Bound not applicable: the reason is the message."""


def derived(p):
    d = {}
    d["n"], d["b"], d["K"], d["T"] = p["n"], p["b"], p["K"], p["T"]
    d["N"] = p["n"] // p["b"] if p["b"] else 0  # footnote 3: floor(n/b) batches per epoch
    d["h"] = p["n"] // (2 * p["b"]) if p["b"] else 0  # floor(n/(2b))
    d["eta"], d["s"] = M(p["eta"]), M(p["step_std"])
    d["lam"], d["beta"], d["S_g"] = M(p["lam"]), M(p["beta"]), M(p["S_g"])
    d["L"], d["D"] = M(p["L"]), M(p["D"])
    # q: the Poisson rate when given, else b/n; nb: the normaliser of the summed gradient (the
    # simulator divides a Poisson batch by q n, whole or not).
    d["q"] = M(p["q"]) if "q" in p else mp.mpf(p["b"]) / p["n"]
    d["nb"] = d["q"] * p["n"] if "q" in p else mp.mpf(p["b"])
    # Algorithm 1: s = sqrt(2 eta sigma^2)  ->  sigma^2 = s^2 / (2 eta)
    d["sigma2"] = d["s"] ** 2 / (2 * d["eta"])
    # Algorithm 2 (Section F.1): sigma = sqrt(eta/2) sigma_mul S_g / (2b)
    #   -> s^2 = 2 eta sigma^2 = eta^2 sigma_mul^2 S_g^2 / (4 b^2)  ->  sigma_mul = 2 b s/(eta S_g)
    d["sigma_mul"] = 2 * d["nb"] * d["s"] / (d["eta"] * d["S_g"]) if p["S_g"] > 0 else mp.inf
    # Blog: the iterate receives N(0, eta^2 sigma_blog^2 I)  ->  sigma_blog = s / eta
    d["sigma_blog"] = d["s"] / d["eta"]
    return d


def need(cond, reason):
    if not cond:
        raise NA(reason)


def need_scheme(p, allowed):
    need(p["scheme"] in allowed, "scheme " + p["scheme"])


def need_unconstrained(p):
    need(math.isinf(p["D"]), "Algorithm 1 is unconstrained")


def need_strongly_convex_smooth(p, d):
    need(d["lam"] > 0, "not strongly convex")
    need(d["beta"] >= d["lam"], "beta < lambda")


def need_whole_epochs(p, d):
    need(d["T"] == d["K"] * d["N"], "T != K floor(n/b)")


def gauss_term(alpha, d):
    """alpha eta S_g^2 / (4 sigma^2 b^2): Lemma 3.2 / Eq. (70)."""
    return alpha * d["eta"] * d["S_g"] ** 2 / (4 * d["sigma2"] * d["b"] ** 2)


def eps0(j, alpha, d, prefactor=None):
    """Theorem 3.3: eps_0^j(alpha) = alpha eta S_g^2/(4 sigma^2 b^2) (1-eta lambda)^(2(j-1))
    / sum_{s=0}^{j-1} (1 - eta lambda)^(2s), summed term by term."""
    r = (1 - d["eta"] * d["lam"]) ** 2
    tot = mp.mpf(0)
    term = mp.mpf(1)
    for _ in range(j):
        tot += term
        term *= r
    pre = gauss_term(alpha, d) if prefactor is None else prefactor
    return pre * r ** (j - 1) / tot


def first_term(alpha, d, prefactor=None):
    """eps_0^{floor(n/2b)} (1 - (1-eta lambda)^{2(K-1)(n/b - floor(n/2b))})
    / (1 - (1-eta lambda)^{2(n/b - floor(n/2b))})   [Eq. (3), (5), (12)]."""
    r = (1 - d["eta"] * d["lam"]) ** 2
    m = d["N"] - d["h"]
    num = 1 - r ** ((d["K"] - 1) * m)
    den = 1 - r ** m
    return eps0(d["h"], alpha, d, prefactor) * num / den


# ----------------------------------------------------------------------------------------------
# The bounds, each from its source statement.
# ----------------------------------------------------------------------------------------------

EPOCH = ("fixed_order", "shuffle_partition", "shuffle_each_epoch", "full_batch")


def thm2_1(p, d, alpha):
    # Paper Thm 2.1: eps <= alpha S_g^2/(lambda sigma^2 b^2) (1 - e^{-lambda eta K/2});
    # "shuffle and partition", eta < 2/(lambda+beta).  Figure 1 also applies it to fixed order.
    need_scheme(p, ("shuffle_partition", "fixed_order", "full_batch"))
    need_unconstrained(p)
    need_strongly_convex_smooth(p, d)
    need(d["eta"] < 2 / (d["lam"] + d["beta"]), "eta >= 2/(lambda+beta)")
    need_whole_epochs(p, d)
    return (alpha * d["S_g"] ** 2 / (d["lam"] * d["sigma2"] * d["b"] ** 2)
            * (1 - mp.exp(-d["lam"] * d["eta"] * d["K"] / 2)))


def thm3_3_common(p, d, alpha, j0):
    need_unconstrained(p)
    need_strongly_convex_smooth(p, d)
    need(d["eta"] < 2 / (d["lam"] + d["beta"]), "eta >= 2/(lambda+beta)")
    need(d["N"] >= 2, "n/b < 2")
    need_whole_epochs(p, d)
    return first_term(alpha, d) + eps0(d["N"] - j0, alpha, d)


def thm3_3_fixed(p, d, alpha):
    need_scheme(p, ("fixed_order",))
    return thm3_3_common(p, d, alpha, p["j0"])


def thm3_3_worst(p, d, alpha):
    need_scheme(p, ("fixed_order", "shuffle_partition"))
    return thm3_3_common(p, d, alpha, d["N"] - 1)


def thm4_2_common(p, d, alpha, prefactor=None):
    need_unconstrained(p)
    need(d["N"] >= 2, "n/b < 2")
    need_whole_epochs(p, d)
    N = d["N"]
    avg = sum(mp.exp((alpha - 1) * eps0(N - j0, alpha, d, prefactor)) for j0 in range(N)) / N
    return first_term(alpha, d, prefactor) + mp.log(avg) / (alpha - 1)


def thm4_2(p, d, alpha):
    # Paper Thm 4.2, Eq. (5).
    need_scheme(p, ("shuffle_partition",))
    need_strongly_convex_smooth(p, d)
    need(d["eta"] < 2 / (d["lam"] + d["beta"]), "eta >= 2/(lambda+beta)")
    return thm4_2_common(p, d, alpha)


def thm4_2_fn4(p, d, alpha):
    # Footnote 4, as printed: eps_0^1 + log Avg_{j0} e^{(alpha-1)(eps_0^{n/b-j0} - eps_0^1)}
    # replaces the second term of Eq. (5).  (No 1/(alpha-1) in front of the log.)
    need_scheme(p, ("shuffle_partition",))
    need_strongly_convex_smooth(p, d)
    need(d["eta"] < 2 / (d["lam"] + d["beta"]), "eta >= 2/(lambda+beta)")
    need_unconstrained(p)
    need(d["N"] >= 2, "n/b < 2")
    need_whole_epochs(p, d)
    N = d["N"]
    e1 = eps0(1, alpha, d)
    avg = sum(mp.exp((alpha - 1) * (eps0(N - j0, alpha, d) - e1)) for j0 in range(N)) / N
    return first_term(alpha, d) + e1 + mp.log(avg)


def thm4_3(p, d, alpha):
    # Paper Thm 4.3: S_0^0 = 1; S_k^{j+1} = (b/n) e^{(alpha-1) alpha eta S_g^2/(4 sigma^2 b^2)} S
    #   + (1 - b/n) S^{(1-eta lambda)^2};  S_{k+1}^0 = S_k^{n/b};  eps <= log(S_K^0)/(alpha-1).
    need_scheme(p, ("sample_without_replacement", "full_batch"))
    need_unconstrained(p)
    need_strongly_convex_smooth(p, d)
    need(d["eta"] < 2 / (d["lam"] + d["beta"]), "eta >= 2/(lambda+beta)")
    need_whole_epochs(p, d)
    q = d["q"]
    growth = q * mp.exp((alpha - 1) * gauss_term(alpha, d))
    r = (1 - d["eta"] * d["lam"]) ** 2
    S = mp.mpf(1)
    steps = d["K"] * d["N"]
    for _ in range(steps):
        S_new = growth * S + (1 - q) * S ** r
        if S_new == S:  # fixed point at working precision: every later iterate is identical
            break
        S = S_new
    return mp.log(S) / (alpha - 1)


def thm_d4(p, d, alpha):
    # Paper Thm D.4, Eq. (80): A (b/n)(K-1) + A/(n/b - j0); with footnote 3, b/n -> 1/floor(n/b)
    # (the term is (K-1) eps_0^{n/b} = (K-1) A/(n/b), Eqs. (83), (90)).
    need_scheme(p, ("fixed_order", "full_batch"))
    need_unconstrained(p)
    need(d["beta"] == 0 or d["eta"] < 2 / d["beta"], "eta >= 2/beta")
    need_whole_epochs(p, d)
    j0 = p["j0"] if p["scheme"] == "fixed_order" else 0
    A = gauss_term(alpha, d)
    return A * (d["K"] - 1) / d["N"] + A / (d["N"] - j0)


def thm_d5(p, d, alpha):
    # Paper Thm D.5 + Section D.6 (Balle et al. 2019 composed over epochs), first/last batch.
    need_scheme(p, ("fixed_order",))
    need_unconstrained(p)
    need_strongly_convex_smooth(p, d)
    need(d["eta"] <= 2 / (d["beta"] + d["lam"]), "eta > 2/(beta+lambda)")
    need(d["N"] >= 2, "n/b < 2")
    need_whole_epochs(p, d)
    N, j0 = d["N"], p["j0"]
    need(j0 in (0, N - 1), "j0 not first or last batch")
    g = 1 - 2 * d["eta"] * d["beta"] * d["lam"] / (d["beta"] + d["lam"])
    first = (alpha * d["eta"] * d["S_g"] ** 2 / (4 * (N - 1) * d["b"] ** 2 * d["sigma2"])
             * g ** (mp.mpf(N) / 2))
    if j0 == 0:
        return first * d["K"]
    return first * (d["K"] - 1) + alpha * d["eta"] * d["S_g"] ** 2 / (4 * d["b"] ** 2
                                                                      * d["sigma2"])


def thm_d6(p, d, alpha):
    # Paper Thm D.6, Eq. (112): alpha eta S_g^2/(2 sigma^2 n^2) sum_{k=1}^K (1 - eta lambda/2)^k
    need_scheme(p, ("full_batch",))
    need_unconstrained(p)
    need_strongly_convex_smooth(p, d)
    need(d["eta"] < 1 / d["beta"], "eta >= 1/beta")
    rho = 1 - d["eta"] * d["lam"] / 2
    tot = mp.mpf(0)
    term = mp.mpf(1)
    for _ in range(d["K"]):
        term *= rho
        tot += term
    return alpha * d["eta"] * d["S_g"] ** 2 / (2 * d["sigma2"] * d["n"] ** 2) * tot


def thm_d7(p, d, alpha):
    # Paper Thm D.7 (Chourasia et al. 2021, Cor. 1), Eq. (127); theta_0 ~ N(0, 2 sigma^2/lambda).
    need_scheme(p, ("full_batch",))
    need_unconstrained(p)
    need_strongly_convex_smooth(p, d)
    need(d["eta"] < 1 / d["beta"], "eta >= 1/beta")
    need(p["init"] == "gaussian_chourasia", "initialisation")
    return (alpha * d["S_g"] ** 2 / (d["lam"] * d["sigma2"] * d["n"] ** 2)
            * (1 - mp.exp(-d["lam"] * d["eta"] * d["K"] / 2)))


def cor5_3(p, d, alpha):
    # Paper Cor 5.3, Eqs. (12), (13): eps_0^j <= 2 alpha/sigma_mul^2 (1-eta lambda)^{2(j-1)}/sum.
    need_scheme(p, ("shuffle_partition",))
    need(p["loss"] == "logistic", "loss")
    need(d["lam"] > 0, "not strongly convex")
    need(not math.isnan(p["feature_clip"]), "feature clip unknown")
    Lf = M(p["feature_clip"])
    need(d["eta"] < 2 / ((Lf ** 2 + 1) / 2 + 2 * d["lam"]), "step size")
    pre = 2 * alpha / d["sigma_mul"] ** 2
    return M(p["eps_norm"]) + thm4_2_common(p, d, alpha, prefactor=pre)


def fig2_composition(p, d, alpha):
    # Figure 2 caption: (b/n) alpha eta S_g^2 / (4 sigma^2 b^2) K: needs a batch of b records.
    need_scheme(p, ("shuffle_partition", "sample_without_replacement", "poisson"))
    need(p["b"] >= 1, "q*n = %s is not a whole number" % (p.get("q", 0) * p["n"]))
    need_whole_epochs(p, d)
    return d["q"] * gauss_term(alpha, d) * d["K"]


def blog_common(p, d):
    need_scheme(p, ("sample_without_replacement", "full_batch"))
    need(not math.isinf(p["D"]), "unbounded domain")
    need(not math.isinf(p["L"]), "not Lipschitz")
    need(d["beta"] == 0 or d["eta"] <= 2 / d["beta"], "eta > 2/M")
    need(p["init"] == "fixed", "initialisation")
    if d["L"] == 0:
        return None
    return mp.ceil(d["D"] * d["n"] / (d["L"] * d["eta"]))


def blog_thm1(p, d, alpha):
    # Blog Theorem 1: alpha L^2/(n^2 sigma^2) min{T, ceil(D n/(L eta))}.
    Tbar = blog_common(p, d)
    if Tbar is None:
        return mp.mpf(0)
    return alpha * d["L"] ** 2 / (d["n"] ** 2 * d["sigma_blog"] ** 2) * min(mp.mpf(d["T"]), Tbar)


def blog_step5(p, d, alpha):
    # Blog Step 5: T <= Tbar: alpha L^2 T/(n^2 sigma^2); else F(Tbar) with
    # F(R) = 2 alpha L^2 R/(n^2 sigma^2) + alpha D^2/(eta^2 sigma^2 R).
    Tbar = blog_common(p, d)
    if Tbar is None:
        return mp.mpf(0)
    sb2 = d["sigma_blog"] ** 2
    if d["T"] <= Tbar:
        return alpha * d["L"] ** 2 * d["T"] / (d["n"] ** 2 * sb2)
    return (2 * alpha * d["L"] ** 2 * Tbar / (d["n"] ** 2 * sb2)
            + alpha * d["D"] ** 2 / (d["eta"] ** 2 * sb2 * Tbar))


def mtz_rdp(q, z, alpha):
    """RDP of the Poisson-sampled Gaussian mechanism (MTZ 2019), sensitivity 1, noise z."""
    if q == 1:
        return alpha / (2 * z ** 2)
    if alpha == int(alpha):
        a = int(alpha)
        A = mp.fsum(mp.binomial(a, k) * (1 - q) ** (a - k) * q ** k
                    * mp.exp(mp.mpf(k * k - k) / (2 * z ** 2)) for k in range(a + 1))
        return mp.log(A) / (alpha - 1)
    # A - 1 = integral of mu0(x) ((mu(x)/mu0(x))^alpha - 1): quadrature of the definition.
    def f(x):
        return mp.npdf(x, 0, z) * mp.expm1(alpha * mp.log1p(q * mp.expm1((2 * x - 1)
                                                                          / (2 * z ** 2))))
    z0 = z ** 2 * mp.log(1 / q - 1) + mp.mpf(1) / 2
    pts = sorted(set([-mp.inf, -30 * z, -z, 0, mp.mpf(1) / 2, z0, 1 + z, alpha - 30 * z,
                      alpha - 3 * z, alpha, alpha + 3 * z, alpha + 30 * z, mp.inf]))
    i1 = mp.quad(f, pts, maxdegree=10)
    i2 = mp.quad(f, pts, maxdegree=12, method="gauss-legendre")
    if abs(i1 - i2) > mp.mpf(10) ** -25 * abs(i1):
        raise RuntimeError("MTZ quadrature did not converge: %s vs %s" % (i1, i2))
    return mp.log1p(i1) / (alpha - 1)


def mtz_composition(p, d, alpha):
    # MTZ 2019, noise multiplier z = s / (eta S_g / b) (paper Section E.1 item 1), over T steps,
    # at the simulated q with b -> q n (the simulator's normaliser).
    need_scheme(p, ("poisson",))
    z = d["s"] / (d["eta"] * d["S_g"] / d["nb"])
    return d["T"] * mtz_rdp(d["q"], z, alpha)


def wbk_cgf(q, z, a):
    """(alpha - 1) * RDP bound of WBK 2019 Theorem 9 at integer alpha = a, Gaussian base
    mechanism with eps(alpha) = alpha / (2 z^2) and eps(inf) = inf."""
    if a == 1:
        return mp.mpf(0)
    e2 = 2 / (2 * z ** 2)
    tot = 1 + q ** 2 * mp.binomial(a, 2) * min(4 * (mp.exp(e2) - 1), 2 * mp.exp(e2))
    for j in range(3, a + 1):
        tot += 2 * q ** j * mp.binomial(a, j) * mp.exp((j - 1) * mp.mpf(j) / (2 * z ** 2))
    return mp.log(tot)


def wbk_rdp(q, z, alpha):
    if q == 1:
        return alpha / (2 * z ** 2)
    lo, hi = int(mp.floor(alpha)), int(mp.ceil(alpha))
    if lo == hi:
        return wbk_cgf(q, z, lo) / (alpha - 1)
    t = alpha - lo  # Corollary 10: the CGF (alpha-1) eps(alpha) is convex -> interpolate
    return ((1 - t) * wbk_cgf(q, z, lo) + t * wbk_cgf(q, z, hi)) / (alpha - 1)


def wbk_composition(p, d, alpha):
    need_scheme(p, ("sample_without_replacement", "full_batch"))
    z = d["s"] / (d["eta"] * d["S_g"] / d["b"])
    return d["T"] * wbk_rdp(d["q"], z, alpha)


def wbk27_composition(p, d, alpha):
    # WBK 2019 Theorem 27 (python/reference/wbk_theorem27.py), same scheme and noise as Thm 9.
    need_scheme(p, ("sample_without_replacement", "full_batch"))
    z = d["s"] / (d["eta"] * d["S_g"] / d["b"])
    return d["T"] * wbk_theorem27.wbk27_rdp(d["q"], z, alpha)


def gaussian_composition(p, d, alpha):
    # Mironov 2017: Gaussian mechanism alpha Delta^2/(2 s^2) with Delta = eta S_g / b, composed
    # over every step that can touch the record: once per epoch, or every step when sampling.
    if p["scheme"] in EPOCH:
        need_whole_epochs(p, d)
        uses = d["K"]
    else:
        uses = d["T"]
    delta = d["eta"] * d["S_g"] / d["nb"]
    return uses * alpha * delta ** 2 / (2 * d["s"] ** 2)


BOUNDS = [
    ("ys_thm2.1_naive", thm2_1),
    ("ys_thm3.3_fixed_order", thm3_3_fixed),
    ("ys_thm3.3_worst_batch", thm3_3_worst),
    ("ys_thm4.2_shuffle_partition", thm4_2),
    ("ys_thm4.2_footnote4_as_printed", thm4_2_fn4),
    ("ys_thm4.3_sample_wor", thm4_3),
    ("ys_thmD.4_convex", thm_d4),
    ("ys_thmD.5_balle_composed", thm_d5),
    ("ys_thmD.6_full_batch", thm_d6),
    ("ys_thmD.7_chourasia", thm_d7),
    ("ys_cor5.3_logreg", cor5_3),
    ("ys_fig2_composition_approx", fig2_composition),
    ("blog_thm1_saturation", blog_thm1),
    ("blog_step5_as_derived", blog_step5),
    ("mtz19_poisson_composition", mtz_composition),
    ("wbk19_swor_composition", wbk_composition),
    ("wbk19_thm27_swor_gaussian", wbk27_composition),
    ("gaussian_composition", gaussian_composition),
]


def eps_mironov(alphas, rdps, delta):
    # Mironov 2017 Prop. 3: (alpha, r)-RDP => (r + log(1/delta)/(alpha-1), delta)-DP.
    best = None
    for a, r in zip(alphas, rdps):
        e = r + mp.log(1 / mp.mpf(delta)) / (a - 1)
        if best is None or e < best[0]:
            best = (e, a)
    return best


def eps_improved(alphas, rdps, delta):
    # Canonne-Kamath-Steinke 2020 Prop. 12 / Asoodeh et al. 2021:
    # eps = r + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha - 1), clamped at 0.
    best = None
    for a, r in zip(alphas, rdps):
        e = r + mp.log((a - 1) / a) - (mp.log(mp.mpf(delta)) + mp.log(a)) / (a - 1)
        if best is None or e < best[0]:
            best = (e, a)
    return (max(best[0], mp.mpf(0)), best[1])


def fmt(x):
    return repr(float(x))


def write_csv(path, header_lines, rows):
    """A reference table: '#' header lines, then quantity,arguments,value and the rows."""
    with open(path, "w", newline="") as f:
        for line in header_lines:
            f.write(line + "\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["quantity", "arguments", "value"])
        w.writerows(rows)
    print("%d rows -> %s" % (len(rows), path))


def out_dir_from_args(doc):
    """The --out-dir of a reference script (default tests/data of this checkout)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--out-dir", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                       "tests", "data"))
    return ap.parse_args().out_dir


def main():
    out_dir = out_dir_from_args(__doc__)
    stamp = datetime.date.today().isoformat()
    header = [
        "# Reference values for rdpaudit's analytic bounds (tests/unit/test_bounds_reference.cpp).",
        "# Produced by: /usr/bin/python3 python/reference/bounds_reference.py",
        "# mpmath %s at %d digits, python %s, on %s. Do not edit by hand; rerun the script."
        % (mp.__version__, mp.mp.dps, sys.version.split()[0], stamp),
        "# status: ok = value given; na = bound not applicable (preconditions not met).",
        "# quantity: rdp = bound on R_alpha; eps_mironov / eps_improved = min over the point's",
        "#   alphas of the (epsilon, delta = %g) conversion, alpha = the minimising order." % DELTA,
    ]
    pts_path = os.path.join(out_dir, "bounds_reference_points.csv")
    val_path = os.path.join(out_dir, "bounds_reference.csv")
    cols = ["point", "loss", "scheme", "init", "eta", "step_std", "lambda", "beta", "S_g", "L",
            "D", "n", "b", "q", "K", "T", "j0", "feature_clip", "eps_norm", "alphas"]
    with open(pts_path, "w", newline="") as f:
        f.write("\n".join(header) + "\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(cols)
        for p in POINTS:
            w.writerow([p["name"], p["loss"], p["scheme"], p["init"], repr(p["eta"]),
                        repr(p["step_std"]), repr(p["lam"]), repr(p["beta"]), repr(p["S_g"]),
                        repr(float(p["L"])), repr(float(p["D"])), p["n"], p["b"],
                        repr(float(p.get("q", float("nan")))), p["K"],
                        p["T"], p["j0"], repr(float(p["feature_clip"])), repr(p["eps_norm"]),
                        ";".join(repr(a) for a in p["alphas"])])
    rows = []
    n_ok = n_na = 0
    for p in POINTS:
        d = derived(p)
        for name, fn in BOUNDS:
            vals = []
            for a in p["alphas"]:
                try:
                    v = fn(p, d, M(a))
                    if not mp.isfinite(v):
                        raise RuntimeError("%s %s alpha=%s: %s" % (p["name"], name, a, v))
                    rows.append([p["name"], name, "rdp", repr(a), "ok", fmt(v)])
                    vals.append(v)
                    n_ok += 1
                except NA as e:
                    rows.append([p["name"], name, "rdp", repr(a), "na", str(e)])
                    n_na += 1
            # (epsilon, delta) rows where every order has a value and none is negative (footnote
            # 4 as printed can be; a negative number is no RDP bound and cannot be converted).
            if len(vals) == len(p["alphas"]) and all(v >= 0 for v in vals):
                al = [M(a) for a in p["alphas"]]
                e, a = eps_mironov(al, vals, DELTA)
                rows.append([p["name"], name, "eps_mironov", repr(float(a)), "ok", fmt(e)])
                e, a = eps_improved(al, vals, DELTA)
                rows.append([p["name"], name, "eps_improved", repr(float(a)), "ok", fmt(e)])
        print("%-28s done" % p["name"], file=sys.stderr)
    with open(val_path, "w", newline="") as f:
        f.write("\n".join(header) + "\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["point", "bound", "quantity", "alpha", "status", "value"])
        w.writerows(rows)
    print("%d points, %d rdp values, %d not applicable, %d rows -> %s"
          % (len(POINTS), n_ok, n_na, len(rows), val_path))


if __name__ == "__main__":
    main()
