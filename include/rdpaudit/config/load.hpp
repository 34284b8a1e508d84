// Reading experiment files: TOML text -> validated, expanded ExperimentSpec.
// Every problem raises rdpaudit::InputError naming the key path, the value and what was
// expected; nothing is read outside this module.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "rdpaudit/config/scenario.hpp"

namespace rdpaudit::config {

/// Command-line overrides applied after the file is read (and validated like file values).
struct Overrides {
  std::optional<std::uint64_t> seed;
  std::optional<long> trajectories;
  /// --scale: multiplies experiment.trajectories (after --trajectories), and with them the
  /// default estimate.pilot.
  double scale = 1.0;
  /// false (`rdpaudit bounds`): skip the checks only a simulation needs (divergence, work,
  /// samples for the estimators; config/limits.hpp).
  bool simulated = true;
};

/// Parses experiment text. `source_name` appears in messages (usually the path).
ExperimentSpec parse_experiment(const std::string& text, const std::string& source_name,
                                const Overrides& overrides = {});

/// Reads and parses an experiment file.
ExperimentSpec load_experiment(const std::string& path, const Overrides& overrides = {});

}  // namespace rdpaudit::config
