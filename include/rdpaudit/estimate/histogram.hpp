// Estimator 1: the plug-in on fixed-bin tallies, with a bootstrap interval that is a
// diagnostic, not a guarantee.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rdpaudit/config/traits.hpp"
#include "rdpaudit/estimate/types.hpp"
#include "rdpaudit/rng/stream.hpp"

namespace rdpaudit::estimate {

struct PluginOptions {
  /// Level of the bootstrap percentile interval.
  double confidence = 0.95;
  /// For order a, cells are merged along the order until every group holds at least
  /// m(a) = max(min_count, per_alpha2 * a^2) samples of each side (see merge_sparse), rounded
  /// up to a ladder of ratio 1.25 so that nearby orders share one merge. The log of a term
  /// p^^a q^^(1-a) of a group with k_p, k_q samples has standard deviation about
  /// a sqrt(1/k_p + 1/k_q) <= sqrt(2 / per_alpha2): the floor keeps the sparse tail cells, whose
  /// noise the power a amplifies, from dominating the sum (with a fixed floor of 10 the
  /// plug-in at a = 16 is off by +25 % on average at 10^7 samples of a Gaussian pair).
  std::uint64_t min_count = 10;
  double per_alpha2 = 4.0;
  /// Bootstrap replicates; 0 gives no interval (lower = upper = value).
  std::size_t bootstrap_replicates = 200;
  /// false: multinomial resampling of each side's counts (the exact nonparametric bootstrap
  /// of the tally); true: independent Poisson(count) per cell.
  bool poisson_bootstrap = false;
  /// The estimate is uninformative when more than this share of the estimated tilted mass
  /// p^alpha q^(1-alpha) sits in the first or last group of the order: then the samples do
  /// not reach where the order lives and the value only reflects how far they reach. At 0.5
  /// estimates 8 - 20 % low still passed as informative (pair at alpha 24, 10^7 samples); at
  /// 0.25 the informative ones stay within a few per cent.
  double max_edge_share = 0.25;
  /// The estimate is uninformative when its estimated upward bias exceeds this share of the
  /// value. To first order in the cell noise, E R^ - R_binned = (a/2) sum_g w_g (1/k_P,g +
  /// 1/k_P',g) with w_g the tilted share of group g: for small divergences about a * cells / n,
  /// which swamps e.g. R = 2e-4 at 10^5 samples.
  double max_bias_share = 0.5;
};

/// Plug-in R_alpha of the (merged, per order) cell frequencies, both directions, every order:
///   R^ = 1/(alpha-1) log sum_g p^_g^alpha q^_g^(1-alpha).
/// Biased upward at fixed cells (convexity: E p^^a q^^(1-a) >= p^a q^(1-a)) and downward by
/// the binning (data processing); neither is bounded, so [lower, upper] is a bootstrap
/// percentile interval (each replicate is merged again), labelled diagnostic. `order` is the
/// merge order (empty: cell index order, right for 1-D bins; see order_by_smoothed_ratio for
/// 2-D). `stream` supplies the bootstrap draws (may be null when there are no replicates).
/// `point_cells` are cells that hold one point mass each (cells.hpp, point_cells_of): one
/// holding at least the order's merge floor of each side stays a group of its own, and one at
/// an end of the samples is not taken for an unreached tail (max_edge_share looks at the
/// outermost groups that are not such an atom).
std::vector<Estimate> histogram_plugin(
    const CellCounts& counts, const std::vector<double>& alphas, const PluginOptions& options,
    rng::Stream* stream, const std::vector<std::size_t>& order = {},
    const std::string& method = config::to_string(config::Row::kHistogramPlugin),
    const std::vector<std::size_t>& point_cells = {});

}  // namespace rdpaudit::estimate
