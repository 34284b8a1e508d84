#include "rdpaudit/bounds/allocation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "rdpaudit/bounds/conversion.hpp"
#include "rdpaudit/bounds/gdp.hpp"
#include "rdpaudit/bounds/mechanisms.hpp"
#include "rdpaudit/bounds/params.hpp"

namespace rdpaudit::bounds::allocation {

double poisson_rate(long t, double eps0, double delta) {
  if (t < 1 || !(eps0 > 0.0) || !std::isfinite(eps0) || !(delta > 0.0 && delta < 1.0)) {
    throw std::invalid_argument(fmt::format(
        "allocation::poisson_rate: need t >= 1, 0 < eps0 < inf, 0 < delta < 1 (t = {}, eps0 = "
        "{}, delta = {})",
        t, eps0, delta));
  }
  const double td = static_cast<double>(t);
  // Theorem 4.1: gamma = min{cosh(eps0) sqrt(2 ln(1/delta)/t), 1 - 1/t}, eta = 1/(t(1-gamma)).
  const double gamma =
      std::min(std::cosh(eps0) * std::sqrt(2.0 * std::log(1.0 / delta) / td), 1.0 - 1.0 / td);
  return std::min(1.0, 1.0 / (td * (1.0 - gamma)));
}

GaussianDelta gaussian_delta(double z, long t, double epsilon, double eps0, double tail_delta,
                             const std::vector<double>& alphas) {
  if (!(z > 0.0) || !(epsilon >= 0.0) || alphas.empty()) {
    throw std::invalid_argument(fmt::format(
        "allocation::gaussian_delta: need z > 0, eps >= 0 and at least one order (z = {}, eps "
        "= {})",
        z, epsilon));
  }
  GaussianDelta out{};
  out.rate = poisson_rate(t, eps0, tail_delta);
  std::vector<double> rdp;
  for (double a : alphas) rdp.push_back(static_cast<double>(t) * mtz_poisson_rdp(out.rate, z, a));
  const DeltaEpsilon poisson = delta_improved(alphas, rdp, epsilon);
  out.poisson = poisson.delta;
  out.alpha = poisson.alpha;
  out.local = static_cast<double>(t) * gdp::delta(1.0 / z, eps0);
  out.tail = tail_delta;
  out.delta = std::min(1.0, out.poisson + out.local + out.tail);
  return out;
}

namespace {

// The randomizer's eps0 at which t delta0 = local: the Gaussian's eps at delta0 = local / t
// (gdp::epsilon, the smallest eps with delta0(eps) <= local / t). Theorem 4.1 needs eps0 > 0;
// where the Gaussian is already (0, local / t)-DP any eps0 > 0 has delta0 <= local / t, and the
// smallest positive double keeps cosh(eps0) = 1.
double eps0_for(double z, long t, double local) {
  const double e = gdp::epsilon(1.0 / z, local / static_cast<double>(t));
  return e > 0.0 ? e : std::numeric_limits<double>::denorm_min();
}

}  // namespace

GaussianChoice gaussian_delta_min(double z, long t, double epsilon,
                                  const std::vector<double>& alphas) {
  GaussianChoice best{1.0, kNaN, kNaN, kNaN, kNaN, kNaN};
  if (std::isinf(z)) return {0.0, kNaN, 0.0, 0.0, kNaN, kNaN};
  for (int kl = 1; kl <= 15; ++kl) {
    const double eps0 = eps0_for(z, t, std::pow(10.0, -kl));
    for (int kt = 1; kt <= 15; ++kt) {
      const GaussianDelta d = gaussian_delta(z, t, epsilon, eps0, std::pow(10.0, -kt), alphas);
      if (d.delta < best.value) best = {d.delta, eps0, d.local, d.tail, d.rate, d.alpha};
    }
  }
  return best;
}

GaussianChoice gaussian_epsilon(double z, long t, double delta, const std::vector<double>& alphas) {
  if (!(z > 0.0) || t < 1 || !(delta > 0.0 && delta < 1.0) || alphas.empty()) {
    throw std::invalid_argument(fmt::format(
        "allocation::gaussian_epsilon: need z > 0, t >= 1, 0 < delta < 1 and at least one "
        "order (z = {}, t = {}, delta = {})",
        z, t, delta));
  }
  if (std::isinf(z)) return {0.0, kNaN, 0.0, 0.0, kNaN, kNaN};
  constexpr double kFractions[] = {0.5, 0.2, 0.1, 0.01, 0.001};
  GaussianChoice best{kInf, kNaN, kNaN, kNaN, kNaN, kNaN};
  std::vector<double> rdp(alphas.size());
  for (double fl : kFractions) {
    const double eps0 = eps0_for(z, t, fl * delta);
    const double local = static_cast<double>(t) * gdp::delta(1.0 / z, eps0);
    for (double ft : kFractions) {
      if (fl + ft >= 1.0) continue;
      const double tail = ft * delta;
      const double rest = delta - local - tail;  // the Poisson term's share
      if (!(rest > 0.0)) continue;
      const double rate = poisson_rate(t, eps0, tail);
      for (std::size_t a = 0; a < alphas.size(); ++a)
        rdp[a] = static_cast<double>(t) * mtz_poisson_rdp(rate, z, alphas[a]);
      const EpsilonDelta e = epsilon_improved(alphas, rdp, rest);
      if (e.epsilon < best.value) best = {e.epsilon, eps0, local, tail, rate, e.alpha};
    }
  }
  return best;
}

}  // namespace rdpaudit::bounds::allocation
