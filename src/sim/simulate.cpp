#include "rdpaudit/sim/simulate.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "rdpaudit/rng/philox.hpp"
#include "rdpaudit/sim/batches.hpp"
#include "rdpaudit/sim/loss.hpp"

namespace rdpaudit::sim {

using config::LossKind;
using config::Scenario;

namespace {

/// One dataset's records, flattened row-major for the kernels.
struct DatasetRecords {
  std::vector<double> x;
  std::vector<int> labels;
  DataView view;
};

DatasetRecords records_of(const Scenario& s, bool prime) {
  DatasetRecords r;
  const auto& data = s.data;
  const int n = data.n(), p = static_cast<int>(data.points.cols());
  r.x.resize(static_cast<std::size_t>(n) * p);
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < p; ++k) {
      r.x[static_cast<std::size_t>(i) * p + k] =
          (prime && i == data.differing_index) ? data.replacement(k) : data.points(i, k);
    }
  }
  r.labels = data.labels;
  if (prime && !r.labels.empty()) r.labels[data.differing_index] = data.replacement_label;
  r.view = DataView{r.x.data(), r.labels.empty() ? nullptr : r.labels.data(), n, p};
  return r;
}

/// Runs single trajectories of one (scenario, dataset) with loss functor Loss.
template <class Loss>
class TrajectoryRunner {
 public:
  TrajectoryRunner(const Scenario& s, Loss loss, const DataView& data,
                   const std::vector<int>& order, std::uint64_t seed, Dataset dataset)
      : s_(s), loss_(loss), data_(data), order_(order), seed_(seed), dataset_(dataset) {}

  /// Writes the last iterate of trajectory j into theta (length d).
  void run(std::int64_t j, double* theta) const {
    const int d = s_.dim;
    const auto id = [&](rng::Purpose p) {
      return rng::StreamId{seed_, static_cast<std::uint32_t>(s_.index), dataset_,
                           static_cast<std::uint64_t>(j), p};
    };
    for (int k = 0; k < d; ++k) theta[k] = s_.init_mean(k);
    if (s_.init_std > 0) {
      rng::Stream init(id(rng::Purpose::kInit));
      for (int k = 0; k < d; ++k) theta[k] += s_.init_std * init.normal();
    }
    project(theta);

    rng::Stream batch_stream(id(rng::Purpose::kBatch));
    rng::Stream noise(id(rng::Purpose::kNoise));
    BatchSchedule batches(s_, order_, batch_stream);
    const double inv_norm = batches.inverse_normaliser();
    const double eta = s_.eta, sd = s_.step_std;
    double g[config::kMaxDim];
    for (long t = 0; t < s_.steps; ++t) {
      int count = 0;
      const int* idx = batches.next(count);
      for (int k = 0; k < d; ++k) g[k] = 0.0;
      loss_.add_gradient(theta, data_, idx, count, inv_norm, g);
      for (int k = 0; k < d; ++k) theta[k] += sd * noise.normal() - eta * g[k];
      project(theta);
    }
  }

 private:
  // Pi_K: Euclidean projection onto the ball of diameter D around the centre.
  void project(double* theta) const {
    if (!std::isfinite(s_.projection_diameter)) return;
    const int d = s_.dim;
    const double radius = 0.5 * s_.projection_diameter;
    double sq = 0;
    for (int k = 0; k < d; ++k) {
      const double c = theta[k] - s_.projection_center(k);
      sq += c * c;
    }
    if (sq <= radius * radius) return;
    const double scale = radius / std::sqrt(sq);
    for (int k = 0; k < d; ++k) {
      theta[k] = s_.projection_center(k) + scale * (theta[k] - s_.projection_center(k));
    }
  }

  const Scenario& s_;
  Loss loss_;
  DataView data_;
  const std::vector<int>& order_;
  std::uint64_t seed_;
  Dataset dataset_;
};

/// Calls f(runner) with the runner of the scenario's loss family.
template <class F>
void with_runner(const Scenario& s, const DataView& data, const std::vector<int>& order,
                 std::uint64_t seed, Dataset dataset, F&& f) {
  switch (s.loss) {
    case LossKind::kQuadratic:
      f(TrajectoryRunner<QuadraticLoss>(s, QuadraticLoss{s.lambda, s.dim}, data, order, seed,
                                        dataset));
      return;
    case LossKind::kLinear:
      f(TrajectoryRunner<LinearLoss>(s, LinearLoss{s.dim}, data, order, seed, dataset));
      return;
    case LossKind::kLogistic:
      f(TrajectoryRunner<LogisticLoss>(s,
                                       LogisticLoss{s.lambda, s.clip_norm, s.features, s.classes},
                                       data, order, seed, dataset));
      return;
  }
}

int thread_count(int requested) {
  return requested > 0 ? requested : omp_get_max_threads();
}

}  // namespace

std::int64_t chunk_size(std::int64_t trajectories) {
  // At most ~4096 chunks: bounded memory for the per-chunk moment sums, and enough chunks
  // to balance 2 to 64 threads.
  return std::max<std::int64_t>(256, (trajectories + 4095) / 4096);
}

Eigen::MatrixXd simulate_last_iterates(const Scenario& s, std::uint64_t seed, Dataset dataset,
                                       std::int64_t first, std::int64_t count) {
  const DatasetRecords rec = records_of(s, dataset == kDPrime || dataset == kPilotDPrime);
  const std::vector<int> order = fixed_order(s);
  Eigen::MatrixXd out(count, s.dim);
  with_runner(s, rec.view, order, seed, dataset, [&](const auto& runner) {
#pragma omp parallel for schedule(dynamic, 64)
    for (std::int64_t j = 0; j < count; ++j) {
      double theta[config::kMaxDim];
      runner.run(first + j, theta);
      for (int k = 0; k < s.dim; ++k) out(j, k) = theta[k];
    }
  });
  return out;
}

namespace {

tally::Tally run_dataset(const Scenario& s, const tally::Binning& binning, const SimOptions& opt,
                         Dataset dataset) {
  const std::int64_t m = opt.trajectories;
  const int d = s.dim;
  tally::Tally result(binning, std::min<std::int64_t>(m, s.raw_cap));
  result.raw.assign(static_cast<std::size_t>(result.raw_cap) * d, 0.0);

  const std::int64_t chunk = chunk_size(m);
  const std::int64_t chunks = (m + chunk - 1) / chunk;
  std::vector<tally::MomentSums> chunk_moments(static_cast<std::size_t>(chunks),
                                               tally::MomentSums(d));

  const DatasetRecords rec = records_of(s, dataset == kDPrime);
  const std::vector<int> order = fixed_order(s);
  with_runner(s, rec.view, order, opt.seed, dataset, [&](const auto& runner) {
#pragma omp parallel num_threads(thread_count(opt.threads))
    {
      tally::Tally local(binning, 0);
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t c = 0; c < chunks; ++c) {
        const std::int64_t begin = c * chunk, end = std::min(m, begin + chunk);
        auto& moments = chunk_moments[static_cast<std::size_t>(c)];
        double theta[config::kMaxDim];
        for (std::int64_t j = begin; j < end; ++j) {
          runner.run(j, theta);
          local.add_to_histograms(theta);
          moments.add(theta, binning.shift);
          if (j < result.raw_cap) std::copy(theta, theta + d, result.raw.begin() + j * d);
        }
        if (opt.progress) opt.progress->advance((end - begin) * s.steps);
      }
#pragma omp critical(rdpaudit_merge_histograms)
      result.merge_histograms(local);  // integer counts: the merge order does not matter
    }
  });
  // Floating-point sums are combined in chunk order, never in thread order.
  for (const auto& cm : chunk_moments) result.moments.merge(cm);
  return result;
}

}  // namespace

ScenarioTallies simulate_scenario(const Scenario& s, const SimOptions& opt) {
  const auto start = std::chrono::steady_clock::now();
  const int threads = thread_count(opt.threads);
  const int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  const Eigen::MatrixXd pilot_d =
      simulate_last_iterates(s, opt.seed, kPilotD, 0, s.pilot_trajectories);
  const Eigen::MatrixXd pilot_p =
      simulate_last_iterates(s, opt.seed, kPilotDPrime, 0, s.pilot_trajectories);
  omp_set_num_threads(saved);
  const tally::Binning binning =
      s.has_range
          ? tally::binning_from_range(s.range_lo, s.range_hi, pilot_d, pilot_p, s.bins, s.bins_2d)
          : tally::binning_from_pilot(pilot_d, pilot_p, s.bins, s.bins_2d);

  ScenarioTallies out;
  out.d = run_dataset(s, binning, opt, kD);
  out.dprime = run_dataset(s, binning, opt, kDPrime);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace rdpaudit::sim
