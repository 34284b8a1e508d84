// Every estimate of one simulated scenario, in two phases that the scenario pass (src/app/
// scenario_pass.hpp) calls: the selection phase chooses the estimators' score cells on the
// pilot (select_scenario, between the pilot and the counted trajectories), and
// estimate_scenario computes every estimate from the counts (both directions, every order),
// plus the exact / Rao-Blackwell value where the last iterate is a Gaussian mixture
// (quadratic loss, sim/mixture.hpp), else the exact chain's bracket of a 1-D last iterate
// (estimate/exact_chain.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/estimate/profile.hpp"
#include "rdpaudit/estimate/rigorous.hpp"
#include "rdpaudit/estimate/selection.hpp"
#include "rdpaudit/estimate/types.hpp"
#include "rdpaudit/exact/gaussian_mixture.hpp"
#include "rdpaudit/sim/simulate.hpp"

namespace rdpaudit::estimate {

struct ScenarioEstimates {
  std::vector<double> alphas;
  std::vector<Estimate> estimates;
  /// The scenario's exact law: how the quadrature's mixture was obtained, or "exact chain
  /// (h = s/40, N cells)" where the engine evolved the 1-D law, or why there is none.
  std::string mixture;
  double seconds = 0.0;  ///< wall time of the estimation (after the last trajectory)
  /// The rigorous bounds' certificates (one per score), for the audit's p-values; not stored.
  std::vector<RigorousResult> rigorous;
  /// Privacy-profile families (one per score) from the same counts ([profile] on): the
  /// claims' certificates, for the audit's p-values.
  std::vector<ProfileCounts> profiles;
  /// Their certified profiles per score and direction, then the exact profile where the last
  /// iterate is a listed 1-D Gaussian mixture ("exact-profile").
  std::vector<ProfileEstimate> profile;
  /// The exact 1-D laws (P, P') of the "exact-profile" rows (empty without them): the pair's
  /// exact Gaussian-DP parameter (audit/gdp_mu.hpp) is read from them.
  std::vector<exact::GaussianMixture> exact_law;
};

/// The selection phase of a scenario: chooses the score cells on the pilot's last iterates
/// (rows x d) for `trajectories` counted per dataset and adds them to `binning`, in the order
/// of the returned selection's scores. Nothing when estimation is off.
Selection select_scenario(const config::Scenario& s, const Eigen::MatrixXd& pilot_d,
                          const Eigen::MatrixXd& pilot_dprime, std::int64_t trajectories,
                          tally::Binning& binning);

/// Every estimate from the selection and the counted tallies (their score cells).
ScenarioEstimates estimate_scenario(const config::Scenario& s, const Selection& selection,
                                    const sim::ScenarioTallies& t, std::uint64_t seed);

}  // namespace rdpaudit::estimate
