// Estimator 2: a lower confidence bound on R_alpha that is valid at a stated family-wise
// level, simultaneously for every order, both directions and every cell.
//
// Recipe (each step chosen so that validity needs no asymptotics):
//  1. The samples are split in two independent parts. Everything that is chosen (the score,
//     the fine cells, the partitions) is a function of the selection part only.
//  2. On the selection part, for a few anchor orders and both directions, the partition of the
//     (ordered) fine cells that forecasts the best bound is chosen among: 2-cell
//     likelihood-ratio threshold sets {score > t} at tail cuts holding 8, 16, 32, ...
//     forecast samples of their rarer side, and k-cell partitions with boundaries equally
//     spaced in score between a tail cut and a cut at the other end.
//  3. On the evaluation part, every distinct cell of the chosen partitions gets a two-sided
//     Clopper-Pearson interval for its probability under P and under P', each at level
//     (1 - confidence) / (2 * number of distinct cells) (Bonferroni): with probability
//     >= confidence all of them hold at once.
//  4. For each order and direction, and each chosen partition, the bound is the certified
//     minimum of R_alpha over all cell-probability vectors inside those intervals (and on the
//     simplex), min_renyi_over_boxes; the reported lower bound is the largest over partitions.
// On the event of step 3 every such minimum is <= R_alpha of the coarsened laws, which by
// data processing is <= R_alpha(P||P'): so all reported bounds hold together with
// probability >= confidence.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rdpaudit/config/traits.hpp"
#include "rdpaudit/estimate/types.hpp"
#include "rdpaudit/rng/stream.hpp"

namespace rdpaudit::estimate {

/// Fine cells in a fixed order with a position (a score or log-ratio level) each, and their
/// counts on the two independent splits.
struct OrderedCells {
  std::vector<double> position;  ///< one per cell, non-decreasing along the order
  CellCounts selection;          ///< selection split: chooses partitions
  CellCounts evaluation;         ///< evaluation split: bounds their probabilities
};

struct RigorousOptions {
  /// Family-wise confidence over all orders, both directions and all cells.
  double confidence = 0.95;
  /// Smallest tail cell considered: it holds about this many forecast evaluation samples of
  /// its rarer side (further cuts double it: 8, 16, 32, ...).
  std::uint64_t min_tail_count = 8;
  /// Orders at which partitions are chosen; empty: geometric (ratio 1.5) from the smallest
  /// to the largest requested order. Every order is then bounded with every chosen partition.
  std::vector<double> anchor_alphas;
  /// Candidate partitions have this many boundaries (cells - 1).
  std::vector<std::size_t> boundary_counts = {1, 2, 3, 5, 8, 13};
  /// Inner ends of the multi-cell candidates: cuts leaving these fractions of the rarer side
  /// beyond them at the opposite end.
  std::vector<double> near_fractions = {0.25, 1.0 / 16.0, 1.0 / 64.0};
  /// Family size assumed when forecasting intervals on the selection split.
  std::size_t forecast_family_cells = 256;
};

/// What one order and direction's bound of the Hoelder + Bernstein method (variational.hpp)
/// is made of: the chosen contrast and the evaluation
/// split's moments. "first" is the law in the numerator (P for kForward, P' for kBackward).
struct ContrastCertificate {
  double alpha = 0.0;
  int direction = kForward;
  double k = 0.0;                       ///< contrast weight, > 0
  double mean_x = 0.0, mean_y = 0.0;    ///< Xbar (first law), Ybar (second law)
  double var_x = 0.0, var_y = 0.0;      ///< unbiased sample variances
  double range_x = 0.0, range_y = 0.0;  ///< a-priori ranges of X and Y
  double n_x = 0.0, n_y = 0.0;          ///< evaluation sample sizes
};

/// The bound and what it was made of: enough to recompute the bound at any other level
/// (rigorous_lower_at, rigorous_p_value) without the samples.
struct RigorousResult {
  std::string method;                                ///< e.g. config::Row::kRigorousCp's name
  std::vector<Estimate> estimates;                   ///< both directions, every order
  std::vector<std::vector<std::size_t>> partitions;  ///< chosen: fine-cell indices starting a cell
  std::size_t family_cells = 0;                      ///< distinct cells under Bonferroni
  double per_interval_miss = 0.0;                    ///< miss probability of each interval
  CellCounts evaluation;                             ///< the fine cells' evaluation counts
  /// Hoelder + Bernstein method (variational.hpp): one certificate per informative-able
  /// order and direction; family_cells is then the number of orders x directions.
  std::vector<ContrastCertificate> contrasts;
};

/// Throws InternalError (keys prefixed `key`) unless every position has a selection and an
/// evaluation count and the positions are non-decreasing.
void check_ordered_cells(const OrderedCells& cells, const std::string& key);

/// The rigorous lower bound (see the file comment). `value` is the plug-in of the evaluation
/// frequencies on the partition that gives the largest bound (an empty cell counts 1/2), `lower`
/// the bound, `upper` = +infinity (one-sided). Uninformative (with the reason) where the bound
/// is 0. Throws InternalError for inconsistent cells.
RigorousResult rigorous_lower_bound(
    const OrderedCells& cells, const std::vector<double>& alphas,
    const RigorousOptions& options = {},
    const std::string& method = config::to_string(config::Row::kRigorousCp));

/// The same bound at another family-wise miss probability `family_miss` in (0, 1]: the
/// chosen partitions and their Bonferroni family are kept, each interval misses with
/// probability family_miss / (2 family_cells). With probability >= 1 - family_miss the result
/// is <= R_alpha in the given direction, for every order at once. Non-decreasing in
/// family_miss. 0 when no partition was chosen. For the Hoelder + Bernstein method
/// (`contrasts` non-empty) each order and direction gets family_miss / family_cells.
double rigorous_lower_at(const RigorousResult& r, double alpha, int direction, double family_miss);

/// A lower bound valid for this one order and direction with probability >= 1 - miss (what a
/// single hypothesis needs; an audit handles the multiplicity of its cells itself). For the
/// partition method, whose orders share their cells, it is rigorous_lower_at(r, ..., miss);
/// for the Hoelder + Bernstein method it is the order's own certificate at level miss, with
/// no Bonferroni over the other orders. 0 where the order was not bounded.
double rigorous_lower_for_order(const RigorousResult& r, double alpha, int direction, double miss);

/// p-value of the hypothesis R_alpha <= threshold (direction as given): the smallest miss at
/// which rigorous_lower_for_order exceeds `threshold`, found by bisection in log scale and
/// rounded up (conservative), in [1e-20, 1]; 1 when even miss = 1 does not exceed it. Valid:
/// if R_alpha <= threshold, P(p <= u) <= P(rigorous_lower_for_order(u) > R_alpha) <= u.
double rigorous_p_value(const RigorousResult& r, double alpha, int direction, double threshold);

/// The fine cells of cells_from_scores: about `bulk_cells` equal-count cells of the pooled
/// selection scores plus geometric tail cuts (ranks 1, 2, 3, 4, 6, 8, ... from each end).
std::vector<double> quantile_cell_edges(const std::vector<double>& selection_p,
                                        const std::vector<double>& selection_q,
                                        std::size_t bulk_cells);

/// One position per cell of `edges` (midpoints; the outer cells half a neighbouring gap out).
std::vector<double> cell_positions(const std::vector<double>& edges);

/// Fine cells for 1-D scores (or 1-D samples): edges at order statistics of the pooled
/// selection scores, geometrically spaced in rank at both ends (ranks 1, 1.4, 2, 2.8, ... from
/// each end) and at `bulk_cells` equal-mass quantiles in between; counts of both splits.
OrderedCells cells_from_scores(const std::vector<double>& selection_p,
                               const std::vector<double>& selection_q,
                               const std::vector<double>& evaluation_p,
                               const std::vector<double>& evaluation_q,
                               std::size_t bulk_cells = 256);

/// Fine cells of a fixed 1-D binning (edges as in cells.hpp), in spatial order, positioned at
/// the bin centres; `selection` and `evaluation` are tallies of independent samples.
OrderedCells cells_from_histogram_1d(const std::vector<double>& edges, const CellCounts& selection,
                                     const CellCounts& evaluation);

/// Fine cells of a fixed 2-D binning, ordered by the selection split's smoothed log-ratio
/// (order_by_smoothed_ratio with `bandwidth_cells`), which is also their position.
OrderedCells cells_from_histogram_2d(const std::vector<double>& edges_x,
                                     const std::vector<double>& edges_y,
                                     const CellCounts& selection, const CellCounts& evaluation,
                                     double bandwidth_cells = 2.0);

/// Splits one tally into two independent tallies by binomial thinning: each sample goes to
/// the first with probability `fraction`, independently of its value. Given the split sizes
/// the two tallies are independent multinomials, exactly as if the samples had been split
/// before counting, so a histogram delivered whole can still feed the rigorous bound.
std::pair<CellCounts, CellCounts> thin_counts(const CellCounts& counts, double fraction,
                                              rng::Stream& stream);

}  // namespace rdpaudit::estimate
