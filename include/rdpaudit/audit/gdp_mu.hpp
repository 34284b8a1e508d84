// The Gaussian-DP parameter of the audited pair: a certified lower bound from the counted
// profile family, and the exact value where the last iterate's law is known.
//
// mu-GDP forces P(S) <= Phi(Phi^{-1}(P'(S)) + mu) for every set S, in both orders
// (bounds/gdp.hpp), so each set S excludes every mu below Phi^{-1}(P(S)) - Phi^{-1}(P'(S)).
//   * certified: with P(F) >= p_lo and P'(F) <= q_hi for every set F of the profile family
//     (estimate::profile_certified_sets, one Bonferroni event of probability >= 1 - miss),
//     mu_lo = max(0, max_F Phi^{-1}(p_lo) - Phi^{-1}(q_hi)) excludes mu-GDP for every mu < mu_lo.
//     It is the largest mu the certificate excludes: a set excludes exactly the mu below its
//     own value, and no (eps, delta) summary of the same sets excludes more.
//   * exact: from the exact privacy profile, mu-GDP implies (eps, delta(mu, eps))-DP in both
//     directions, so every eps gives mu >= gdp::mu_from_delta(eps, delta_exact(eps)); the
//     maximum over an eps grid and both directions is a lower bound on the pair's exact mu,
//     equal to it at every eps for a Gaussian pair N(m, s^2), N(m', s^2) (mu = |m - m'| / s).
//
// An exact mu read off a grid of eps is a supremum over that grid, and for a mixture it can grow
// with eps all the way (the Poisson-subsampled Gaussian's value tends to the unsubsampled mu as
// eps grows: its far tail is the shifted Gaussian, thinned). gdp_estimates therefore evaluates
// the exact profile on its own grid, reaching eps = 64 (docs/methods.md, "Gaussian DP"), and
// reports the eps where the supremum was attained and the largest eps it could use.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/estimate/profile.hpp"
#include "rdpaudit/estimate/scenario.hpp"
#include "rdpaudit/exact/mixture_profile.hpp"

namespace rdpaudit::audit {

/// One row of a scenario's Gaussian-DP estimates (estimates/gdp in the results file): one
/// direction of one profile family or of the exact profile.
struct GdpEstimate {
  std::string method;  ///< the profile family's method ("profile-cp", ...) or "exact-profile"
  int direction = 0;
  std::string interval;  ///< what [lower, upper] is
  double value = 0.0;    ///< the plug-in (families) or the exact value on the grid
  double lower = 0.0;    ///< certified lower bound (families), or the numerical lower end
  double upper = std::numeric_limits<double>::infinity();
  /// Exact rows from the grid: the eps where the supremum was attained, and the largest eps of
  /// the grid whose delta(eps) was usable (>= kMuDeltaFloor); NaN otherwise.
  double epsilon_at = std::numeric_limits<double>::quiet_NaN();
  double epsilon_max = std::numeric_limits<double>::quiet_NaN();
};

/// delta(eps) below this is not used for mu (subnormal and cancelling terms lose digits).
inline constexpr double kMuDeltaFloor = 1e-250;
/// Relative numerical error allowed to the exact profile's delta(eps) in the grid's mu: its
/// lower end is value (1 - this) (the test suite checks Gaussian pairs on the whole grid).
inline constexpr double kExactMuTolerance = 1e-6;

/// The eps grid of the exact mu: profile.epsilons and 0, 0.25, ..., 64, increasing.
std::vector<double> gdp_epsilon_grid(const std::vector<double>& profile_epsilons);

/// Every Gaussian-DP row of a scenario with [profile] on: per profile family and direction the
/// plug-in and the certified lower bound at family miss 1 - confidence (the event of the
/// family's certified profile, estimates/profile); then, where the scenario has an exact 1-D
/// law (estimates.exact_law), the exact mu per direction: |m - m'| / sd for a Gaussian pair,
/// else the supremum over gdp_epsilon_grid of gdp::mu_from_delta (a lower bound on the pair's
/// mu, upper end +infinity).
std::vector<GdpEstimate> gdp_estimates(const config::Scenario& s,
                                       const estimate::ScenarioEstimates& estimates);

/// p-value of "the pair is mu-GDP" from one family: the smallest family miss at which
/// certified_mu_lower exceeds mu (bisection in log scale, rounded up), in [1e-20, 1]; 1 when
/// no miss does. Valid: if the pair is mu-GDP every set has Phi^{-1}(P(S)) - Phi^{-1}(P'(S))
/// <= mu, so a rejection at miss u needs one of the family's intervals to fail.
double mu_p_value(const estimate::ProfileCounts& c, double mu);

/// The certified lower bound mu_lo on the pair's GDP parameter from a profile family, valid
/// with probability >= 1 - family_miss (on the event of the family's certified profile).
double certified_mu_lower(const estimate::ProfileCounts& c, double family_miss);

/// The same without the certificate (frequencies for probabilities), over the sets that hold
/// some counted trajectory of P' and miss some of P (the others would give +infinity):
/// diagnostic only.
double plugin_mu(const estimate::ProfileCounts& c);

/// max over `epsilons` (each >= 0) and both directions of gdp::mu_from_delta(eps, delta(eps)),
/// `forward` the exact profile of (P, P'), `backward` that of (P', P): a lower bound on the
/// exact mu of the pair, exact for a Gaussian pair at any eps.
double exact_mu_on_grid(const exact::ExactProfile& forward, const exact::ExactProfile& backward,
                        const std::vector<double>& epsilons);

}  // namespace rdpaudit::audit
