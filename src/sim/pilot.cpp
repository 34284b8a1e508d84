// The pilot's products that belong to the simulator: how many pilot trajectories, and the
// plot histograms' cells they place; and the whole of a scenario in one process, for tests and
// benchmarks (runs take the scenario pass of src/app/scenario_pass.cpp).
#include <algorithm>
#include <chrono>

#include "rdpaudit/sim/simulate.hpp"

namespace rdpaudit::sim {

std::int64_t pilot_trajectories(const config::Scenario& s) {
  return s.estimate.enabled ? std::max<std::int64_t>(s.pilot_trajectories, s.estimate.pilot)
                            : s.pilot_trajectories;
}

tally::Binning plot_binning(const config::Scenario& s, const Eigen::MatrixXd& pilot_d,
                            const Eigen::MatrixXd& pilot_dprime) {
  return s.has_range ? tally::binning_from_range(s.range_lo, s.range_hi, pilot_d, pilot_dprime,
                                                 s.bins, s.bins_2d)
                     : tally::binning_from_pilot(pilot_d, pilot_dprime, s.bins, s.bins_2d);
}

ScenarioTallies simulate_scenario(const config::Scenario& s, std::uint64_t seed,
                                  std::int64_t trajectories) {
  const auto start = std::chrono::steady_clock::now();
  const std::int64_t pilot = pilot_trajectories(s);
  // D's pilot first, then D''s (statements, not arguments: the order a divergence is found in).
  const Eigen::MatrixXd pilot_d = simulate_last_iterates(s, seed, kPilotD, 0, pilot);
  const Eigen::MatrixXd pilot_dprime = simulate_last_iterates(s, seed, kPilotDPrime, 0, pilot);
  const tally::Binning binning = plot_binning(s, pilot_d, pilot_dprime);
  ScenarioTallies out;
  out.d = count_dataset(s, binning, seed, kD, {0, trajectories});
  out.dprime = count_dataset(s, binning, seed, kDPrime, {0, trajectories});
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace rdpaudit::sim
