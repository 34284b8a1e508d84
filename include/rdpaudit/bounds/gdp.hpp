// Gaussian differential privacy (Dong, Roth & Su): a mechanism is mu-GDP when distinguishing
// neighbours is at least as hard as telling N(0, 1) from N(mu, 1).  That pair is the Gaussian
// mechanism with noise multiplier z = 1/mu, so its consequences are the Gaussian mechanism's
// (Feldman & Shenfeld 2025, Lemma A.2, after Balle & Wang 2018 and Mironov 2017):
//   Renyi divergence  R_alpha = alpha mu^2 / 2,
//   privacy profile   delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)  (exact).
// These turn a GDP bound's mu into the Renyi and (eps, delta) quantities the audit checks.
//
// The other way, from a pair of laws to mu: mu-GDP means T(M(D), M(D')) >= G_mu for neighbours
// D, D' (both orders), G_mu = T(N(0, 1), N(mu, 1)), G_mu(a) = Phi(Phi^{-1}(1 - a) - mu) (Dong,
// Roth & Su 2022, as the R package fdp documents them: rdocumentation.org, fdp 1.0.0, "gdp").
// T(P, Q)(a) is the least type II error 1 - Q(S) of a test that rejects P on S with type I
// error P(S) <= a (the rejection {x > Phi^{-1}(1 - a)} gives G_mu above). Rejecting P' on S,
// mu-GDP forces 1 - P(S) >= G_mu(P'(S)), i.e.
//   P(S) <= Phi(Phi^{-1}(P'(S)) + mu),  i.e.  mu >= Phi^{-1}(P(S)) - Phi^{-1}(P'(S));
// rejecting P on the complement gives the same number (Phi^{-1}(1 - x) = -Phi^{-1}(x)), so one
// set excludes every mu below mu_of_set(P(S), P'(S)) in both orders at once. With certified
// bounds P(S) >= p_lo and P'(S) <= q_hi, mu_of_set(p_lo, q_hi) is a certified lower bound on
// the pair's smallest GDP parameter (docs/bounds.md, section 10).
#pragma once

namespace rdpaudit::bounds::gdp {

/// R_alpha of mu-GDP: alpha mu^2 / 2 (mu >= 0, alpha > 1).
double rdp(double mu, double alpha);

/// The exact privacy profile of mu-GDP at eps >= 0, in [0, 1]; computed in log space so that it
/// keeps its relative precision where both terms are tiny and close (no cancellation).
/// mu = 0 gives 0, mu = +inf gives 1.
double delta(double mu, double epsilon);

/// The smallest eps >= 0 with delta(mu, eps) <= delta_target (0 < delta_target < 1), by
/// bisection to 1e-14 relative: 0 when delta(mu, 0) already is <= delta_target.
double epsilon(double mu, double delta_target);

/// log Phi(x), the standard normal CDF, for any finite x (asymptotic series far in the left
/// tail, where Phi underflows even in long double).
long double log_normal_cdf(long double x);

/// Phi^{-1}(p), the standard normal quantile, for p in [0, 1] (-inf at 0, +inf at 1): Newton
/// on log Phi from the Abramowitz & Stegun 26.2.23 start, to about 1e-15 relative, in both
/// tails (p down to the smallest double).
double normal_quantile(double p);

/// The smallest mu >= 0 for which mu-GDP allows a set S with P(S) = p and P'(S) = q (p, q in
/// [0, 1]): max(0, Phi^{-1}(p) - Phi^{-1}(q)); +inf when q = 0 < p or p = 1 > q.
double mu_of_set(double p, double q);

/// The smallest mu >= 0 whose privacy profile reaches delta at epsilon: delta(mu, epsilon) =
/// delta_target (delta(mu, eps) increases in mu), by bisection to 1e-14 relative; 0 when
/// delta_target <= 0, +inf when delta_target >= 1. A pair with delta(eps) >= delta_target at
/// some eps >= 0 is mu-GDP for no smaller mu (mu-GDP implies (eps, delta(mu, eps))-DP).
double mu_from_delta(double epsilon, double delta_target);

}  // namespace rdpaudit::bounds::gdp
