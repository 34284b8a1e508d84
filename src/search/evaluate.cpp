#include "rdpaudit/search/evaluate.hpp"

#include <fmt/core.h>

#include <cmath>
#include <limits>

#include "rdpaudit/core/error.hpp"
#include "rdpaudit/estimate/exact_chain.hpp"
#include "rdpaudit/exact/gaussian_mixture.hpp"
#include "rdpaudit/exact/known_truth.hpp"
#include "rdpaudit/exact/mixture_profile.hpp"
#include "rdpaudit/sim/mixture.hpp"

namespace rdpaudit::search {
namespace {

using estimate::kBackward;
using estimate::kForward;

bool wanted(const Spec& spec, int direction) {
  return direction == kForward ? spec.forward : spec.backward;
}

// The objective's interval for one row; the ratio divides by the bound at the row's order.
struct Term {
  double value, lower, upper, bound;
};

std::optional<Term> term(const Spec& spec, const estimate::Estimate& e,
                         const std::vector<bounds::BoundValue>& bound_values, std::string& why) {
  if (!e.informative) {
    why = e.reason;
    return std::nullopt;
  }
  if (spec.objective != ObjectiveKind::kRatio) return Term{e.value, e.lower, e.upper, 0.0};
  for (const auto& b : bound_values) {
    if (b.name != spec.bound || b.alpha != e.alpha) continue;
    if (!b.applicable()) {
      why = fmt::format("{} is not applicable: {}", spec.bound, b.not_applicable);
      return std::nullopt;
    }
    const double v = *b.value;
    if (!(v > 0) || !std::isfinite(v)) {
      why = fmt::format("{} at alpha = {} is {} (the ratio needs a finite positive bound)",
                        spec.bound, e.alpha, v);
      return std::nullopt;
    }
    return Term{e.value / v, e.lower / v, e.upper / v, v};
  }
  throw InternalError("search: bound value missing at an order of the search");
}

// Where the quadrature applies: an enumerated Gaussian mixture of d <= 2 (why: else).
std::optional<sim::MixturePair> quadrature_mixture(const config::Scenario& s, std::uint64_t seed,
                                                   std::string& why) {
  auto mix = sim::quadratic_last_iterate_mixture(s, seed, s.estimate.patterns, why);
  if (!mix) return std::nullopt;
  if (s.dim > 2) {
    why = "quadrature is for d <= 2";
    return std::nullopt;
  }
  if (!mix->d.exact || !mix->dprime.exact) {
    why = "the batch patterns are sampled, not enumerated";
    return std::nullopt;
  }
  return mix;
}

// The scenario with its [profile] reduced to delta(spec.epsilon): what the exact chain needs
// to bracket the objective delta (a copy; the point's scenario stays as config read it).
config::Scenario with_profile_at(const config::Scenario& s, double epsilon) {
  config::Scenario c = s;
  c.profile.enabled = true;
  c.profile.epsilons = {epsilon};
  c.profile.deltas.clear();
  return c;
}

}  // namespace

namespace detail {

std::vector<bounds::BoundValue> ratio_bounds(const config::Scenario& s, const Spec& spec) {
  if (spec.objective != ObjectiveKind::kRatio) return {};
  auto values = bounds::evaluate_scenario(bounds::bounds_of(s), spec.alphas);
  for (const auto& b : values) {
    if (b.name == spec.bound) return values;
  }
  std::string names;
  for (const auto& b : values) {
    if (b.alpha == spec.alphas.front()) names += (names.empty() ? "" : ", ") + b.name;
  }
  throw InputError("search.bound", "\"" + spec.bound + "\"",
                   "no built-in or custom bound of this name; the scenario's bounds: " + names);
}

void fold_rows(const Spec& spec, const std::vector<estimate::Estimate>& rows,
               const std::vector<bounds::BoundValue>& bound_values, bool by_value,
               Evaluation& out) {
  std::string first_why;
  out.per_alpha.assign(spec.alphas.size(), std::numeric_limits<double>::quiet_NaN());
  for (const estimate::Estimate& e : rows) {
    if (!wanted(spec, e.direction)) continue;
    std::string row_why;
    const auto t = term(spec, e, bound_values, row_why);
    if (!t) {
      if (first_why.empty()) first_why = fmt::format("alpha = {}: {}", e.alpha, row_why);
      continue;
    }
    const double v = by_value ? t->value : t->lower;
    for (std::size_t k = 0; k < spec.alphas.size(); ++k) {
      if (spec.alphas[k] == e.alpha && !(v <= out.per_alpha[k])) out.per_alpha[k] = v;
    }
    if (!out.covered || v > out.value) {
      out.covered = true;
      out.value = v;
      out.lower = std::min(t->lower, v);
      out.upper = std::max(t->upper, v);
      out.alpha = e.alpha;
      out.direction = e.direction;
      out.bound = t->bound;
    }
  }
  if (!out.covered) out.reason = first_why.empty() ? "no row" : first_why;
}

}  // namespace detail

std::string exact_gap(const config::Scenario& s, const Spec& spec, std::uint64_t seed) {
  std::string why;
  const auto mix = quadrature_mixture(s, seed, why);
  if (mix && (spec.objective != ObjectiveKind::kDelta || s.dim == 1)) return "";
  if (mix) why = "delta(eps) by quadrature is for a 1-D mixture only (d = 2 here)";
  std::string chain_why;
  const auto chain = exact::chain_from_scenario(s, chain_why);
  if (!chain) return "mixture: " + why + "; exact chain: " + chain_why;
  exact::EngineOptions options;
  options.cells_per_sd = s.estimate.exact_cells_per_sd;
  const std::string over = estimate::over_limits(
      *chain, s.estimate, estimate::chain_work(*chain, options, s.estimate.exact_max_work));
  return over.empty() ? "" : "mixture: " + why + "; exact chain: " + over;
}

Evaluation evaluate(const config::Scenario& s, const Spec& spec, std::uint64_t seed) {
  Evaluation out;
  out.evaluator = Evaluator::kExact;
  const std::vector<bounds::BoundValue> bound_values = detail::ratio_bounds(s, spec);

  // An enumerated Gaussian mixture (quadratic and linear losses, crafted records): quadrature.
  std::string why;
  const auto mix = quadrature_mixture(s, seed, why);
  const bool delta = spec.objective == ObjectiveKind::kDelta;
  if (mix && (!delta || s.dim == 1)) {
    const auto p = exact::to_gaussian_mixture(mix->d);
    const auto q = exact::to_gaussian_mixture(mix->dprime);
    out.how = "exact quadrature (" + mix->dprime.how + ")";
    if (!delta) {
      detail::fold_rows(spec, exact::exact_renyi(p, q, spec.alphas), bound_values, false, out);
      out.resolution = out.covered ? out.upper - out.lower : 0.0;
      return out;
    }
    // The exact profile of a listed 1-D mixture: delta(eps) itself (no bracket).
    for (int d : {kForward, kBackward}) {
      if (!wanted(spec, d)) continue;
      const double v = d == kForward ? exact::exact_delta(p, q, spec.epsilon)
                                     : exact::exact_delta(q, p, spec.epsilon);
      if (!out.covered || v > out.value) {
        out.covered = true;
        out.value = out.lower = out.upper = v;
        out.direction = d;
        out.alpha = std::numeric_limits<double>::quiet_NaN();
      }
    }
    return out;
  }
  if (mix) why = "delta(eps) by quadrature is for a 1-D mixture only (d = 2 here)";

  // Otherwise the exact chain (1-D laws, and d > 1 reduced to the one axis the pair differs
  // along): R_alpha brackets, or for delta the brackets of its privacy profile at eps.
  const estimate::ChainEstimates chain =
      delta ? estimate::exact_chain_renyi(with_profile_at(s, spec.epsilon), {2.0})
            : estimate::exact_chain_renyi(s, spec.alphas);
  if (chain.rows.empty()) {
    out.reason = "mixture: " + why + "; exact chain: " + chain.how;
    return out;
  }
  out.how = chain.how;
  if (!delta) {
    detail::fold_rows(spec, chain.rows, bound_values, false, out);
    out.resolution = out.covered ? out.upper - out.lower : 0.0;
    return out;
  }
  // The profile's delta_lo is certified (a data-processing sum over the grid's cells of
  // certified mass brackets, docs/exact-laws.md); ranked by it, as R_alpha by its lower end.
  for (const estimate::ProfileEstimate& p : chain.profile) {
    if (!wanted(spec, p.direction) || p.delta_lower.empty()) continue;
    const double lo = p.delta_lower.front();
    if (!std::isfinite(lo)) continue;
    if (!out.covered || lo > out.value) {
      out.covered = true;
      out.value = out.lower = lo;
      out.upper = std::max(lo, p.delta_upper.front());
      out.direction = p.direction;
      out.alpha = std::numeric_limits<double>::quiet_NaN();
    }
  }
  if (!out.covered) {
    out.reason = "exact chain: no finite delta_lo at eps = " + fmt::format("{}", spec.epsilon);
    return out;
  }
  out.how += " profile";
  out.resolution = std::isfinite(out.upper) ? out.upper - out.lower : 0.0;
  return out;
}

}  // namespace rdpaudit::search
