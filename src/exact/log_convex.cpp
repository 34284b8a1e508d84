// Certified bounds on a Gaussian convolution's density between bracketed points
// (log_convex.hpp; docs/exact-laws.md, section 4).
#include "log_convex.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rdpaudit::exact::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kSqrt2 = 1.41421356237309504880;
constexpr double kLogSqrtHalfPi = 0.22579135264472743236;  // log sqrt(pi / 2)
constexpr double kLogSqrt2Pi = 0.91893853320467274178;     // log sqrt(2 pi)

/// e^(x^2) erfc(x) for x >= 0: directly below 26 (e^676 is finite, erfc(26) normal), beyond by
/// the asymptotic series 1 / (x sqrt(pi)) (1 - 1/(2x^2) + 3/(4x^4) - 15/(8x^6) + 105/(16x^8)),
/// whose error is below the next term, 945 / (32 x^10) < 3e-13 relative there.
double erfcx(double x) {
  if (x < 26.0) return std::exp(x * x) * std::erfc(x);
  const double r = 1.0 / (2.0 * x * x);
  return (1.0 - r * (1.0 - 3.0 * r * (1.0 - 5.0 * r * (1.0 - 7.0 * r)))) /
         (x * 1.7724538509055160273);
}

/// Allowances for the rounding of a log (a few units in the last place of |l|) and of a secant's
/// slope between two logs (their allowances over the step): the extrapolations below carry a
/// slope over many steps, so its rounding is kept in the bound rather than left out.
double log_round(double l) {
  return 8e-16 * std::fabs(l);
}
double slope_round(double l0, double l1, double w) {
  return 8e-16 * (std::fabs(l0) + std::fabs(l1)) / w;
}

}  // namespace

double log_gauss_integral(const Affine& c, double t0, double t1, double s) {
  if (!(t1 > t0) || c.a == -kInf) return -kInf;
  // tau = t - t0 on [0, W]: exponent a + b tau - tau^2 / (2 s^2)
  const double inv_s2 = 1.0 / (s * s);
  const double a = c.a + c.b * t0 - 0.5 * t0 * t0 * inv_s2, b = c.b - t0 * inv_s2;
  const double width = t1 - t0;
  // the integrand's peak is at tau = b s^2; with z = (tau - b s^2) / s the integral is
  // s e^(a + z1^2 / 2) times the integral of e^(-z^2/2) over [z1, z2]
  const double z1 = -b * s, z2 = std::isinf(width) ? kInf : width / s + z1;
  double log_rest;  // log of the integral divided by s e^a
  if (z1 >= 0) {
    // e^(z1^2/2) J = sqrt(pi/2) (erfcx(z1/sqrt2) - e^(-(z2^2 - z1^2)/2) erfcx(z2/sqrt2))
    const double far =
        std::isinf(z2) ? 0.0 : std::exp(-0.5 * (z2 - z1) * (z2 + z1)) * erfcx(z2 / kSqrt2);
    log_rest = kLogSqrtHalfPi + std::log(erfcx(z1 / kSqrt2) - far);
  } else if (z2 <= 0) {
    // the mirror image: J(z1, z2) = J(-z2, -z1)
    const double shift = 0.5 * (z1 - z2) * (z1 + z2);  // (z1^2 - z2^2) / 2
    log_rest = shift + kLogSqrtHalfPi +
               std::log(erfcx(-z2 / kSqrt2) - std::exp(-shift) * erfcx(-z1 / kSqrt2));
  } else {
    const double inside = 1.0 - 0.5 * std::erfc(z2 / kSqrt2) - 0.5 * std::erfc(-z1 / kSqrt2);
    log_rest = 0.5 * z1 * z1 + kLogSqrt2Pi + std::log(inside);
  }
  if (!std::isfinite(log_rest)) {
    // a width so small that the differences above cancel: the integrand's largest value
    // (the exponent is concave: at an end or at its peak) times the width
    const double peak = std::clamp(b * s * s, 0.0, width);
    return a + b * peak - 0.5 * peak * peak * inv_s2 + std::log(width);
  }
  return a + std::log(s) + log_rest;
}

LogConvexPiece log_convex_piece(const std::vector<double>& lo, const std::vector<double>& hi,
                                std::size_t i, double w, double s) {
  LogConvexPiece out;
  const double q = w / (s * s);  // w / s^2
  const auto ok = [](double v) { return v > 0 && std::isfinite(v); };
  out.upper.a = out.left.a = out.right.a = -kInf;
  if (ok(hi[i]) && ok(hi[i + 1])) {
    // the chord of f_hi in log p: log hi_i + (log hi_i+1 - log hi_i) t / w + t (w - t) / (2 s^2)
    const double l0 = std::log(hi[i]), l1 = std::log(hi[i + 1]);
    out.upper = {l0 + log_round(l0), (l1 - l0) / w + 0.5 * q + slope_round(l0, l1, w)};
  }
  if (i >= 1 && ok(lo[i]) && ok(hi[i - 1])) {
    // for y >= y_i: f(y) >= f_lo(y_i) + (f_lo(y_i) - f_hi(y_i-1)) / w (y - y_i)
    const double l = std::log(lo[i]), u = std::log(hi[i - 1]);
    out.left = {l - log_round(l), (l - u) / w - 0.5 * q - slope_round(l, u, w)};
  }
  if (i + 2 < lo.size() && ok(lo[i + 1]) && ok(hi[i + 2])) {
    // for y <= y_i+1, r = y_i+1 - y: f(y) >= f_lo(y_i+1) - (f_hi(y_i+2) - f_lo(y_i+1)) / w r,
    // i.e. log q >= l + rho r - r^2 / (2 s^2); in t = w - r
    const double l = std::log(lo[i + 1]), u = std::log(hi[i + 2]);
    const double rho = (l - u) / w - 0.5 * q - slope_round(l, u, w), l0 = l - log_round(l);
    out.right = {l0 + rho * w - 0.5 * w * q, q - rho};
  }
  return out;
}

Affine tail_lower(const std::vector<double>& lo, const std::vector<double>& hi, std::size_t i,
                  double w, double s, bool right) {
  const bool has = right ? i >= 1 : i + 1 < lo.size();
  if (!has || !(lo[i] > 0) || !std::isfinite(lo[i])) return {-kInf, 0};
  const double u = hi[right ? i - 1 : i + 1];
  if (!(u > 0) || !std::isfinite(u)) return {-kInf, 0};
  const double l = std::log(lo[i]), lu = std::log(u);
  return {l - log_round(l), (l - lu) / w - 0.5 * w / (s * s) - slope_round(l, lu, w)};
}

SplitLower split_lower(const LogConvexPiece& piece, double w) {
  const Affine& l = piece.left;
  const Affine& r = piece.right;
  if (r.a == -kInf) return {w, l, l};
  if (l.a == -kInf) return {0.0, r, r};
  const double d0 = l.a - r.a, dw = d0 + (l.b - r.b) * w;  // left - right at 0 and w
  if (d0 >= 0 && dw >= 0) return {w, l, l};
  if (d0 <= 0 && dw <= 0) return {0.0, r, r};
  const double t = std::clamp(d0 / (d0 - dw) * w, 0.0, w);
  return d0 > 0 ? SplitLower{t, l, r} : SplitLower{t, r, l};
}

std::vector<IntervalBounds> interval_bounds(const std::vector<double>& p_hi,
                                            const std::vector<double>& q_lo,
                                            const std::vector<double>& q_hi, double w, double s) {
  std::vector<IntervalBounds> out(p_hi.size() < 2 ? 0 : p_hi.size() - 1);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].upper = log_convex_piece(q_lo, p_hi, i, w, s).upper;
    out[i].lower = split_lower(log_convex_piece(q_lo, q_hi, i, w, s), w);
  }
  return out;
}

}  // namespace rdpaudit::exact::detail
