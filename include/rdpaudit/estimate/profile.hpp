// The privacy profile of the last iterate, certified from the counts of the Renyi estimators.
//
// For a direction (P, P') the privacy profile is the hockey-stick divergence
//   delta(eps) = sup_S P(S) - e^eps P'(S)        (Balle et al. 2018, Theorem 1 / Def. 4),
// and eps(delta) = inf { eps >= 0 : delta(eps) <= delta } the (eps, delta)-DP curve. Every set S
// gives a lower bound once P(S) and P'(S) are bounded, and the sup is over ALL sets, so a
// family of sets fixed before counting needs no model of the laws:
//   1. Sets, chosen on the pilot only (the selection phase): the tail sets {score < c} and
//      {score >= c} of the score that the Renyi estimators count into (the coordinate in 1-D,
//      the learned log-ratio above: likelihood-ratio sets, which attain the sup when the score
//      orders the true ratio), at cuts c = fine-cell edges whose pooled pilot tail count grows
//      geometrically (ratio sqrt 2) from each end up to the median. K cuts. At each cut the
//      pilot also fixes the orientation: F = the side where it saw more of P than of P'
//      (P(F) > P'(F) is needed for a positive delta forward; the backward direction uses the
//      complement of F, where P' has more).
//   2. For every cut, exact one-sided Clopper-Pearson bounds P(F) >= P_lo(F) and
//      P'(F) <= P'_hi(F), each missing with probability miss / (2K) (Bonferroni over cuts x
//      two laws); the complement's bounds are 1 minus them. With probability >= 1 - miss all
//      of them hold at once, and then, for every eps and every delta together, in both
//      directions (S = F forward, S = complement of F backward):
//        delta_lo(eps) = max(0, max_S P_lo(S) - e^eps P'_hi(S)) <= delta(eps),
//        eps_lo(delta) = max(0, max_{S: P_lo(S) > delta} log((P_lo(S) - delta) / P'_hi(S)))
//                      <= eps(delta),
//      (for eps' below a set's log((P_lo - delta) / P'_hi), P(S) - e^eps' P'(S) > delta, so
//      delta(eps') > delta and eps(delta) > eps'). No split of the level over an eps grid.
// docs/methods.md ("Privacy profiles") states this with its cost against the Renyi bounds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rdpaudit/estimate/selection.hpp"

namespace rdpaudit::estimate {

/// The profile family of one score: the chosen cuts and the counted trajectories below each.
struct ProfileCounts {
  std::string method;            ///< e.g. "profile-cp", "logistic-ratio/profile-cp"
  std::vector<double> cuts;      ///< score values c of the sets {score < c}, increasing
  std::vector<std::uint64_t> p;  ///< counted trajectories of P with score < c, per cut
  std::vector<std::uint64_t> q;  ///< the same for P'
  /// Per cut, chosen on the pilot: F = {score < c} (true) or {score >= c} (false).
  std::vector<bool> forward_below;
  std::uint64_t n_p = 0, n_q = 0;  ///< all counted trajectories of P and P'
};

/// Cut positions (indices into selection.fine_edges) chosen from the pilot's selection counts
/// alone: geometric in pooled tail count from both ends (see the file comment).
std::vector<std::size_t> profile_cut_edges(const ScoreSelection& selection);

/// The family of `selection` with the counts of P and P' in its counted cells
/// (tally::ScoreCells::counts, selection.edges). Throws InternalError for counts of other cells.
ProfileCounts profile_counts(const ScoreSelection& selection,
                             const std::vector<std::uint64_t>& counts_p,
                             const std::vector<std::uint64_t>& counts_q);

/// delta_lo(eps) in `direction` (kForward: P against P'), valid together with every other
/// eps, delta and direction of this family with probability >= 1 - family_miss.
double profile_delta_lower(const ProfileCounts& c, double epsilon, int direction,
                           double family_miss);

/// eps_lo(delta) in `direction`, on the same event (0 when no set certifies anything).
double profile_epsilon_lower(const ProfileCounts& c, double delta, int direction,
                             double family_miss);

/// One set F of the family with its certified bounds P(F) >= p_lo and P'(F) <= q_hi.
struct CertifiedSet {
  double p_lo, q_hi;
};

/// The family's K sets F_k (the forward orientation) with their one-sided Clopper-Pearson ends
/// at family miss `family_miss`: all hold together with probability >= 1 - family_miss, on the
/// same event as profile_delta_lower and profile_epsilon_lower (the backward direction's sets
/// are the complements, with bounds 1 - q_hi and 1 - p_lo). For a certified lower bound on the
/// GDP parameter (bounds::gdp::mu_of_set, audit/gdp_mu.hpp).
std::vector<CertifiedSet> profile_certified_sets(const ProfileCounts& c, double family_miss);

/// The same sets with their frequencies in place of the bounds (the plug-in; diagnostic).
std::vector<CertifiedSet> profile_plugin_sets(const ProfileCounts& c);

/// The plug-in of the same family (frequencies for probabilities): a diagnostic point
/// estimate of delta(eps), biased down by the family (it is a sup over fewer sets) and
/// noisy in the tails; never used for a verdict.
double profile_delta_plugin(const ProfileCounts& c, double epsilon, int direction);

/// eps of the plug-in at delta (sets with no counted P' trajectory skipped); diagnostic.
double profile_epsilon_plugin(const ProfileCounts& c, double delta, int direction);

/// p-value of the claim "eps(delta) <= epsilon" in `direction`: the smallest family miss at
/// which profile_epsilon_lower exceeds `epsilon` (found by bisection in log scale, rounded up),
/// in [1e-20, 1]; 1 when no miss does. Valid: if the claim holds, every set has
/// P(S) - e^epsilon P'(S) <= delta, so a rejection at miss u needs an interval to fail.
double profile_p_value(const ProfileCounts& c, double delta, int direction, double epsilon);

/// What a scenario's profile estimates report (docs/results-format.md, estimates/profile),
/// one direction of one method. Like Estimate: `value` a point estimate, [lower, upper] what
/// `interval` says (a certified one-sided bound, upper = +infinity, or a numerical bracket).
struct ProfileEstimate {
  std::string method;  ///< "profile-cp" (per score prefix) or "exact-profile"
  int direction = kForward;
  std::string interval;
  std::vector<double> epsilons;  ///< the eps grid (profile.epsilons)
  std::vector<double> delta_value, delta_lower, delta_upper;
  std::vector<double> deltas;  ///< the delta values (profile.deltas)
  std::vector<double> epsilon_value, epsilon_lower, epsilon_upper;
};

/// Both directions of one family on the grids: certified bounds at family miss
/// 1 - confidence, the plug-in as value (diagnostic).
std::vector<ProfileEstimate> profile_estimates(const ProfileCounts& c,
                                               const std::vector<double>& epsilons,
                                               const std::vector<double>& deltas,
                                               double confidence);

}  // namespace rdpaudit::estimate
