// All sample-based estimators side by side, from raw last iterates of D and D' held in
// memory: the first rows of each side play the pilot (selection phase), the rest are counted
// (estimate/selection.hpp). The audit itself never holds the counted rows: its pilot has
// streams of its own and every trajectory is counted inside the simulation loop. This entry
// point serves tests and studies that draw their samples directly.
#pragma once

#include <string>
#include <vector>

#include "rdpaudit/estimate/selection.hpp"
#include "rdpaudit/estimate/types.hpp"
#include "rdpaudit/rng/stream.hpp"

namespace rdpaudit::estimate {

struct SampleOptions {
  /// The first fraction of each side's rows is the pilot (selection), the rest is counted.
  double selection_fraction = 0.3;
  /// Scores to run; empty: {kIdentity} in 1-D, {kLogistic, kKde} in 2-D, {kLogistic} above.
  std::vector<Score> scores;
  LogisticOptions logistic;
  KdeOptions kde;
  BinningOptions binning;  ///< bins of the plug-in, placed from the pilot rows
  PluginOptions plugin;
  RigorousOptions rigorous;
  VariationalOptions variational;
  /// Which methods run (the experiment file's estimate.methods).
  bool run_plugin = true, run_partition = true, run_bernstein = true;
  std::size_t bulk_cells = 256;  ///< quantile cells of the rigorous methods' fine cells

  SelectionOptions selection_options() const;
  CountOptions count_options() const;
};

/// Histogram plug-in and the two rigorous lower bounds (partition + Clopper-Pearson,
/// "rigorous-cp"; Hoelder + Bernstein, "rigorous-bernstein"), both directions, every order,
/// for each score. `stream` feeds the plug-in's bootstrap (may be null with no replicates).
/// When `certificates` is given, it receives each score's RigorousResults, from which the
/// audit recomputes the bound at other levels (rigorous_p_value).
std::vector<Estimate> estimate_from_samples(const SampleView& p, const SampleView& q,
                                            const std::vector<double>& alphas,
                                            const SampleOptions& options, rng::Stream* stream,
                                            std::vector<RigorousResult>* certificates = nullptr);

}  // namespace rdpaudit::estimate
