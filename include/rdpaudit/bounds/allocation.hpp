// Random allocation ("balls and bins") batches: every record is used in exactly one step,
// chosen uniformly at random out of t, independently of the other records.  Feldman &
// Shenfeld, "Privacy amplification by random allocation" (arXiv 2502.08202), Theorem 4.1,
// first part: for an (eps0, delta0)-DP randomizer R and any eps, delta > 0,
//   delta_{A_t(R)}(eps) <= delta_{P_{t,eta}(R)}(eps) + t delta0 + delta,
//   eta = 1 / (t (1 - gamma)),   gamma = min{cosh(eps0) sqrt(2 ln(1/delta) / t), 1 - 1/t},
// where P_{t,eta} is Poisson subsampling at rate eta over the same t steps.  Their neighbouring
// relation is add/remove (a record against the null element).
//
// The theorem bounds the privacy profile itself (its t delta0 + delta terms have no Renyi
// form), and only for one allocation (T <= t steps): it is the profile bound
// `fs25_thm4.1_random_allocation` (bounds/profile_bounds.hpp, docs/bounds.md section 10), which
// minimises these functions over a fixed grid of the free eps0 and delta.
#pragma once

#include <vector>

namespace rdpaudit::bounds::allocation {

/// Theorem 4.1's Poisson rate eta (t >= 1 steps, eps0 > 0, 0 < delta < 1); eta = 1 when gamma
/// reaches its cap 1 - 1/t.
double poisson_rate(long t, double eps0, double delta);

struct GaussianDelta {
  double delta;    ///< the bound on delta_{A_t}(eps): poisson + local + tail, at most 1
  double poisson;  ///< the Poisson term, bounded through RDP (see gaussian_delta)
  double local;    ///< t delta0, delta0 = the Gaussian's exact delta at eps0
  double tail;     ///< the delta of Theorem 4.1's tail event (the caller's choice)
  double rate;     ///< eta
  double alpha;    ///< the order that attains the Poisson term's minimum
};

/// Theorem 4.1 for the Gaussian randomizer R(*) = N(1, z^2), R(null) = N(0, z^2) (the
/// dominating pair of the Gaussian mechanism with noise multiplier z, their Claim D.3), one
/// use per record over t steps.  delta0 = Phi(1/(2z) - eps0 z) - e^{eps0} Phi(-1/(2z) - eps0 z)
/// (their Lemma A.2).  The Poisson term delta_{P_{t,eta}}(eps) is bounded from above by the
/// RDP of t Poisson-subsampled Gaussian steps at rate eta (mtz_poisson_rdp, the add/remove
/// accountant of the catalogue) converted by Canonne-Kamath-Steinke Prop. 12 (their Lemma
/// A.1), minimised over `alphas`; so the result is an upper bound on the theorem's right-hand
/// side, itself an upper bound on delta_{A_t}(eps).  eps0 > 0 and the tail delta in (0, 1) are
/// free: the bound holds for every choice.
GaussianDelta gaussian_delta(double z, long t, double epsilon, double eps0, double tail_delta,
                             const std::vector<double>& alphas);

/// The free parameters of one evaluation of Theorem 4.1 and what they give.
struct GaussianChoice {
  double value;  ///< eps at the target delta (gaussian_epsilon) or delta at the target eps
  double eps0;   ///< the randomizer's eps0
  double local;  ///< t delta0 at eps0
  double tail;   ///< the tail delta
  double rate;   ///< eta
  double alpha;  ///< the order of the Poisson term's minimum (NaN where no choice is usable)
};

/// The smallest delta bound of Theorem 4.1 (gaussian_delta) over the fixed grid
/// t delta0(eps0) = 10^-k and tail delta = 10^-k, k = 1 ... 15 (eps0 the Gaussian's eps at
/// delta0, gdp::epsilon; every choice is a valid bound, so their minimum is one).
GaussianChoice gaussian_delta_min(double z, long t, double epsilon,
                                  const std::vector<double>& alphas);

/// The smallest eps with delta_{A_t}(eps) <= delta that Theorem 4.1 certifies, over the fixed
/// grid of splits of the target delta: t delta0 = f_L delta (eps0 = the Gaussian's eps at
/// delta0) and the tail delta = f_T delta, f_L, f_T in {0.5, 0.2, 0.1, 0.01, 0.001} with
/// f_L + f_T < 1; the Poisson term gets the rest, delta - t delta0 - tail, and its eps is the
/// RDP conversion (Canonne-Kamath-Steinke Prop. 12 over `alphas`) of t MTZ steps at rate eta.
/// Each split is a valid choice of Theorem 4.1's free parameters; the minimum over them is
/// therefore a valid bound. +inf when no split leaves the Poisson term a positive delta.
/// z = +inf (the record moves nothing): 0.
GaussianChoice gaussian_epsilon(double z, long t, double delta, const std::vector<double>& alphas);

}  // namespace rdpaudit::bounds::allocation
