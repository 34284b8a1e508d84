// A gradient formula g(theta, x) (model.loss = "gradient_formula") as the exact engine reads
// it: parsed again, for a subset of muparser's syntax, into an expression whose interval
// extension encloses g and dg/dtheta over an interval of theta (docs/exact-laws.md, "Maps
// that are not affine"). What it does not cover (comparisons, conditionals, discontinuous
// functions) is refused with the reason, never approximated.
#pragma once

#include <memory>
#include <optional>
#include <string>

namespace rdpaudit::exact {

/// A closed interval of reals [lo, hi] (lo <= hi), or an empty/undefined one (NaN ends).
struct Interval {
  double lo = 0.0, hi = 0.0;
  bool finite() const;
};

class GradientFormula {
 public:
  /// Parses `text` (theta, x, numbers, _pi, _e, + - * / ^, and the functions sin, cos, exp,
  /// log = ln, log2, log10, sqrt, abs, tanh, sinh, cosh, atan, min, max of two); nullopt with
  /// `why` otherwise.
  static std::optional<GradientFormula> parse(const std::string& text, std::string& why);

  /// Encloses g(theta, x) (`value`) and dg/dtheta (`slope`) for every theta in [lo, hi], at
  /// one x. Undefined somewhere in [lo, hi] (a logarithm of a non-positive number, a division
  /// by an interval holding 0, a derivative that is not bounded): ends that are not finite.
  void enclose(double lo, double hi, double x, Interval& value, Interval& slope) const;
  /// The same, and d^2g/dtheta^2 (`curvature`), whose ends are not finite where it is not
  /// bounded over [lo, hi] (a kink of abs, min or max there).
  void enclose(double lo, double hi, double x, Interval& value, Interval& slope,
               Interval& curvature) const;

  /// g(theta, x) at a point (the interval evaluation of a point).
  double value(double theta, double x) const;

  struct Node;

 private:
  std::shared_ptr<const Node> root_;
};

}  // namespace rdpaudit::exact
