// Wang, Balle, Kasiviswanathan 2019, Theorem 27: the RDP of the Gaussian mechanism on a
// subsample of fixed size drawn without replacement (replace-one neighbours), in the form
// Google's dp_accounting evaluates it (mechanisms.hpp has the statement).
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
    for (int it = 0; it < 200; ++it) {
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

double wbk_log_forward_difference(double z, long l) {
  if (!(z > 0.0) || !std::isfinite(z) || l < 2 || l % 2 != 0) {
    throw std::invalid_argument(
        fmt::format("wbk_log_forward_difference: need 0 < z < inf and even l >= 2 (z = {}, "
                    "l = {})",
                    z, l));
  }
  const LD s = 1.0L / static_cast<LD>(z);
  const LD c = 0.5L * s * s;
  // Small z: the binomial sum sum_k (-1)^{l-k} C(l,k) e^{c k(k-1)} is dominated by its last
  // terms and cancels little; summed relative to its largest term it is accurate to about
  // l * 1e-19 / (|sum| / largest), so it is used when that ratio is at least 1e-3.
  {
    std::vector<LD> log_terms(static_cast<std::size_t>(l) + 1);
    LD log_binom = 0.0L;  // log C(l, k)
    LD top = -kInfLD;
    for (long k = 0; k <= l; ++k) {
      const LD kd = static_cast<LD>(k);
      log_terms[static_cast<std::size_t>(k)] = log_binom + c * kd * (kd - 1.0L);
      top = std::max(top, log_terms[static_cast<std::size_t>(k)]);
      log_binom += std::log(static_cast<LD>(l - k)) - std::log(kd + 1.0L);
    }
    LD scaled = 0.0L;
    for (long k = 0; k <= l; ++k) {
      const LD t = std::exp(log_terms[static_cast<std::size_t>(k)] - top);
      scaled += (l - k) % 2 == 0 ? t : -t;
    }
    if (scaled >= 1e-3L) return static_cast<double>(top + std::log(scaled));
  }
  const ForwardDifferenceIntegrand f{s, c, static_cast<LD>(l)};
  const LD peaks[2] = {f.peak(-1), f.peak(+1)};
  const LD top = std::max(f.h(peaks[0]), f.h(peaks[1]));
  // Trapezoid rule on one lattice x_k = k * step over the union of the two windows
  // [peak - R, peak + R]: the integrand is entire and decays like a Gaussian, so the rule
  // converges geometrically in 1/step (error ~ e^{-2 pi a/step} for a strip of half-width a);
  // outside the windows every point is below e^{-R^2/2} = e^{-722} of the largest value, and
  // every end of the union is such a point.
  constexpr LD kStep = 1.0L / 8.0L;
  constexpr LD kR = 38.0L;
  long k_lo[2], k_hi[2];
  for (int w = 0; w < 2; ++w) {
    k_lo[w] = static_cast<long>(std::ceil((peaks[w] - kR) / kStep));
    k_hi[w] = static_cast<long>(std::floor((peaks[w] + kR) / kStep));
  }
  LD sum = 0.0L;
  auto add_range = [&](long from, long to) {
    for (long k = from; k <= to; ++k) {
      const LD v = f.h(static_cast<LD>(k) * kStep);
      if (v > -kInfLD) sum += std::exp(v - top);
    }
  };
  add_range(k_lo[0], k_hi[0]);
  add_range(std::max(k_lo[1], k_hi[0] + 1), k_hi[1]);
  const LD log_norm = 0.5L * std::log(2.0L * 3.14159265358979323846264338327950288L);
  return static_cast<double>(top + std::log(sum * kStep) - log_norm);
}

namespace {

/// (alpha - 1) R_alpha of Theorem 27 at integer a >= 2, 0 < q < 1.
double wbk27_cgf_int(double q, double z, long a) {
  if (a == 1) return 0.0;
  const double log_q = std::log(q);
  // log Delta^l for the even l = 2, 4, ..., 2 ceil(a/2); index l/2 - 1.
  std::vector<double> log_delta;
  for (long l = 2; l <= 2 * ((a + 1) / 2); l += 2)
    log_delta.push_back(wbk_log_forward_difference(z, l));
  auto log_delta_even = [&](long l) { return log_delta[static_cast<std::size_t>(l / 2 - 1)]; };
  std::vector<double> terms;
  terms.reserve(static_cast<std::size_t>(a));
  double log_c = std::log(static_cast<double>(a));  // log C(a, 1)
  for (long i = 2; i <= a; ++i) {
    log_c += std::log(static_cast<double>(a - i + 1)) - std::log(static_cast<double>(i));
    const double id = static_cast<double>(i);
    const double forward =
        std::log(4.0) + 0.5 * (log_delta_even(2 * (i / 2)) + log_delta_even(2 * ((i + 1) / 2)));
    const double plain = std::log(2.0) + (id - 1.0) * id / (2.0 * z * z);  // 2 e^{(i-1) eps(i)}
    terms.push_back(id * log_q + log_c + std::min(forward, plain));
  }
  return logspace::log_add_exp(0.0, logspace::log_sum_exp(terms));
}

}  // namespace

double wbk_swor_gaussian_rdp(double q, double z, double alpha) {
  if (!(q >= 0.0 && q <= 1.0) || !(z >= 0.0) || !(alpha > 1.0) || !std::isfinite(alpha)) {
    throw std::invalid_argument(fmt::format(
        "wbk_swor_gaussian_rdp: need 0 <= q <= 1, z >= 0, 1 < alpha < inf (q = {}, z = {}, "
        "alpha = {})",
        q, z, alpha));
  }
  if (q == 0.0 || std::isinf(z)) return 0.0;
  if (z == 0.0) return std::numeric_limits<double>::infinity();
  if (q == 1.0) return gaussian_rdp(z, alpha);
  const long lo = static_cast<long>(std::floor(alpha));
  const long hi = static_cast<long>(std::ceil(alpha));
  if (lo == hi) return wbk27_cgf_int(q, z, lo) / (alpha - 1.0);
  // Corollary 10: the CGF (alpha - 1) R_alpha is interpolated linearly between integers.
  const double t = alpha - static_cast<double>(lo);
  return ((1.0 - t) * wbk27_cgf_int(q, z, lo) + t * wbk27_cgf_int(q, z, hi)) / (alpha - 1.0);
}

}  // namespace rdpaudit::bounds
