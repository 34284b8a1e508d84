// The exact privacy profile of two 1-D Gaussian mixtures (the last iterate under the quadratic
// loss, sim/mixture.hpp): the ground truth of the certified profiles (estimate/profile.hpp).
//
// delta(eps) = integral (p - e^eps q)_+ = sum over the intervals I where p > e^eps q of
// P(I) - e^eps Q(I) (Balle et al. 2018, Theorem 1 / Def. 4). The interval ends are the roots
// of log p - log q = eps, found by a scan and bisection; P(I) and Q(I) are then sums of normal
// CDF differences (erfc, accurate in the far tails). For a Gaussian pair N(m, s^2), N(m', s^2)
// this is Balle & Wang 2018, Theorem 8: delta(eps) = Phi(-eps/mu + mu/2) - e^eps
// Phi(-eps/mu - mu/2), mu = |m - m'| / s (checked against it in the tests).
#pragma once

#include <memory>
#include <vector>

#include "rdpaudit/exact/gaussian_mixture.hpp"

namespace rdpaudit::exact {

struct ExactProfileOptions {
  /// Grid points of the root scan over [lowest mean - 40 sd, highest mean + 40 sd] (sd of the
  /// widest component): two sign changes of log p - log q closer than a step are missed.
  std::size_t scan_points = 20001;
};

/// delta(eps) of (p, q) for eps >= 0: p and q 1-D mixtures with one base variance (throws
/// InternalError otherwise).
double exact_delta(const GaussianMixture& p, const GaussianMixture& q, double epsilon,
                   const ExactProfileOptions& options = {});

/// eps(delta) = inf {eps >= 0 : delta(eps) <= delta} for delta in (0, 1), by bisection on the
/// non-increasing delta(eps): [lower, upper] brackets it (relative width about 1e-12).
struct EpsilonBracket {
  double value = 0.0, lower = 0.0, upper = 0.0;
};
EpsilonBracket exact_epsilon(const GaussianMixture& p, const GaussianMixture& q, double delta,
                             const ExactProfileOptions& options = {});

/// The same for many epsilons and deltas of one pair: the scan of log p - log q is done once,
/// and each delta(eps) then costs only its root refinements (the same numbers as the free
/// functions, bit for bit).
class ExactProfile {
 public:
  ExactProfile(const GaussianMixture& p, const GaussianMixture& q,
               const ExactProfileOptions& options = {});
  ~ExactProfile();
  ExactProfile(ExactProfile&&) noexcept;
  ExactProfile& operator=(ExactProfile&&) noexcept;

  double delta(double epsilon) const;
  EpsilonBracket epsilon(double delta) const;

 private:
  struct Scan;
  std::unique_ptr<Scan> scan_;
};

}  // namespace rdpaudit::exact
