#include "rdpaudit/bounds/gdp.hpp"

#include <fmt/format.h>

#include <algorithm>
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

namespace {

/// Abramowitz & Stegun 26.2.23: Phi^{-1}(p) for 0 < p <= 1/2 from log p, absolute error below
/// 4.5e-4 (the start of the Newton iteration below).
long double quantile_start(long double log_p) {
  const long double t = std::sqrt(-2.0L * log_p);
  return -(t - (2.515517L + 0.802853L * t + 0.010328L * t * t) /
                   (1.0L + 1.432788L * t + 0.189269L * t * t + 0.001308L * t * t * t));
}

/// The x <= 0 with log Phi(x) = log_p (log_p <= log 1/2): Newton on the concave increasing
/// log Phi, whose derivative is phi(x)/Phi(x); from the A&S start it converges in a few steps.
long double lower_quantile(long double log_p) {
  const LD half_log_2pi = 0.5L * std::log(2.0L * 3.14159265358979323846264338327950288L);
  LD x = quantile_start(log_p);
  for (int i = 0; i < 100; ++i) {
    const LD lphi = log_normal_cdf(x);
    const LD slope = std::exp(-0.5L * x * x - half_log_2pi - lphi);
    LD step = (log_p - lphi) / slope;
    if (step > 1.0L) step = 1.0L;  // guards the first steps only: the start is within 5e-4
    if (step < -1.0L) step = -1.0L;
    x += step;
    if (std::fabs(step) <= 1e-18L * std::max(1.0L, std::fabs(x))) break;
  }
  return x;
}

}  // namespace

double normal_quantile(double p) {
  if (!(p >= 0.0 && p <= 1.0)) {
    throw std::invalid_argument(fmt::format("gdp::normal_quantile: need 0 <= p <= 1 ({})", p));
  }
  if (p == 0.0) return -std::numeric_limits<double>::infinity();
  if (p == 1.0) return std::numeric_limits<double>::infinity();
  // Phi^{-1}(p) = -Phi^{-1}(1 - p): solve in the lower half, where log p keeps its precision.
  if (p <= 0.5) return static_cast<double>(lower_quantile(std::log(static_cast<LD>(p))));
  return static_cast<double>(-lower_quantile(std::log1p(-static_cast<LD>(p))));
}

double mu_of_set(double p, double q) {
  if (!(p >= 0.0 && p <= 1.0 && q >= 0.0 && q <= 1.0)) {
    throw std::invalid_argument(
        fmt::format("gdp::mu_of_set: need p, q in [0, 1] (p = {}, q = {})", p, q));
  }
  if (p <= q) return 0.0;  // also covers p = 0 and q = 1
  if (q == 0.0 || p == 1.0) return std::numeric_limits<double>::infinity();
  return std::max(0.0, normal_quantile(p) - normal_quantile(q));
}

double mu_from_delta(double epsilon, double delta_target) {
  if (!(epsilon >= 0.0) || std::isinf(epsilon) || std::isnan(delta_target)) {
    throw std::invalid_argument(fmt::format(
        "gdp::mu_from_delta: need 0 <= eps < inf (eps = {}, delta = {})", epsilon, delta_target));
  }
  if (delta_target <= 0.0) return 0.0;
  if (delta_target >= 1.0) return std::numeric_limits<double>::infinity();
  // delta(mu, eps) increases from 0 (mu = 0) to 1 (mu -> inf): bracket, then bisect.
  double lo = 0.0, hi = 1.0;
  while (delta(hi, epsilon) < delta_target) {
    lo = hi;
    hi *= 2.0;
    if (std::isinf(hi)) return hi;
  }
  while (hi - lo > 1e-14 * hi) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    (delta(mid, epsilon) < delta_target ? lo : hi) = mid;
  }
  return hi;
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
