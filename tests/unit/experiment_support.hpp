// Experiment files the tests share: the settings several test files start from, as the text
// of an experiment file, the scenario a text gives, and what reading a bad one says.
#pragma once

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "rdpaudit/bounds/experiment.hpp"
#include "rdpaudit/bounds/scenario.hpp"
#include "rdpaudit/config/load.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::test {

/// The first scenario of an experiment file's text, read as config reads it (`file` names the
/// text in messages).
inline config::Scenario scenario_from_toml(const std::string& text,
                                           const std::string& file = "test.toml") {
  return config::parse_experiment(text, file).scenarios.at(0);
}

/// The message of the InputError that reading `text` as the commands read it
/// (bounds::parse_experiment, file "test.toml") raises; "no error" when it reads.
inline std::string input_error_of(const std::string& text) {
  try {
    bounds::parse_experiment(text, "test.toml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

/// The quadratic loss (lambda = 1, dimension `dim`) on its worst-case pair
/// (data.preset = "quadratic_worst_case": n records, the pair's S_g = `sensitivity`), seed and
/// trajectories as given, followed by `rest`: the [training] table and the tables after it.
inline std::string quadratic_worst_case(int seed, long trajectories, int n, double sensitivity,
                                        const std::string& rest, int dim = 1) {
  // A TOML float keeps its decimal point: 4.0, not 4.
  std::string s_g = fmt::format("{}", sensitivity);
  if (s_g.find_first_of(".e") == std::string::npos) s_g += ".0";
  return fmt::format(R"(
[experiment]
seed = {}
trajectories = {}
[model]
loss = "quadratic"
dim = {}
lambda = 1.0
[data]
preset = "quadratic_worst_case"
n = {}
sensitivity = {}
{})",
                     seed, trajectories, dim, n, s_g, rest);
}

/// The paper's Figure 2 setting on the quadratic worst case: n = 50, S_g = 4, shuffle and
/// partition, eta = 0.02, b = 2, Algorithm 1's sigma^2 = 4, `epochs` epochs.
inline std::string figure2(int seed, long trajectories, int epochs) {
  return quadratic_worst_case(seed, trajectories, 50, 4.0,
                              fmt::format(R"([training]
scheme = "shuffle_partition"
eta = 0.02
batch_size = 2
epochs = {}
[noise]
sigma2 = 4.0
)",
                                          epochs));
}

/// DP-SGD on logistic regression: 2 features, lambda = 0.1, then the [model] lines `model`
/// (the clips: feature_clip, clip_norm); 20 synthetic records; shuffle and partition,
/// eta = 0.1, b = 4, `epochs` epochs; the [noise] table's lines `noise`.
inline std::string logistic_dpsgd(const std::string& model, int epochs, const std::string& noise,
                                  int seed = 1, long trajectories = 100) {
  return fmt::format(R"(
[experiment]
seed = {}
trajectories = {}
[model]
loss = "logistic"
features = 2
lambda = 0.1
{}
[data]
preset = "logistic_synthetic"
n = 20
[training]
scheme = "shuffle_partition"
eta = 0.1
batch_size = 4
epochs = {}
[noise]
{}
)",
                     seed, trajectories, model, epochs, noise);
}

/// The value of bound `name` at order `alpha` among a scenario's bound values; the test fails
/// when there is none.
inline const bounds::BoundValue& bound_value(const std::vector<bounds::BoundValue>& values,
                                             const std::string& name, double alpha) {
  for (const auto& v : values)
    if (v.name == name && v.alpha == alpha) return v;
  FAIL("no value of " << name << " at alpha = " << alpha);
  throw;
}

}  // namespace rdpaudit::test
