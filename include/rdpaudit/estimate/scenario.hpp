// Every estimate of one simulated scenario: the estimators of estimate/ run on its last
// iterates (both directions, every order), plus the exact / Rao-Blackwell value where the
// last iterate is a Gaussian mixture (quadratic loss, sim/mixture.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/estimate/rigorous.hpp"
#include "rdpaudit/estimate/types.hpp"
#include "rdpaudit/sim/simulate.hpp"

namespace rdpaudit::estimate {

struct ScenarioEstimates {
  std::vector<double> alphas;
  std::vector<Estimate> estimates;
  std::string mixture;  ///< how the exact mixture was obtained, or why there is none
  /// The rigorous bounds' certificates (one per score), for the audit's p-values; not stored.
  std::vector<RigorousResult> rigorous;
};

ScenarioEstimates estimate_scenario(const config::Scenario& s, const sim::ScenarioTallies& t,
                                    std::uint64_t seed);

}  // namespace rdpaudit::estimate
