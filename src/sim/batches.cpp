#include "rdpaudit/sim/batches.hpp"

#include <cmath>
#include <numeric>
#include <utility>

namespace rdpaudit::sim {

using config::BatchScheme;

std::vector<int> fixed_order(const config::Scenario& s) {
  std::vector<int> order(s.n());
  std::iota(order.begin(), order.end(), 0);
  if (s.scheme == BatchScheme::kFixedOrder) {
    std::swap(order[s.data.differing_index],
              order[static_cast<long>(s.differing_batch) * s.batch_size]);
  }
  return order;
}

BatchSchedule::BatchSchedule(const config::Scenario& s, const std::vector<int>& fixed,
                             rng::Stream& stream)
    : scheme_(s.scheme),
      n_(s.n()),
      b_(s.batch_size),
      per_epoch_(s.steps_per_epoch),
      q_(s.sampling_rate),
      log1m_q_(std::log1p(-s.sampling_rate)),
      inv_norm_(s.scheme == BatchScheme::kPoisson ? 1.0 / (s.sampling_rate * s.n())
                                                  : 1.0 / s.batch_size),
      stream_(stream),
      fixed_order_(fixed),
      order_(fixed) {
  if (scheme_ == BatchScheme::kShufflePartition) shuffle();  // one partition for all epochs
  if (scheme_ == BatchScheme::kPoisson) order_.resize(n_);
}

void BatchSchedule::shuffle() {
  // Fisher-Yates over the whole index set (Algorithm 1, "shuffle and partition").
  for (int i = n_ - 1; i > 0; --i) {
    std::swap(order_[i], order_[stream_.below(static_cast<std::uint64_t>(i) + 1)]);
  }
}

const int* BatchSchedule::next(int& count) {
  // Position within the epoch, kept as a counter: a 64-bit modulo per step would cost
  // more than the rest of the schedule.
  const long j = step_in_epoch_;
  if (++step_in_epoch_ == per_epoch_) step_in_epoch_ = 0;
  switch (scheme_) {
    case BatchScheme::kFixedOrder:
    case BatchScheme::kShufflePartition:
      count = b_;
      return order_.data() + j * b_;
    case BatchScheme::kShuffleEachEpoch:
      if (j == 0) shuffle();
      count = b_;
      return order_.data() + j * b_;
    case BatchScheme::kSampleWithoutReplacement:
      // Partial Fisher-Yates: b swaps give a uniform b-subset whatever order_ holds.
      for (int k = 0; k < b_; ++k) {
        std::swap(order_[k], order_[k + stream_.below(static_cast<std::uint64_t>(n_ - k))]);
      }
      count = b_;
      return order_.data();
    case BatchScheme::kPoisson: {
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
    case BatchScheme::kFullBatch:
      count = n_;
      return fixed_order_.data();
  }
  count = 0;
  return order_.data();
}

}  // namespace rdpaudit::sim
