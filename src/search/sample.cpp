// The sampled evaluator of `rdpaudit search`: a point the exact engines do not cover (d > 1
// without a one-axis reduction, the logistic loss, a clip, ...) is simulated on the search's
// own streams and estimated by the plug-in, as `run` estimates it, at a smaller size.
#include <fmt/core.h>

#include <cmath>
#include <limits>

#include "rdpaudit/core/error.hpp"
#include "rdpaudit/estimate/profile.hpp"
#include "rdpaudit/estimate/selection.hpp"
#include "rdpaudit/rng/stream.hpp"
#include "rdpaudit/search/evaluate.hpp"
#include "rdpaudit/sim/simulate.hpp"

namespace rdpaudit::search {
namespace {

using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The central interval of N(0, 1) within one standard deviation: a bootstrap percentile
// interval at this level has a half-width of about one standard error.
constexpr double kOneSd = 0.6826894921370859;
// Bootstrap replicates per evaluation: enough for a standard error to within about 10 %.
constexpr std::size_t kReplicates = 100;

estimate::SampleView view(const RowMajor& m, std::size_t first, std::size_t rows) {
  return estimate::SampleView{m.data() + first * static_cast<std::size_t>(m.cols()), rows,
                              static_cast<std::size_t>(m.cols())};
}

}  // namespace

Evaluation evaluate_sampled(const config::Scenario& s, const Spec& spec, std::uint64_t seed) {
  Evaluation out;
  out.evaluator = Evaluator::kSampled;
  const std::vector<bounds::BoundValue> bound_values = detail::ratio_bounds(s, spec);

  // Trajectories 0 ... N-1 of the search's datasets: the same ids at every point (common
  // random numbers, so two points differ by their parameters more than by their noise), and
  // never a stream `run` draws (rng::kSearchD, kSearchDPrime; docs/methods.md section 6).
  const std::int64_t n = spec.pilot_trajectories;
  const std::int64_t chosen = n / 2, counted = n - chosen;
  const RowMajor p = sim::simulate_last_iterates(s, seed, kSampledDatasets[0], 0, n);
  const RowMajor q = sim::simulate_last_iterates(s, seed, kSampledDatasets[1], 0, n);

  // The selection phase on the first half, as `run` does on its pilot: one score, the
  // coordinate in 1-D, the fitted logistic log-ratio above (the plug-in `run` prefers).
  estimate::SelectionOptions selection_options;
  selection_options.scores = {s.dim == 1 ? estimate::Score::kIdentity : estimate::Score::kLogistic};
  const estimate::Selection selection =
      estimate::select_on_pilot(view(p, 0, chosen), view(q, 0, chosen),
                                static_cast<std::uint64_t>(counted), selection_options);
  const estimate::ScoreSelection& score = selection.scores.front();
  // The second half counted into the chosen cells (serially: the counts are integers, the
  // same in any order).
  tally::ScoreCells cells_p = score.counting_cells(), cells_q = score.counting_cells();
  for (std::int64_t j = chosen; j < n; ++j) {
    cells_p.add(p.row(j).data());
    cells_q.add(q.row(j).data());
  }

  out.how = fmt::format("sampled: plug-in on the {} score, {} + {} trajectories per dataset",
                        s.dim == 1 ? "identity" : "logistic-ratio", chosen, counted);
  if (spec.objective == ObjectiveKind::kDelta) {
    // delta(eps) of the same counts' tail sets: the plug-in as value, the family's certified
    // lower end at one-sided 84.1 % (one standard deviation) as its lower end.
    const auto family = estimate::profile_counts(score, cells_p.counts, cells_q.counts);
    for (const auto& e :
         estimate::profile_estimates(family, {spec.epsilon}, {}, 0.5 + 0.5 * kOneSd)) {
      if (!(e.direction == estimate::kForward ? spec.forward : spec.backward)) continue;
      const double v = e.delta_value.front();
      if (!std::isfinite(v) || (out.covered && !(v > out.value))) continue;
      out.covered = true;
      out.value = v;
      out.lower = std::min(v, e.delta_lower.front());
      out.upper = v;
      out.direction = e.direction;
      out.alpha = std::numeric_limits<double>::quiet_NaN();
    }
    if (!out.covered) out.reason = "the plug-in delta(eps) is not finite";
    out.resolution = out.value - out.lower;
    return out;
  }

  estimate::CountOptions options;
  options.plugin.confidence = kOneSd;
  options.plugin.bootstrap_replicates = kReplicates;
  for (const estimate::CountMethod& m : estimate::count_methods()) {
    if (m.method != config::Method::kHistogramPlugin) options.skipped.push_back(m.method);
  }
  rng::Stream bootstrap(
      {seed, static_cast<std::uint32_t>(s.index), rng::kSearchD, 0, rng::Purpose::kBootstrap});
  const auto rows = estimate::estimate_from_counts(score, cells_p.counts, cells_q.counts,
                                                   spec.alphas, options, &bootstrap, nullptr);
  detail::fold_rows(spec, rows, bound_values, true, out);
  // The bootstrap interval's half-width: the plug-in's standard error.
  if (out.covered) out.resolution = 0.5 * (out.upper - out.lower);
  return out;
}

}  // namespace rdpaudit::search
