#include "rdpaudit/sim/batches.hpp"

#include <algorithm>
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

namespace {

std::vector<std::uint64_t> fisher_yates_bounds(int n) {
  std::vector<std::uint64_t> bounds;
  for (int i = n - 1; i > 0; --i) bounds.push_back(static_cast<std::uint64_t>(i) + 1);
  return bounds;
}

std::vector<std::uint64_t> subset_bounds(const config::Scenario& s) {
  std::vector<std::uint64_t> bounds;
  if (s.scheme != BatchScheme::kSampleWithoutReplacement) return bounds;
  for (int k = 0; k < s.batch_size; ++k) bounds.push_back(static_cast<std::uint64_t>(s.n() - k));
  return bounds;
}

}  // namespace

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
      order_(fixed),
      shuffle_draws_(fisher_yates_bounds(s.n())),
      subset_draws_(subset_bounds(s)),
      offsets_(static_cast<std::size_t>(std::max(s.n(), 1))) {
  if (scheme_ == BatchScheme::kShufflePartition) shuffle();  // one partition for all epochs
  if (scheme_ == BatchScheme::kPoisson) order_.resize(n_);
}

bool BatchSchedule::is_partition() const {
  return scheme_ == BatchScheme::kFixedOrder || scheme_ == BatchScheme::kShufflePartition ||
         scheme_ == BatchScheme::kShuffleEachEpoch || scheme_ == BatchScheme::kFullBatch;
}

void BatchSchedule::shuffle() {
  ++generation_;
  // Fisher-Yates over the whole index set (Algorithm 1, "shuffle and partition"): position
  // i = n-1, ..., 1 swaps with j uniform in [0, i]; the n - 1 draws share words (about
  // n log2(n) / 64 words instead of n - 1).
  shuffle_draws_.draw(stream_, offsets_.data());
  for (int i = n_ - 1; i > 0; --i) std::swap(order_[i], order_[offsets_[n_ - 1 - i]]);
}

}  // namespace rdpaudit::sim
