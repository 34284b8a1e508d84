// Wang, Balle, Kasiviswanathan 2019, Theorem 27: the RDP of the Gaussian mechanism on a
// subsample of fixed size drawn without replacement (replace-one neighbours), in the form
// Google's dp_accounting evaluates it (mechanisms.hpp has the statement): its CGF at integer
// orders and the forward differences it needs.  mechanisms.cpp interpolates fractional orders.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "rdpaudit/bounds/logspace.hpp"
#include "rdpaudit/bounds/mechanisms.hpp"

namespace rdpaudit::bounds {
namespace {

using LD = long double;
constexpr LD kInfLD = std::numeric_limits<LD>::infinity();

/// The log-integrand of Delta^l = E[(Y-1)^l] = int phi(x) (e^{s x - c} - 1)^l dx, without
/// the normalisation of phi: h(x) = -x^2/2 + l log|e^{s x - c} - 1|, s = 1/z, c = s^2/2.
/// (E[Y^k] = e^{k^2 c - k c} = e^{k(k-1)/(2z^2)}, so the binomial expansion of E[(Y-1)^l] is
/// the forward difference.)  h'' = -1 - l s^2 e^u/(e^u-1)^2 <= -1 on either side of the zero
/// at x0 = c/s: each side is concave with one maximum and falls off at least like a unit
/// Gaussian away from it.
struct ForwardDifferenceIntegrand {
  LD s, c, l;

  LD log_abs_expm1(LD u) const {
    if (u > 30.0L) return u + std::log1p(-std::exp(-u));
    return std::log(std::fabs(std::expm1(u)));
  }
  LD h(LD x) const { return -0.5L * x * x + l * log_abs_expm1(s * x - c); }
  /// h'(x) = -x + l s e^u/(e^u - 1) = -x - l s / expm1(-u).
  LD dh(LD x) const { return -x - l * s / std::expm1(-(s * x - c)); }
  LD zero() const { return c / s; }

  /// The maximum of h right (side = +1) or left (side = -1) of the zero, by bisection on h'
  /// (decreasing on each side, +inf just right of the zero and at -inf, -inf just left of the
  /// zero and at +inf).
  LD peak(int side) const {
    const LD x0 = zero();
    LD inner = x0;
    LD outer = x0 + side * (l * s + std::sqrt(l) + 10.0L);
    while (side * dh(outer) > 0.0L) outer = x0 + 2.0L * (outer - x0);
    // The window needs the peak to well within the lattice step, not to full precision.
    while (std::fabs(outer - inner) > 1e-6L * (1.0L + std::fabs(inner))) {
      const LD mid = 0.5L * (inner + outer);
      if (mid == inner || mid == outer) break;
      if (side * dh(mid) > 0.0L) {
        inner = mid;
      } else {
        outer = mid;
      }
    }
    return 0.5L * (inner + outer);
  }
};

}  // namespace

std::vector<double> wbk_log_forward_differences(double z, long l_max) {
  if (!(z > 0.0) || !std::isfinite(z) || l_max < 2 || l_max % 2 != 0) {
    throw std::invalid_argument(
        fmt::format("wbk_log_forward_differences: need 0 < z < inf and an even l_max >= 2 (z "
                    "= {}, l_max = {})",
                    z, l_max));
  }
  const LD s = 1.0L / static_cast<LD>(z);
  const LD c = 0.5L * s * s;
  std::vector<double> out(static_cast<std::size_t>(l_max / 2), 0.0);
  std::vector<LD> log_factorial(static_cast<std::size_t>(l_max) + 1);
  for (long k = 0; k <= l_max; ++k) {
    log_factorial[static_cast<std::size_t>(k)] = std::lgamma(static_cast<LD>(k) + 1.0L);
  }
  // Where z is small the binomial sum sum_k (-1)^{l-k} C(l,k) e^{c k(k-1)} is dominated by its
  // last terms and cancels little; summed relative to its largest term it is accurate to about
  // l * 1e-19 / (|sum| / largest), so it is used when that ratio is at least 1e-3.
  std::vector<long> integrate;  // the l left to the quadrature
  std::vector<LD> log_terms(static_cast<std::size_t>(l_max) + 1);
  for (long l = 2; l <= l_max; l += 2) {
    LD top = -kInfLD;
    for (long k = 0; k <= l; ++k) {
      const LD kd = static_cast<LD>(k);
      const LD v = log_factorial[static_cast<std::size_t>(l)] -
                   log_factorial[static_cast<std::size_t>(k)] -
                   log_factorial[static_cast<std::size_t>(l - k)] + c * kd * (kd - 1.0L);
      log_terms[static_cast<std::size_t>(k)] = v;
      top = std::max(top, v);
    }
    // Terms below e^-60 of the largest change the sum by less than its rounding; a first pass
    // in double (error ~ l 1e-16) rejects the sums that cancel far below 1e-3 cheaply.
    auto scaled_sum = [&](auto zero) {
      using F = decltype(zero);
      F sum = zero;
      for (long k = 0; k <= l; ++k) {
        const LD d = log_terms[static_cast<std::size_t>(k)] - top;
        if (d < -60.0L) continue;
        const F t = std::exp(static_cast<F>(d));
        sum += (l - k) % 2 == 0 ? t : -t;
      }
      return sum;
    };
    const LD scaled = scaled_sum(0.0) < 1e-4 ? 0.0L : scaled_sum(0.0L);
    if (scaled >= 1e-3L) {
      out[static_cast<std::size_t>(l / 2 - 1)] = static_cast<double>(top + std::log(scaled));
    } else {
      integrate.push_back(l);
    }
  }
  if (integrate.empty()) return out;
  // Trapezoid rule on one lattice x_k = k * step over the union of the two windows
  // [peak - R, peak + R] of each l: the integrand is entire and decays like a Gaussian, so the
  // rule converges geometrically in 1/step (error ~ e^{-2 pi a/step} for a strip of half-width
  // a); outside the windows every point is below e^{-R^2/2} = e^{-722} of the largest value,
  // and every end of the union is such a point.  log|e^{s x - c} - 1| does not depend on l, so
  // it is evaluated once per lattice point for all of them.
  constexpr LD kStep = 1.0L / 8.0L;
  constexpr LD kR = 38.0L;
  struct Window {
    long lo[2], hi[2];
    LD top;
  };
  std::vector<Window> windows;
  long hull_lo = std::numeric_limits<long>::max(), hull_hi = std::numeric_limits<long>::min();
  for (long l : integrate) {
    const ForwardDifferenceIntegrand f{s, c, static_cast<LD>(l)};
    const LD peaks[2] = {f.peak(-1), f.peak(+1)};
    Window w{};
    w.top = std::max(f.h(peaks[0]), f.h(peaks[1]));
    for (int side = 0; side < 2; ++side) {
      w.lo[side] = static_cast<long>(std::ceil((peaks[side] - kR) / kStep));
      w.hi[side] = static_cast<long>(std::floor((peaks[side] + kR) / kStep));
      hull_lo = std::min(hull_lo, w.lo[side]);
      hull_hi = std::max(hull_hi, w.hi[side]);
    }
    windows.push_back(w);
  }
  const ForwardDifferenceIntegrand unit{s, c, 1.0L};
  std::vector<LD> gauss, log_abs;  // -x^2/2 and log|e^{s x - c} - 1| at x_k, k = hull_lo ...
  for (long k = hull_lo; k <= hull_hi; ++k) {
    const LD x = static_cast<LD>(k) * kStep;
    gauss.push_back(-0.5L * x * x);
    log_abs.push_back(unit.log_abs_expm1(s * x - c));
  }
  const LD log_norm = 0.5L * std::log(2.0L * 3.14159265358979323846264338327950288L);
  for (std::size_t i = 0; i < integrate.size(); ++i) {
    const LD l = static_cast<LD>(integrate[i]);
    const Window& w = windows[i];
    LD sum = 0.0L;
    auto add_range = [&](long from, long to) {
      for (long k = from; k <= to; ++k) {
        const std::size_t at = static_cast<std::size_t>(k - hull_lo);
        // exp in double: each term to 1e-16 relative, all of them positive.
        const LD v = gauss[at] + l * log_abs[at] - w.top;
        if (v > -745.0L) sum += std::exp(static_cast<double>(v));
      }
    };
    add_range(w.lo[0], w.hi[0]);
    add_range(std::max(w.lo[1], w.hi[0] + 1), w.hi[1]);
    out[static_cast<std::size_t>(integrate[i] / 2 - 1)] =
        static_cast<double>(w.top + std::log(sum * kStep) - log_norm);
  }
  return out;
}

double wbk_swor_gaussian_cgf(double q, double z, long a, const std::vector<double>& log_delta) {
  if (!(q > 0.0 && q < 1.0) || !(z > 0.0) || !std::isfinite(z) || a < 1 ||
      log_delta.size() < static_cast<std::size_t>((a + 1) / 2)) {
    throw std::invalid_argument(fmt::format(
        "wbk_swor_gaussian_cgf: need 0 < q < 1, 0 < z < inf, alpha >= 1 and log Delta^l up to "
        "l = 2 ceil(alpha/2) (q = {}, z = {}, alpha = {}, {} differences)",
        q, z, a, log_delta.size()));
  }
  if (a == 1) return 0.0;
  const double log_q = std::log(q);
  auto log_delta_even = [&](long l) { return log_delta[static_cast<std::size_t>(l / 2 - 1)]; };
  std::vector<double> terms;
  terms.reserve(static_cast<std::size_t>(a));
  double log_c = std::log(static_cast<double>(a));  // log C(a, 1)
  for (long i = 2; i <= a; ++i) {
    log_c += std::log(static_cast<double>(a - i + 1)) - std::log(static_cast<double>(i));
    const double id = static_cast<double>(i);
    // q^i C(a,i) min{4 (Delta^{2 floor(i/2)} Delta^{2 ceil(i/2)})^{1/2}, 2 e^{(i-1) eps(i)}}
    const double forward =
        std::log(4.0) + 0.5 * (log_delta_even(2 * (i / 2)) + log_delta_even(2 * ((i + 1) / 2)));
    const double plain = std::log(2.0) + (id - 1.0) * id / (2.0 * z * z);
    terms.push_back(id * log_q + log_c + std::min(forward, plain));
  }
  return logspace::log_add_exp(0.0, logspace::log_sum_exp(terms));
}

}  // namespace rdpaudit::bounds
