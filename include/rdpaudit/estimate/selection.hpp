// Choose on a pilot, then count: the two phases of the sample-based estimators.
//
// The selection phase sees only pilot trajectories (streams of their own, independent of
// every counted trajectory). For each score it fixes everything that is chosen from data: the
// learned log-ratio model (fitted on the first half of the pilot), the score's cells (pilot
// quantiles plus the plug-in's bins, which extend to the reach of the counted samples), the
// plug-in bins, and the selection counts on which the rigorous methods choose their partitions
// and test functions (the pilot's second half for a learned score, the whole pilot for the
// identity). The counting phase (tally::ScoreCells) sends every trajectory of the run through
// the score into those cells. Every estimator is then a function of the selection and the
// counts alone (estimate_from_counts):
//   histogram-plugin     the counts coarsened to the plug-in bins;
//   rigorous-cp          partitions of the fine cells chosen on the selection counts, exact
//                        Clopper-Pearson intervals on the counted cell probabilities;
//   rigorous-bernstein   a clipped test function of the fine cells chosen on the selection
//                        counts, one Bernstein interval on the counted means.
// Validity is the same as with a split of one sample: the selection is independent of what is
// counted, so each map is fixed post-processing of the counted last iterates (data processing)
// and each interval is exact or distribution-free for the counted samples (docs/methods.md).
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rdpaudit/config/traits.hpp"
#include "rdpaudit/estimate/cells.hpp"
#include "rdpaudit/estimate/density_ratio.hpp"
#include "rdpaudit/estimate/histogram.hpp"
#include "rdpaudit/estimate/rigorous.hpp"
#include "rdpaudit/estimate/types.hpp"
#include "rdpaudit/estimate/variational.hpp"
#include "rdpaudit/rng/stream.hpp"
#include "rdpaudit/tally/cells.hpp"

namespace rdpaudit::estimate {

/// The projection the histogram and rigorous estimators run on.
enum class Score {
  kIdentity,  ///< the coordinate itself (1-D samples only); methods "histogram-plugin", ...
  kLogistic,  ///< fit_logistic_ratio; methods prefixed "logistic-ratio/"
  kKde,       ///< fit_kde_ratio (1-D, 2-D); methods prefixed "kde-ratio/"
};

struct SelectionOptions {
  /// Scores to run; empty: {kIdentity} in 1-D, {kLogistic, kKde} in 2-D, {kLogistic} above.
  std::vector<Score> scores;
  LogisticOptions logistic;
  KdeOptions kde;
  BinningOptions binning;        ///< plug-in bins, from the pilot, for the counted size
  std::size_t bulk_cells = 256;  ///< quantile cells of the rigorous methods' fine cells
};

/// What the selection phase fixed for one score.
struct ScoreSelection {
  Score kind = Score::kIdentity;
  std::string prefix;                       ///< "", "logistic-ratio/" or "kde-ratio/"
  std::shared_ptr<const RatioModel> model;  ///< null for the identity score
  std::vector<double> edges;                ///< the counted cells (union of the two below)
  std::vector<double> plugin_edges;         ///< the plug-in's bins (a subset of `edges`)
  std::vector<double> fine_edges;           ///< the rigorous methods' cells (a subset)
  std::vector<double> fine_position;        ///< per fine cell, non-decreasing
  CellCounts selection;                     ///< choosing pilot rows in the fine cells
  double score(const double* theta) const;  ///< the score of one last iterate
  /// Empty counting cells of this score, ready for the simulation loop.
  tally::ScoreCells counting_cells() const;
};

struct Selection {
  std::vector<ScoreSelection> scores;
  std::uint64_t pilot_rows = 0;  ///< pilot rows per side
};

/// The selection phase on pilot last iterates of P and P' (rows x dim), for a run that will
/// count `counted_per_side` trajectories per side. Throws InputError naming estimate.pilot
/// when the pilot is too small for the methods.
Selection select_on_pilot(const SampleView& pilot_p, const SampleView& pilot_q,
                          std::uint64_t counted_per_side, const SelectionOptions& options);

struct CountOptions {
  PluginOptions plugin;
  RigorousOptions rigorous;
  VariationalOptions variational;
  /// The count methods not to run (estimate.methods leaves them out); every other row of
  /// count_methods() runs.
  std::vector<config::Method> skipped;
  bool runs(config::Method m) const {
    return std::find(skipped.begin(), skipped.end(), m) == skipped.end();
  }
};

/// What a count method reads: one score's selection, the counts of P and P' in its cells, and
/// the same counts on the fine cells with the selection counts (the rigorous methods' input).
struct CountInputs {
  const ScoreSelection& selection;
  const std::vector<std::uint64_t>& counts_p;
  const std::vector<std::uint64_t>& counts_q;
  const OrderedCells& fine;
  const std::vector<double>& alphas;
  const CountOptions& options;
  rng::Stream* stream;          ///< the bootstrap's; only one method may draw from it
  const std::string& row_name;  ///< the score's prefix and the method's row name
};

/// What a count method found: its rows and, for a rigorous method, its certificate.
struct CountResult {
  std::vector<Estimate> estimates;
  std::optional<RigorousResult> certificate;
};

/// The count methods' run functions, one per line of config/count_methods.def, each defined
/// in its estimator's source file: the method's rows (named in.row_name) from the counts and,
/// for a rigorous method, its certificate.
#define RDPAUDIT_COUNT_METHOD(id, name, role, preference, run) \
  CountResult run(const CountInputs& in);
#include "rdpaudit/config/count_methods.def"

/// A rigorous method's result: its rows and, as its certificate, the result itself.
CountResult certified(RigorousResult r);

/// A method that runs from the counts alone: its config::Method (name and role in
/// config::method_registry()), the Row its estimates are stored as, and how it runs; one row
/// per line of config/count_methods.def. Whether it runs follows CountOptions::skipped.
struct CountMethod {
  config::Method method;
  config::Row row;
  CountResult (*run)(const CountInputs& in);
};

/// The count methods, in the order estimate_from_counts returns their rows.
const std::vector<CountMethod>& count_methods();

/// Every estimate of one score from its selection and the counts of P and P' in its cells
/// (tally::ScoreCells::counts of the two datasets), both directions, every order: the rows of
/// each enabled count method, in the order of count_methods(). `stream`
/// feeds the plug-in's bootstrap (may be null with no replicates); `certificates`, when given,
/// receives the rigorous results for the audit's p-values.
std::vector<Estimate> estimate_from_counts(const ScoreSelection& selection,
                                           const std::vector<std::uint64_t>& counts_p,
                                           const std::vector<std::uint64_t>& counts_q,
                                           const std::vector<double>& alphas,
                                           const CountOptions& options, rng::Stream* stream,
                                           std::vector<RigorousResult>* certificates);

}  // namespace rdpaudit::estimate
