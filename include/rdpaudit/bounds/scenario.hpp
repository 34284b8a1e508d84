// The bounds' view of a simulated scenario: config::Scenario -> bounds::Params, with the
// loss constants derived from the loss, clipping and data (loss.hpp), the experiment file's
// [bounds] overrides applied, and its custom formulas compiled.
#pragma once

#include <string>
#include <vector>

#include "rdpaudit/bounds/bounds.hpp"
#include "rdpaudit/bounds/profile_bounds.hpp"
#include "rdpaudit/config/scenario.hpp"

namespace rdpaudit::bounds {

struct ScenarioBounds {
  Params params;
  std::vector<CustomBound> custom;
  std::string derivation;      ///< where lambda, beta, S_g, L, D come from
  std::string not_applicable;  ///< non-empty: no bound applies to the scenario (the reason)
};

/// S_g is the sensitivity of THIS pair, lambda ||x_i0 - x'_i0|| (quadratic) or ||g - g'||
/// (linear), 2 * clip_norm (logistic): the proofs use the gradient difference of the
/// differing record only, so it is the tightest value valid for the audited pair. Every
/// constant can be overridden in [bounds].
ScenarioBounds bounds_of(const config::Scenario& s);

/// Every built-in and custom bound at every alpha (evaluate_all), or, when the scenario as a
/// whole is outside every bound (e.g. a partial epoch), each bound "not applicable" with
/// that reason.
std::vector<BoundValue> evaluate_scenario(const ScenarioBounds& sb,
                                          const std::vector<double>& alphas);

/// Every profile bound's eps(delta) at each delta (epsilon_bounds), or delta(eps) at each eps
/// (delta_bounds), with the scenario-wide reason where no bound applies (as evaluate_scenario).
std::vector<ProfileValue> epsilon_bounds_of(const ScenarioBounds& sb,
                                            const std::vector<double>& deltas);
std::vector<ProfileValue> delta_bounds_of(const ScenarioBounds& sb,
                                          const std::vector<double>& epsilons);

}  // namespace rdpaudit::bounds
