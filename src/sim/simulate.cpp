#include "rdpaudit/sim/simulate.hpp"

#include <emmintrin.h>
#include <fmt/format.h>
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "rdpaudit/core/error.hpp"
#include "rdpaudit/core/interrupt.hpp"
#include "rdpaudit/par/team.hpp"
#include "rdpaudit/rng/stream.hpp"
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
  std::vector<double> crafted;  ///< the crafted record's gradients of D, row-major
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
  if (data.crafted) {  // g_t in D; absent (no gradient) in D'
    const Eigen::MatrixXd& g = data.crafted_gradient;
    r.view.crafted_index = data.differing_index;
    r.view.crafted_rows = g.rows();
    if (!prime) {
      r.crafted.resize(static_cast<std::size_t>(g.size()));
      Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          r.crafted.data(), g.rows(), g.cols()) = g;
      r.view.crafted = r.crafted.data();
    }
  }
  return r;
}

/// One step of every lane of a sum-of-records loss, lane-minor: th[k][w] += z[k][w] - eta g
/// with g = coordinate_gradient_from_sum(th[k][w], sum[k * kLanes + w], count(w)), for every
/// coordinate k < Loss::d and lane w < kLanes. Always inlined into step_lanes_avx2 and
/// step_lanes_default, so that the compiler vectorises the lane loop for each instruction set.
template <int kLanes, class Loss, class Count>
[[gnu::always_inline]] inline void step_lanes_body(const Loss& loss, double (*th)[kLanes],
                                                   const double (*z)[kLanes], const double* sum,
                                                   const Count& count, double inv_norm,
                                                   double eta) {
  for (int k = 0; k < Loss::d; ++k) {
    for (int w = 0; w < kLanes; ++w) {
      // add_gradient_from_sum adds g to 0, which changes only the sign of a zero g; that
      // cannot change theta + (z - eta * g) unless z and theta are zeros as well. So the
      // numbers are the same, with one addition less in the chain through theta.
      const double g =
          loss.coordinate_gradient_from_sum(th[k][w], sum[k * kLanes + w], count(w), inv_norm);
      th[k][w] += z[k][w] - eta * g;
    }
  }
}

// Four lanes per instruction instead of two (SSE2, the baseline). The same IEEE operations on
// each lane, and no FMA (not in the target; -ffp-contract=off), so the same bits: the unit tests
// compare this path with the one-trajectory loop.
template <int kLanes, class Loss, class Count>
__attribute__((target("avx2"))) void step_lanes_avx2(const Loss& loss, double (*th)[kLanes],
                                                     const double (*z)[kLanes], const double* sum,
                                                     const Count& count, double inv_norm,
                                                     double eta) {
  step_lanes_body<kLanes>(loss, th, z, sum, count, inv_norm, eta);
}

template <int kLanes, class Loss, class Count>
void step_lanes_default(const Loss& loss, double (*th)[kLanes], const double (*z)[kLanes],
                        const double* sum, const Count& count, double inv_norm, double eta) {
  step_lanes_body<kLanes>(loss, th, z, sum, count, inv_norm, eta);
}

// Whether the lane kernels here (step, projection, noise transposition) take their AVX2 paths.
const bool kHasAvx2 = __builtin_cpu_supports("avx2");

/// z[i][w + l] = scale * lane[l][i] for l < 4 and i < count: four lanes' runs of normals
/// transposed into the lane-minor noise, 4 x 4 blocks at a time (AVX2), the same multiply
/// per element as the scalar loop. w is a multiple of 4 and z 32-byte aligned.
template <int kLanes>
__attribute__((target("avx2"))) void scale_into_lanes_avx2(const double* const lane[4],
                                                           std::size_t count, double scale,
                                                           double (*z)[kLanes], int w) {
  const __m256d factor = _mm256_set1_pd(scale);
  std::size_t i = 0;
  for (; i + 4 <= count; i += 4) {
    const __m256d a = _mm256_loadu_pd(lane[0] + i), b = _mm256_loadu_pd(lane[1] + i);
    const __m256d c = _mm256_loadu_pd(lane[2] + i), e = _mm256_loadu_pd(lane[3] + i);
    const __m256d ab_even = _mm256_unpacklo_pd(a, b), ab_odd = _mm256_unpackhi_pd(a, b);
    const __m256d ce_even = _mm256_unpacklo_pd(c, e), ce_odd = _mm256_unpackhi_pd(c, e);
    _mm256_store_pd(&z[i][w],
                    _mm256_mul_pd(factor, _mm256_permute2f128_pd(ab_even, ce_even, 0x20)));
    _mm256_store_pd(&z[i + 1][w],
                    _mm256_mul_pd(factor, _mm256_permute2f128_pd(ab_odd, ce_odd, 0x20)));
    _mm256_store_pd(&z[i + 2][w],
                    _mm256_mul_pd(factor, _mm256_permute2f128_pd(ab_even, ce_even, 0x31)));
    _mm256_store_pd(&z[i + 3][w],
                    _mm256_mul_pd(factor, _mm256_permute2f128_pd(ab_odd, ce_odd, 0x31)));
  }
  for (; i < count; ++i) {
    for (int l = 0; l < 4; ++l) z[i][w + l] = scale * lane[l][i];
  }
}

/// TrajectoryRunner::project_lanes four lanes at a time (AVX2): the same operations per lane
/// (sqrt and division correctly rounded in both), the same selection, so the same bits.
template <int kLanes, int d>
__attribute__((target("avx2"))) void project_lanes_avx2(double (*th)[kLanes], const double* centre,
                                                        double radius) {
  static_assert(kLanes % 4 == 0, "four lanes per register");
  for (int w0 = 0; w0 < kLanes; w0 += 4) {
    __m256d sq = _mm256_setzero_pd();
    for (int k = 0; k < d; ++k) {
      const __m256d c = _mm256_sub_pd(_mm256_load_pd(&th[k][w0]), _mm256_set1_pd(centre[k]));
      sq = _mm256_add_pd(sq, _mm256_mul_pd(c, c));
    }
    // Not (sq <= radius^2), NaN included: the SSE2 path's cmpnle.
    const __m256d outside = _mm256_cmp_pd(sq, _mm256_set1_pd(radius * radius), _CMP_NLE_UQ);
    if (_mm256_movemask_pd(outside) == 0) continue;
    const __m256d scale = _mm256_div_pd(_mm256_set1_pd(radius), _mm256_sqrt_pd(sq));
    for (int k = 0; k < d; ++k) {
      const __m256d t = _mm256_load_pd(&th[k][w0]), c = _mm256_set1_pd(centre[k]);
      const __m256d moved = _mm256_add_pd(c, _mm256_mul_pd(scale, _mm256_sub_pd(t, c)));
      _mm256_store_pd(&th[k][w0], _mm256_blendv_pd(t, moved, outside));
    }
  }
}

/// One step of the logistic loss for lanes w0 .. w0 + 3, lane-minor, AVX2: for each lane,
/// g = the sum over its batch, in the batch's order, of inv_norm times the clipped example
/// gradient, plus lambda theta; then theta += z - eta g. The operations of
/// LogisticLoss::example_gradient and add_gradient and of the per-step update, element by
/// element: IEEE division and square root, exp by the same libm call where the scalar code
/// calls it, the same max and comparisons, nothing contracted into an FMA (-ffp-contract=off)
/// — so the same bits, four lanes per instruction. Lane l's batch is idx[l][0 .. count[l]);
/// a lane whose batch is shorter than another's computes on a row of zeros and adds nothing.
template <int kLanes, int d>
__attribute__((target("avx2"))) void logistic_step4_avx2(const LogisticLoss<d>& loss,
                                                         const DataView& data, double (*th)[kLanes],
                                                         const double (*z)[kLanes], int w0,
                                                         const int* const* idx, const int* count,
                                                         double inv_norm, double eta) {
  const int features = loss.features, classes = loss.classes, stride = features + 1;
  const bool clip = std::isfinite(loss.clip_norm);
  const double zero_row[config::kMaxDim] = {};
  __m256d t[d], g[d];
  for (int i = 0; i < d; ++i) {
    t[i] = _mm256_load_pd(&th[i][w0]);
    g[i] = _mm256_setzero_pd();
  }
  const int examples = std::max(std::max(count[0], count[1]), std::max(count[2], count[3]));
  for (int m = 0; m < examples; ++m) {
    const double* row[4];
    double label[4];
    long long on[4];
    for (int l = 0; l < 4; ++l) {
      const bool in = m < count[l];
      on[l] = in ? -1 : 0;
      row[l] = in ? data.x + static_cast<long>(idx[l][m]) * features : zero_row;
      label[l] = in ? data.labels[idx[l][m]] : 0;
    }
    __m256d x[config::kMaxDim], logit[config::kMaxDim];
    for (int j = 0; j < features; ++j)
      x[j] = _mm256_setr_pd(row[0][j], row[1][j], row[2][j], row[3][j]);
    __m256d top = _mm256_set1_pd(-INFINITY);
    for (int k = 0; k < classes; ++k) {
      const __m256d* w = t + k * stride;
      __m256d v = w[features];
      for (int j = 0; j < features; ++j) v = _mm256_add_pd(v, _mm256_mul_pd(w[j], x[j]));
      logit[k] = v;
      top = _mm256_max_pd(v, top);  // std::max(top, v): top unless top < v, NaN v included
    }
    __m256d total = _mm256_setzero_pd();
    for (int k = 0; k < classes; ++k) {
      alignas(32) double v[4];
      _mm256_store_pd(v, _mm256_sub_pd(logit[k], top));
      for (double& u : v) u = u == 0.0 ? 1.0 : std::exp(u);
      logit[k] = _mm256_load_pd(v);
      total = _mm256_add_pd(total, logit[k]);
    }
    const __m256d y = _mm256_loadu_pd(label);
    __m256d e[d] = {};  // all d written: classes (features + 1) = d (config/load.cpp)
    for (int k = 0; k < classes; ++k) {
      const __m256d one_hot =
          _mm256_and_pd(_mm256_cmp_pd(y, _mm256_set1_pd(k), _CMP_EQ_OQ), _mm256_set1_pd(1.0));
      const __m256d coef = _mm256_sub_pd(_mm256_div_pd(logit[k], total), one_hot);
      for (int j = 0; j < features; ++j) e[k * stride + j] = _mm256_mul_pd(coef, x[j]);
      e[k * stride + features] = coef;
    }
    if (clip) {  // clip_to_norm
      __m256d sq = _mm256_setzero_pd();
      for (int i = 0; i < d; ++i) sq = _mm256_add_pd(sq, _mm256_mul_pd(e[i], e[i]));
      const double bound = loss.clip_norm;
      const __m256d outside = _mm256_cmp_pd(sq, _mm256_set1_pd(bound * bound), _CMP_GT_OQ);
      if (_mm256_movemask_pd(outside) != 0) {
        const __m256d scale = _mm256_div_pd(_mm256_set1_pd(bound), _mm256_sqrt_pd(sq));
        for (int i = 0; i < d; ++i)
          e[i] = _mm256_blendv_pd(e[i], _mm256_mul_pd(e[i], scale), outside);
      }
    }
    const __m256d active =
        _mm256_castsi256_pd(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(on)));
    for (int i = 0; i < d; ++i) {
      const __m256d sum = _mm256_add_pd(g[i], _mm256_mul_pd(_mm256_set1_pd(inv_norm), e[i]));
      g[i] = _mm256_blendv_pd(g[i], sum, active);
    }
  }
  for (int i = 0; i < d; ++i) {
    g[i] = _mm256_add_pd(g[i], _mm256_mul_pd(_mm256_set1_pd(loss.lambda), t[i]));
    const __m256d step =
        _mm256_sub_pd(_mm256_load_pd(&z[i][w0]), _mm256_mul_pd(_mm256_set1_pd(eta), g[i]));
    _mm256_store_pd(&th[i][w0], _mm256_add_pd(t[i], step));
  }
}

template <class Loss>
inline constexpr bool kIsLogistic = false;
template <int D>
inline constexpr bool kIsLogistic<LogisticLoss<D>> = true;

/// Whether the gradient of the scenario's loss needs only the multiset of the batch's rows
/// (its kernel has kSumOfRecords, sim/loss.hpp).
bool sums_records(const Scenario& s) {
  return s.loss == LossKind::kQuadratic || s.loss == LossKind::kLinear;
}

/// The draws of the dataset's schedules: where the loss needs only the batch's multiset of
/// rows and no record is crafted (its batches must say whether they hold it), records that
/// copy one background row are interchangeable, and the schemes that can draw only what the
/// few others do (BatchDraws) do so.
BatchDraws draws_of(const Scenario& s, const DataView& data) {
  if (sums_records(s) && data.crafted_index < 0) {
    if (auto distinguished = distinguished_records(data.x, data.labels, data.n, data.p))
      return BatchDraws(s, std::move(*distinguished));
  }
  return BatchDraws(s);
}

/// One thread's lanes, kept across the groups of trajectories it runs (TrajectoryRunner::
/// simulate): the noise and batch streams and the schedules, which refer to the streams and
/// to the runner's scenario, draws and fixed order.
struct LaneScratch {
  std::uint64_t runner = 0;  ///< TrajectoryRunner::id_ of the runner they were built for
  std::vector<rng::Stream> noise, batch_streams;
  std::vector<BatchSchedule> batches;
};

/// Identifies runners for LaneScratch: never reused, unlike addresses.
std::atomic<std::uint64_t> g_next_runner_id{1};

/// Runs single trajectories of one (scenario, dataset) with loss functor Loss, whose
/// compile-time dimension Loss::d fixes the length of every coordinate loop.
template <class Loss>
class TrajectoryRunner {
 public:
  TrajectoryRunner(const TrajectoryRunner&) = delete;
  TrajectoryRunner& operator=(const TrajectoryRunner&) = delete;
  TrajectoryRunner(const Scenario& s, Loss loss, const DataView& data,
                   const std::vector<int>& order, std::uint64_t seed, Dataset dataset)
      : s_(s),
        loss_(loss),
        data_(data),
        order_(order),
        seed_(seed),
        dataset_(dataset),
        project_(std::isfinite(s.projection_diameter)),
        id_(g_next_runner_id.fetch_add(1)),
        draws_(draws_of(s, data)) {
    if (Loss::kSumOfRecords != sums_records(s))
      throw std::logic_error("simulate: sums_records disagrees with the loss kernel");
    if constexpr (Loss::kSumOfRecords) {
      // Sampling without replacement, few possible batches: the record sum of every batch,
      // by key (BatchSchedule::next_subset_key), formed as sum_records forms it. Not with a
      // crafted record: its batches must say whether they hold it (store_sum does).
      const std::uint64_t keys = draws_.subset_keys;
      if (s.scheme == config::BatchScheme::kSampleWithoutReplacement && keys > 0 &&
          keys * Loss::d <= kMaxSubsetSums && data_.crafted_index < 0) {
        subset_sums_.resize(keys * Loss::d);
        std::vector<int> idx(static_cast<std::size_t>(s.batch_size));
        for (std::uint64_t r = 0; r < keys; ++r) {  // keys no batch has: never read
          if (draws_.subset_of_key(s.n(), s.batch_size, static_cast<std::uint32_t>(r), idx.data()))
            sum_records<Loss::d>(data_, idx.data(), s.batch_size, &subset_sums_[r * Loss::d]);
        }
      }
    }
  }

  /// Trajectories advanced together. Each step of one trajectory is a chain of dependent
  /// floating-point operations through theta; interleaving independent trajectories lets
  /// the CPU overlap those chains (W1 ran 2.5x the time of its normals alone one at a time).
  /// bench_w1's process CPU time: 8 lanes 0.88 s, 16 lanes 0.76-0.82 s, 32 lanes 0.79 s
  /// against 0.82 s for 16 in paired runs (16 independent SSE2 chains in the lane-minor step).
  static constexpr int kLanes = 32;
  /// Largest per-lane cache of batch sums (doubles), see run().
  static constexpr long kMaxCachedSums = 4096;
  /// Largest table of the record sums of every possible batch (doubles), see the constructor:
  /// 256 KB, about what stays in the L2 cache of one core.
  static constexpr std::uint64_t kMaxSubsetSums = 32768;
  /// Largest batch whose sum refresh_distinguished forms from the positions (larger ones:
  /// from batch_at()).
  static constexpr int kMaxBatchByPositions = 64;
  /// Steps of noise drawn ahead per lane (see draw_noise).
  static constexpr int kNoiseSteps = 32;
  static_assert(kNoiseSteps == BatchSchedule::kSubsetChunk, "run_by_sums draws both together");

  /// Writes the last iterates of trajectories j, ..., j + lanes - 1 (lanes <= kLanes) into
  /// out (lanes x d, row-major). Each trajectory draws only from its own streams, so the
  /// grouping into lanes does not change any number.
  void run(std::int64_t j, int lanes, double* out) const { simulate(j, lanes, out, nullptr); }

  /// Re-simulates trajectory j alone, step by step (the same numbers, as its streams are a
  /// pure function of its id), and returns the first step t (0: the initial iterate) after
  /// which its iterate has a coordinate that is not finite, with that coordinate's value;
  /// step -1 if it stays finite.
  std::pair<long, double> first_nonfinite_step(std::int64_t j) const {
    std::pair<long, double> found{-1, 0.0};
    double last[config::kMaxDim];
    simulate(j, 1, last, &found);
    return found;
  }

 private:
  static bool finite(const double* theta) {
    for (int k = 0; k < Loss::d; ++k) {
      if (!std::isfinite(theta[k])) return false;
    }
    return true;
  }

  static double first_nonfinite(const double* theta) {
    for (int k = 0; k < Loss::d; ++k) {
      if (!std::isfinite(theta[k])) return theta[k];
    }
    return 0.0;
  }

  /// run(); with `watch` (lanes = 1), checks the iterate after every step and stops at the
  /// first that is not finite, reporting (step, value) there. Watching takes the per-step
  /// path, which gives the numbers of the lane-minor one (tests/unit/test_sim.cpp).
  void simulate(std::int64_t j, int lanes, double* out, std::pair<long, double>* watch) const {
    constexpr int d = Loss::d;
    const auto id = [&](std::int64_t traj, rng::Purpose p) {
      return rng::StreamId{seed_, static_cast<std::uint32_t>(s_.index), dataset_,
                           static_cast<std::uint64_t>(traj), p};
    };
    // Each thread keeps its lanes' streams and schedules from one group of trajectories to the
    // next (a schedule's vectors were two allocations per trajectory, ~4 % of W1): a stream is
    // given its new StreamId in place, so the schedule's reference to it stays valid, and the
    // schedule restarts as a new one would. Rebuilt when another runner uses the thread.
    thread_local LaneScratch scratch;
    if (scratch.runner != id_) {
      scratch.batches.clear();
      scratch.noise.assign(kLanes, rng::Stream(id(0, rng::Purpose::kNoise)));
      scratch.batch_streams.assign(kLanes, rng::Stream(id(0, rng::Purpose::kBatch)));
      scratch.batches.reserve(kLanes);
      for (int w = 0; w < kLanes; ++w)
        scratch.batches.emplace_back(s_, order_, draws_, scratch.batch_streams[w]);
      scratch.runner = id_;
    }
    std::vector<rng::Stream>& noise = scratch.noise;
    std::vector<BatchSchedule>& batches = scratch.batches;
    double theta[kLanes][d];
    for (int w = 0; w < lanes; ++w) {
      for (int k = 0; k < d; ++k) theta[w][k] = s_.init_mean(k);
      if (s_.init_std > 0) {
        rng::Stream init(id(j + w, rng::Purpose::kInit));
        for (int k = 0; k < d; ++k) theta[w][k] += s_.init_std * init.normal();
      }
      project(theta[w]);
      if (watch && !finite(theta[w])) {
        *watch = {0, first_nonfinite(theta[w])};
        return;
      }
      noise[w] = rng::Stream(id(j + w, rng::Purpose::kNoise));
      scratch.batch_streams[w] = rng::Stream(id(j + w, rng::Purpose::kBatch));
      batches[w].restart();
    }

    // Losses whose gradient needs only the sum of the batch's records step all lanes at once
    // (run_by_sums), the logistic loss four lanes at a time where the CPU has AVX2
    // (run_logistic_lanes); the rest, and a watched trajectory, take the per-step path below.
    const long m = batches.front().batches_per_epoch();
    if constexpr (Loss::kSumOfRecords) {
      const bool partition = batches.front().is_partition();
      if (!watch && (!partition || m * d <= kMaxCachedSums)) {
        // One instantiation per way of forming the batch, so each loop holds only its own.
        if (partition) {
          run_by_sums<kPartition>(lanes, batches, noise, theta);
        } else if (batches.front().samples_without_replacement()) {
          run_by_sums<kSubset>(lanes, batches, noise, theta);
        } else {
          run_by_sums<kPerStep>(lanes, batches, noise, theta);
        }
        for (int w = 0; w < lanes; ++w) std::copy(theta[w], theta[w] + d, out + w * d);
        return;
      }
    }

    if constexpr (kIsLogistic<Loss>) {
      if (!watch && kHasAvx2) {
        run_logistic_lanes(lanes, batches, noise, theta);
        for (int w = 0; w < lanes; ++w) std::copy(theta[w], theta[w] + d, out + w * d);
        return;
      }
    }

    // Each lane's noise for the next kNoiseSteps steps, drawn ahead in one tight loop per
    // lane and already multiplied by the step's standard deviation (draw_noise).
    const double inv_norm = batches.front().inverse_normaliser(), eta = s_.eta;
    alignas(64) double z[kNoiseSteps * d][kLanes];
    for (long t = 0; t < s_.steps; ++t) {
      const int c = static_cast<int>(t % kNoiseSteps);
      if (c == 0) draw_noise(noise, lanes, t, z);
      for (int w = 0; w < lanes; ++w) {
        int count = 0;
        const int* idx = batches[w].next(count);
        double g[d] = {};
        if constexpr (Loss::kSumOfRecords) {
          if (data_.crafted_index >= 0) {
            add_gradient_with_crafted<d>(loss_, theta[w], data_, idx, count, t, inv_norm, g);
          } else {
            loss_.add_gradient(theta[w], data_, idx, count, inv_norm, g);
          }
        } else {
          loss_.add_gradient(theta[w], data_, idx, count, inv_norm, g);
        }
        for (int k = 0; k < d; ++k) theta[w][k] += z[c * d + k][w] - eta * g[k];
        project(theta[w]);
      }
      if (watch && !finite(theta[0])) {
        *watch = {t + 1, first_nonfinite(theta[0])};
        return;
      }
    }
    for (int w = 0; w < lanes; ++w) std::copy(theta[w], theta[w] + d, out + w * d);
  }

  /// Losses whose gradient needs only the sum of the batch's records: each step needs the
  /// batch's size and record sum per lane, then a few flops and one normal per coordinate.
  /// Under partition schemes every lane is at the same position of its epoch, and the m batch
  /// sums of each lane are computed once per partition (cached: `partition`; the lanes'
  /// reshuffles drawn together, BatchSchedule::start_epochs). Sampling without replacement
  /// (`subset`) fills the sums of the next kNoiseSteps steps of every lane at once, from the
  /// table of every batch's sum by rank where there is one (subset_sums_). Poisson draws
  /// each lane's batch every step. Sums are formed in the order add_gradient forms them,
  /// so the numbers are those of the per-step path. The state is kept lane-minor (value of
  /// lane w at [... * kLanes + w]) so that one step of all lanes is a vector loop; unused
  /// lanes (w >= lanes) compute on zeros and are never read.
  enum BatchForm { kPartition, kSubset, kPerStep };
  template <BatchForm kForm>
  void run_by_sums(int lanes, std::vector<BatchSchedule>& batches, std::vector<rng::Stream>& noise,
                   double (*theta)[Loss::d]) const {
    constexpr bool partition = kForm == kPartition, subset = kForm == kSubset;
    constexpr int d = Loss::d;
    // Cached batch sums per lane: an epoch's (partition), the next kNoiseSteps steps' (subset)
    // or this step's (per step).
    const long m = partition ? batches.front().batches_per_epoch() : subset ? kNoiseSteps : 1;
    const double inv_norm = batches.front().inverse_normaliser(), eta = s_.eta;
    std::vector<double> sums(static_cast<std::size_t>(m * d * kLanes), 0.0);
    alignas(64) double th[d][kLanes] = {};
    alignas(64) double z[kNoiseSteps * d][kLanes] = {};
    constexpr bool fixed_size = partition || subset;
    int size[kLanes] = {};  // records in each lane's batch of this step
    for (int w = 0; w < lanes; ++w) {
      for (int k = 0; k < d; ++k) th[k][w] = theta[w][k];
      size[w] = batches[w].batch_size();  // partition schemes and subsets: every batch
    }
    const bool crafted = data_.crafted_index >= 0;
    std::vector<int> holds(crafted ? static_cast<std::size_t>(m * kLanes) : 0);  // per batch, lane
    const auto store_sum = [&](long b, int w, const int* idx, int count) {
      if (crafted)
        holds[static_cast<std::size_t>(b * kLanes + w)] = holds_crafted(data_, idx, count);
      double sum[d];
      sum_records<d>(data_, idx, count, sum);
      for (int k = 0; k < d; ++k) sums[static_cast<std::size_t>((b * d + k) * kLanes + w)] = sum[k];
    };
    const bool one_batch = draws_.by_distinguished && draws_.subset_keys == 1;
    long pos = 0;  // position in the epoch, the same for every lane (partition schemes)
    for (long t = 0; t < s_.steps; ++t) {
      const int c = static_cast<int>(t % kNoiseSteps);
      if (c == 0) draw_noise(noise, lanes, t, z);
      if constexpr (subset) {
        // One possible batch (no distinguished record, BatchDraws): its sum for every step,
        // and nothing to draw.
        if (c == 0 && (t == 0 || !one_batch)) {
          const long len = std::min<long>(kNoiseSteps, s_.steps - t);
          for (int w = 0; w < lanes; ++w) {
            if (subset_sums_.empty()) {
              for (long i = 0; i < len; ++i) store_sum(i, w, batches[w].next_subset(), size[w]);
              continue;
            }
            // Batch sums straight from the keys as they are drawn (a rejected word's are
            // written again); those past the trajectory's end are never read.
            const double* table = subset_sums_.data();
            double* to = sums.data() + w;
            batches[w].next_subset_keys([table, to](int i, std::uint32_t key) {
              const double* sum = table + static_cast<std::size_t>(key) * d;
              for (int k = 0; k < d; ++k) to[(i * d + k) * kLanes] = sum[k];
            });
          }
        }
        pos = c;
      } else if constexpr (!partition) {
        for (int w = 0; w < lanes; ++w) {
          const int* idx = batches[w].next(size[w]);
          store_sum(0, w, idx, size[w]);
        }
      } else if (pos == 0 && t > 0 && draws_.by_distinguished) {
        for (int w = 0; w < lanes; ++w) refresh_distinguished(batches[w], w, store_sum);
      } else if (pos == 0) {
        const auto before = batches.front().generation();
        BatchSchedule::start_epochs(batches.data(), lanes);
        if (t == 0 || batches.front().generation() != before) {  // a new partition
          for (int w = 0; w < lanes; ++w) {
            for (long b = 0; b < m; ++b) store_sum(b, w, batches[w].batch_at(b), size[w]);
          }
        }
      }
      const double* batch_sum = sums.data() + pos * d * kLanes;
      // Two instantiations: one batch size for every lane (a constant in the loop) or one
      // per lane (Poisson).
      const auto step = [&](const auto& size_of) {
        if (kHasAvx2) {
          step_lanes_avx2<kLanes>(loss_, th, z + c * d, batch_sum, size_of, inv_norm, eta);
        } else {
          step_lanes_default<kLanes>(loss_, th, z + c * d, batch_sum, size_of, inv_norm, eta);
        }
      };
      if (crafted) {
        // add_gradient_with_crafted, lane by lane: the crafted slot is not counted, and g_t
        // is added where the lane's batch holds the crafted record.
        const int* in = holds.data() + pos * kLanes;
        const double* gt = data_.crafted_at(t);
        for (int k = 0; k < d; ++k) {
          for (int w = 0; w < lanes; ++w) {
            double g = loss_.coordinate_gradient_from_sum(th[k][w], batch_sum[k * kLanes + w],
                                                          size[w] - in[w], inv_norm);
            if (in[w] && gt) g += inv_norm * gt[k];
            th[k][w] += z[c * d + k][w] - eta * g;
          }
        }
      } else if constexpr (fixed_size) {
        step([count = size[0]](int) { return count; });
      } else {
        step([&size](int w) { return size[w]; });
      }
      if (project_) project_lanes(th);
      if constexpr (partition) {
        if (++pos == m) pos = 0;
      }
    }
    for (int w = 0; w < lanes; ++w) {
      for (int k = 0; k < d; ++k) theta[w][k] = th[k][w];
    }
  }

  /// The logistic loss, every lane stepped four at a time (logistic_step4_avx2), lane-minor:
  /// the numbers of the per-step path below, whose batches, noise and projection it draws
  /// and applies in the same order.
  void run_logistic_lanes(int lanes, std::vector<BatchSchedule>& batches,
                          std::vector<rng::Stream>& noise, double (*theta)[Loss::d]) const {
    constexpr int d = Loss::d;
    alignas(64) double th[d][kLanes] = {};
    alignas(64) double z[kNoiseSteps * d][kLanes] = {};
    for (int w = 0; w < lanes; ++w) {
      for (int k = 0; k < d; ++k) th[k][w] = theta[w][k];
    }
    const double inv_norm = batches.front().inverse_normaliser(), eta = s_.eta;
    const int* idx[kLanes] = {};
    int count[kLanes] = {};  // lanes >= `lanes`: empty batches, never read
    for (long t = 0; t < s_.steps; ++t) {
      const int c = static_cast<int>(t % kNoiseSteps);
      if (c == 0) draw_noise(noise, lanes, t, z);
      for (int w = 0; w < lanes; ++w) idx[w] = batches[w].next(count[w]);
      for (int w0 = 0; w0 < lanes; w0 += 4) {
        logistic_step4_avx2<kLanes, d>(loss_, data_, th, z + c * d, w0, idx + w0, count + w0,
                                       inv_norm, eta);
      }
      if (project_) project_lanes(th);
    }
    for (int w = 0; w < lanes; ++w) {
      for (int k = 0; k < d; ++k) theta[w][k] = th[k][w];
    }
  }

  /// The next epoch of a by_distinguished partition (BatchDraws) of lane w, whose batch sums
  /// are cached: the records other than the distinguished ones are copies of one row, so
  /// only the batches where a distinguished record was or now is change their sum. They are
  /// summed by store_sum(batch, w, records, b) from the records batch_at() would hold there
  /// (any background record stands for the one in its place: the same row, bit for bit), so
  /// the sums are those of the whole new order.
  template <class Store>
  void refresh_distinguished(BatchSchedule& batches, int w, const Store& store_sum) const {
    const int s = batches.distinguished_count(), b = batches.batch_size();
    if (s == 0) return;  // the order never changes
    const long m = batches.batches_per_epoch(), used = m * b;
    int before[kMaxDistinguished];
    std::copy(batches.distinguished_positions(), batches.distinguished_positions() + s, before);
    const auto generation = batches.generation();
    batches.start_epoch();
    if (batches.generation() == generation) return;  // shuffle_partition: one for all epochs
    const int* at = batches.distinguished_positions();
    const int* record = batches.distinguished_at_positions();
    const int filler = draws_.background.empty() ? 0 : draws_.background.front();
    int idx[kMaxBatchByPositions];
    const auto refresh = [&](int position) {
      if (position >= used) return;  // left out of every batch (footnote 3)
      const long j = position / b;
      if (b > kMaxBatchByPositions) {
        store_sum(j, w, batches.batch_at(j), b);
        return;
      }
      std::fill(idx, idx + b, filler);
      for (int k = 0; k < s; ++k) {
        if (at[k] / b == j) idx[at[k] - j * b] = record[k];
      }
      store_sum(j, w, idx, b);
    };
    for (int k = 0; k < s; ++k) refresh(before[k]);
    for (int k = 0; k < s; ++k) refresh(at[k]);
  }

  /// z[i][w] = step_std * (normal i of the next len * d of lane w's noise stream) for
  /// w < lanes, len = the steps left from step t, at most kNoiseSteps; lanes draw in their
  /// streams' order, so these are the numbers of one normal() per coordinate and step.
  void draw_noise(std::vector<rng::Stream>& noise, int lanes, long t, double (*z)[kLanes]) const {
    const long len = std::min<long>(kNoiseSteps, s_.steps - t);
    const auto count = static_cast<std::size_t>(len * Loss::d);
    int w = 0;
    if (kHasAvx2) {
      double four[4][kNoiseSteps * Loss::d];
      const double* const lane[4] = {four[0], four[1], four[2], four[3]};
      for (; w + 4 <= lanes; w += 4) {
        for (int l = 0; l < 4; ++l) noise[w + l].normals(four[l], count);
        scale_into_lanes_avx2<kLanes>(lane, count, s_.step_std, z, w);
      }
    }
    double drawn[kNoiseSteps * Loss::d];
    for (; w < lanes; ++w) {
      noise[w].normals(drawn, count);
      for (std::size_t i = 0; i < count; ++i) z[i][w] = s_.step_std * drawn[i];
    }
  }

  /// project() of every lane of the lane-minor iterate th[k][w] (unused lanes too), with
  /// the same operations in the same order: a vector loop over the lanes, where a lane inside
  /// the ball keeps its iterate (selected, never recomputed).
  void project_lanes(double (*th)[kLanes]) const {
    constexpr int d = Loss::d;
    const double radius = 0.5 * s_.projection_diameter;
    double centre[d];
    for (int k = 0; k < d; ++k) centre[k] = s_.projection_center(k);
    if (kHasAvx2) {
      project_lanes_avx2<kLanes, d>(th, centre, radius);
      return;
    }
    for (int w0 = 0; w0 < kLanes; w0 += 2) {
      // Two lanes per SSE2 register: sqrt and division are correctly rounded there as in
      // the scalar code (a plain loop is not vectorised: std::sqrt may set errno).
      __m128d sq = _mm_setzero_pd();
      for (int k = 0; k < d; ++k) {
        const __m128d c = _mm_sub_pd(_mm_load_pd(&th[k][w0]), _mm_set1_pd(centre[k]));
        sq = _mm_add_pd(sq, _mm_mul_pd(c, c));
      }
      // project() returns when sq <= radius^2; a NaN sq goes on, as here.
      const __m128d outside = _mm_cmpnle_pd(sq, _mm_set1_pd(radius * radius));
      if (_mm_movemask_pd(outside) == 0) continue;
      const __m128d scale = _mm_div_pd(_mm_set1_pd(radius), _mm_sqrt_pd(sq));
      for (int k = 0; k < d; ++k) {
        const __m128d t = _mm_load_pd(&th[k][w0]), c = _mm_set1_pd(centre[k]);
        const __m128d moved = _mm_add_pd(c, _mm_mul_pd(scale, _mm_sub_pd(t, c)));
        _mm_store_pd(&th[k][w0], _mm_or_pd(_mm_and_pd(outside, moved), _mm_andnot_pd(outside, t)));
      }
    }
  }

  // Pi_K: Euclidean projection onto the ball of diameter D around the centre.
  void project(double* theta) const {
    if (!project_) return;
    constexpr int d = Loss::d;
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
  bool project_;
  std::uint64_t id_;  ///< LaneScratch::runner; a copy would share it, hence no copies
  BatchDraws draws_;  ///< shared by every trajectory's BatchSchedule
  std::vector<double> subset_sums_;  ///< by batch key, d per batch (empty: no table)
};

/// Calls f(runner) with the runner of the scenario's loss family, instantiated for its
/// dimension D (1..kMaxDim).
template <int D, class F>
void with_runner_of_dim(const Scenario& s, const DataView& data, const std::vector<int>& order,
                        std::uint64_t seed, Dataset dataset, F&& f) {
  switch (s.loss) {
    case LossKind::kQuadratic:
      f(TrajectoryRunner<QuadraticLoss<D>>(s, {s.lambda}, data, order, seed, dataset));
      return;
    case LossKind::kLinear:
      f(TrajectoryRunner<LinearLoss<D>>(s, {}, data, order, seed, dataset));
      return;
    case LossKind::kLogistic:
      f(TrajectoryRunner<LogisticLoss<D>>(s, {s.lambda, s.clip_norm, s.features, s.classes}, data,
                                          order, seed, dataset));
      return;
  }
}

template <class F>
void with_runner(const Scenario& s, const DataView& data, const std::vector<int>& order,
                 std::uint64_t seed, Dataset dataset, F&& f) {
  static_assert(config::kMaxDim == 8, "instantiate the kernels for every dimension");
  switch (s.dim) {
    case 1:
      return with_runner_of_dim<1>(s, data, order, seed, dataset, f);
    case 2:
      return with_runner_of_dim<2>(s, data, order, seed, dataset, f);
    case 3:
      return with_runner_of_dim<3>(s, data, order, seed, dataset, f);
    case 4:
      return with_runner_of_dim<4>(s, data, order, seed, dataset, f);
    case 5:
      return with_runner_of_dim<5>(s, data, order, seed, dataset, f);
    case 6:
      return with_runner_of_dim<6>(s, data, order, seed, dataset, f);
    case 7:
      return with_runner_of_dim<7>(s, data, order, seed, dataset, f);
    case 8:
      return with_runner_of_dim<8>(s, data, order, seed, dataset, f);
    default:
      throw std::logic_error("simulate: dimension outside [1, kMaxDim]");
  }
}

int thread_count(int requested) {
  return requested > 0 ? requested : omp_get_max_threads();
}

}  // namespace

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

BatchDraws batch_draws(const Scenario& s, Dataset dataset) {
  return draws_of(s, records_of(s, dataset == kDPrime || dataset == kPilotDPrime).view);
}

std::int64_t pilot_trajectories(const Scenario& s) {
  return s.estimate.enabled ? std::max<std::int64_t>(s.pilot_trajectories, s.estimate.pilot)
                            : s.pilot_trajectories;
}

std::int64_t chunk_size(std::int64_t trajectories) {
  // At most ~4096 chunks, at least 256 trajectories each: enough chunks to balance 2 to 64
  // threads, few enough that scheduling costs nothing. (The numbers do not depend on it:
  // counts and moment sums are exact.)
  return std::max<std::int64_t>(256, (trajectories + 4095) / 4096);
}

Eigen::MatrixXd simulate_last_iterates(const Scenario& s, std::uint64_t seed, Dataset dataset,
                                       std::int64_t first, std::int64_t count) {
  const DatasetRecords rec = records_of(s, dataset == kDPrime || dataset == kPilotDPrime);
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

tally::Tally count_dataset(const Scenario& s, const tally::Binning& binning, const SimOptions& opt,
                           Dataset dataset) {
  const std::int64_t m = opt.trajectories;
  const std::int64_t id0 = opt.first;  // trajectory ids id0 ... id0 + m - 1
  const int d = s.dim;
  // Raw last iterates only where the file asks for them (tally.raw_samples), of the first
  // trajectories (ids below the cap): the estimators count every trajectory in the binning's
  // score cells instead.
  tally::Tally result(binning, std::clamp<std::int64_t>(std::min(s.raw_cap, id0 + m) - id0, 0, m));
  result.raw_first = id0;
  result.raw.assign(static_cast<std::size_t>(result.raw_cap) * d, 0.0);

  const std::int64_t chunk = chunk_size(m);
  const std::int64_t chunks = (m + chunk - 1) / chunk;
  const DatasetRecords rec = records_of(s, dataset == kDPrime);
  const std::vector<int> order = fixed_order(s);
  // The smallest trajectory id whose last iterate is not finite (a diverged run): never
  // binned; chunks past it are skipped, those before it still run, so the id reported does
  // not depend on the threads.
  std::atomic<std::int64_t> first_diverged{id0 + m};
  with_runner(s, rec.view, order, opt.seed, dataset, [&](const auto& runner) {
#pragma omp parallel num_threads(thread_count(opt.threads))
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
        if (opt.progress) opt.progress->advance((end - begin) * s.steps);
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

namespace {

// The pilot's last iterates, the same rows on every rank: with several MPI ranks each
// simulates a contiguous share of the ids and the shares are gathered in rank order.
Eigen::MatrixXd pilot_rows(const Scenario& s, std::uint64_t seed, Dataset dataset,
                           std::int64_t rows) {
  if (par::size() == 1) return simulate_last_iterates(s, seed, dataset, 0, rows);
  const auto [begin, end] = par::share(0, rows, par::rank(), par::size());
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const RowMajor mine = simulate_last_iterates(s, seed, dataset, begin, end - begin);
  const std::vector<double> all =
      par::allgather(std::vector<double>(mine.data(), mine.data() + mine.size()));
  return Eigen::Map<const RowMajor>(all.data(), rows, s.dim);
}

}  // namespace

tally::Binning prepare_binning(const Scenario& s, const SimOptions& opt) {
  const int threads = thread_count(opt.threads);
  const int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  // One pilot on streams of its own places the plot histograms and, through opt.select, the
  // estimators' score cells: independent of every counted trajectory.
  const std::int64_t pilot = pilot_trajectories(s);
  const Eigen::MatrixXd pilot_d = pilot_rows(s, opt.seed, kPilotD, pilot);
  const Eigen::MatrixXd pilot_p = pilot_rows(s, opt.seed, kPilotDPrime, pilot);
  omp_set_num_threads(saved);
  const tally::Binning binning =
      s.has_range
          ? tally::binning_from_range(s.range_lo, s.range_hi, pilot_d, pilot_p, s.bins, s.bins_2d)
          : tally::binning_from_pilot(pilot_d, pilot_p, s.bins, s.bins_2d);
  tally::Binning counted = binning;
  if (opt.select) opt.select(pilot_d, pilot_p, counted);
  if (opt.progress) opt.progress->advance(2 * pilot * s.steps);
  return counted;
}

ScenarioTallies count_scenario(const Scenario& s, const tally::Binning& binning,
                               const SimOptions& opt) {
  const auto start = std::chrono::steady_clock::now();
  ScenarioTallies out;
  out.d = count_dataset(s, binning, opt, kD);
  out.dprime = count_dataset(s, binning, opt, kDPrime);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

void add_tallies(ScenarioTallies& into, const ScenarioTallies& more) {
  into.d.append(more.d);
  into.dprime.append(more.dprime);
  into.seconds += more.seconds;
}

ScenarioTallies simulate_scenario(const Scenario& s, const SimOptions& opt) {
  const auto start = std::chrono::steady_clock::now();
  const tally::Binning binning = prepare_binning(s, opt);
  ScenarioTallies out = count_scenario(s, binning, opt);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace rdpaudit::sim
