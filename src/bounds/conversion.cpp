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

}  // namespace rdpaudit::bounds
