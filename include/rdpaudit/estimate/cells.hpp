// Fixed-bin histograms: bin placement from a pilot, tallies with under- and overflow cells,
// and coarsenings (merging cells) that keep every cell populated.
//
// A 1-D binning is a strictly increasing vector of finite edges e_0 < ... < e_{m-1}; it has
// m+1 cells: cell 0 = (-inf, e_0) (underflow), cell i = [e_{i-1}, e_i), cell m = [e_{m-1},
// +inf) (overflow). A 2-D binning is one such vector per axis; cell (i, j) has index
// i * (m_y + 1) + j.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "rdpaudit/estimate/types.hpp"
#include "rdpaudit/tally/cells.hpp"

namespace rdpaudit::estimate {

/// Throws InternalError naming `key` unless `edges` is non-empty, finite and strictly increasing.
void check_edges(const std::vector<double>& edges, const std::string& key = "edges");

using tally::cell_of;

/// Counts of `samples` in the binning `edges` (one vector per axis: 1 or 2 axes, matching
/// samples.dim). Returns prod (m_k + 1) counts, row-major over the axes.
std::vector<std::uint64_t> tally(const std::vector<std::vector<double>>& edges,
                                 const SampleView& samples);

/// How propose_edges places bins.
struct BinningOptions {
  /// Tolerated relative downward bias of R_alpha from binning. Within a bin of width w the
  /// log-ratio of two laws with a common scale s varies by about (shift / s^2) * w; for a
  /// Gaussian location pair the binned divergence loses a fraction w^2 / (12 s^2) of R_alpha
  /// (the within-bin variance of the log-ratio over its total curvature), for every order. So
  /// w = s * sqrt(12 * binning_bias): 0.005 gives w = 0.245 s.
  double binning_bias = 0.005;
  /// Known scale s of the laws' components (e.g. the per-coordinate standard deviation of
  /// the last iterate given the batch pattern). 0: estimated from the pilot as the smaller of
  /// the two samples' standard deviations.
  double scale = 0.0;
  /// Upper limit on the number of bins per axis; the width grows to respect it.
  std::size_t max_bins = 4096;
};

/// Proposes bin edges per axis from pilot samples of P and P' (independent of the samples
/// that will be counted) for a tally of `counted_per_side` samples per side.
///
/// Width: from the binning-bias rule above. Extent: the union over both laws of
/// mean +- (sqrt(2 ln N) + 1) sd, the reach of N Gaussian-tailed samples: the tilted mass
/// p^alpha q^(1-alpha) of an order alpha sits near alpha mu_P + (1 - alpha) mu_P' and is
/// resolved where it falls inside this reach; beyond it no counted sample falls, so bins
/// there would only stay empty (the overflow cells collect the rare exceptions). Point masses
/// the pilot shows (find_point_masses) get a cell of their own (with_point_cells); a pilot of
/// laws with densities changes nothing.
std::vector<std::vector<double>> propose_edges(const SampleView& pilot_p, const SampleView& pilot_q,
                                               std::uint64_t counted_per_side,
                                               const BinningOptions& options = {});

/// The same from known per-axis means, standard deviations and the component scale.
std::vector<double> propose_edges_known(double mean_p, double sd_p, double mean_q, double sd_q,
                                        double scale, std::uint64_t counted_per_side,
                                        const BinningOptions& options = {});

/// Point masses of the laws seen in pilot values (1-D): a value that at least `min_repeats`
/// of the pilot samples of P and P' together take, up to a few units in the last place (the
/// projection's rescaling puts every iterate that leaves the domain on its boundary, give or
/// take one rounding). A law with a density takes no value twice (with probability 1), so
/// continuous laws find none. Returns [lo, hi) per point mass, sorted, each a few ulps wide
/// around the values seen.
std::vector<std::pair<double, double>> find_point_masses(const std::vector<double>& pilot_p,
                                                         const std::vector<double>& pilot_q,
                                                         std::size_t min_repeats = 8);

/// `edges` with a cell of its own for each point mass (its [lo, hi) becomes a cell; edges
/// inside it are dropped): the plug-in then sees the atom as one cell, not spread over a bin
/// shared with the density next to it. Unchanged when `points` is empty.
std::vector<double> with_point_cells(std::vector<double> edges,
                                     const std::vector<std::pair<double, double>>& points);

/// Whether cell [lo, hi) of a binning is a point cell (with_point_cells): at most
/// kPointCellWidth relative to |lo|, |hi| wide. No regular bin is that narrow (bins are about a
/// quarter of the laws' scale wide).
inline constexpr double kPointCellWidth = 1e-10;
bool is_point_cell(double lo, double hi);

/// The point cells of a 1-D binning (indices into its edges.size() + 1 cells).
std::vector<std::size_t> point_cells_of(const std::vector<double>& edges);

/// Counts on `edges` coarsened to `coarse` (a subset of `edges`): every cell of `edges` lies
/// inside the coarse cell of its left end (the underflow cell inside the coarse underflow).
std::vector<std::uint64_t> coarsen(const std::vector<std::uint64_t>& counts,
                                   const std::vector<double>& edges,
                                   const std::vector<double>& coarse);

/// A coarsening of cells into groups: cell i belongs to group[i] (groups are 0 .. groups-1).
struct Grouping {
  std::vector<std::uint32_t> group;
  std::size_t groups = 0;
};

/// Merges cells along `order` (a permutation of the cells; empty = 0, 1, 2, ...): consecutive
/// cells join one group until the group holds at least `min_count` samples of P and of P';
/// a short remainder at the end joins the last group. Merging is a coarsening: it can only
/// lower the population divergence (data processing), and it removes the empty cells that
/// would make a plug-in infinite. Throws InternalError for a bad order.
Grouping merge_sparse(const CellCounts& counts, const std::vector<std::size_t>& order,
                      std::uint64_t min_count);

/// merge_sparse that keeps each of `point_cells` holding at least `point_min_count` samples
/// of P and of P' as a group of its own (an atom is resolved by its own counts; merging it
/// with the density beside it would blur the largest likelihood ratio into a bin). The other
/// cells are merged by merge_sparse (floor `min_count`) between those atoms; a stretch that
/// cannot reach min_count on both sides joins a neighbouring atom's group. With no such atom
/// it is merge_sparse itself.
Grouping merge_sparse_keeping_points(const CellCounts& counts,
                                     const std::vector<std::size_t>& order, std::uint64_t min_count,
                                     const std::vector<std::size_t>& point_cells,
                                     std::uint64_t point_min_count);

/// Counts per group.
CellCounts apply_grouping(const CellCounts& counts, const Grouping& grouping);

/// Cells of an nx-by-ny grid (row-major) ordered by a smoothed log-ratio estimate
/// log((p~ + 1/2) / n_p) - log((q~ + 1/2) / n_q), where p~, q~ are the count grids smoothed
/// with a Gaussian kernel of `bandwidth_cells` cells (0: no smoothing). In 1-D pass ny = 1.
/// The order along which cells of similar likelihood ratio sit next to each other, which is
/// the order in which merging loses least (Tsitsiklis 1993: likelihood-ratio quantisers are
/// optimal for f-divergences). Also returns the smoothed log-ratio per cell in `log_ratio`.
std::vector<std::size_t> order_by_smoothed_ratio(const CellCounts& counts, std::size_t nx,
                                                 std::size_t ny, double bandwidth_cells,
                                                 std::vector<double>* log_ratio = nullptr);

}  // namespace rdpaudit::estimate
