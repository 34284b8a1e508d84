#include "rdpaudit/search/evaluate.hpp"

#include <fmt/core.h>

#include <cmath>
#include <limits>

#include "rdpaudit/bounds/scenario.hpp"
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

// The objective's bracket for one exact row; the ratio divides by the bound at the row's order.
struct Term {
  double lower, upper, bound;
};

std::optional<Term> term(const Spec& spec, const estimate::Estimate& e,
                         const std::vector<bounds::BoundValue>& bound_values, std::string& why) {
  if (!e.informative) {
    why = e.reason;
    return std::nullopt;
  }
  if (spec.objective != ObjectiveKind::kRatio) return Term{e.lower, e.upper, 0.0};
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
    return Term{e.lower / v, e.upper / v, v};
  }
  throw InternalError("search: bound value missing at an order of the search");
}

}  // namespace

Evaluation evaluate(const config::Scenario& s, const Spec& spec, std::uint64_t seed) {
  Evaluation out;
  std::vector<bounds::BoundValue> bound_values;
  if (spec.objective == ObjectiveKind::kRatio) {
    bound_values = bounds::evaluate_scenario(bounds::bounds_of(s), spec.alphas);
    bool known = false;
    for (const auto& b : bound_values) known = known || b.name == spec.bound;
    if (!known) {
      std::string names;
      for (const auto& b : bound_values) {
        if (b.alpha == spec.alphas.front()) names += (names.empty() ? "" : ", ") + b.name;
      }
      throw InputError("search.bound", "\"" + spec.bound + "\"",
                       "no built-in or custom bound of this name; the scenario's bounds: " + names);
    }
  }

  // An enumerated Gaussian mixture (quadratic and linear losses, crafted records): quadrature.
  std::string why;
  const auto mix = sim::quadratic_last_iterate_mixture(s, seed, s.estimate.patterns, why);
  std::vector<estimate::Estimate> rows;
  std::optional<exact::GaussianMixture> p, q;
  if (mix && s.dim <= 2 && mix->d.exact && mix->dprime.exact) {
    p = exact::to_gaussian_mixture(mix->d);
    q = exact::to_gaussian_mixture(mix->dprime);
    out.how = "exact quadrature (" + mix->dprime.how + ")";
    if (spec.objective != ObjectiveKind::kDelta) rows = exact::exact_renyi(*p, *q, spec.alphas);
  } else {
    std::string reason = mix ? (s.dim > 2 ? "quadrature is for d <= 2"
                                          : "the batch patterns are sampled, not enumerated")
                             : why;
    if (spec.objective == ObjectiveKind::kDelta) {
      out.reason = "delta(eps) is exact for an enumerated 1-D Gaussian mixture only; " + reason;
      return out;
    }
    estimate::ChainEstimates chain = estimate::exact_chain_renyi(s, spec.alphas);
    if (chain.rows.empty()) {
      out.reason = "mixture: " + reason + "; exact chain: " + chain.how;
      return out;
    }
    rows = std::move(chain.rows);
    out.how = chain.how;
  }

  if (spec.objective == ObjectiveKind::kDelta) {
    if (p->dim != 1) {
      out.reason = "delta(eps) is exact for a 1-D mixture only (d = 2 here)";
      return out;
    }
    for (int d : {kForward, kBackward}) {
      if (!wanted(spec, d)) continue;
      const double v = d == kForward ? exact::exact_delta(*p, *q, spec.epsilon)
                                     : exact::exact_delta(*q, *p, spec.epsilon);
      if (!out.covered || v > out.value) {
        out.covered = true;
        out.value = out.lower = out.upper = v;
        out.direction = d;
        out.alpha = std::numeric_limits<double>::quiet_NaN();
      }
    }
    return out;
  }

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
    for (std::size_t k = 0; k < spec.alphas.size(); ++k) {
      if (spec.alphas[k] == e.alpha && !(t->lower <= out.per_alpha[k])) out.per_alpha[k] = t->lower;
    }
    if (!out.covered || t->lower > out.value) {
      out.covered = true;
      out.value = t->lower;
      out.lower = t->lower;
      out.upper = std::max(t->upper, t->lower);
      out.alpha = e.alpha;
      out.direction = e.direction;
      out.bound = t->bound;
    }
  }
  if (!out.covered) out.reason = first_why.empty() ? "no exact row" : first_why;
  return out;
}

}  // namespace rdpaudit::search
