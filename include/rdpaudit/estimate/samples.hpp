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
  SelectionOptions selection;  ///< scores, learned-ratio fits, bins, fine cells
  CountOptions count;          ///< which methods run and their options
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
