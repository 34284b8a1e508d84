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

bool BatchSchedule::is_partition() const {
  return scheme_ == BatchScheme::kFixedOrder || scheme_ == BatchScheme::kShufflePartition ||
         scheme_ == BatchScheme::kShuffleEachEpoch || scheme_ == BatchScheme::kFullBatch;
}

void BatchSchedule::shuffle() {
  ++generation_;
  // Fisher-Yates over the whole index set (Algorithm 1, "shuffle and partition").
  for (int i = n_ - 1; i > 0; --i) {
    std::swap(order_[i], order_[stream_.below(static_cast<std::uint64_t>(i) + 1)]);
  }
}

}  // namespace rdpaudit::sim
