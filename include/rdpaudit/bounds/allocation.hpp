// Random allocation ("balls and bins") batches: every record is used in exactly one step,
// chosen uniformly at random out of t, independently of the other records.  Feldman &
// Shenfeld, "Privacy amplification by random allocation" (arXiv 2502.08202), Theorem 4.1,
// first part: for an (eps0, delta0)-DP randomizer R and any eps, delta > 0,
//   delta_{A_t(R)}(eps) <= delta_{P_{t,eta}(R)}(eps) + t delta0 + delta,
//   eta = 1 / (t (1 - gamma)),   gamma = min{cosh(eps0) sqrt(2 ln(1/delta) / t), 1 - 1/t},
// where P_{t,eta} is Poisson subsampling at rate eta over the same t steps.  Their neighbouring
// relation is add/remove (a record against the null element).
//
// The simulator has the scheme (training.scheme = "random_allocation"), but the bound is not
// in the catalogue, whose entries are R_alpha bounds: the theorem bounds the privacy profile
// itself (its t delta0 + delta terms have no Renyi form), and only for one allocation (T <= t
// steps), docs/bounds.md section 10. These are the functions such a profile bound would use.
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

}  // namespace rdpaudit::bounds::allocation
