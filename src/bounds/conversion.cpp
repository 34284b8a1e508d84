#include "rdpaudit/bounds/conversion.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "rdpaudit/core/error.hpp"

namespace rdpaudit::bounds {
namespace {

void check(const std::vector<double>& alphas, const std::vector<double>& rdp, double delta) {
  if (alphas.empty() || alphas.size() != rdp.size()) {
    throw InputError(
        fmt::format("RDP -> (epsilon, delta): need as many RDP values ({}) as "
                    "orders ({}), at least one",
                    rdp.size(), alphas.size()));
  }
  if (!(delta > 0.0 && delta < 1.0)) {
    throw InputError("delta", fmt::format("{}", delta), "must be in (0, 1)");
  }
  for (std::size_t i = 0; i < alphas.size(); ++i) {
    if (!(alphas[i] > 1.0) || !std::isfinite(alphas[i])) {
      throw InputError(fmt::format("alphas[{}]", i), fmt::format("{}", alphas[i]),
                       "must be > 1 and finite");
    }
    if (!(rdp[i] >= 0.0)) {
      throw InputError(fmt::format("rdp[{}]", i), fmt::format("{}", rdp[i]),
                       "must be >= 0 (+inf allowed)");
    }
  }
}

void check_epsilon(const std::vector<double>& alphas, const std::vector<double>& rdp,
                   double epsilon) {
  check(alphas, rdp, 0.5);  // the orders and values; delta is not an input here
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon)) {
    throw InputError("epsilon", fmt::format("{}", epsilon), "must be >= 0 and finite");
  }
}

/// min over the grid of exp(log_delta_at(alpha, r)), capped at 1.
template <typename F>
DeltaEpsilon minimise_delta(const std::vector<double>& alphas, const std::vector<double>& rdp,
                            F&& log_delta_at) {
  DeltaEpsilon best{1.0, alphas.front()};
  double best_log = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < alphas.size(); ++i) {
    const double l = log_delta_at(alphas[i], rdp[i]);
    if (l < best_log) best_log = l, best.alpha = alphas[i];
  }
  best.delta = std::min(1.0, std::exp(best_log));
  return best;
}

template <typename F>
EpsilonDelta minimise(const std::vector<double>& alphas, const std::vector<double>& rdp,
                      F&& eps_at) {
  EpsilonDelta best{std::numeric_limits<double>::infinity(), alphas.front()};
  for (std::size_t i = 0; i < alphas.size(); ++i) {
    const double e = eps_at(alphas[i], rdp[i]);
    if (e < best.epsilon) best = {e, alphas[i]};
  }
  return best;
}

}  // namespace

EpsilonDelta epsilon_mironov(const std::vector<double>& alphas, const std::vector<double>& rdp,
                             double delta) {
  check(alphas, rdp, delta);
  const double log_inv_delta = -std::log(delta);
  return minimise(alphas, rdp, [&](double a, double r) { return r + log_inv_delta / (a - 1.0); });
}

EpsilonDelta epsilon_improved(const std::vector<double>& alphas, const std::vector<double>& rdp,
                              double delta) {
  check(alphas, rdp, delta);
  const double log_delta = std::log(delta);
  EpsilonDelta best = minimise(alphas, rdp, [&](double a, double r) {
    return r + std::log1p(-1.0 / a) - (log_delta + std::log(a)) / (a - 1.0);
  });
  best.epsilon = std::max(best.epsilon, 0.0);
  return best;
}

DeltaEpsilon delta_mironov(const std::vector<double>& alphas, const std::vector<double>& rdp,
                           double epsilon) {
  check_epsilon(alphas, rdp, epsilon);
  return minimise_delta(alphas, rdp, [&](double a, double r) { return (a - 1.0) * (r - epsilon); });
}

DeltaEpsilon delta_improved(const std::vector<double>& alphas, const std::vector<double>& rdp,
                            double epsilon) {
  check_epsilon(alphas, rdp, epsilon);
  return minimise_delta(alphas, rdp, [&](double a, double r) {
    return (a - 1.0) * (r - epsilon) + (a - 1.0) * std::log1p(-1.0 / a) - std::log(a);
  });
}

}  // namespace rdpaudit::bounds
