// Certified one-dimensional laws of noisy (projected) SGD iterates and their one-step
// propagation (docs/exact-laws.md).
//
// A law is held as bounds, not as numbers: for every cell C_k of a uniform grid on [lo, hi]
// a lower and an upper bound on its mass P(C_k) and on its first moment about the cell's
// centre D_k = integral over C_k of (x - x_k) dP(x); point masses (the projection's two
// boundary atoms, the starting point) with lower and upper masses; and, without projection,
// the mass outside [lo, hi] with its bounds. Every operation keeps the true law's numbers
// inside the bounds (up to floating-point rounding, ~1e-16 relative). One step is a Markov
// kernel: a mixture over cases (what the batch law does to the pair) of an affine update
// x -> a x + c, then N(0, s^2) noise, then the clamp to [lo, hi] when the law is projected.
// Each source cell's contribution to each target is bracketed twice, by the range of the
// target's Gaussian probability over the source cell (first order in the cell width h) and
// by a Taylor expansion about the cell's centre whose linear term uses the first-moment
// bounds and whose remainder is bounded by the second derivative (second order in h/s);
// the tighter of the two is kept; a third bracket, the Taylor expansion to second order with
// the second-moment bounds (remainder third order), is intersected with them.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace rdpaudit::exact {

/// A closed interval [lo, hi] holding an unknown number (lo <= hi).
struct Bracket {
  double lo = 0.0, hi = 0.0;
};

/// A point mass at `x` whose mass lies in `mass`.
struct PointMass {
  double x = 0.0;
  Bracket mass;
};

/// A piece of a law that is neither a grid cell nor a point: mass held within
/// [centre - half_width, centre + half_width] (a cluster of the atoms of a noise-free
/// location law, docs/exact-laws.md, "Location mixtures"), with brackets on its mass and on
/// its first and second moments about `centre`. A source of the next step like a cell.
struct Blob {
  double centre = 0.0, half_width = 0.0;
  Bracket mass, moment, second;
};

/// A (sub-)probability law on the line, as bounds (see the file comment).
struct CellLaw {
  double lo = 0.0, hi = 1.0;  ///< the grid covers [lo, hi]
  int cells = 1;
  /// True: the iterate is clamped to [lo, hi] (projection), the boundary atoms are
  /// points[0] (at lo) and points[1] (at hi) and `outside` is zero.
  bool clamped = false;
  /// Total mass, known exactly (1 for a law, less for part of a mixture).
  double total = 1.0;
  std::vector<double> mass_lo, mass_hi;      ///< per cell
  std::vector<double> moment_lo, moment_hi;  ///< per cell, first moment about the centre
  std::vector<double> second_lo, second_hi;  ///< per cell, second moment about the centre
  std::vector<PointMass> points;
  /// Sources that are not cells (a law built by the location-mixture path); no step
  /// produces them: propagate() sends them to the cells, atoms and outside mass.
  std::vector<Blob> blobs;
  Bracket outside;  ///< unclamped: mass outside [lo, hi]

  double width() const { return (hi - lo) / cells; }
  double centre(int k) const { return lo + (k + 0.5) * width(); }
  /// Sum of the upper minus the lower masses of cells, points and outside.
  double total_gap() const;
};

/// An empty law (all bounds zero, total 0) on the grid of `like`.
CellLaw empty_like(const CellLaw& like);

/// The law of a point mass at x0 (clamped into [lo, hi] when `clamped`), or, with sd > 0,
/// of N(x0, sd^2) (clamped: then projected), on `cells` cells of [lo, hi].
CellLaw initial_law(double lo, double hi, int cells, bool clamped, double x0, double sd);

/// One case of a step: with probability `weight` the update is x -> slope x + shift.
struct AffineCase {
  double weight = 1.0;
  double slope = 1.0;
  double shift = 0.0;
};

/// A map's enclosure over a source [x_lo, x_hi] (a point: x_lo = x_hi) by an affine map
/// and an error: m(x) = image + slope (x - centre) + e(x) with |e(x)| <= error for every x
/// of the source, centre its midpoint (docs/exact-laws.md, "Maps that are not affine").
struct LocalAffine {
  double image = 0.0;
  double slope = 1.0;  ///< any sign: the map need not be monotone
  double error = 0.0;
};

/// A map's enclosure over a source [x_lo, x_hi] to second order: m(x) = image + slope d +
/// c(x) d^2 / 2 + e(x) with d = x - centre, c(x) within curvature_radius of `curvature` and
/// |e(x)| <= error for every x of the source (docs/exact-laws.md, "Maps that are not affine").
struct LocalQuadratic {
  double image = 0.0;
  double slope = 1.0;
  double curvature = 0.0;
  double curvature_radius = 0.0;
  double error = 0.0;
};

/// One case of a step whose update x -> m(x) is not affine: with probability `weight` the
/// update is m, known through its enclosure over each source. `quadratic`, where set, is the
/// second-order enclosure the propagation and the density bounds use instead of `enclose`.
struct MapCase {
  double weight = 1.0;
  std::function<LocalAffine(double x_lo, double x_hi)> enclose;
  std::function<LocalQuadratic(double x_lo, double x_hi)> quadratic;
};

/// Map cases (gradient formulas) keep their coefficients across a chain's steps, at most this
/// many per thread (about 230 MB: 600 cells of three map cases; a full store is emptied and
/// refilled), and nothing once a chain's evolution (evolve_pair) returns (docs/exact-laws.md,
/// "Cost").
inline constexpr std::size_t kMapCoefficientsKept = std::size_t{3} << 19;

/// An affine case whose slope is not 1 moves each source's image to a lattice of this many
/// points per cell, with one coefficient table per lattice point.
inline constexpr int kLatticeTablesPerSlope = 32;

/// The tables of affine cases with a slope other than 1 (kLattice per slope) are kept across
/// steps, at most this many coefficients per thread (about 300 MB; a full store is emptied and
/// refilled with the same numbers).
inline constexpr std::size_t kLatticeCoefficientsKept = std::size_t{1} << 21;

/// Bytes one kept coefficient takes (CoefColumns: 18 columns of doubles).
inline constexpr double kBytesPerCoefficient = 18 * 8;

/// One step: a mixture of affine cases and of map cases (weights sum to 1), then
/// N(0, noise_std^2).
struct Step {
  std::vector<AffineCase> cases;
  double noise_std = 1.0;
  std::vector<MapCase> maps;
};

struct PropagateOptions {
  /// Targets farther than this many noise sds from a source's image are not visited; the
  /// mass sent there (below 2 Q(reach) of the source) is added to every cell's upper bound.
  /// At 38, Q(38) ~ 3e-316 is below every density the brackets use: a smaller reach puts a
  /// floor under the upper bounds that the far tails' lower bounds cannot match (an upper
  /// bound on R_alpha far above the truth at large alpha).
  double reach = 38.0;
  /// A step from a law with a positive lower mass in every cell and atom may use a smaller
  /// reach (whole sds, at least min_reach): the smallest whose floor is at most
  /// floor_fraction of the least lower mass (law.cpp, step_reach). min_reach >= reach: always
  /// `reach`.
  double min_reach = 8.0;
  double floor_fraction = 1e-12;
  /// The accumulation over target cells in AVX2 where the CPU has it (false: the scalar loop,
  /// for the tests; the same bits either way).
  bool vectorised = true;
  /// evolve_pair: when D''s chain is D's reflected about 0 (the blog's pair), D''s law is
  /// D's reflected instead of evolved (false: both evolved, for the tests).
  bool mirror = true;
};

/// The law after one step (slopes must be positive: the maps are increasing).
CellLaw propagate(const CellLaw& law, const Step& step, const PropagateOptions& options = {});

/// acc += weight * law (same grid); bounds and totals add.
void add_scaled(CellLaw& acc, const CellLaw& law, double weight);

/// The sums of the lower and of the upper mass bounds over the law's cells, its point masses and
/// its outside mass: [sum of lower, sum of upper], which holds the law's total.
Bracket mass_sums(const CellLaw& law);

/// Tightens every mass bound with the known total (each mass is at least the total minus
/// the others' upper bounds and at most the total minus their lower bounds) and every
/// moment bound with |D_k| <= P(C_k) h / 2.
void tighten(CellLaw& law);

/// Pointwise bounds on the density at y of the interior part of the law after `step` from
/// `law` (the clamp changes nothing inside (lo, hi)), at each of `ys`; added to lo and hi.
void density_after_step(const CellLaw& law, const Step& step, const std::vector<double>& ys,
                        std::vector<double>& lo, std::vector<double>& hi,
                        const PropagateOptions& options = {});

}  // namespace rdpaudit::exact
