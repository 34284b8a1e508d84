// Mini-batch schedules of every scheme the sources use, drawn from a trajectory's own
// batch stream so the schedule is a pure function of (seed, scenario, dataset, trajectory).
#pragma once

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/rng/bounded.hpp"
#include "rdpaudit/rng/stream.hpp"

namespace rdpaudit::sim {

class BatchSchedule {
 public:
  /// `fixed_order` is the record order of the fixed-order scheme (shared, read-only).
  BatchSchedule(const config::Scenario& s, const std::vector<int>& fixed_order,
                rng::Stream& stream);

  /// Indices of the batch of the next step (steps 0, 1, 2, ... in order); valid until the
  /// next call.
  const int* next(int& count);
  /// next() of the sampling-without-replacement scheme (count = batch_size()), for callers
  /// that know the scheme and want it inlined.
  const int* next_subset();
  bool samples_without_replacement() const {
    return scheme_ == config::BatchScheme::kSampleWithoutReplacement;
  }

  /// 1 / normaliser of the summed gradient: 1/b, or 1/(q n) for Poisson.
  double inverse_normaliser() const { return inv_norm_; }

  /// Partition schemes (fixed order, shuffle and partition, shuffle each epoch, full batch)
  /// use consecutive blocks of one record order as the batches of an epoch. For them:
  bool is_partition() const;
  long batches_per_epoch() const { return per_epoch_; }
  /// Changes whenever the partition is redrawn (at construction, and each epoch for
  /// shuffle_each_epoch), so that callers may cache per-batch quantities.
  std::uint32_t generation() const { return generation_; }
  /// For callers that walk a partition scheme's epochs themselves instead of calling
  /// next(): draws the epoch's partition where the scheme redraws it (shuffle_each_epoch),
  /// with the same draws next() would make. Call at the start of every epoch.
  void start_epoch() {
    if (scheme_ == config::BatchScheme::kShuffleEachEpoch) shuffle();
  }
  /// Batch j (< batches_per_epoch()) of the current partition, batch_size() records.
  const int* batch_at(long j) const { return order_.data() + j * b_; }
  int batch_size() const { return b_; }

 private:
  static constexpr int kSmallSubset = 8;  ///< see next(): subsets up to this size without swaps
  void shuffle();

  config::BatchScheme scheme_;
  int n_, b_;
  long per_epoch_;
  long step_in_epoch_ = 0;
  std::uint32_t generation_ = 0;
  double q_, log1m_q_, inv_norm_;
  rng::Stream& stream_;
  const std::vector<int>& fixed_order_;
  std::vector<int> order_;              ///< permutation / working array of this trajectory
  rng::BoundedDraws shuffle_draws_;     ///< Fisher-Yates: j_i uniform in [0, i], i = n-1..1
  rng::BoundedDraws subset_draws_;      ///< partial Fisher-Yates: uniform in [0, n - k), k < b
  std::vector<std::uint32_t> offsets_;  ///< the draws of either
};

// Sampling without replacement, the batch of the next step (batch_size() records).
inline const int* BatchSchedule::next_subset() {
  // A uniform ordered b-tuple of distinct records: offset k is uniform in [0, n - k) (the
  // b offsets share words: one word per step while n^b < 2^64) and picks the offset-th
  // record not picked before. Small b: by counting the earlier picks below it (no state
  // carried between steps); large b: partial Fisher-Yates on order_ (b swaps).
  subset_draws_.draw(stream_, offsets_.data());
  if (b_ <= kSmallSubset) {
    // Walking the earlier picks in ascending order, each one at or below i moves i up by
    // one (a compare and an add, no branch: it would mispredict half the time); then i
    // bubbles into place among the picks.
    int sorted[kSmallSubset];  // earlier picks, ascending
    for (int k = 0; k < b_; ++k) {
      int i = static_cast<int>(offsets_[k]);
      for (int m = 0; m < k; ++m) i += i >= sorted[m] ? 1 : 0;
      order_[k] = i;
      if (k + 1 == b_) break;  // the last pick needs no place among the others
      sorted[k] = i;
      for (int m = k; m > 0; --m) {
        const int lo = std::min(sorted[m - 1], sorted[m]), hi = std::max(sorted[m - 1], sorted[m]);
        sorted[m - 1] = lo;
        sorted[m] = hi;
      }
    }
  } else {
    for (int k = 0; k < b_; ++k) std::swap(order_[k], order_[k + static_cast<int>(offsets_[k])]);
  }
  return order_.data();
}

// Inline: called once per step of every trajectory.
inline const int* BatchSchedule::next(int& count) {
  // Position within the epoch, kept as a counter: a 64-bit modulo per step would cost
  // more than the rest of the schedule.
  const long j = step_in_epoch_;
  if (++step_in_epoch_ == per_epoch_) step_in_epoch_ = 0;
  switch (scheme_) {
    case config::BatchScheme::kFixedOrder:
    case config::BatchScheme::kShufflePartition:
      count = b_;
      return order_.data() + j * b_;
    case config::BatchScheme::kShuffleEachEpoch:
      if (j == 0) shuffle();
      count = b_;
      return order_.data() + j * b_;
    case config::BatchScheme::kSampleWithoutReplacement:
      count = b_;
      return next_subset();
    case config::BatchScheme::kPoisson: {
      // Independent inclusions with probability q, by geometric gaps between included records.
      count = 0;
      if (q_ >= 1.0) {
        for (int i = 0; i < n_; ++i) order_[count++] = i;
        return order_.data();
      }
      double i = -1;
      for (;;) {
        const double u = 1.0 - stream_.uniform();  // (0, 1]
        i += 1.0 + std::floor(std::log(u) / log1m_q_);
        if (i >= n_) break;
        order_[count++] = static_cast<int>(i);
      }
      return order_.data();
    }
    case config::BatchScheme::kFullBatch:
      count = n_;
      return fixed_order_.data();
  }
  count = 0;
  return order_.data();
}

/// The fixed-order scheme's record order: records in index order, with the differing record
/// swapped into the first slot of batch j0.
std::vector<int> fixed_order(const config::Scenario& s);

}  // namespace rdpaudit::sim
