// The trapezoidal-rule machinery behind exact_renyi and rao_blackwell_renyi: Gaussian mixtures
// in whitened coordinates, the grid that holds their tilted mass, their log densities on it
// and R_alpha of two such densities with its numerical error (methods.md section 4).
#pragma once

#include <Eigen/Dense>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "rdpaudit/exact/gaussian_mixture.hpp"

namespace rdpaudit::exact::quadrature {

inline constexpr double kNegInf = -std::numeric_limits<double>::infinity();
/// Grid points x components (or x orders) below which a loop runs on one thread.
inline constexpr std::size_t kParallelWork = std::size_t{1} << 20;

/// Components of a mixture in whitened coordinates (covariance scale_j * I), zero-weight
/// components dropped. log_w_j already holds -dim/2 log scale_j, the part of the normal
/// constant that differs between components (the common part cancels in R_alpha).
struct Whitened {
  std::vector<double> log_w;
  std::vector<double> inv_two_scale;  ///< 1 / (2 scale_j)
  double min_scale = 1.0, max_scale = 1.0;
  Eigen::MatrixXd u;  ///< components x dim
};

/// Checks p and q (throws InternalError: dimensions 1 or 2, one base covariance) and returns the
/// Cholesky factor L of that covariance.
Eigen::MatrixXd common_cholesky(const GaussianMixture& p, const GaussianMixture& q,
                                const ExactOptions& options);

/// Components [first, first + count) of m, whitened by L; weights normalised by the total
/// weight of all of m's components (so groups of one mixture add up to it).
Whitened whiten(const GaussianMixture& m, const Eigen::MatrixXd& chol_l, std::size_t first,
                std::size_t count);
inline Whitened whiten(const GaussianMixture& m, const Eigen::MatrixXd& chol_l) {
  return whiten(m, chol_l, 0, m.components());
}

struct Axis {
  double lo = 0.0, step = 1.0;
  std::size_t points = 1;  ///< odd, so the grid of twice the step shares both ends
  double at(std::size_t i) const { return lo + step * static_cast<double>(i); }
};

/// The grid of widening attempt `attempt` (0, 1, ...: margin 10 * 2^attempt of the widest
/// component's sd) for orders up to a_max; `points` is its size (all axes together).
std::vector<Axis> grid_axes(const Whitened& p, const Whitened& q, double a_max,
                            const ExactOptions& options, int attempt, std::size_t& points);

/// log of the mixture density on the grid (row-major over the axes), up to a constant
/// common to all components.
std::vector<double> log_density_grid(const Whitened& w, const std::vector<Axis>& axes);

/// Trapezoidal sums of exp(t) over the grid and the grid of twice the step.
struct GridSum {
  double log_sum = kNegInf;   ///< all points
  double log_sum2 = kNegInf;  ///< every other point along each axis
  double boundary = kNegInf;  ///< log(max boundary term / total)
};
GridSum grid_sum(const std::vector<Axis>& axes, const std::vector<double>& t);

/// R_alpha(A||B) of two log densities on the same grid, with the difference to the grid of
/// twice the step as its numerical error, and whether the tilted mass fits the grid.
struct OrderValue {
  double value = 0.0;
  double error = 0.0;
  bool fits = true;
};
OrderValue renyi_on_grid(const std::vector<Axis>& axes, const std::vector<double>& la,
                         const std::vector<double>& lb, const GridSum& na, const GridSum& nb,
                         double alpha, const ExactOptions& options);

/// Both directions of every order, uninformative for `reason`.
std::vector<estimate::Estimate> uninformative_all(const std::vector<double>& alphas,
                                                  const std::string& method,
                                                  const std::string& reason);

}  // namespace rdpaudit::exact::quadrature
