// The value of one search point: the exact R_alpha (or delta(eps)) of the point's scenario from
// the exact-law engines (exact/gaussian_mixture.hpp for an enumerated Gaussian mixture, the exact
// chain of estimate/exact_chain.hpp for 1-D laws evolved step by step), or "not covered" with
// the engines' reasons. No samples are drawn.
#pragma once

#include <string>

#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/search/spec.hpp"

namespace rdpaudit::search {

struct Evaluation {
  bool covered = false;
  std::string reason;  ///< not covered: why (the engines' own reasons)
  std::string how;     ///< which engine gave the value
  /// The objective at the point, taken from the certified lower end of each bracket: the
  /// largest over the objective's orders and directions. The search ranks by it.
  double value = 0.0;
  /// The term that attains `value`: its order (NaN for delta), direction and bracket of the
  /// objective (R_alpha, R_alpha / bound or delta), lower <= upper.
  double alpha = 0.0;
  int direction = 0;
  double lower = 0.0, upper = 0.0;
  double bound = 0.0;  ///< ratio: the bound's value at `alpha`
  /// renyi, ratio: the value at each of spec.alphas alone (NaN where not covered).
  std::vector<double> per_alpha;
};

/// Evaluates `s` for `spec`'s objective. Throws InputError naming search.bound when the bound
/// is neither built-in nor among the scenario's custom bounds.
Evaluation evaluate(const config::Scenario& s, const Spec& spec, std::uint64_t seed);

}  // namespace rdpaudit::search
