// TrajectoryRunner: the last iterates of trajectories of one (scenario, dataset) for one loss
// functor, many trajectories (lanes) at a time. Four paths, the same numbers on each: losses
// whose gradient needs only the batch's record sum (run_by_sums, by way of forming batches),
// losses with a four-lane kernel (run_four_lanes), and the per-step loop (every other loss, and
// a trajectory watched for divergence). Internal to src/sim/.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "lane_kernels.hpp"
#include "loss_dispatch.hpp"
#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/rng/stream.hpp"
#include "rdpaudit/sim/batches.hpp"
#include "rdpaudit/sim/loss.hpp"
#include "records.hpp"

namespace rdpaudit::sim::detail {

using config::Scenario;
using rng::Dataset;

/// One thread's lanes, kept across the groups of trajectories it runs (TrajectoryRunner::
/// simulate): the noise and batch streams and the schedules, which refer to the streams and
/// to the runner's scenario, draws and fixed order.
struct LaneScratch {
  std::uint64_t runner = 0;  ///< TrajectoryRunner::id_ of the runner they were built for
  std::vector<rng::Stream> noise, batch_streams;
  std::vector<BatchSchedule> batches;
};

/// Identifies runners for LaneScratch: never reused, unlike addresses.
inline std::atomic<std::uint64_t> g_next_runner_id{1};

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
        draws_(draws_of(s, data)),
        counted_(draws_.by_distinguished && scheme_traits(s.scheme).counted) {
    if constexpr (Loss::kSumOfRecords) {
      // Sampling without replacement, few possible batches: the record sum of every batch,
      // by key (BatchSchedule::next_subset_key), formed as sum_records forms it. Not with a
      // crafted record: its batches must say whether they hold it (store_sum does).
      const std::uint64_t keys = draws_.subset_keys;
      if (scheme_traits(s.scheme).subset_each_step && keys > 0 &&
          keys * Loss::d <= kMaxSubsetSums && data_.crafted_index < 0) {
        subset_sums_.resize(keys * Loss::d);
        std::vector<int> idx(static_cast<std::size_t>(s.batch_size));
        for (std::uint64_t r = 0; r < keys; ++r) {  // keys no batch has: never read
          if (draws_.subset_of_key(s.n(), s.batch_size, static_cast<std::uint32_t>(r), idx.data()))
            sum_records<Loss::d>(data_, idx.data(), s.batch_size, &subset_sums_[r * Loss::d]);
        }
      }
      if (counted_) counted_sums_ = CountedSums(draws_, data_, Loss::d);
      if (scheme_traits(s.scheme).partition && draws_.by_distinguished) {
        // A batch of b background records, summed as sum_records sums it (every batch
        // without a distinguished record).
        background_batch_sum_.assign(Loss::d, 0.0);
        background_zero_ = true;
        if (!draws_.background.empty()) {
          const double* row = data_.x + static_cast<long>(draws_.background.front()) * Loss::d;
          for (int i = 0; i < s.batch_size; ++i) {
            for (int k = 0; k < Loss::d; ++k) background_batch_sum_[k] += row[k];
          }
          background_zero_ = std::all_of(row, row + Loss::d, [](double v) { return v == 0.0; });
        }
      }
    }
  }

  /// Trajectories advanced together. Each step of one trajectory is a chain of dependent
  /// floating-point operations through theta; interleaving independent trajectories lets
  /// the CPU overlap those chains. 32 ran as fast as 16 and faster than 8 in bench_w1.
  static constexpr int kLanes = 32;
  /// Largest per-lane cache of batch sums (doubles), see run().
  static constexpr long kMaxCachedSums = 4096;
  /// Largest table of the record sums of every possible batch (doubles), see the constructor:
  /// 256 KB, about what stays in the L2 cache of one core.
  static constexpr std::uint64_t kMaxSubsetSums = 32768;
  /// Largest batch whose records store_distinguished_batches lists on the stack (larger
  /// ones: in a vector).
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

  /// Set bits of a mask of distinguished records (at most kMaxDistinguished): without the
  /// POPCNT instruction in the target, __builtin_popcount is a library call.
  static int bit_count(std::uint32_t x) {
    x = x - (x >> 1 & 0x55555555u);
    x = (x & 0x33333333u) + (x >> 2 & 0x33333333u);
    return static_cast<int>(((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u >> 24);
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
    // next (a schedule's vectors would be two allocations per trajectory): a stream is
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
    // (run_by_sums), a loss with a four-lane kernel four lanes at a time where the CPU has
    // AVX2 (run_four_lanes); the rest, and a watched trajectory, take the per-step path below.
    const long m = batches.front().batches_per_epoch();
    if constexpr (Loss::kSumOfRecords) {
      const bool partition = batches.front().is_partition();
      if (!watch && (!partition || m * d <= kMaxCachedSums || draws_.by_distinguished)) {
        // One instantiation per way of forming the batch, so each loop holds only its own.
        if (partition && m * d > kMaxCachedSums) {
          run_by_sums<kPositions>(lanes, batches, noise, theta);
        } else if (partition) {
          run_by_sums<kPartition>(lanes, batches, noise, theta);
        } else if (batches.front().samples_without_replacement()) {
          run_by_sums<kSubset>(lanes, batches, noise, theta);
        } else if (counted_) {
          run_by_sums<kCounted>(lanes, batches, noise, theta);
        } else {
          run_by_sums<kPerStep>(lanes, batches, noise, theta);
        }
        for (int w = 0; w < lanes; ++w) std::copy(theta[w], theta[w] + d, out + w * d);
        return;
      }
    }

    if constexpr (FourLaneStep<Loss>::kExists) {
      if (!watch && kHasAvx2) {
        run_four_lanes(lanes, batches, noise, theta);
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
  /// table of every batch's sum by rank where there is one (subset_sums_). By_distinguished
  /// partitions with too many batches to cache (`positions`) form each step's batch sum from
  /// the distinguished records' positions (store_batch_by_positions). Poisson and random
  /// allocation draw each lane's batch every step; by distinguished records (`counted`) the
  /// masks and counts of the next kNoiseSteps steps of each lane in turn (next_counted, summed
  /// by CountedSums). Sums are formed in the order add_gradient forms them,
  /// so the numbers are those of the per-step path. The state is kept lane-minor (value of
  /// lane w at [... * kLanes + w]) so that one step of all lanes is a vector loop; unused
  /// lanes (w >= lanes) compute on zeros and are never read.
  enum BatchForm { kPartition, kPositions, kSubset, kCounted, kPerStep };
  template <BatchForm kForm>
  void run_by_sums(int lanes, std::vector<BatchSchedule>& batches, std::vector<rng::Stream>& noise,
                   double (*theta)[Loss::d]) const {
    constexpr bool partition = kForm == kPartition, subset = kForm == kSubset;
    constexpr bool positions = kForm == kPositions, counted = kForm == kCounted;
    constexpr int d = Loss::d;
    // Cached batch sums per lane: an epoch's (partition), the next kNoiseSteps steps' (subset,
    // counted) or this step's (per step).
    const long m = partition             ? batches.front().batches_per_epoch()
                   : (subset || counted) ? kNoiseSteps
                                         : 1;
    const double inv_norm = batches.front().inverse_normaliser(), eta = s_.eta;
    std::vector<double> sums(static_cast<std::size_t>(m * d * kLanes), 0.0);
    alignas(64) double th[d][kLanes] = {};
    alignas(64) double z[kNoiseSteps * d][kLanes] = {};
    constexpr bool fixed_size = partition || subset || positions;
    int size[kLanes] = {};  // records in each lane's batch of this step
    // counted: each lane's batch sizes of the next kNoiseSteps steps
    int sizes[counted ? kNoiseSteps : 1][kLanes] = {};
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
    long j = 0;    // the same, for `positions` (whose one cached sum is at pos = 0)
    const long per_epoch = batches.front().batches_per_epoch();
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
      } else if constexpr (positions) {
        if (j == 0) BatchSchedule::start_epochs(batches.data(), lanes);
        for (int w = 0; w < lanes; ++w) store_batch_by_positions(batches[w], w, j, sums.data());
        if (++j == per_epoch) j = 0;
      } else if constexpr (counted) {
        // A mask and a count a step: O(1) in the number of records; one lane's kNoiseSteps
        // steps after another (its schedule's state stays at hand), those past the
        // trajectory's end not drawn.
        if (c == 0) {
          const long len = std::min<long>(kNoiseSteps, s_.steps - t);
          std::uint32_t masks[kNoiseSteps];
          int counts[kNoiseSteps];
          for (int w = 0; w < lanes; ++w) {
            batches[w].next_counted_run(static_cast<int>(len), masks, counts);
            for (long i = 0; i < len; ++i) {
              const int others = counts[i];
              const std::uint32_t mask = masks[i];
              sizes[i][w] = others + (mask != 0 ? bit_count(mask) : 0);
              if (crafted)
                holds[static_cast<std::size_t>(i * kLanes + w)] =
                    static_cast<int>(mask >> counted_sums_.crafted_bit() & 1);
              double sum[d];
              counted_sums_.sum<d>(others, mask, sum);
              for (int k = 0; k < d; ++k)
                sums[static_cast<std::size_t>((i * d + k) * kLanes + w)] = sum[k];
            }
          }
        }
        pos = c;
        std::copy(sizes[c], sizes[c] + kLanes, size);
      } else if constexpr (!partition) {
        for (int w = 0; w < lanes; ++w) {
          const int* idx = batches[w].next(size[w]);
          store_sum(0, w, idx, size[w]);
        }
      } else if (pos == 0 && t > 0 && draws_.by_distinguished) {
        for (int w = 0; w < lanes; ++w) refresh_distinguished(batches[w], w, store_sum);
      } else if (pos == 0 && draws_.by_distinguished) {
        // The first partition: every batch without a distinguished record holds b copies of
        // the background row, whose sum is one for all (O(m), not O(n), per trajectory).
        BatchSchedule::start_epochs(batches.data(), lanes);
        for (int w = 0; w < lanes; ++w) {
          for (long b = 0; b < m; ++b) {
            for (int k = 0; k < d; ++k)
              sums[static_cast<std::size_t>((b * d + k) * kLanes + w)] = background_batch_sum_[k];
          }
          store_distinguished_batches(batches[w], w, batches[w].distinguished_positions(),
                                      batches[w].distinguished_count(), store_sum);
        }
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

  /// A loss with its own four-lane kernel (FourLaneStep), every lane stepped four at a time,
  /// lane-minor: the numbers of the per-step path, whose batches, noise and projection it
  /// draws and applies in the same order.
  void run_four_lanes(int lanes, std::vector<BatchSchedule>& batches,
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
        FourLaneStep<Loss>::template step<kLanes>(loss_, data_, th, z + c * d, w0, idx + w0,
                                                  count + w0, inv_norm, eta);
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
    const int s = batches.distinguished_count();
    if (s == 0) return;  // the order never changes
    int before[kMaxDistinguished];
    std::copy(batches.distinguished_positions(), batches.distinguished_positions() + s, before);
    const auto generation = batches.generation();
    batches.start_epoch();
    if (batches.generation() == generation) return;  // shuffle_partition: one for all epochs
    store_distinguished_batches(batches, w, before, s, store_sum);
    store_distinguished_batches(batches, w, batches.distinguished_positions(), s, store_sum);
  }

  /// The record sum of batch j of lane w's current by_distinguished partition into the
  /// lane's slot 0 of `sums`: background_batch_sum_ where no distinguished record is in it,
  /// else formed from the records batch_at(j) would hold (store_distinguished_batches).
  void store_batch_by_positions(const BatchSchedule& batches, int w, long j, double* sums) const {
    constexpr int d = Loss::d;
    const int s = batches.distinguished_count(), b = batches.batch_size();
    const int* at = batches.distinguished_positions();
    for (int k = 0; k < s; ++k) {
      if (at[k] / b != j) continue;
      const int position[1] = {at[k]};
      store_distinguished_batches(batches, w, position, 1,
                                  [&](long, int, const int* idx, int count) {
                                    double sum[d];
                                    sum_records<d>(data_, idx, count, sum);
                                    for (int c = 0; c < d; ++c)
                                      sums[static_cast<std::size_t>(c * kLanes + w)] = sum[c];
                                  });
      return;
    }
    for (int c = 0; c < d; ++c)
      sums[static_cast<std::size_t>(c * kLanes + w)] = background_batch_sum_[c];
  }

  /// For each of positions[0..count), the batch at that position of lane w's current
  /// partition (if any), summed by store_sum(batch, w, records, b) from the
  /// records batch_at() would hold there (any background record standing for the one in its
  /// place: the same row, bit for bit).
  template <class Store>
  void store_distinguished_batches(const BatchSchedule& batches, int w, const int* positions,
                                   int count, const Store& store_sum) const {
    const int s = batches.distinguished_count(), b = batches.batch_size();
    const long used = batches.batches_per_epoch() * b;
    const int* at = batches.distinguished_positions();
    const int* record = batches.distinguished_at_positions();
    const int filler = draws_.background.empty() ? 0 : draws_.background.front();
    if (background_zero_) {
      // Background rows of zeros leave a sum from 0.0 unchanged (0.0 + 0.0 = 0.0, x + 0.0 =
      // x for x != -0.0, which such a sum never is): the batch's distinguished records, in
      // position order, give its sum, at O(s) whatever b.
      int idx[kMaxDistinguished];
      for (int i = 0; i < count; ++i) {
        if (positions[i] >= used) continue;  // left out of every batch (footnote 3)
        const long j = positions[i] / b;
        int in = 0;
        for (int k = 0; k < s; ++k) {
          if (at[k] / b == j) idx[in++] = record[k];
        }
        store_sum(j, w, idx, in);
      }
      return;
    }
    int small[kMaxBatchByPositions];
    std::vector<int> large(b > kMaxBatchByPositions ? static_cast<std::size_t>(b) : 0);
    int* idx = large.empty() ? small : large.data();
    for (int i = 0; i < count; ++i) {
      const int position = positions[i];
      if (position >= used) continue;  // left out of every batch (footnote 3)
      const long j = position / b;
      std::fill(idx, idx + b, filler);
      for (int k = 0; k < s; ++k) {
        if (at[k] / b == j) idx[at[k] - j * b] = record[k];
      }
      store_sum(j, w, idx, b);
    }
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
    } else {
      project_lanes_sse2<kLanes, d>(th, centre, radius);
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
  /// draws_ by distinguished records of a counted scheme (SchemeTraits::counted)
  bool counted_;
  CountedSums counted_sums_;                  ///< counted_
  std::vector<double> background_batch_sum_;  ///< by_distinguished partitions: b background rows
  bool background_zero_ = false;  ///< by_distinguished partitions: the background rows are zeros
};

/// Calls f(runner) with the runner of the scenario's loss family (with_loss), instantiated for
/// its dimension (with_dimension).
template <class F>
void with_runner(const Scenario& s, const DataView& data, const std::vector<int>& order,
                 std::uint64_t seed, Dataset dataset, F&& f) {
  with_dimension(s.dim, [&](auto dim) {
    with_loss<decltype(dim)::value>(s, [&](auto loss) {
      f(TrajectoryRunner<decltype(loss)>(s, loss, data, order, seed, dataset));
    });
  });
}

}  // namespace rdpaudit::sim::detail
