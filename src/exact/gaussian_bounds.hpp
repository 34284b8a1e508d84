// Gaussian integrals and their bounds over intervals, shared by the propagation of a law
// (law.cpp) and the density after a step (density.cpp); internal to exact/.
#pragma once

#include <algorithm>
#include <cmath>

#include "rdpaudit/exact/law.hpp"

namespace rdpaudit::exact::detail {

constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;

inline double pdf(double u) {
  return kInvSqrt2Pi * std::exp(-0.5 * u * u);
}
inline double upper_tail(double u) {
  return 0.5 * std::erfc(u * kInvSqrt2);
}  // P(Z > u)
inline double lower_tail(double u) {
  return 0.5 * std::erfc(-u * kInvSqrt2);
}  // P(Z <= u)

/// P(u1 < Z <= u2), u1 <= u2, from the tail on the side where both ends lie (no cancellation
/// of two numbers near 1).
inline double interval_prob(double u1, double u2) {
  if (u1 >= 0.0) return std::max(0.0, upper_tail(u1) - upper_tail(u2));
  if (u2 <= 0.0) return std::max(0.0, lower_tail(u2) - lower_tail(u1));
  return std::max(0.0, 1.0 - upper_tail(u2) - lower_tail(u1));
}

/// sup of |u| pdf(u) over [u1, u2]: the function rises on [0, 1] and falls beyond.
inline double sup_u_pdf(double u1, double u2) {
  if ((u1 <= 1.0 && u2 >= 1.0) || (u1 <= -1.0 && u2 >= -1.0)) return pdf(1.0);
  return std::max(std::fabs(u1) * pdf(u1), std::fabs(u2) * pdf(u2));
}

/// sup of |u^2 - 1| pdf(u) over [u1, u2]: maxima at 0 and +-sqrt(3), zeros at +-1.
inline double sup_u2m1_pdf(double u1, double u2) {
  const auto f = [](double u) { return std::fabs(u * u - 1.0) * pdf(u); };
  double m = std::max(f(u1), f(u2));
  constexpr double kRoot3 = 1.7320508075688772935;
  for (double c : {0.0, kRoot3, -kRoot3}) {
    if (u1 <= c && c <= u2) m = std::max(m, f(c));
  }
  return m;
}

/// sup of |u^3 - 3u| pdf(u) over [u1, u2]: critical points at u^2 = 3 -+ sqrt(6).
inline double sup_u3m3u_pdf(double u1, double u2) {
  const auto f = [](double u) { return std::fabs(u * u * u - 3.0 * u) * pdf(u); };
  double m = std::max(f(u1), f(u2));
  for (double c : {0.74196378430272585, 2.3344142183389773}) {
    for (double sign : {1.0, -1.0}) {
      if (u1 <= sign * c && sign * c <= u2) m = std::max(m, f(sign * c));
    }
  }
  return m;
}

/// sup of |1 - u^2| pdf(u) over [u1, u2] (the same function as sup_u2m1_pdf).
inline double sup_1mu2_pdf(double u1, double u2) {
  return sup_u2m1_pdf(u1, u2);
}

/// Gauss-Legendre with 8 nodes on [-1, 1], symmetric: the 4 positive nodes and their weights
/// (each node is used with both signs). Exact for polynomials of degree 15.
inline constexpr double kGaussLegendre8Nodes[4] = {0.1834346424956498, 0.5255324099163290,
                                                   0.7966664774136267, 0.9602898564975363};
inline constexpr double kGaussLegendre8Weights[4] = {0.3626837833783620, 0.3137066458778873,
                                                     0.2223810344533745, 0.1012285362903763};

/// integral over [y - h/2, y + h/2] of (v - y)^2 pdf_s(v - m) dv, by 8-point Gauss-Legendre
/// (the integrand is a quadratic times a Gaussian that varies by at most e^(38 h / s) over the
/// cell: the rule's error is far below rounding for h <= s / 4).
/// The same rule for the integrals of (v - y) pdf_s(v - m) (moment) and of its m-derivative
/// (v - y) (v - m) / s^2 pdf_s(v - m).
inline void first_moment_integrals(double y, double h, double m, double s, double& value,
                                   double& slope) {
  const double* x = kGaussLegendre8Nodes;
  const double* w = kGaussLegendre8Weights;
  double sum = 0.0, sum_d = 0.0;
  for (int i = 0; i < 4; ++i) {
    for (double sign : {1.0, -1.0}) {
      const double v = sign * 0.5 * h * x[i], u = (y + v - m) / s, f = w[i] * v * pdf(u);
      sum += f;
      sum_d += f * u / s;
    }
  }
  value = sum * 0.5 * h / s;
  slope = sum_d * 0.5 * h / s;
}

/// The integral of (v - y)^2 (v - m) / s^2 pdf_s(v - m) over the cell: the m-derivative of
/// second_moment_integral.
inline double second_moment_slope(double y, double h, double m, double s) {
  const double* x = kGaussLegendre8Nodes;
  const double* w = kGaussLegendre8Weights;
  double sum = 0.0;
  for (int i = 0; i < 4; ++i) {
    for (double sign : {1.0, -1.0}) {
      const double v = sign * 0.5 * h * x[i], u = (y + v - m) / s;
      sum += w[i] * v * v * u / s * pdf(u);
    }
  }
  return sum * 0.5 * h / s;
}

inline double second_moment_integral(double y, double h, double m, double s) {
  const double* x = kGaussLegendre8Nodes;
  const double* w = kGaussLegendre8Weights;
  double sum = 0.0;
  for (int i = 0; i < 4; ++i) {
    for (double sign : {1.0, -1.0}) {
      const double v = sign * 0.5 * h * x[i];
      sum += w[i] * v * v * pdf((y + v - m) / s);
    }
  }
  return sum * 0.5 * h / s;
}

/// A cell index from floor() or ceil() of a position over the cell width, clamped to
/// +-2^30 before the conversion: a noise reach far wider than the grid (s/h ~ 10^12) gives
/// positions beyond int's range, whose conversion is undefined; every caller clips the index
/// to the grid (or to offsets within a grid's length) afterwards.
inline int cell_index(double x) {
  constexpr double kLimit = 1073741824.0;  // 2^30
  return static_cast<int>(std::clamp(x, -kLimit, kLimit));
}

/// Lattice points per cell for sources whose image is not a whole-cell shift.
constexpr int kLattice = kLatticeTablesPerSlope;

/// Throws InternalError naming `where` when the law's arrays do not fit its cells.
void check_law(const CellLaw& law, const char* where);

}  // namespace rdpaudit::exact::detail
