// Noisy (stochastic) mini-batch gradient descent, Algorithm 1 of the paper with the blog's
// optional projection: theta <- Pi_K(theta - eta * g(theta; B) + s * N(0, I_d)).
// Trajectories are independent; trajectory j of dataset D (0) or D' (1) draws only from
// streams addressed by (seed, scenario, dataset, j, purpose), so results are bit-identical
// for any number of threads. Every parallel region here runs on the process's OpenMP default,
// which the caller sets once (app::use_threads; tests with omp_set_num_threads).
//
// The simulator knows nothing of estimators or ranks: the scenario pass (src/app/
// scenario_pass.cpp) runs the pilot through simulate_last_iterates, places the cells, and
// counts ranges of ids through count_dataset.
#pragma once

#include <cstdint>

#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/core/progress.hpp"
#include "rdpaudit/rng/stream.hpp"
#include "rdpaudit/sim/batches.hpp"
#include "rdpaudit/tally/tally.hpp"

namespace rdpaudit::sim {

/// Dataset ids in the stream address (rng/stream.hpp): D, D' and their pilots.
using rng::Dataset;
using rng::kD;
using rng::kDPrime;
using rng::kPilotD;
using rng::kPilotDPrime;

/// Trajectory ids first ... first + count - 1 of one dataset.
struct TrajectoryIds {
  std::int64_t first = 0;
  std::int64_t count = 0;
};

/// Last iterates of trajectories [first, first + count) of one dataset, row-major count x d.
/// Throws InputError naming the trajectory, dataset, value and step if one is not finite
/// (training diverged), as count_dataset does: such an iterate is never binned.
Eigen::MatrixXd simulate_last_iterates(const config::Scenario& s, std::uint64_t seed,
                                       Dataset dataset, std::int64_t first, std::int64_t count);

/// The draws of a dataset's batch schedules as the simulator makes them (BatchSchedule's
/// second constructor): by_distinguished where the loss needs only the batch's multiset of
/// rows, no record is crafted (Poisson: the crafted record is one of the distinguished) and
/// all but a few records copy one row.
BatchDraws batch_draws(const config::Scenario& s, Dataset dataset);

/// Pilot trajectories per dataset: tally.pilot_trajectories, or estimate.pilot when larger
/// and estimation is on (one pilot serves the plot histograms and the selection phase).
std::int64_t pilot_trajectories(const config::Scenario& s);

/// The plot histograms' cells, placed on the pilot's last iterates of D and D' (rows x d):
/// over the experiment's range where it gives one, else over the pilot's.
tally::Binning plot_binning(const config::Scenario& s, const Eigen::MatrixXd& pilot_d,
                            const Eigen::MatrixXd& pilot_dprime);

/// Trajectories ids.first ... ids.first + ids.count - 1 of one dataset counted into
/// `binning`'s cells (integer counts, exact moment sums: the same numbers for any split of
/// the ids into calls, threads or ranks); the ids below tally.raw_samples kept raw. Advances
/// `progress` (when given) by the trajectory-steps done.
tally::Tally count_dataset(const config::Scenario& s, const tally::Binning& binning,
                           std::uint64_t seed, Dataset dataset, TrajectoryIds ids,
                           Progress* progress = nullptr);

struct ScenarioTallies {
  tally::Tally d, dprime;
  double seconds = 0;  ///< wall time of the pilot and the counting
};

/// A scenario in one process without estimators, for tests and benchmarks: the pilot, its
/// plot_binning, then trajectories 0 ... trajectories - 1 of D and of D' counted.
ScenarioTallies simulate_scenario(const config::Scenario& s, std::uint64_t seed,
                                  std::int64_t trajectories);

/// Trajectories per scheduling chunk of the counting loop.
std::int64_t chunk_size(std::int64_t trajectories);

}  // namespace rdpaudit::sim
