// Lower and upper bounds on R_alpha between two laws held by the exact engine
// (docs/exact-laws.md, "Renyi brackets").
#pragma once

#include <string>
#include <vector>

#include "rdpaudit/exact/law.hpp"

namespace rdpaudit::exact {

/// Part of how the law at T was reached: `weight` times the law at T - 1 (`before`, possibly
/// a sub-probability part of a mixture) moved by the last step `step`.
struct FinalPart {
  double weight = 1.0;
  CellLaw before;
  Step step;
};

/// The law of the last iterate: its bounds (`last`) and the last step's parts, whose sum is
/// that law (the upper bound needs the density, which the last step gives pointwise).
struct ExactLaw {
  CellLaw last;
  std::vector<FinalPart> parts;
};

struct RenyiOptions {
  /// Density points per cell of the upper bound (made even, at least 2): the bounds between
  /// them are second order in the points' step.
  int points_per_cell = 2;
  PropagateOptions propagate;
};

/// Pointwise bounds on the densities of P and Q (the interior part after the last step) at
/// start + step i, i = 0 ... m: `points_per_cell` (made even, at least 2) points per cell of
/// the grid. A clamped law's points span [lo, hi]; an unclamped one's grid is widened by
/// quarters of its width (at most 8 on each side) while the integrand p^a q^(1-a) of the
/// largest order a = alpha_max is not negligible at an end (alpha_max <= 1: not widened).
struct DensityGrid {
  double start = 0, step = 0;
  /// s: both densities are convolutions of a law with N(0, s^2) (the smallest noise sd of the
  /// last steps), so log p + y^2 / (2 s^2) is convex (the upper bounds between the points)
  double noise_sd = 0;
  std::vector<double> p_lo, p_hi, q_lo, q_hi;
};
DensityGrid density_grid(const ExactLaw& p, const ExactLaw& q, const RenyiOptions& options,
                         double alpha_max);

/// R_alpha bounds in both directions: forward = R_alpha(P || Q), backward = R_alpha(Q || P).
struct RenyiBracketRow {
  double alpha = 0;
  Bracket forward, backward;
};

/// Certified lower bound on R_alpha(P || Q), alpha > 1, from the cells, atoms and outside mass
/// of the two laws (same grid): sum_k p_k^alpha q_k^(1 - alpha) over those pieces is at most
/// the integral (data processing) and grows in p_k and falls in q_k.
double renyi_lower(const CellLaw& p, const CellLaw& q, double alpha);

/// Upper bound on R_alpha(P || Q): the density bounds after the last step (pointwise,
/// certified) bounded between the points by the convexity of log p + y^2 / (2 s^2) and
/// integrated in closed form (certified), plus, unclamped, the tails beyond the points (closed
/// form from the sources' images), plus the atoms' upper masses of P against the lower masses
/// of Q. `uncertified` receives "" or what the bound leaves uncertified (upper_uncertified).

double renyi_upper(const ExactLaw& p, const ExactLaw& q, double alpha, const RenyiOptions& options,
                   std::string* uncertified = nullptr);

std::vector<RenyiBracketRow> renyi_brackets(const ExactLaw& p, const ExactLaw& q,
                                            const std::vector<double>& alphas,
                                            const RenyiOptions& options = {});

/// "" when the upper ends (R_alpha's and delta(eps)'s) from these density bounds are
/// certified (up to rounding); otherwise what is not: an unclamped law whose tails beyond the
/// points cannot be bounded (mass of unknown location outside the grid before the last step,
/// last steps with different noise, a map case), for which the region beyond is left out where
/// the integrand at its edge is negligible (docs/exact-laws.md, section 5).
std::string upper_uncertified(const ExactLaw& p, const ExactLaw& q, const DensityGrid& density);
/// The same from density bounds already computed: density_grid(p, q, options, a) with a at
/// least the largest of `alphas` (the same numbers as the call above).
std::vector<RenyiBracketRow> renyi_brackets(const ExactLaw& p, const ExactLaw& q,
                                            const std::vector<double>& alphas,
                                            const DensityGrid& density);

}  // namespace rdpaudit::exact
