// Exact binomial confidence intervals and the certified minimum of R_alpha over a box of cell
// probabilities: the two pieces of the rigorous lower bound.
#pragma once

#include <vector>

namespace rdpaudit::estimate {

/// A closed interval [lower, upper] of probabilities.
struct Interval {
  double lower = 0.0;
  double upper = 1.0;
};

/// Two-sided Clopper-Pearson interval for a binomial probability after `successes` out of
/// `trials`: it misses the true probability with probability at most `miss` (miss/2 on each
/// side), for every true probability (Clopper & Pearson 1934). Lower end is
/// Beta^-1(miss/2; k, n-k+1) (0 when k = 0), upper end Beta^-1(1-miss/2; k+1, n-k) (1 when
/// k = n). Non-integer `successes` are accepted (used to forecast an interval from scaled
/// counts); the ends are widened by a relative 1e-12 so that rounding never shrinks them.
/// Throws InternalError unless 0 <= successes <= trials, trials > 0 and 0 < miss < 1.
Interval clopper_pearson(double successes, double trials, double miss);

/// Result of min_renyi_over_boxes.
struct BoxBound {
  double lower = 0.0;     ///< certified: <= R_alpha(p||q) for every (p, q) in the boxes
  double at_point = 0.0;  ///< R_alpha at the best point found (the minimum up to `lower`)
  int iterations = 0;     ///< alternating-minimisation sweeps used
};

/// Certified lower bound on
///   min { R_alpha(p||q) : p_i in p_box[i], q_i in q_box[i], sum p = sum q = 1 },  alpha > 1.
/// F(p, q) = sum_i p_i^alpha q_i^(1-alpha) is jointly convex (the perspective of t^alpha) and
/// the feasible set a product of two polytopes, so block-coordinate descent (exact KKT
/// water-filling in p, then in q) converges to the minimum. The bound itself does not rely
/// on convergence: F is 1-homogeneous, so its tangent plane at any point z is the linear
/// minorant y -> grad F(z) . y, and min over the feasible set of that linear function (a
/// fractional knapsack, solved exactly) is a certified lower bound on min F. The result is
/// clipped at 0 (R_alpha >= 0 on the simplex). Works in the log domain, alpha up to
/// hundreds. Requires sum lower <= 1 <= sum upper in each box (Clopper-Pearson boxes around
/// observed frequencies always satisfy it).
BoxBound min_renyi_over_boxes(const std::vector<Interval>& p_box,
                              const std::vector<Interval>& q_box, double alpha);

}  // namespace rdpaudit::estimate
