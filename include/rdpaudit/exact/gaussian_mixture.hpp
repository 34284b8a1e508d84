// Estimator 4: R_alpha of two Gaussian mixtures by quadrature.
//
// With the quadratic loss the noisy-SGD update is affine, so the last iterate given the batch
// pattern is Gaussian: P and P' are Gaussian mixtures (components = batch patterns) whose
// covariances are one base covariance, times a per-component factor where the batch size is
// random (Poisson). This module is the ground truth the other estimators are measured against.
// When the components are the conditional Gaussians of *sampled* batch patterns (too many
// patterns to list), the same computation is the Rao-Blackwellised estimate
// (rao_blackwell.hpp): the mixture of sampled conditional densities replaces the histogram of
// sampled iterates.
#pragma once

#include <string>
#include <vector>

#include "rdpaudit/config/traits.hpp"
#include "rdpaudit/estimate/types.hpp"

namespace rdpaudit::exact {

/// A mixture sum_j w_j N(mean_j, scale_j * covariance) in `dim` dimensions.
struct GaussianMixture {
  std::size_t dim = 1;
  std::vector<double> weights;     ///< non-negative, normalised on use
  std::vector<double> means;       ///< components x dim, row-major
  std::vector<double> covariance;  ///< dim x dim, symmetric positive definite
  std::vector<double> scales;      ///< one positive factor per component; empty: all 1

  std::size_t components() const { return weights.size(); }
  /// Throws InternalError naming `key` for wrong sizes, negative or all-zero weights, non-finite
  /// numbers, non-positive scales or a covariance that is not symmetric positive definite.
  void check(const std::string& key) const;
};

/// A single Gaussian N(mean, covariance).
GaussianMixture gaussian(const std::vector<double>& mean, const std::vector<double>& covariance);

struct ExactOptions {
  /// Grid step in whitened units, as a fraction of the narrowest scale of the integrand
  /// p^a q^(1-a), sqrt(s_min) / sqrt(1 + (a_max - 1)(1 - s_min/s_max) + a_max (r_P^2 +
  /// r_P'^2) / s_min) with r the half-spread of the whitened means and s the smallest and
  /// largest component scale (1 / sqrt(1 + a_max (r_P^2 + r_P'^2)) when all scales are 1). The
  /// trapezoidal rule on a smooth integrand that decays like a Gaussian converges geometrically:
  /// its relative error is about exp(-2 pi^2 / step^2), 1e-70 at 0.35 and still 1e-17 on the grid
  /// of twice the step that provides the error bracket.
  double step = 0.35;
  /// The integrand at the grid boundary, relative to its total, must stay below this; the
  /// grid is widened (up to 4 times) until it does.
  double tail_tolerance = 1e-20;
  /// Largest number of grid points (all axes together). Beyond it the orders are reported
  /// uninformative rather than computed on a coarser grid.
  std::size_t max_points = std::size_t{1} << 23;
};

/// R_alpha(P||P') and R_alpha(P'||P) for every order, by the trapezoidal rule on a uniform
/// grid in whitened coordinates (1-D and 2-D), with log-domain densities (orders up to 64 and
/// beyond, far tails) and the mixture densities evaluated as one matrix product in 2-D.
/// The grid covers every centre a m_i + (1 - a) m'_j of the tilted law plus a margin of 10
/// (widest) component sd, widened while the integrand at its boundary is not negligible; the
/// integral and both normalisations are taken on the same grid, so the result is the exact
/// R_alpha of two discrete laws and never negative. [lower, upper] = value -+ |value on the
/// grid - value on the grid of twice the step| (a conservative numerical error bracket).
/// Requires one base covariance common to P and P' (components may scale it: `scales`);
/// throws InternalError otherwise, or for dim > 2.
std::vector<estimate::Estimate> exact_renyi(
    const GaussianMixture& p, const GaussianMixture& q, const std::vector<double>& alphas,
    const ExactOptions& options = {},
    const std::string& method = config::to_string(config::Row::kExactQuadrature));

}  // namespace rdpaudit::exact
