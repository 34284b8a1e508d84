// Small numerical helpers shared by the estimators.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <vector>

namespace rdpaudit::estimate {

/// log(sum_i exp(x_i)), stable for any magnitudes; -infinity for an empty input. The sum is
/// accumulated in long double, so long sums of nearly equal terms lose no accuracy.
double log_sum_exp(const std::vector<double>& x);

/// Empirical quantile (type 7, linear interpolation) of `sorted` (ascending, non-empty).
double sorted_quantile(const std::vector<double>& sorted, double level);

/// The order statistics of `values` (0-based ranks in sorted order) at `ranks`, by recursive
/// selection (O(n log k) for k ranks, no full sort). Reorders `values`.
std::map<std::size_t, double> order_statistics(std::vector<double>& values,
                                               std::vector<std::size_t> ranks);

/// The p-value of a claim against a family of certified bounds: the smallest miss level in
/// [1e-20, 1] at which exceeds(miss) (the bound certified at that level lies beyond the claim)
/// still holds, by 40 bisections on log(miss) (relative precision 1e-10; the upper end
/// returned); 1 where it fails at miss 1, 1e-20 where it holds at 1e-20. exceeds must be
/// monotone: true at a level, true at every larger one.
double bisect_p_value(const std::function<bool(double)>& exceeds);

/// Smooths an nx-by-ny grid (row-major: element (i, j) at i * ny + j; ny = 1 for 1-D) in place
/// with a Gaussian kernel of standard deviation hx, hy grid cells per axis (0: that axis is
/// left alone), truncated at 4 standard deviations and renormalised at the borders.
void gaussian_smooth(std::vector<double>& grid, std::size_t nx, std::size_t ny, double hx,
                     double hy);

}  // namespace rdpaudit::estimate
