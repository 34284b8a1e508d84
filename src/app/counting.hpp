// The counting of a run, split every way the numbers allow: over MPI ranks, over the parts of
// a split run (--part i/N), over the looks of a sequential audit, and over checkpoints.
// Counts and moment sums are exact (tally/), so every split gives the numbers of one run.
//
// A scenario's trajectories are counted in slabs of consecutive ids, per dataset, by step 3 of
// the scenario pass (scenario_pass.hpp: each rank a share, appended on rank 0 in rank order).
// The pilot is made in slabs too (per dataset, ids 0, 1, ...). Between slabs, pilot or count,
// rank 0 may write the checkpoint (every `checkpoint_every` seconds, and when an interrupt asks
// the run to stop): an interrupt loses at most one slab of work, wherever it falls.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/core/progress.hpp"
#include "rdpaudit/io/state_file.hpp"
#include "scenario_pass.hpp"

namespace rdpaudit::app {

/// Thrown on every rank when an interrupt stopped the counting and the checkpoint is written.
struct Stopped {
  std::string checkpoint;
};

struct CountingPlan {
  io::RunIdentity identity;
  std::string checkpoint;  ///< path of the checkpoint; empty: none
  double checkpoint_every = 300;
  int threads = 1;
};

class Counting {
 public:
  Counting(const config::ExperimentSpec& spec, CountingPlan plan, Progress* progress);

  /// Continues from a checkpoint (rank 0 holds its counts; every rank its positions).
  void restore(const io::RunState& state);
  int look() const { return look_; }
  void set_look(int look) { look_ = look; }

  /// Steps 1-2 of the pass of scenario s (once): the pilot in slabs (continuing a checkpoint's
  /// rows) and the cells, for a first round of `planned` trajectories; after a resume, the
  /// checkpoint's counts put into those cells.
  ScenarioRun& prepared(const config::Scenario& s, std::int64_t planned);
  /// Counts ids up to `end` of both datasets of s, from where its counting stands (its part's
  /// first id when nothing is counted yet).
  void count_to(const config::Scenario& s, std::int64_t begin, std::int64_t end);

  ScenarioRun& run(int scenario) { return runs_[static_cast<std::size_t>(scenario)]; }
  /// The counting state of every scenario as it stands (rank 0).
  io::RunState state(const std::string& kind) const;
  void write_checkpoint();
  /// Checkpoints written by this process and the wall time they took (their whole cost: the
  /// counting does not wait for anything else).
  int checkpoints() const { return checkpoints_; }
  double checkpoint_seconds() const { return checkpoint_seconds_; }

 private:
  void make_pilot(const config::Scenario& s);
  void count_slab(const config::Scenario& s, int dataset, std::int64_t first, std::int64_t n);
  void stop_if_requested();
  void next_slab_size(std::int64_t n, double took);
  void between_slabs();

  /// A scenario's pilot while it is made: per dataset, the rows so far (rows() x d, the full
  /// pilot allocated) and how many are made.
  struct Pilot {
    std::array<Eigen::MatrixXd, 2> rows;
    std::array<std::int64_t, 2> made{0, 0};
    double seconds = 0;
  };

  const config::ExperimentSpec& spec_;
  CountingPlan plan_;
  Progress* progress_;
  std::vector<ScenarioRun> runs_;
  std::vector<bool> prepared_;
  std::vector<std::array<std::int64_t, 2>> next_;  ///< per scenario and dataset; -1: none yet
  std::vector<io::ScenarioState> restored_;        ///< counts waiting for their scenario's cells
  std::vector<Pilot> pilots_;                      ///< per scenario, until its cells are chosen
  std::vector<bool> credited_;  ///< progress advanced for the counts found at a resume
  int look_ = 1;
  std::int64_t slab_ = 0;
  double last_checkpoint_ = 0;
  int checkpoints_ = 0;
  double checkpoint_seconds_ = 0;
};

}  // namespace rdpaudit::app
