// Random allocation's draws (BatchSchedule): every record's step at each epoch's start (the
// full draw), and, by distinguished records, the background records' counts a block of steps
// at a time. docs/rng.md, "Random allocation".
#include <algorithm>
#include <boost/random/binomial_distribution.hpp>
#include <cmath>
#include <cstdint>
#include <limits>

#include "rdpaudit/sim/batches.hpp"

namespace rdpaudit::sim {

void BatchSchedule::allocate() {
  // Balls and bins: each record's step is uniform on the epoch's t steps, independently of
  // the others (Feldman & Shenfeld, arXiv 2502.08202, random allocation with k = 1); a
  // counting sort then lists each step's records, ascending, in O(n + t).
  const auto t = static_cast<std::uint64_t>(per_epoch_);
  std::fill(allocation_start_.begin(), allocation_start_.end(), 0);
  for (int i = 0; i < n_; ++i) {
    const auto step = static_cast<int>(stream_.below(t));
    allocation_step_[static_cast<std::size_t>(i)] = step;
    ++allocation_start_[static_cast<std::size_t>(step) + 1];
  }
  for (std::size_t j = 1; j < allocation_start_.size(); ++j)
    allocation_start_[j] += allocation_start_[j - 1];
  // Each step's next free slot, from its start: the records, taken ascending, stay so.
  std::copy(allocation_start_.begin(), allocation_start_.end() - 1, allocation_cursor_.begin());
  for (int i = 0; i < n_; ++i) {
    const auto step = static_cast<std::size_t>(allocation_step_[static_cast<std::size_t>(i)]);
    order_[static_cast<std::size_t>(allocation_cursor_[step]++)] = i;
  }
  ++generation_;
}

void BatchSchedule::next_counted_run(int len, std::uint32_t* masks, int* others) {
  if (!traits_.allocated) {
    for (int i = 0; i < len; ++i) masks[i] = next_counted(others[i]);
    return;
  }
  // allocated_step's draws in the same order: at an epoch's start the distinguished records'
  // steps, then the first block; a block when the last is used up.
  const int s = distinguished_count();
  const bool counts = draws_->counted.others;
  for (int i = 0; i < len;) {
    const long j = step_in_epoch_;
    if (j == 0) {
      for (int k = 0; k < s; ++k)
        allocated_at_[k] = static_cast<int>(stream_.below(static_cast<std::uint64_t>(per_epoch_)));
      others_left_ = n_ - s;
    }
    long run = std::min<long>(len - i, per_epoch_ - j);
    if (counts) {
      if (block_next_ == block_len_) draw_allocation_block(j);
      run = std::min<long>(run, block_len_ - block_next_);
      std::copy(block_counts_ + block_next_, block_counts_ + block_next_ + run, others + i);
      block_next_ += static_cast<int>(run);
    } else {
      std::fill(others + i, others + i + run, 0);
    }
    std::fill(masks + i, masks + i + run, 0u);
    for (int k = 0; k < s; ++k) {
      const long at = allocated_at_[k] - j;
      if (at >= 0 && at < run) masks[i + at] |= std::uint32_t{1} << k;
    }
    step_in_epoch_ = j + run == per_epoch_ ? 0 : j + run;
    step_ += run;
    i += static_cast<int>(run);
  }
}

void BatchSchedule::draw_allocation_block(long j) {
  // The counts of the epoch's t steps are Multinomial(m; 1/t, ..., 1/t) (m background records,
  // each in a uniform step, independently). Its c steps from j on hold K ~ Binomial(m, c/L)
  // of the records (L = t - j steps left; given the earlier steps' counts, each record left
  // is in one of the L steps uniformly), and given K the block's counts are Multinomial(K;
  // 1/c, ..., 1/c), the rest go to the steps after it: so drawing block by block, lazily as
  // the trajectory reaches it, has the multinomial's law exactly. A block ends at the
  // trajectory's last step, so nothing is drawn for steps it never takes.
  const long left = per_epoch_ - j;
  long c = std::min<long>(kAllocationBlock, left);
  if (steps_ > step_) c = std::min(c, steps_ - step_);
  int* count = block_counts_;
  std::fill(count, count + c, 0);
  int k = others_left_;
  if (c < left && k > 0) {
    k = boost::random::binomial_distribution<int, double>(
        k, static_cast<double>(c) / static_cast<double>(left))(stream_);
  }
  others_left_ -= k;
  if (c == 1) {
    count[0] = k;
  } else if (k <= kBallsPerStep * c) {
    throw_balls(k, static_cast<int>(c), count);
  } else {  // many records a step: one binomial a step costs less than one draw a record
    for (long i = 0; i + 1 < c; ++i) {
      count[i] = binomial_count(k, c - i);
      k -= count[i];
    }
    count[c - 1] = k;
  }
  block_next_ = 0;
  block_len_ = static_cast<int>(c);
}

void BatchSchedule::throw_balls(int k, int c, int* count) {
  // Each record's step is a 16-bit chunk x of a word (low chunk first) by Lemire's method:
  // x c = 2^16 step + low, accepted iff low >= 2^16 mod c, which leaves floor(2^16 / c)
  // values of x for every step, so each accepted step is exactly uniform on [0, c) (one in
  // 2^16 / c or fewer is rejected; none for c a power of two). A word's unused chunks after
  // the k-th record are dropped.
  const std::uint32_t reject = (std::uint32_t{1} << 16) % static_cast<std::uint32_t>(c);
  const auto bins = static_cast<std::uint32_t>(c);
  while (k >= 4) {  // all four chunks may be used: no test between them
    std::uint64_t word = stream_();
    for (int h = 0; h < 4; ++h, word >>= 16) {
      const std::uint32_t x = static_cast<std::uint32_t>(word & 0xFFFF) * bins;
      const int in = (x & 0xFFFF) >= reject ? 1 : 0;
      count[x >> 16] += in;
      k -= in;
    }
  }
  while (k > 0) {
    std::uint64_t word = stream_();
    for (int h = 0; h < 4 && k > 0; ++h, word >>= 16) {
      const std::uint32_t x = static_cast<std::uint32_t>(word & 0xFFFF) * bins;
      if ((x & 0xFFFF) < reject) continue;
      ++count[x >> 16];
      --k;
    }
  }
}

int BatchSchedule::binomial_count(int m, long bins) {
  if (m == 0) return 0;
  if (m >= BatchDraws::kInversionMean * static_cast<double>(bins)) {
    return boost::random::binomial_distribution<int, double>(
        m, 1.0 / static_cast<double>(bins))(stream_);
  }
  // Inversion, as Boost's binomial_distribution draws small means: P(0) = (1 - p)^m, then
  // P(k) = P(k - 1) ((m + 1) s / k - s), s = p / (1 - p) = 1 / (bins - 1), subtracted from U
  // until U falls below one (or the terms fall below the double's epsilon).
  const double odds = 1.0 / static_cast<double>(bins - 1), a = (m + 1) * odds;
  double r = std::exp(m * draws_->counted.log_keep[static_cast<std::size_t>(bins)]);
  double u = stream_.uniform();
  int x = 0;
  while (u > r) {
    u -= r;
    ++x;
    const double next = (a / x - odds) * r;
    if (next < std::numeric_limits<double>::epsilon() && next < r) break;
    r = next;
  }
  return std::min(x, m);
}

}  // namespace rdpaudit::sim
