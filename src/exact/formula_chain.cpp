#include "formula_chain.hpp"

#include <fmt/format.h>
#include <muParser.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "rdpaudit/config/loss.hpp"

namespace rdpaudit::exact::detail {

bool prepare_formula(ChainSpec& c, const std::string& text, std::string& why) {
  if (!c.clamped()) {
    why =
        "model.loss = \"gradient_formula\" without a projection: the exact engine evolves a "
        "gradient formula on the projection's interval only (its grid must hold every iterate)";
    return false;
  }
  std::string problem;
  auto parsed = GradientFormula::parse(text, problem);
  if (!parsed) {
    why = "the exact engine cannot enclose model.gradient: " + problem;
    return false;
  }
  c.formula = std::make_shared<const GradientFormula>(std::move(*parsed));
  double theta = 0, x = 0;
  mu::Parser mu;
  mu.DefineVar(config::kGradientNames[0], &theta);
  mu.DefineVar(config::kGradientNames[1], &x);
  mu.SetExpr(text);
  constexpr int kPoints = 256;
  std::vector<double> values = {c.record_d, c.record_dprime};
  if (c.n > 1) values.push_back(c.background);  // the other records' value
  for (double v : values) {
    Interval value, slope;
    c.formula->enclose(c.clamp_lo, c.clamp_hi, v, value, slope);
    if (!value.finite() || !slope.finite()) {
      why = fmt::format(
          "model.gradient at x = {}: the interval enclosure of g or dg/dtheta over the "
          "projection's interval [{}, {}] is not finite (a pole, a logarithm or root near 0, "
          "or a derivative that is not bounded): the map cannot be bracketed",
          v, c.clamp_lo, c.clamp_hi);
      return false;
    }
    x = v;
    for (int i = 0; i <= kPoints; ++i) {
      theta = c.clamp_lo + (c.clamp_hi - c.clamp_lo) * i / kPoints;
      const double ours = c.formula->value(theta, v), theirs = mu.Eval();
      if (!(std::fabs(ours - theirs) <= 1e-12 * (1.0 + std::fabs(theirs)))) {
        why = fmt::format(
            "the exact engine reads model.gradient differently from muparser (at theta = {}, "
            "x = {}: {} against {}); parenthesise the formula",
            theta, v, ours, theirs);
        return false;
      }
    }
  }
  return true;
}

namespace {

/// What the enclosures give of a case's map m(x) = x - k_rec g(x, record) - k_bg g(x,
/// background) over a source [lo, hi] with centre c and half-width half.
struct CellEnclosure {
  double image = 0;       ///< m(c)
  Interval slope_centre;  ///< m'(c)
  Interval slope;         ///< m' over the source
  Interval curvature;     ///< m'' over the source (not finite at a kink)
  double half = 0;
};

struct FormulaMap {
  std::shared_ptr<const GradientFormula> f;
  double record = 0, background = 0, k_rec = 0, k_bg = 0;

  /// 1 - k_rec g'(record) - k_bg g'(background) and -k_rec g''(record) - k_bg g''(background)
  /// from the enclosures over [lo, hi]
  void derivatives(double lo, double hi, Interval& slope, Interval& curvature) const {
    Interval value, s_rec{0.0, 0.0}, s_bg{0.0, 0.0}, c_rec{0.0, 0.0}, c_bg{0.0, 0.0};
    if (k_rec != 0) f->enclose(lo, hi, record, value, s_rec, c_rec);
    if (k_bg != 0) f->enclose(lo, hi, background, value, s_bg, c_bg);
    slope = {1.0 - k_rec * s_rec.hi - k_bg * s_bg.hi, 1.0 - k_rec * s_rec.lo - k_bg * s_bg.lo};
    curvature = {-k_rec * c_rec.hi - k_bg * c_bg.hi, -k_rec * c_rec.lo - k_bg * c_bg.lo};
  }

  CellEnclosure enclose(double lo, double hi) const {
    CellEnclosure e;
    const double centre = 0.5 * (lo + hi);
    e.half = 0.5 * (hi - lo);
    e.image = centre;
    if (k_rec != 0) e.image -= k_rec * f->value(centre, record);
    if (k_bg != 0) e.image -= k_bg * f->value(centre, background);
    if (!(hi > lo)) return e;  // a point: its exact image
    Interval unused;
    derivatives(centre, centre, e.slope_centre, unused);
    derivatives(lo, hi, e.slope, e.curvature);
    return e;
  }
};

double mid(Interval a) {
  return 0.5 * (a.lo + a.hi);
}
double radius(Interval a) {
  return 0.5 * (a.hi - a.lo);
}

/// First order: |m(x) - image - slope (x - c)| <= |x - c| sup |m' - slope| (mean value
/// theorem, or its integral form for the Lipschitz kinks of abs, min, max).
LocalAffine first_order(const CellEnclosure& e) {
  LocalAffine a;
  a.image = e.image;
  if (e.half == 0) return a;
  a.slope = mid(e.slope);
  a.error = e.half * radius(e.slope);
  if (!e.curvature.finite() || !e.slope_centre.finite()) return a;
  // Taylor about c: m(x) = m(c) + m'(c) d + m''(xi) d^2 / 2 with d^2 in [0, half^2]: the last
  // term lies in [q_lo, q_hi]; the affine map through its middle errs by half that range (a
  // quarter of the first form's error on a stretch of one-signed curvature)
  const double q_lo = std::min(0.0, 0.5 * e.curvature.lo * e.half * e.half);
  const double q_hi = std::max(0.0, 0.5 * e.curvature.hi * e.half * e.half);
  const double error = 0.5 * (q_hi - q_lo) + e.half * radius(e.slope_centre);
  if (error < a.error) {
    a.image = e.image + 0.5 * (q_lo + q_hi);
    a.slope = mid(e.slope_centre);
    a.error = error;
  }
  return a;
}

/// Second order: m(x) = m(c) + m'(c) d + m''(xi) d^2 / 2 (Lagrange), with m'(c) in [s_lo, s_hi]
/// and m''(xi) in the enclosure [c_lo, c_hi] over the source: the curvature term is kept as
/// that interval (read through the source's second moment), the slope's rounding radius as
/// the error, half radius(s).
LocalQuadratic second_order(const CellEnclosure& e) {
  if (e.half == 0 || !e.curvature.finite() || !e.slope_centre.finite()) {
    const LocalAffine a = first_order(e);
    return {a.image, a.slope, 0.0, 0.0, a.error};
  }
  return {e.image, mid(e.slope_centre), mid(e.curvature), radius(e.curvature),
          e.half * radius(e.slope_centre)};
}

}  // namespace

MapCase formula_case(const ChainSpec& c, bool d_prime, bool in, double others, double norm,
                     double weight) {
  FormulaMap map;
  map.f = c.formula;
  map.record = d_prime ? c.record_dprime : c.record_d;
  map.background = c.background;
  map.k_rec = in ? c.eta / norm : 0.0;
  map.k_bg = c.eta * others / norm;
  MapCase m;
  m.weight = weight;
  m.enclose = [map](double lo, double hi) { return first_order(map.enclose(lo, hi)); };
  m.quadratic = [map](double lo, double hi) { return second_order(map.enclose(lo, hi)); };
  return m;
}

}  // namespace rdpaudit::exact::detail
