// The OpenMP drivers of the simulator: last iterates of a range of trajectory ids, and their
// counting into a tally. The per-trajectory work is the runner's (runner.hpp).
#include "rdpaudit/sim/simulate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <type_traits>
#include <utility>
#include <vector>

#include "rdpaudit/core/error.hpp"
#include "rdpaudit/core/interrupt.hpp"
#include "rdpaudit/rng/stream.hpp"
#include "rdpaudit/sim/batches.hpp"
#include "records.hpp"
#include "runner.hpp"

namespace rdpaudit::sim {

using config::Scenario;
using detail::DatasetRecords;
using detail::records_of;
using detail::with_runner;

namespace {

void lower_to(std::atomic<std::int64_t>& value, std::int64_t candidate) {
  std::int64_t now = value.load(std::memory_order_relaxed);
  while (candidate < now && !value.compare_exchange_weak(now, candidate)) {
  }
}

const char* dataset_name(Dataset dataset) {
  switch (dataset) {
    case kD:
      return "D";
    case kDPrime:
      return "D'";
    case kPilotD:
      return "D (pilot run)";
    case kPilotDPrime:
      return "D' (pilot run)";
    case rng::kSearchD:
      return "D (search evaluation)";
    case rng::kSearchDPrime:
      return "D' (search evaluation)";
  }
  return "?";
}

/// Stops the run in the user's terms when trajectory j diverged: which trajectory, which
/// dataset, the value, the step (found by re-simulating j alone) and the keys to change.
template <class Runner>
[[noreturn]] void report_divergence(const Scenario& s, const Runner& runner, Dataset dataset,
                                    std::int64_t j) {
  const auto [step, value] = runner.first_nonfinite_step(j);
  throw InputError(fmt::format(
      "training diverged: in scenario {}, the iterate of trajectory {} on dataset {} is {} at "
      "step {} of {} (training.eta = {}, model.lambda = {}, noise step std = {}); reduce "
      "training.eta or the noise, or bound the iterates with training.projection_diameter",
      s.index, j, dataset_name(dataset), value, step, s.steps, s.eta, s.lambda, s.step_std));
}

}  // namespace

std::int64_t chunk_size(std::int64_t trajectories) {
  // At most ~4096 chunks, at least 256 trajectories each: enough chunks to balance 2 to 64
  // threads, few enough that scheduling costs nothing. (The numbers do not depend on it:
  // counts and moment sums are exact.)
  return std::max<std::int64_t>(256, (trajectories + 4095) / 4096);
}

Eigen::MatrixXd simulate_last_iterates(const Scenario& s, std::uint64_t seed, Dataset dataset,
                                       std::int64_t first, std::int64_t count) {
  const DatasetRecords rec = records_of(s, rng::is_dprime(dataset));
  const std::vector<int> order = fixed_order(s);
  Eigen::MatrixXd out(count, s.dim);
  with_runner(s, rec.view, order, seed, dataset, [&](const auto& runner) {
    using Runner = std::decay_t<decltype(runner)>;
    const std::int64_t blocks = (count + Runner::kLanes - 1) / Runner::kLanes;
#pragma omp parallel for schedule(dynamic, 8)
    for (std::int64_t blk = 0; blk < blocks; ++blk) {
      const std::int64_t j = blk * Runner::kLanes;
      const int lanes = static_cast<int>(std::min<std::int64_t>(Runner::kLanes, count - j));
      double theta[Runner::kLanes * config::kMaxDim] = {};
      runner.run(first + j, lanes, theta);
      for (int w = 0; w < lanes; ++w) {
        for (int k = 0; k < s.dim; ++k) out(j + w, k) = theta[w * s.dim + k];
      }
    }
    for (std::int64_t j = 0; j < count; ++j) {
      if (!out.row(j).allFinite()) report_divergence(s, runner, dataset, first + j);
    }
  });
  return out;
}

tally::Tally count_dataset(const Scenario& s, const tally::Binning& binning, std::uint64_t seed,
                           Dataset dataset, TrajectoryIds ids, Progress* progress) {
  const std::int64_t m = ids.count;
  const std::int64_t id0 = ids.first;  // trajectory ids id0 ... id0 + m - 1
  const int d = s.dim;
  // Raw last iterates only where the file asks for them (tally.raw_samples), of the first
  // trajectories (ids below the cap): the estimators count every trajectory in the binning's
  // score cells instead.
  tally::Tally result(binning, std::clamp<std::int64_t>(std::min(s.raw_cap, id0 + m) - id0, 0, m));
  result.raw_first = id0;
  result.raw.assign(static_cast<std::size_t>(result.raw_cap) * d, 0.0);

  const std::int64_t chunk = chunk_size(m);
  const std::int64_t chunks = (m + chunk - 1) / chunk;
  const DatasetRecords rec = records_of(s, rng::is_dprime(dataset));
  const std::vector<int> order = fixed_order(s);
  // The smallest trajectory id whose last iterate is not finite (a diverged run): never
  // binned; chunks past it are skipped, those before it still run, so the id reported does
  // not depend on the threads.
  std::atomic<std::int64_t> first_diverged{id0 + m};
  with_runner(s, rec.view, order, seed, dataset, [&](const auto& runner) {
#pragma omp parallel
    {
      tally::Tally local(binning, 0);
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t c = 0; c < chunks; ++c) {
        const std::int64_t begin = id0 + c * chunk, end = std::min(id0 + m, begin + chunk);
        if (begin > first_diverged.load(std::memory_order_relaxed)) continue;
        if (stop_requested()) continue;  // the caller discards the whole call
        using Runner = std::decay_t<decltype(runner)>;
        double block[Runner::kLanes * config::kMaxDim] = {};
        for (std::int64_t first = begin; first < end; first += Runner::kLanes) {
          const int lanes = static_cast<int>(std::min<std::int64_t>(Runner::kLanes, end - first));
          runner.run(first, lanes, block);
          for (int w = 0; w < lanes; ++w) {
            const double* theta = block + w * d;
            const std::int64_t j = first + w;
            if (!std::all_of(theta, theta + d, [](double v) { return std::isfinite(v); })) {
              lower_to(first_diverged, j);
              continue;
            }
            local.add_to_histograms(theta);
            local.moments.add(theta, binning.shift);
            if (j - id0 < result.raw_cap)
              std::copy(theta, theta + d, result.raw.begin() + (j - id0) * d);
          }
        }
        if (progress) progress->advance((end - begin) * s.steps);
      }
      // Integer counts and exact moment sums: the merge order does not matter.
#pragma omp critical(rdpaudit_merge_histograms)
      {
        result.merge_histograms(local);
        result.moments.merge(local.moments);
      }
    }
    if (first_diverged.load() < id0 + m)
      report_divergence(s, runner, dataset, first_diverged.load());
  });
  return result;
}

}  // namespace rdpaudit::sim
