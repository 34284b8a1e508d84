#include "rdpaudit/sim/batches.hpp"

#include <immintrin.h>

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

// The radices of a shuffle's draws: Fisher-Yates, j_i uniform in [0, i] for i = n-1..1
// (n > kMaskRecords); or, by rank among the records left (n <= kMaskRecords), pick k of the
// epoch's m b uniform in [0, n - k), those with one choice left (n - k = 1) not drawn.
std::vector<std::uint64_t> shuffle_bounds(const config::Scenario& s) {
  std::vector<std::uint64_t> bounds;
  const int n = s.n();
  if (n <= detail::kMaskRecords) {
    const long picks = std::min<long>(s.steps_per_epoch * s.batch_size, n - 1);
    for (long k = 0; k < picks; ++k) bounds.push_back(static_cast<std::uint64_t>(n - k));
  } else {
    for (int i = n - 1; i > 0; --i) bounds.push_back(static_cast<std::uint64_t>(i) + 1);
  }
  return bounds;
}

const bool kFastPdep = [] {
  __builtin_cpu_init();  // this initialiser may run before libgcc's
  return __builtin_cpu_supports("bmi2") && !__builtin_cpu_is("znver1") &&
         !__builtin_cpu_is("znver2");  // PDEP is microcoded there: about 250 cycles
}();

std::vector<std::uint64_t> subset_bounds(const config::Scenario& s, int chunk) {
  std::vector<std::uint64_t> bounds;
  if (s.scheme != BatchScheme::kSampleWithoutReplacement) return bounds;
  const std::uint64_t ranks = BatchSchedule::subset_ranks(s.n(), s.batch_size);
  for (int step = 0; step < chunk; ++step) {
    if (ranks > 0) {
      bounds.push_back(ranks);
      continue;
    }
    for (int k = 0; k < s.batch_size; ++k) bounds.push_back(static_cast<std::uint64_t>(s.n() - k));
  }
  return bounds;
}

// out[k] = the offset[k]-th record, in ascending order, of those not among out[0..k), for
// k < b <= kMax. Walking the earlier picks in ascending order, each one at or below i moves
// i up by one (a compare and an add, no branch: it would mispredict half the time); then i
// bubbles into place among the picks.
template <int kMax>
void pick_unpicked(const std::uint32_t* offset, int b, int* out) {
  int sorted[kMax];  // earlier picks, ascending
  for (int k = 0; k < b; ++k) {
    int i = static_cast<int>(offset[k]);
    for (int m = 0; m < k; ++m) i += i >= sorted[m] ? 1 : 0;
    out[k] = i;
    if (k + 1 == b) break;  // the last pick needs no place among the others
    sorted[k] = i;
    for (int m = k; m > 0; --m) {
      const int lo = std::min(sorted[m - 1], sorted[m]), hi = std::max(sorted[m - 1], sorted[m]);
      sorted[m - 1] = lo;
      sorted[m] = hi;
    }
  }
}

// order_by_rank with BMI2 for `lanes` schedules at once: PDEP moves bit 0 of 1 << r to the
// place of the r-th set bit of the mask of records left. One lane's picks form a dependent
// chain through its mask (PDEP, TZCNT, XOR: about 5 cycles a pick), so eight lanes are
// interleaved.
__attribute__((target("bmi,bmi2"))) void order_by_rank_lanes(int n, int picks, int lanes,
                                                             const std::uint32_t* const* rank,
                                                             int* const* out) {
  constexpr int kGroup = 8;
  const std::uint64_t all = n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
  for (int w0 = 0; w0 < lanes; w0 += kGroup) {
    const int g = std::min(kGroup, lanes - w0);
    std::uint64_t left[kGroup];
    for (int w = 0; w < g; ++w) left[w] = all;
    for (int k = 0; k < picks; ++k) {
      for (int w = 0; w < g; ++w) {
        const int i = __builtin_ctzll(_pdep_u64(std::uint64_t{1} << rank[w0 + w][k], left[w]));
        out[w0 + w][k] = i;
        left[w] ^= std::uint64_t{1} << i;
      }
    }
    for (int w = 0; w < g; ++w) {
      for (int k = picks; left[w] != 0; ++k, left[w] &= left[w] - 1)
        out[w0 + w][k] = __builtin_ctzll(left[w]);
    }
  }
}

}  // namespace

namespace detail {

void order_by_rank(int n, const std::uint32_t* rank, int picks, int* out, bool pdep) {
  if (pdep) {
    order_by_rank_lanes(n, picks, 1, &rank, &out);
    return;
  }
  std::uint64_t left = n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
  for (int k = 0; k < picks; ++k) {
    std::uint64_t from = left;
    for (std::uint32_t j = 0; j < rank[k]; ++j) from &= from - 1;  // drop the lowest rank[k]
    const int i = __builtin_ctzll(from);
    out[k] = i;
    left ^= std::uint64_t{1} << i;
  }
  for (int k = picks; left != 0; ++k, left &= left - 1) out[k] = __builtin_ctzll(left);
}

bool order_by_rank_uses_pdep() {
  return kFastPdep;
}

}  // namespace detail

BatchDraws::BatchDraws(const config::Scenario& s)
    : shuffle(shuffle_bounds(s)),
      ranks_count(s.scheme == BatchScheme::kSampleWithoutReplacement
                      ? static_cast<std::uint32_t>(BatchSchedule::subset_ranks(s.n(), s.batch_size))
                      : 0),
      subset(subset_bounds(s, BatchSchedule::kSubsetChunk)) {}

BatchSchedule::BatchSchedule(const config::Scenario& s, const std::vector<int>& fixed,
                             rng::Stream& stream)
    : BatchSchedule(s, fixed, std::make_unique<const BatchDraws>(s), nullptr, stream) {}

BatchSchedule::BatchSchedule(const config::Scenario& s, const std::vector<int>& fixed,
                             const BatchDraws& draws, rng::Stream& stream)
    : BatchSchedule(s, fixed, nullptr, &draws, stream) {}

BatchSchedule::BatchSchedule(const config::Scenario& s, const std::vector<int>& fixed,
                             std::unique_ptr<const BatchDraws> own, const BatchDraws* shared,
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
      own_draws_(std::move(own)),
      draws_(shared != nullptr ? shared : own_draws_.get()),
      ranks_count_(draws_->ranks_count),
      offsets_(static_cast<std::size_t>(std::max({s.n(), kSubsetChunk * s.batch_size, 1}))) {
  if (scheme_ == BatchScheme::kShufflePartition) shuffle();  // one partition for all epochs
  if (scheme_ == BatchScheme::kPoisson) order_.resize(n_);
  if (scheme_ == BatchScheme::kSampleWithoutReplacement)
    subsets_.resize(static_cast<std::size_t>(ranks_count_ > 0 ? 1 : kSubsetChunk) * b_);
}

bool BatchSchedule::is_partition() const {
  return scheme_ == BatchScheme::kFixedOrder || scheme_ == BatchScheme::kShufflePartition ||
         scheme_ == BatchScheme::kShuffleEachEpoch || scheme_ == BatchScheme::kFullBatch;
}

void BatchSchedule::shuffle() {
  ++generation_;
  draws_->shuffle.draw(stream_, offsets_.data());
  if (n_ <= detail::kMaskRecords) {
    // A uniform random order of the records, built record by record (Algorithm 1, "shuffle
    // and partition"): pick k of the epoch's m b is the offset_k-th, in ascending order, of
    // the records not picked before, offset_k uniform in [0, n - k); the records left over
    // (footnote 3) follow in ascending order. The set of records left is one 64-bit mask,
    // so a pick is a few bit operations and nothing is swapped in memory.
    const int picks = draws_->shuffle.size();
    detail::order_by_rank(n_, offsets_.data(), picks, order_.data(), kFastPdep);
    return;
  }
  // Fisher-Yates over the whole index set: position i = n-1, ..., 1 swaps with j uniform in
  // [0, i]; the n - 1 draws share words (about n log2(n) / 64 words instead of n - 1).
  for (int i = n_ - 1; i > 0; --i) std::swap(order_[i], order_[offsets_[n_ - 1 - i]]);
}

void BatchSchedule::start_epochs(BatchSchedule* schedules, int count) {
  if (count == 0 || schedules[0].scheme_ != BatchScheme::kShuffleEachEpoch) return;
  const int n = schedules[0].n_;
  if (n > detail::kMaskRecords || !kFastPdep) {
    for (int w = 0; w < count; ++w) schedules[w].shuffle();
    return;
  }
  // shuffle() of each, with the picks of all interleaved.
  constexpr int kMax = 64;
  const std::uint32_t* rank[kMax];
  int* out[kMax];
  for (int w0 = 0; w0 < count; w0 += kMax) {
    const int lanes = std::min(kMax, count - w0);
    for (int w = 0; w < lanes; ++w) {
      BatchSchedule& b = schedules[w0 + w];
      ++b.generation_;
      b.draws_->shuffle.draw(b.stream_, b.offsets_.data());
      rank[w] = b.offsets_.data();
      out[w] = b.order_.data();
    }
    order_by_rank_lanes(n, schedules[0].draws_->shuffle.size(), lanes, rank, out);
  }
}

std::uint64_t BatchSchedule::subset_ranks(int n, int b) {
  if (b < 1 || b > n) return 0;
  std::uint64_t count = 1;
  for (int k = 0; k < b; ++k) {
    count *= static_cast<std::uint64_t>(n - k);
    if (count >= (std::uint64_t{1} << 32)) return 0;
  }
  return count;
}

void BatchSchedule::subset_of_rank(int n, int b, std::uint32_t rank, int* out) {
  std::uint32_t offset[kSmallSubset];
  for (int k = b - 1; k >= 0; --k) {
    const auto radix = static_cast<std::uint32_t>(n - k);
    offset[k] = rank % radix;
    rank /= radix;
  }
  pick_unpicked<kSmallSubset>(offset, b, out);
}

void BatchSchedule::draw_subsets() {
  // Each batch is a uniform ordered b-tuple of distinct records: offset k uniform in
  // [0, n - k) picks the offset-th record (in ascending order) not picked before. Where the
  // tuples can be counted in 32 bits, a step draws the tuple's rank (its offsets are the
  // rank's digits, subset_of_rank), otherwise the offsets themselves. The draws of
  // kSubsetChunk steps are made together (they share words, rng/bounded.hpp), so the batch
  // of a step depends on the stream only, not on how the caller asks for it. Large unranked
  // batches take a partial Fisher-Yates on order_ (b swaps) instead of the O(b^2) picks.
  draws_->subset.draw(stream_, offsets_.data());
  subset_step_ = 0;
  if (ranks_count_ > 0) return;  // the ranks, in offsets_[0..kSubsetChunk)
  for (int step = 0; step < kSubsetChunk; ++step) {
    const std::uint32_t* offset = offsets_.data() + static_cast<long>(step) * b_;
    int* out = subsets_.data() + static_cast<long>(step) * b_;
    if (b_ <= kSmallSubset) {
      pick_unpicked<kSmallSubset>(offset, b_, out);
    } else {
      for (int k = 0; k < b_; ++k) std::swap(order_[k], order_[k + static_cast<int>(offset[k])]);
      std::copy(order_.begin(), order_.begin() + b_, out);
    }
  }
}

}  // namespace rdpaudit::sim
