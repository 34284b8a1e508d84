// Gaussian differential privacy (Dong, Roth & Su): a mechanism is mu-GDP when distinguishing
// neighbours is at least as hard as telling N(0, 1) from N(mu, 1).  That pair is the Gaussian
// mechanism with noise multiplier z = 1/mu, so its consequences are the Gaussian mechanism's
// (Feldman & Shenfeld 2025, Lemma A.2, after Balle & Wang 2018 and Mironov 2017):
//   Renyi divergence  R_alpha = alpha mu^2 / 2,
//   privacy profile   delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)  (exact).
// These turn a GDP bound's mu into the Renyi and (eps, delta) quantities the audit checks.
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

}  // namespace rdpaudit::bounds::gdp
