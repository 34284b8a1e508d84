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
  /// --scale: multiplies experiment.trajectories (after --trajectories) and estimate.samples.
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

/// Noise conversions (DESIGN.md section 2). All return the per-step std s of
/// theta <- theta - eta*g + s*N(0, I).
double step_std_from_sigma(double sigma, double eta);  // Algorithm 1
double step_std_from_noise_multiplier(double sigma_mul, double eta, double sensitivity,
                                      double batch_size);        // Algorithm 2
double step_std_from_blog_sigma(double blog_sigma, double eta);  // blog
/// Algorithm 2 -> Algorithm 1 (Section F.1): sigma = sqrt(eta/2) * sigma_mul * S_g / (2b).
double sigma_from_noise_multiplier(double sigma_mul, double eta, double sensitivity,
                                   double batch_size);

}  // namespace rdpaudit::config
