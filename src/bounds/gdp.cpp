#include "rdpaudit/bounds/gdp.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace rdpaudit::bounds::gdp {
namespace {

using LD = long double;

void check_mu(const char* who, double mu) {
  if (!(mu >= 0.0)) {
    throw std::invalid_argument(fmt::format("{}: need mu >= 0 (mu = {})", who, mu));
  }
}

}  // namespace

long double log_normal_cdf(long double x) {
  // Phi(x) = erfc(-x / sqrt 2) / 2; erfcl stays above the long double minimum down to
  // x = -140 (erfc(99) ~ 1e-4260).
  if (x > -140.0L) return std::log(0.5L * std::erfc(-x / std::sqrt(2.0L)));
  // Phi(x) = phi(x)/|x| (1 - 1/x^2 + 3/x^4 - 15/x^6 + ...) for x -> -inf; at |x| >= 140 the
  // omitted terms are below 1e-25 relative.
  const LD x2 = x * x;
  const LD series = 1.0L - 1.0L / x2 + 3.0L / (x2 * x2) - 15.0L / (x2 * x2 * x2);
  return -0.5L * x2 - std::log(-x) -
         0.5L * std::log(2.0L * 3.14159265358979323846264338327950288L) + std::log(series);
}

double rdp(double mu, double alpha) {
  check_mu("gdp::rdp", mu);
  if (!(alpha > 1.0))
    throw std::invalid_argument(fmt::format("gdp::rdp: need alpha > 1 ({})", alpha));
  return alpha * mu * mu / 2.0;
}

double delta(double mu, double epsilon) {
  check_mu("gdp::delta", mu);
  if (!(epsilon >= 0.0)) {
    throw std::invalid_argument(fmt::format("gdp::delta: need eps >= 0 (eps = {})", epsilon));
  }
  if (mu == 0.0) return 0.0;
  if (std::isinf(mu)) return 1.0;
  if (std::isinf(epsilon)) return 0.0;
  const LD m = mu, e = epsilon;
  const LD first = log_normal_cdf(-e / m + m / 2.0L);       // log Phi(-eps/mu + mu/2)
  const LD second = e + log_normal_cdf(-e / m - m / 2.0L);  // log e^eps Phi(-eps/mu - mu/2)
  // delta = e^first (1 - e^{second - first}); second < first for mu > 0.
  const LD d = std::exp(first) * -std::expm1(second - first);
  return static_cast<double>(d < 0.0L ? 0.0L : d);
}

double epsilon(double mu, double delta_target) {
  check_mu("gdp::epsilon", mu);
  if (!(delta_target > 0.0 && delta_target < 1.0)) {
    throw std::invalid_argument(
        fmt::format("gdp::epsilon: need 0 < delta < 1 (delta = {})", delta_target));
  }
  if (delta(mu, 0.0) <= delta_target) return 0.0;
  if (std::isinf(mu)) return std::numeric_limits<double>::infinity();
  double lo = 0.0, hi = 1.0;
  while (delta(mu, hi) > delta_target) hi *= 2.0;  // delta(eps) decreases in eps
  while (hi - lo > 1e-14 * hi) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    (delta(mu, mid) > delta_target ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace rdpaudit::bounds::gdp
