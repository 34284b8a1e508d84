#include "rdpaudit/bounds/mechanisms.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "rdpaudit/bounds/logspace.hpp"

namespace rdpaudit::bounds {
namespace {

using logspace::kNegInf;
using LD = long double;

/// log(0.5 erfc(x)) in long double, with the asymptotic series where erfcl underflows.
LD log_half_erfc(LD x) {
  if (x < 100.0L) return std::log(0.5L * std::erfc(x));
  const LD x2 = x * x;
  const LD series = 1.0L - 1.0L / (2.0L * x2) + 3.0L / (4.0L * x2 * x2) -
                    15.0L / (8.0L * x2 * x2 * x2) + 105.0L / (16.0L * x2 * x2 * x2 * x2);
  // erfc(x) = e^{-x^2} / (x sqrt(pi)) * series
  return -x2 - std::log(x) - 0.5L * std::log(3.14159265358979323846264338327950288L) +
         std::log(series) + std::log(0.5L);
}

/// log A_alpha for integer alpha >= 2, 0 < q < 1 (MTZ Section 3.2), via log(A - 1).
double mtz_log_a_int(double q, double z, long a) {
  const double log_q = std::log(q);
  const double log_1mq = std::log1p(-q);
  std::vector<double> terms;
  terms.reserve(static_cast<std::size_t>(a));
  double log_c = 0.0;  // log C(a, k), by the recurrence C(a,k+1) = C(a,k) (a-k)/(k+1)
  for (long k = 0; k <= a; ++k) {
    if (k >= 2) {
      const double kd = static_cast<double>(k);
      const double y = (kd * kd - kd) / (2.0 * z * z);  // e^{(k^2-k)/(2 z^2)} - 1 = expm1(y)
      if (y > 0.0) {
        terms.push_back(log_c + static_cast<double>(a - k) * log_1mq + kd * log_q +
                        logspace::log_expm1(y));
      }
    }
    log_c += std::log(static_cast<double>(a - k)) - std::log(static_cast<double>(k + 1));
  }
  const double log_a_minus_1 = logspace::log_sum_exp(terms);
  return logspace::log_add_exp(0.0, log_a_minus_1);
}

/// log A_alpha for fractional alpha, 0 < q < 1 (MTZ Section 3.3): A = sum over i >= 0 of
///   C(alpha,i) (1-q)^{alpha-i} q^i e^{(i^2-i)/(2z^2)} Phi((z0 - i)/z)           [x <= z0]
/// + C(alpha,i) q^{alpha-i} (1-q)^i e^{(j^2-j)/(2z^2)} Phi((j - z0)/z), j = alpha - i  [x > z0].
double mtz_log_a_frac(double q_in, double z_in, double alpha_in) {
  const LD q = q_in;
  const LD z = z_in;
  const LD alpha = alpha_in;
  const LD log_q = std::log(q);
  const LD log_1mq = std::log1p(-q);
  const LD two_z2 = 2.0L * z * z;
  const LD z0 = z * z * (log_1mq - log_q) + 0.5L;
  const LD sqrt2_z = std::sqrt(2.0L) * z;
  logspace::SignedLog<LD> lower, upper;
  LD log_c = 0.0L;  // log |C(alpha, i)|
  int sign_c = 1;
  LD last0 = std::numeric_limits<LD>::infinity();
  LD last1 = last0;
  const long max_terms = 100000 + 20 * static_cast<long>(alpha_in);
  for (long i = 0; i < max_terms; ++i) {
    const LD id = static_cast<LD>(i);
    const LD j = alpha - id;
    const LD s0 = log_c + id * log_q + j * log_1mq + (id * id - id) / two_z2 +
                  log_half_erfc((id - z0) / sqrt2_z);
    const LD s1 =
        log_c + j * log_q + id * log_1mq + (j * j - j) / two_z2 + log_half_erfc((z0 - j) / sqrt2_z);
    lower.add(s0, sign_c);
    upper.add(s1, sign_c);
    logspace::SignedLog<LD> total = lower;
    total.add(upper.log_abs, upper.sign);
    if (id > alpha && s0 < last0 && s1 < last1 && std::max(s0, s1) < total.log_abs - 60.0L) {
      if (total.sign <= 0) break;  // cannot happen for a valid A > 0; reported below
      return static_cast<double>(total.log_abs);
    }
    last0 = s0;
    last1 = s1;
    const LD f = alpha - id;  // C(alpha, i+1) = C(alpha, i) (alpha - i) / (i + 1)
    if (f < 0.0L) sign_c = -sign_c;
    log_c += std::log(std::fabs(f)) - std::log(id + 1.0L);
  }
  throw std::runtime_error(
      fmt::format("mtz_poisson_rdp: the fractional-order series did not converge (q = {}, z = {}, "
                  "alpha = {})",
                  q_in, z_in, alpha_in));
}

/// log(1 + sum_j ...) of WBK 2019 Theorem 9 for the Gaussian mechanism at integer a >= 2.
double wbk_cgf_int(double q, double z, long a) {
  if (a == 1) return 0.0;
  const double log_q = std::log(q);
  const double e2 = 2.0 / (2.0 * z * z);  // eps(2) = 2 / (2 z^2)
  std::vector<double> terms;
  terms.reserve(static_cast<std::size_t>(a));
  double log_c = 0.0;
  for (long j = 0; j <= a; ++j) {
    const double jd = static_cast<double>(j);
    if (j == 2) {
      // q^2 C(a,2) min{4 (e^{eps(2)} - 1), e^{eps(2)} min{2, (e^{eps(inf)} - 1)^2}}
      const double m = std::min(std::log(4.0) + logspace::log_expm1(e2), std::log(2.0) + e2);
      terms.push_back(2.0 * log_q + log_c + m);
    } else if (j >= 3) {
      // q^j C(a,j) e^{(j-1) eps(j)} min{2, (e^{eps(inf)} - 1)^j},  eps(j) = j / (2 z^2)
      terms.push_back(jd * log_q + log_c + std::log(2.0) + (jd - 1.0) * jd / (2.0 * z * z));
    }
    log_c += std::log(static_cast<double>(a - j)) - std::log(jd + 1.0);
  }
  return logspace::log_add_exp(0.0, logspace::log_sum_exp(terms));
}

void check_args(const char* who, double q, double z, double alpha) {
  if (!(q >= 0.0 && q <= 1.0) || !(z >= 0.0) || !(alpha > 1.0) || !std::isfinite(alpha)) {
    throw std::invalid_argument(
        fmt::format("{}: need 0 <= q <= 1, z >= 0, 1 < alpha < inf (q = {}, z = {}, alpha = {})",
                    who, q, z, alpha));
  }
}

}  // namespace

double gaussian_rdp(double z, double alpha) {
  return alpha / (2.0 * z * z);
}

double mtz_poisson_rdp(double q, double z, double alpha) {
  check_args("mtz_poisson_rdp", q, z, alpha);
  if (q == 0.0 || std::isinf(z)) return 0.0;
  if (z == 0.0) return std::numeric_limits<double>::infinity();
  if (q == 1.0) return gaussian_rdp(z, alpha);
  const double log_a = alpha == std::floor(alpha) ? mtz_log_a_int(q, z, static_cast<long>(alpha))
                                                  : mtz_log_a_frac(q, z, alpha);
  return log_a / (alpha - 1.0);
}

double wbk_swor_rdp(double q, double z, double alpha) {
  check_args("wbk_swor_rdp", q, z, alpha);
  if (q == 0.0 || std::isinf(z)) return 0.0;
  if (z == 0.0) return std::numeric_limits<double>::infinity();
  if (q == 1.0) return gaussian_rdp(z, alpha);
  const long lo = static_cast<long>(std::floor(alpha));
  const long hi = static_cast<long>(std::ceil(alpha));
  if (lo == hi) return wbk_cgf_int(q, z, lo) / (alpha - 1.0);
  const double t = alpha - static_cast<double>(lo);
  return ((1.0 - t) * wbk_cgf_int(q, z, lo) + t * wbk_cgf_int(q, z, hi)) / (alpha - 1.0);
}

}  // namespace rdpaudit::bounds
