// All sample-based estimators side by side, from the raw last iterates of D and D'.
#pragma once

#include <string>
#include <vector>

#include "rdpaudit/estimate/cells.hpp"
#include "rdpaudit/estimate/density_ratio.hpp"
#include "rdpaudit/estimate/histogram.hpp"
#include "rdpaudit/estimate/rigorous.hpp"
#include "rdpaudit/estimate/types.hpp"
#include "rdpaudit/estimate/variational.hpp"
#include "rdpaudit/rng/philox.hpp"

namespace rdpaudit::estimate {

/// The projection the histogram and rigorous estimators run on.
enum class Score {
  kIdentity,  ///< the coordinate itself (1-D samples only); methods "histogram-plugin",
              ///< "rigorous-cp"
  kLogistic,  ///< fit_logistic_ratio; methods prefixed "logistic-ratio/"
  kKde,       ///< fit_kde_ratio (1-D, 2-D); methods prefixed "kde-ratio/"
};

struct SampleOptions {
  /// The first fraction of each side's rows is the selection split (fits the score, places
  /// bins and fine cells, chooses partitions), the rest the evaluation split (counted).
  double selection_fraction = 0.3;
  /// Scores to run; empty: {kIdentity} in 1-D, {kLogistic, kKde} in 2-D, {kLogistic} above.
  std::vector<Score> scores;
  LogisticOptions logistic;
  KdeOptions kde;
  BinningOptions binning;  ///< bins of the plug-in, placed from the selection scores
  PluginOptions plugin;
  RigorousOptions rigorous;
  VariationalOptions variational;
  /// The identity score's Hoelder + Bernstein bound chooses its test functions on this first
  /// share of the rows and evaluates on the rest: it only needs a scale and clips, and its
  /// width shrinks with the evaluation size. Learned scores use `selection_fraction` for both
  /// rigorous methods (the score is fitted there).
  double variational_selection_fraction = 0.1;
  /// Which methods run (the experiment file's estimate.methods).
  bool run_plugin = true, run_partition = true, run_bernstein = true;
  std::size_t bulk_cells = 256;  ///< fine cells of the rigorous bounds (cells_from_scores)
};

/// Histogram plug-in and the two rigorous lower bounds (partition + Clopper-Pearson,
/// "rigorous-cp"; Hoelder + Bernstein, "rigorous-bernstein"), both directions, every order,
/// for each score.
/// The plug-in counts the evaluation split in bins proposed from the selection split; the
/// rigorous bound chooses on the selection split and bounds on the evaluation split.
/// `stream` feeds the plug-in's bootstrap (may be null with no replicates). When
/// `certificates` is given, it receives each score's RigorousResults, from which the audit
/// recomputes the bound at other levels (rigorous_p_value).
std::vector<Estimate> estimate_from_samples(const SampleView& p, const SampleView& q,
                                            const std::vector<double>& alphas,
                                            const SampleOptions& options, rng::Stream* stream,
                                            std::vector<RigorousResult>* certificates = nullptr);

}  // namespace rdpaudit::estimate
