// Certified bounds on a density between the points where it is bracketed, from the shape of a
// Gaussian convolution (docs/exact-laws.md, section 4 "Between the points"); internal to exact/.
//
// After a step that adds N(0, s^2) noise the density is p = phi_s * nu for a (sub-)probability
// nu, so f(y) = log p(y) + y^2 / (2 s^2) = log integral exp(y m / s^2 - m^2 / (2 s^2)) dnu(m)
// + const is convex in y (the log of a Laplace transform; Hoelder's inequality). With
// certified brackets f_lo(y_i) <= f(y_i) <= f_hi(y_i) at equally spaced points:
// - on [y_i, y_i+1], f lies below the chord of f_hi(y_i), f_hi(y_i+1);
// - a convex f lies above every secant's extension outside the secant's interval, so on
//   [y_i, y_i+1] it lies above the extension of the secant over [y_i-1, y_i] (its slope at
//   least (f_lo(y_i) - f_hi(y_i-1)) / w) and of the one over [y_i+1, y_i+2] (slope at most
//   (f_hi(y_i+2) - f_lo(y_i+1)) / w).
// In t = y - y_i each bound is an affine function minus t^2 / (2 s^2) in the log of the density
// (the y_i's cancel): the integrals below are Gaussian integrals in closed form.
#pragma once

#include <vector>

namespace rdpaudit::exact::detail {

/// a + b t: an exponent on an interval, in t = y - (the interval's left point).
struct Affine {
  double a = 0, b = 0;
  double at(double t) const { return a + b * t; }
};

/// log of the integral over t in [t0, t1] of exp(c.a + c.b t - t^2 / (2 s^2)) (t1 may be
/// +infinity); -infinity when t1 <= t0 or c.a = -infinity.
double log_gauss_integral(const Affine& c, double t0, double t1, double s);

/// The bounds on one interval [y_i, y_i + w] of the points: log p(y_i + t) <= upper(t) -
/// t^2 / (2 s^2) (the chord of the upper bounds; upper.a = -infinity where an end's upper bound
/// is 0), and log q(y_i + t) >= max(left(t), right(t)) - t^2 / (2 s^2) (the secants' extensions;
/// a missing one has a = -infinity).
struct LogConvexPiece {
  Affine upper, left, right;
};

/// The piece on [y_i, y_i+1] of a density with upper bounds `hi` and lower bounds `lo` at the
/// points (step w, noise sd s: the density is phi_s * nu). Secants need the neighbouring points
/// with positive lower bounds at their near end: an interval at an end of the points has one.
LogConvexPiece log_convex_piece(const std::vector<double>& lo, const std::vector<double>& hi,
                                std::size_t i, double w, double s);

/// Beyond point i (right: y = y_i + t, from the secant over [y_i-1, y_i]; left: y = y_i - t,
/// from the one over [y_i, y_i+1]), t >= 0: log q >= a + b t - t^2 / (2 s^2) (a = -infinity
/// where the points' bounds do not give a secant).
Affine tail_lower(const std::vector<double>& lo, const std::vector<double>& hi, std::size_t i,
                  double w, double s, bool right);

/// The lower exponent max(left, right) as at most two affine pieces over [0, w]: the split
/// point t_split (in [0, w]) and the affine function on [0, t_split] and on [t_split, w].
struct SplitLower {
  double t_split = 0;
  Affine first, second;
};
SplitLower split_lower(const LogConvexPiece& piece, double w);

/// Per interval [y_i, y_i+1] of the points (step w, noise sd s): the upper exponent of P
/// (from `p_hi`) and the split lower exponent of Q (from `q_lo`, `q_hi`), both before the
/// common - t^2 / (2 s^2).
struct IntervalBounds {
  Affine upper;
  SplitLower lower;
};
std::vector<IntervalBounds> interval_bounds(const std::vector<double>& p_hi,
                                            const std::vector<double>& q_lo,
                                            const std::vector<double>& q_hi, double w, double s);

}  // namespace rdpaudit::exact::detail
