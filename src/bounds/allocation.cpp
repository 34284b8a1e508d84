#include "rdpaudit/bounds/allocation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "rdpaudit/bounds/conversion.hpp"
#include "rdpaudit/bounds/gdp.hpp"
#include "rdpaudit/bounds/mechanisms.hpp"

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

}  // namespace rdpaudit::bounds::allocation
