// Log-space arithmetic used by the bounds (header-only, no state).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace rdpaudit::bounds::logspace {

inline constexpr double kNegInf = -std::numeric_limits<double>::infinity();

/// log(e^a + e^b) without overflow; -inf is the log of 0.
template <typename F>
F log_add_exp(F a, F b) {
  if (a == -std::numeric_limits<F>::infinity()) return b;
  if (b == -std::numeric_limits<F>::infinity()) return a;
  const F hi = std::max(a, b);
  return hi + std::log1p(std::exp(std::min(a, b) - hi));
}

/// log(sum_i e^{x_i}); -inf for an empty list.
inline double log_sum_exp(const std::vector<double>& xs) {
  double hi = kNegInf;
  for (double x : xs) hi = std::max(hi, x);
  if (hi == kNegInf || std::isinf(hi)) return hi;
  double s = 0.0;
  for (double x : xs) s += std::exp(x - hi);
  return hi + std::log(s);
}

/// log(1 - e^x) for x <= 0 (Maechler 2012: accurate on both sides of -log 2).
inline double log1m_exp(double x) {
  return x > -0.6931471805599453 ? std::log(-std::expm1(x)) : std::log1p(-std::exp(x));
}

/// log(e^y - 1) for y > 0.
inline double log_expm1(double y) {
  return y > 30.0 ? y + std::log1p(-std::exp(-y)) : std::log(std::expm1(y));
}

/// A real number stored as sign and log-magnitude, for alternating series whose terms
/// overflow.  Addition is exact up to the rounding of the log-space operations.
template <typename F>
struct SignedLog {
  F log_abs = -std::numeric_limits<F>::infinity();
  int sign = 0;  // -1, 0 or +1

  void add(F log_term, int term_sign) {
    if (log_term == -std::numeric_limits<F>::infinity() || term_sign == 0) return;
    if (sign == 0) {
      log_abs = log_term;
      sign = term_sign;
    } else if (sign == term_sign) {
      log_abs = log_add_exp(log_abs, log_term);
    } else if (log_term < log_abs) {
      log_abs = log_abs + std::log1p(-std::exp(log_term - log_abs));
    } else if (log_term > log_abs) {
      log_abs = log_term + std::log1p(-std::exp(log_abs - log_term));
      sign = term_sign;
    } else {
      *this = SignedLog{};
    }
  }
};

}  // namespace rdpaudit::bounds::logspace
