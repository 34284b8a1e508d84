// Noisy (stochastic) mini-batch gradient descent, Algorithm 1 of the paper with the blog's
// optional projection: theta <- Pi_K(theta - eta * g(theta; B) + s * N(0, I_d)).
// Trajectories are independent; trajectory j of dataset D (0) or D' (1) draws only from
// streams addressed by (seed, scenario, dataset, j, purpose), so results are bit-identical
// for any number of threads.
#pragma once

#include <cstdint>
#include <functional>

#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/core/progress.hpp"
#include "rdpaudit/rng/stream.hpp"
#include "rdpaudit/sim/batches.hpp"
#include "rdpaudit/tally/tally.hpp"

namespace rdpaudit::sim {

struct SimOptions {
  std::uint64_t seed = 0;
  std::int64_t trajectories = 0;  ///< per dataset
  int threads = 0;                ///< 0: OpenMP default
  Progress* progress = nullptr;   ///< advanced by trajectory-steps done
  /// The selection phase: called with the pilot's last iterates of D and D' (rows x d) after
  /// the plot histograms are placed; adds the estimators' score cells to the binning.
  std::function<void(const Eigen::MatrixXd& pilot_d, const Eigen::MatrixXd& pilot_dprime,
                     tally::Binning& binning)>
      select = nullptr;
  std::int64_t first = 0;  ///< first trajectory id counted (count_scenario)
};

/// Dataset ids in the stream address (rng/stream.hpp): D, D' and their pilots.
using rng::Dataset;
using rng::kD;
using rng::kDPrime;
using rng::kPilotD;
using rng::kPilotDPrime;

/// Last iterates of trajectories [first, first + count) of one dataset, row-major count x d.
/// Throws InputError naming the trajectory, dataset, value and step if one is not finite
/// (training diverged), as simulate_scenario does: such an iterate is never binned.
Eigen::MatrixXd simulate_last_iterates(const config::Scenario& s, std::uint64_t seed,
                                       Dataset dataset, std::int64_t first, std::int64_t count);

/// The draws of a dataset's batch schedules as the simulator makes them (BatchSchedule's
/// second constructor): by_distinguished where the loss needs only the batch's multiset of
/// rows, no record is crafted and all but a few records copy one row.
BatchDraws batch_draws(const config::Scenario& s, Dataset dataset);

struct ScenarioTallies {
  tally::Tally d, dprime;
  double seconds = 0;
};

/// The pilot of a scenario and the binning it places (plot histograms, then opt.select adds
/// the estimators' score cells).
tally::Binning prepare_binning(const config::Scenario& s, const SimOptions& options);

/// Trajectories opt.first ... opt.first + opt.trajectories - 1 of D and of D' counted into
/// `binning` (the tally.raw_samples first ids among them kept raw).
ScenarioTallies count_scenario(const config::Scenario& s, const tally::Binning& binning,
                               const SimOptions& options);

/// Trajectories opt.first ... opt.first + opt.trajectories - 1 of one dataset counted into
/// `binning`'s cells (integer counts, exact moment sums: the same numbers for any split of the
/// ids into calls, threads or ranks).
tally::Tally count_dataset(const config::Scenario& s, const tally::Binning& binning,
                           const SimOptions& options, Dataset dataset);

/// Adds the tallies of more trajectories (counts, moments, raw rows) to `into`.
void add_tallies(ScenarioTallies& into, const ScenarioTallies& more);

/// Pilot trajectories per dataset: tally.pilot_trajectories, or estimate.pilot when larger
/// and estimation is on (one pilot serves the plot histograms and the selection phase).
std::int64_t pilot_trajectories(const config::Scenario& s);

/// Runs the pilot (bins, then opt.select), then `trajectories` trajectories of D and of D'
/// counted into tallies.
ScenarioTallies simulate_scenario(const config::Scenario& s, const SimOptions& options);

/// Trajectories per scheduling chunk of the counting loop.
std::int64_t chunk_size(std::int64_t trajectories);

}  // namespace rdpaudit::sim
