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

MapCase formula_case(const ChainSpec& c, bool d_prime, bool in, double others, double norm,
                     double weight) {
  const double record = d_prime ? c.record_dprime : c.record_d, background = c.background;
  const double k_rec = in ? c.eta / norm : 0.0, k_bg = c.eta * others / norm;
  MapCase m;
  m.weight = weight;
  m.enclose = [f = c.formula, record, background, k_rec, k_bg](double lo, double hi) {
    const double centre = 0.5 * (lo + hi);
    LocalAffine e;
    e.image = centre;
    if (k_rec != 0) e.image -= k_rec * f->value(centre, record);
    if (k_bg != 0) e.image -= k_bg * f->value(centre, background);
    if (!(hi > lo)) return e;  // a point: its exact image
    // m' = 1 - k_rec g'(., record) - k_bg g'(., background) lies in [a_lo, a_hi] over the
    // source; |m(x) - image - slope (x - centre)| <= |x - centre| sup |m' - slope| (mean
    // value theorem, or its integral form for the Lipschitz kinks of abs, min, max)
    Interval value, s_rec{0.0, 0.0}, s_bg{0.0, 0.0};
    if (k_rec != 0) f->enclose(lo, hi, record, value, s_rec);
    if (k_bg != 0) f->enclose(lo, hi, background, value, s_bg);
    const double a_lo = 1.0 - k_rec * s_rec.hi - k_bg * s_bg.hi;
    const double a_hi = 1.0 - k_rec * s_rec.lo - k_bg * s_bg.lo;
    e.slope = 0.5 * (a_lo + a_hi);
    e.error = 0.5 * (hi - lo) * 0.5 * (a_hi - a_lo);
    return e;
  };
  return m;
}

}  // namespace rdpaudit::exact::detail
