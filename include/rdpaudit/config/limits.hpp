// Checks of one scenario as a whole that decide, from the file alone, whether the simulation
// and the estimators can run: the per-step noise and the iterates stay within the magnitudes
// double precision handles, the training does not diverge, a fixed histogram range has
// distinct edges, the noise is not lost in rounding at the iterates' size, and a run fits in
// memory. Without them such files passed `validate` and failed only after simulating, with
// messages about internal names. Every check names the user's key, its value and what to
// change.
#pragma once

#include <string>

#include "rdpaudit/config/reader.hpp"
#include "rdpaudit/config/scenario.hpp"

namespace rdpaudit::config {

/// Where a scenario's trajectory count came from, to blame the right key.
struct TrajectorySource {
  std::string key = "experiment.trajectories";  ///< or "--trajectories"
  double scale = 1.0;                           ///< --scale
  bool simulated = true;                        ///< false: skip the run-only checks
};

/// Throws InputError for the first limit the scenario breaks (docs/experiments.md, "Limits");
/// the checks of the simulation (work, divergence, estimator samples) only when simulated.
void check_scenario_limits(const Scenario& s, Reader& r, long trajectories,
                           const TrajectorySource& source);

/// The memory a run of the whole experiment keeps (every scenario's raw samples and crafted
/// gradients until the results file is written) and needs at once (one scenario's pilot and
/// selection samples), in bytes: a lower estimate.
struct MemoryNeed {
  double kept = 0, raw = 0, crafted = 0, transient = 0;
  double total() const { return kept + transient; }
};
MemoryNeed run_memory(const ExperimentSpec& spec);

/// Throws InputError naming the key that dominates when run_memory exceeds the memory this
/// process may use (core/memory.hpp): a sweep that cannot fit is refused by validate.
void check_run_memory(const ExperimentSpec& spec, const TrajectorySource& source);

}  // namespace rdpaudit::config
