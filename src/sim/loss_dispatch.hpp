// The one place where a loss family (config::LossKind) becomes its functor (sim/loss.hpp), and
// a scenario's dimension becomes the compile-time D every coordinate loop runs to. Adding a
// loss family: its functor in loss.hpp and one case here (a four-lane kernel, if any, in
// lane_kernels.hpp). Internal to src/sim/.
#pragma once

#include <stdexcept>
#include <type_traits>
#include <utility>

#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/sim/loss.hpp"

namespace rdpaudit::sim::detail {

/// f(loss) with the functor of the scenario's loss family for dimension D; returns what f does.
template <int D, class F>
decltype(auto) with_loss(const config::Scenario& s, F&& f) {
  switch (s.loss) {
    case config::LossKind::kQuadratic:
      return f(QuadraticLoss<D>{s.lambda});
    case config::LossKind::kLinear:
      return f(LinearLoss<D>{});
    case config::LossKind::kLogistic:
      return f(LogisticLoss<D>{s.lambda, s.clip_norm, s.features, s.classes});
  }
  throw std::logic_error("simulate: unknown loss family");
}

/// f(std::integral_constant<int, D>{}) for D = dim, 1 <= dim <= config::kMaxDim.
template <class F>
void with_dimension(int dim, F&& f) {
  static_assert(config::kMaxDim == 8, "instantiate the kernels for every dimension");
  switch (dim) {
    case 1:
      return f(std::integral_constant<int, 1>{});
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 3:
      return f(std::integral_constant<int, 3>{});
    case 4:
      return f(std::integral_constant<int, 4>{});
    case 5:
      return f(std::integral_constant<int, 5>{});
    case 6:
      return f(std::integral_constant<int, 6>{});
    case 7:
      return f(std::integral_constant<int, 7>{});
    case 8:
      return f(std::integral_constant<int, 8>{});
    default:
      throw std::logic_error("simulate: dimension outside [1, kMaxDim]");
  }
}

/// Whether the gradient of the scenario's loss needs only the multiset of the batch's rows
/// (its functor's kSumOfRecords).
inline bool sums_records(const config::Scenario& s) {
  return with_loss<1>(s, [](auto loss) { return decltype(loss)::kSumOfRecords; });
}

}  // namespace rdpaudit::sim::detail
