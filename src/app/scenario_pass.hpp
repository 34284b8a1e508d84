// The pass of one scenario, every step called from here in this order:
//
//   1. pilot    sim::simulate_last_iterates on the pilot streams, pilot_trajectories(s) per
//               dataset; each rank simulates a share and the shares are gathered in rank
//               order, so every rank holds the same rows;
//   2. cells    sim::plot_binning (the plot histograms), then estimate::select_scenario adds
//               the estimators' score cells, chosen for the planned count per dataset;
//   3. count    sim::count_dataset of a slab of ids of one dataset, each rank a share,
//               appended on rank 0 in rank order (count_share, then append_shares);
//   4. estimate estimate::estimate_scenario from the counts (rank 0);
//   5. audit    the Auditor's cells for the scenario's bounds and claims (rank 0).
//
// run calls 1 in slabs (a checkpoint can fall between them) and 2 once per scenario
// (Counting::prepared, also after a resume), 3 in slabs up to
// each look (Counting::count_to, which writes checkpoints between slabs), 4-5 at every look;
// merge calls 1-2, takes the counts of 3 from the part files, then 4-5. The split of ids over
// ranks is made here only (rank_share), and the threads of every step are the process's
// OpenMP default, set once by use_threads.
#pragma once

#include <cstdint>

#include "rdpaudit/audit/auditor.hpp"
#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/core/progress.hpp"
#include "rdpaudit/estimate/scenario.hpp"
#include "rdpaudit/sim/simulate.hpp"
#include "rdpaudit/tally/tally.hpp"

namespace rdpaudit::app {

/// Everything one scenario's pass produces.
struct ScenarioRun {
  estimate::Selection selection;
  tally::Binning binning;        ///< the cells every trajectory of the scenario is counted into
  sim::ScenarioTallies tallies;  ///< on rank 0: every id counted so far
  estimate::ScenarioEstimates estimates;
};

/// This rank's contiguous share of ids [first, first + count): the one rule by which the
/// pilot and every slab are split over ranks.
sim::TrajectoryIds rank_share(std::int64_t first, std::int64_t count);

/// Step 1, a slab of it: the pilot's last iterates of trajectories [first, first + count) of
/// one dataset (0: D, 1: D'), count x d, the same rows on every rank (each simulates a share).
/// A pilot computed in slabs has the rows of one computed whole (each row is its id's).
Eigen::MatrixXd pilot_slab(const config::Scenario& s, std::uint64_t seed, int dataset,
                           std::int64_t first, std::int64_t count);

/// Step 2 on every rank from the whole pilot (pilot_trajectories(s) rows per dataset): the plot
/// cells and the score cells chosen for `planned` trajectories per dataset (the run's first
/// round, whatever share of it this process counts); tallies with zero counts.
ScenarioRun cells_from_pilot(const config::Scenario& s, std::int64_t planned,
                             const Eigen::MatrixXd& pilot_d, const Eigen::MatrixXd& pilot_dprime);

/// Steps 1 and 2 at once (merge; run takes them in slabs, Counting::prepared). Advances
/// `progress` by the pilot's steps.
ScenarioRun choose_cells(const config::Scenario& s, std::uint64_t seed, std::int64_t planned,
                         Progress* progress);

/// Step 3, this rank's part: its share of ids [first, first + count) of one dataset (0: D,
/// 1: D') counted into the run's cells. Advances `progress` when this is the only rank.
tally::Tally count_share(const config::Scenario& s, std::uint64_t seed, const ScenarioRun& run,
                         int dataset, std::int64_t first, std::int64_t count, Progress* progress);

/// Step 3, together: every rank's count_share of the same slab appended on rank 0, in rank
/// order (the raw rows stay in id order). Collective.
void append_shares(const config::Scenario& s, ScenarioRun& run, int dataset, tally::Tally mine,
                   std::int64_t count, Progress* progress);

/// Steps 4 and 5 on rank 0: the estimates from the counts as they stand, then the audit cells
/// of the scenario for `counted` trajectories per dataset.
void estimate_and_audit(const config::Scenario& s, std::uint64_t seed, ScenarioRun& run,
                        const audit::BoundTable& bounds, const audit::ClaimTable& claims,
                        std::int64_t counted, audit::Auditor& auditor);

}  // namespace rdpaudit::app
