// The value of one search point, by one of two evaluators that a search never mixes
// (docs/methods.md, "Searching for the worst adversary"):
//   exact    the exact R_alpha (or delta(eps)) of the point's scenario from the exact-law
//            engines (exact/gaussian_mixture.hpp for an enumerated Gaussian mixture, the exact
//            chain of estimate/exact_chain.hpp for 1-D laws evolved step by step, and its privacy
//            profile), ranked by the certified lower end of its bracket; no samples;
//   sampled  the plug-in estimate on trajectories of the search's own streams (rng::kSearchD,
//            kSearchDPrime, never drawn by `run`), ranked by its value, with the bootstrap's
//            standard error (sample.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rdpaudit/bounds/scenario.hpp"
#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/estimate/types.hpp"
#include "rdpaudit/rng/stream.hpp"
#include "rdpaudit/search/spec.hpp"

namespace rdpaudit::search {

struct Evaluation {
  bool covered = false;
  std::string reason;                       ///< not covered: why (the engines' own reasons)
  std::string how;                          ///< which engine or estimator gave the value
  Evaluator evaluator = Evaluator::kExact;  ///< kExact or kSampled (never kAuto)
  /// The objective at the point, the largest over the objective's orders and directions:
  /// exact, the certified lower end of each bracket; sampled, the plug-in estimate. The search
  /// ranks by it.
  double value = 0.0;
  /// The term that attains `value`: its order (NaN for delta), direction and interval of the
  /// objective (R_alpha, R_alpha / bound or delta), lower <= upper: exact, the bracket;
  /// sampled, the bootstrap's central 68.3 % percentile interval (about value -+ one s.e.;
  /// delta: the certified lower end at one-sided 84.1 %, upper = value).
  double alpha = 0.0;
  int direction = 0;
  double lower = 0.0, upper = 0.0;
  /// How far apart two values must be for the search to call one larger: exact, the bracket's
  /// width; sampled, the standard error (half the 68.3 % interval; delta: value - lower).
  double resolution = 0.0;
  double bound = 0.0;  ///< ratio: the bound's value at `alpha`
  /// renyi, ratio: the value at each of spec.alphas alone (NaN where not covered).
  std::vector<double> per_alpha;
};

/// Evaluates `s` for `spec`'s objective with the exact engines. Throws InputError naming
/// search.bound when the bound is neither built-in nor among the scenario's custom bounds.
Evaluation evaluate(const config::Scenario& s, const Spec& spec, std::uint64_t seed);

/// Empty when the exact engines cover `s` for `spec`'s objective (an enumerated mixture for
/// quadrature, or a chain within estimate.exact_max_work), else why not. Cheap: builds no law
/// (the mixture's enumeration aside), so `rdpaudit search` checks every grid point with it to
/// choose one evaluator for the whole search.
std::string exact_gap(const config::Scenario& s, const Spec& spec, std::uint64_t seed);

/// The datasets of the stream address (rng/stream.hpp) that sampled evaluations simulate, D
/// then D': never counted, piloted or bootstrapped by `run`, `merge` or a part.
inline constexpr rng::Dataset kSampledDatasets[2] = {rng::kSearchD, rng::kSearchDPrime};

/// Evaluates `s` by simulation (sample.cpp): spec.pilot_trajectories trajectories of D and of
/// D' on the search's streams, the first half choosing the score cells as `run`'s pilot does,
/// the second half counted into them, the plug-in on the counts (its bootstrap from the
/// search's own stream).
Evaluation evaluate_sampled(const config::Scenario& s, const Spec& spec, std::uint64_t seed);

namespace detail {
/// The bounds' values at spec.alphas for the ratio objective (empty otherwise); InputError
/// naming search.bound when the scenario has no bound of that name.
std::vector<bounds::BoundValue> ratio_bounds(const config::Scenario& s, const Spec& spec);
/// Folds rows of R_alpha estimates into `out` (covered, value, term, per_alpha): each row's
/// objective term is its `lower` end (exact) or its `value` (sampled), divided by the bound
/// for the ratio objective; the largest over the wanted directions wins.
void fold_rows(const Spec& spec, const std::vector<estimate::Estimate>& rows,
               const std::vector<bounds::BoundValue>& bound_values, bool by_value, Evaluation& out);
}  // namespace detail

}  // namespace rdpaudit::search
