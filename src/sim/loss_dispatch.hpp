// Where a loss family (config::LossKind) becomes its functor (sim::LossFunctors in
// sim/loss.hpp), and a scenario's dimension becomes the compile-time D every coordinate loop
// runs to. A new loss family needs nothing here. Internal to src/sim/.
#pragma once

#include <type_traits>
#include <utility>

#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/sim/loss.hpp"

namespace rdpaudit::sim::detail {

template <class F, class Loss, class... Rest>
decltype(auto) with_loss_in(const config::Scenario& s, F& f, LossList<Loss, Rest...>) {
  if (s.loss == Loss::kKind) return f(Loss::of(s));
  if constexpr (sizeof...(Rest) > 0) {
    return with_loss_in(s, f, LossList<Rest...>{});
  } else {
    throw InternalError("simulate: a loss family without a functor in sim::LossFunctors");
  }
}

/// f(loss) with the functor of the scenario's loss family for dimension D; returns what f does.
template <int D, class F>
decltype(auto) with_loss(const config::Scenario& s, F&& f) {
  return with_loss_in(s, f, LossFunctors<D>{});
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
      throw InternalError("simulate: dimension outside [1, kMaxDim]");
  }
}

/// Whether the gradient of the scenario's loss needs only the multiset of the batch's rows
/// (its functor's kSumOfRecords).
inline bool sums_records(const config::Scenario& s) {
  return with_loss<1>(s, [](auto loss) { return decltype(loss)::kSumOfRecords; });
}

template <class Loss, class = void>
struct IgnoresCount : std::false_type {};
template <class Loss>
struct IgnoresCount<Loss, std::void_t<decltype(Loss::kIgnoresCount)>>
    : std::bool_constant<Loss::kIgnoresCount> {};

/// Whether the gradient of the scenario's loss is the same for batches of any size with the
/// same record sum (its functor's kIgnoresCount; false where it has none).
inline bool gradient_ignores_count(const config::Scenario& s) {
  return with_loss<1>(s, [](auto loss) { return IgnoresCount<decltype(loss)>::value; });
}

}  // namespace rdpaudit::sim::detail
