#include "rdpaudit/sim/batches.hpp"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace rdpaudit::sim {

using config::BatchScheme;

std::vector<int> fixed_order(const config::Scenario& s) {
  std::vector<int> order(s.n());
  std::iota(order.begin(), order.end(), 0);
  if (scheme_traits(s.scheme).differing_placed) {
    std::swap(order[s.data.differing_index],
              order[static_cast<long>(s.differing_batch) * s.batch_size]);
  }
  return order;
}

namespace {

// n, n - 1, ..., n - count + 1: offset k uniform in [0, n - k) picks the offset-th of what
// is left after k picks.
std::vector<std::uint64_t> falling_bounds(int n, int count) {
  std::vector<std::uint64_t> bounds;
  for (int k = 0; k < count; ++k) bounds.push_back(static_cast<std::uint64_t>(n - k));
  return bounds;
}

// The radices of a shuffle's draws: Fisher-Yates, j_i uniform in [0, i] for i = n-1..1
// (n > kMaskRecords); or, by rank among the records left (n <= kMaskRecords), pick k of the
// epoch's m b uniform in [0, n - k), those with one choice left (n - k = 1) not drawn; or,
// by_distinguished, the positions of the s distinguished records, position k uniform among
// the n - k positions left.
std::vector<std::uint64_t> shuffle_bounds(const config::Scenario& s, bool distinguished,
                                          int count) {
  std::vector<std::uint64_t> bounds;
  const int n = s.n();
  if (distinguished) return falling_bounds(n, count);
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

std::vector<std::uint64_t> subset_bounds(const config::Scenario& s, int chunk, bool distinguished) {
  std::vector<std::uint64_t> bounds;
  if (!scheme_traits(s.scheme).subset_each_step || distinguished) return bounds;
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

std::optional<std::vector<int>> distinguished_records(const double* x, const int* labels, int n,
                                                      int p) {
  const auto row_bytes = static_cast<std::size_t>(p) * sizeof(double);
  const auto same = [&](int i, int j) {  // bitwise: -0.0 and 0.0 differ, a NaN equals itself
    return std::memcmp(x + static_cast<long>(i) * p, x + static_cast<long>(j) * p, row_bytes) ==
               0 &&
           (labels == nullptr || labels[i] == labels[j]);
  };
  // If at most kMaxDistinguished records differ from some row, one of the first
  // kMaxDistinguished + 1 records is a copy of it: those are the candidates.
  std::optional<std::vector<int>> best;
  for (int c = 0; c < std::min(n, kMaxDistinguished + 1); ++c) {
    const int limit = best ? static_cast<int>(best->size()) - 1 : kMaxDistinguished;
    std::vector<int> others;
    for (int i = 0; i < n && static_cast<int>(others.size()) <= limit; ++i) {
      if (!same(i, c)) others.push_back(i);
    }
    if (static_cast<int>(others.size()) <= limit) best = std::move(others);
  }
  return best;
}

BatchDraws::BatchDraws(const config::Scenario& s) : BatchDraws(s, false, {}, false) {}

BatchDraws::BatchDraws(const config::Scenario& s, std::vector<int> records, bool others_inert)
    : BatchDraws(s, scheme_traits(s.scheme).by_distinguished, std::move(records), others_inert) {}

BatchDraws::BatchDraws(const config::Scenario& s, bool by, std::vector<int> dist, bool others_inert)
    : by_distinguished(by),
      distinguished(by ? std::move(dist) : std::vector<int>{}),
      shuffle(shuffle_bounds(s, by, static_cast<int>(distinguished.size()))),
      subset_keys(
          !scheme_traits(s.scheme).subset_each_step ? 0
          : by                                      ? std::uint32_t{1} << distinguished.size()
               : static_cast<std::uint32_t>(BatchSchedule::subset_ranks(s.n(), s.batch_size))),
      subset(subset_bounds(s, BatchSchedule::kSubsetChunk, by)) {
  if (!by) return;
  if (distinguished.size() > static_cast<std::size_t>(kMaxDistinguished) ||
      !std::is_sorted(distinguished.begin(), distinguished.end()) ||
      std::adjacent_find(distinguished.begin(), distinguished.end()) != distinguished.end() ||
      (!distinguished.empty() && (distinguished.front() < 0 || distinguished.back() >= s.n())))
    throw std::logic_error("BatchDraws: distinguished records not distinct, ascending, in range");
  for (int i = 0, k = 0; i < s.n(); ++i) {
    if (k < static_cast<int>(distinguished.size()) && distinguished[k] == i) {
      ++k;
    } else {
      background.push_back(i);
    }
  }
  // The background records are copies of one row: which of them join does not change the
  // batch's multiset of rows, only how many (Poisson: Binomial(n - s, q) in law; random
  // allocation: the counts of n - s balls in t bins).
  if (scheme_traits(s.scheme).counted) counted.others = !others_inert;
  if (scheme_traits(s.scheme).allocated && counted.others) {
    const long bins = std::min<long>(s.steps_per_epoch, BatchSchedule::kAllocationBlock);
    counted.log_keep.assign(static_cast<std::size_t>(bins) + 1, 0.0);
    for (long k = 2; k <= bins; ++k)
      counted.log_keep[static_cast<std::size_t>(k)] = std::log1p(-1.0 / static_cast<double>(k));
  }
  if (scheme_traits(s.scheme).poisson) {
    counted.poisson = boost::random::binomial_distribution<int, double>(
        static_cast<int>(background.size()), std::min(s.sampling_rate, 1.0));
  }
  if (!scheme_traits(s.scheme).subset_each_step) return;
  // One byte, the first digit of U, per draw of kSelectionRun steps (a multiple of 8).
  const int count = static_cast<int>(distinguished.size());
  selection.words = BatchSchedule::kSelectionRun * count / 8;
  selection.lefts = s.batch_size + 1;
  for (int j = 0; j < count; ++j) {
    for (int left = 0; left <= s.batch_size; ++left) {
      // left <= n - j in every reachable state: the digit is at most 256
      const std::int64_t digit = std::int64_t{256} * left / (s.n() - j);
      selection.digit.push_back(static_cast<std::uint16_t>(std::min<std::int64_t>(digit, 256)));
    }
  }
}

bool BatchDraws::subset_of_key(int n, int b, std::uint32_t key, int* out) const {
  if (!by_distinguished) {
    BatchSchedule::subset_of_rank(n, b, key, out);
    return true;
  }
  // More distinguished records than b, or too few to fill b with the background: no batch.
  const int chosen = __builtin_popcount(key);
  if (chosen > b || b - chosen > static_cast<int>(background.size())) return false;
  // The background records are copies of one row: which of them fill the batch does not
  // change its multiset of rows.
  int k = 0;
  for (std::size_t j = 0; j < distinguished.size(); ++j) {
    if (key >> j & 1) out[k++] = distinguished[j];
  }
  for (int i = 0; k < b; ++i) out[k++] = background[static_cast<std::size_t>(i)];
  return true;
}

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
      traits_(scheme_traits(s.scheme)),
      n_(s.n()),
      b_(s.batch_size),
      per_epoch_(s.steps_per_epoch),
      steps_(s.steps),
      q_(s.sampling_rate),
      log1m_q_(std::log1p(-s.sampling_rate)),
      inv_norm_(traits_.poisson ? 1.0 / (s.sampling_rate * s.n()) : 1.0 / s.batch_size),
      stream_(stream),
      fixed_order_(fixed),
      own_draws_(std::move(own)),
      draws_(shared != nullptr ? shared : own_draws_.get()),
      subset_keys_(draws_->subset_keys),
      // By distinguished records, a draw needs at most kSubsetChunk keys or s positions, and
      // order_ is filled only when asked for (build_order, counted_batch): a schedule's size,
      // and the cost of making one, do not grow with n.
      offsets_(static_cast<std::size_t>(
          draws_->by_distinguished
              ? kSubsetChunk * (1 + kMaxDistinguished)
              : std::max(
                    {s.n(), kSubsetChunk * std::max(s.batch_size, 1 + kMaxDistinguished), 1}))) {
  if (!draws_->by_distinguished) order_ = fixed;
  if (traits_.allocated && !draws_->by_distinguished) {
    allocation_start_.assign(static_cast<std::size_t>(per_epoch_) + 1, 0);
    allocation_step_.assign(static_cast<std::size_t>(n_), 0);
    allocation_cursor_.assign(static_cast<std::size_t>(per_epoch_), 0);
  }
  if (traits_.subset_each_step) {
    subsets_.resize(static_cast<std::size_t>(subset_keys_ > 0 ? 1 : kSubsetChunk) * b_);
    if (draws_->by_distinguished) run_keys_.resize(kSelectionRun);
  }
  restart();
}

void BatchSchedule::restart() {
  step_in_epoch_ = 0;
  generation_ = 0;
  stale_ = false;
  std::fill(std::begin(at_), std::end(at_), 0);
  std::fill(std::begin(at_record_), std::end(at_record_), 0);
  subset_step_ = kSubsetChunk;
  run_next_ = kSelectionRun;
  step_ = 0;
  block_next_ = block_len_ = 0;
  // By distinguished records, order_ is only written before it is read (build_order, the
  // Poisson batch): not reset, which would cost O(n) per trajectory.
  if (!draws_->by_distinguished) {
    order_.assign(fixed_order_.begin(), fixed_order_.end());  // keeps the capacity
    if (traits_.poisson) order_.resize(n_);
  }
  if (traits_.shuffled_once) shuffle();  // one partition for all epochs
}

bool BatchSchedule::is_partition() const {
  return traits_.partition;
}

void BatchSchedule::shuffle() {
  if (draws_->by_distinguished) {
    place_distinguished();
    return;
  }
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

void BatchSchedule::place_distinguished() {
  const std::vector<int>& dist = draws_->distinguished;
  const int s = static_cast<int>(dist.size());
  if (s == 0 && generation_ > 0) return;  // nothing to draw: the order never changes
  ++generation_;
  // A uniform order of the records puts the distinguished ones at a uniform ordered s-tuple
  // of distinct positions; as the other records are copies of one row, their order does not
  // change any batch's multiset of rows. Position k is the offset_k-th (ascending) of the
  // positions left, offset_k uniform in [0, n - k).
  draws_->shuffle.draw(stream_, offsets_.data());
  pick_unpicked<kMaxDistinguished>(offsets_.data(), s, at_);
  for (int k = 0; k < s; ++k) {  // insertion sort by position, carrying the records along
    const int pos = at_[k];
    int m = k;
    for (; m > 0 && at_[m - 1] > pos; --m) {
      at_[m] = at_[m - 1];
      at_record_[m] = at_record_[m - 1];
    }
    at_[m] = pos;
    at_record_[m] = dist[static_cast<std::size_t>(k)];
  }
  stale_ = true;
}

void BatchSchedule::build_order() const {
  const int s = distinguished_count();
  const int* background = draws_->background.data();
  if (order_.size() < static_cast<std::size_t>(n_)) order_.resize(static_cast<std::size_t>(n_));
  int* order = order_.data();
  int next = 0;  // next position to fill
  for (int k = 0; k <= s; ++k) {
    const int end = k < s ? at_[k] : n_;
    for (; next < end; ++next) *order++ = *background++;
    if (k < s) *order++ = at_record_[k];
    next = end + 1;
  }
  stale_ = false;
}

void BatchSchedule::start_epochs(BatchSchedule* schedules, int count) {
  if (count == 0 || !schedules[0].traits_.shuffled_each_epoch) return;
  const int n = schedules[0].n_;
  if (n > detail::kMaskRecords || !kFastPdep || schedules[0].draws_->by_distinguished) {
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

const int* BatchSchedule::counted_batch(std::uint32_t mask, int others, int& count) {
  // The background records first, so that a batch's record sum, formed in this order, is the
  // sum of `others` background rows and then the distinguished ones (the simulator's lanes
  // form it so from a table of the former).
  const std::vector<int>& background = draws_->background;
  if (order_.size() < static_cast<std::size_t>(n_)) order_.resize(static_cast<std::size_t>(n_));
  std::copy(background.begin(), background.begin() + others, order_.begin());
  count = others;
  const std::vector<int>& dist = draws_->distinguished;
  for (std::size_t j = 0; j < dist.size(); ++j) {
    if (mask >> j & 1) order_[static_cast<std::size_t>(count++)] = dist[j];
  }
  return order_.data();
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

namespace {

// The bytes of a stream's words, low byte first, a word drawn when the last is used up.
class StreamBytes {
 public:
  explicit StreamBytes(rng::Stream& stream) : stream_(stream) {}
  unsigned next() {
    if (left_ == 0) {
      word_ = stream_();
      left_ = 8;
    }
    const auto byte = static_cast<unsigned>(word_ & 0xFF);
    word_ >>= 8;
    --left_;
    return byte;
  }

 private:
  rng::Stream& stream_;
  std::uint64_t word_ = 0;
  int left_ = 0;
};

// Whether U < r / m (0 <= r < m) for U in [0, 1) whose first base-256 digit was
// `digit` = floor(256 r / m): then U' = 256 U - digit is uniform in [0, 1), and U < r / m iff
// U' < r' / m with r' = 256 r - digit m (< m). The further digits of U are the next bytes;
// the first that differs from the probability's digit decides (each ties with chance 1/256).
bool below_after_tied_digit(std::uint64_t r, std::uint64_t m, std::uint64_t digit,
                            StreamBytes& bytes) {
  for (;;) {
    r = 256 * r - digit * m;
    digit = 256 * r / m;
    const unsigned c = bytes.next();
    if (c != digit) return c < digit;
  }
}

}  // namespace

void BatchSchedule::draw_selection_keys() {
  if (run_next_ == kSelectionRun) {
    draw_selection_run();
    run_next_ = 0;
  }
  // offsets_[i] = run_keys_[run_next_ + i]: bytes widened to 32 bits, 16 at a time
  const __m128i zero = _mm_setzero_si128();
  for (int i = 0; i < kSubsetChunk; i += 16) {
    const __m128i k =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(run_keys_.data() + run_next_ + i));
    const __m128i lo = _mm_unpacklo_epi8(k, zero), hi = _mm_unpackhi_epi8(k, zero);
    auto* to = reinterpret_cast<__m128i*>(offsets_.data() + i);
    _mm_storeu_si128(to, _mm_unpacklo_epi16(lo, zero));
    _mm_storeu_si128(to + 1, _mm_unpackhi_epi16(lo, zero));
    _mm_storeu_si128(to + 2, _mm_unpacklo_epi16(hi, zero));
    _mm_storeu_si128(to + 3, _mm_unpackhi_epi16(hi, zero));
  }
  run_next_ += kSubsetChunk;
}

void BatchSchedule::draw_selection_run() {
  // Sequential selection (Knuth, TAOCP vol. 2, Algorithm 3.4.2 S) of a uniform b-subset of
  // n records, taking the s distinguished ones first: record j is in the batch with
  // probability left / (n - j), left = b - (chosen so far); the background records fill the
  // places left. The key of a step is the mask of the distinguished records chosen. Each
  // choice compares a uniform U with the probability digit by digit in base 256 (exact:
  // U < p iff at the first digit where they differ U's is the smaller): draw j of step i of
  // the run takes byte i s + j of the run's words as U's first digit; a draw whose first
  // digit ties (1/256) takes its further digits from the bytes of the words after them, the
  // tied draws in step order. So the numbers depend on the stream alone.
  const BatchDraws::Selection& sel = draws_->selection;
  const int s = distinguished_count();
  std::uint8_t* key = run_keys_.data();
  if (s == 0) {  // no distinguished record: every batch is background records
    std::fill(run_keys_.begin(), run_keys_.end(), std::uint8_t{0});
    return;
  }
  // The first digits are the bytes of the words as they lie in memory: byte k of the run is
  // bits 8 (k mod 8) .. 8 (k mod 8) + 7 of its word k / 8.
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "bytes of a word: low byte first");
  StreamBytes further(stream_);
  const auto n = static_cast<std::uint64_t>(n_);
  if (s == 1 && b_ < n_) {
    // One draw a step, probability b / n with first digit t < 256: in where the byte is
    // below t, a tie where it equals t, 16 steps at a time, loaded straight from the
    // stream's buffer (tied[g] bit i: step 16 g + i).
    const unsigned t = sel.digit[static_cast<std::size_t>(b_)];
    const __m128i digit = _mm_set1_epi8(static_cast<char>(t)), one = _mm_set1_epi8(1);
    std::uint64_t scratch[kSelectionRun / 8];
    const std::uint64_t* word = stream_.next_words(scratch, kSelectionRun / 8);
    std::uint32_t tied[kSelectionRun / 16];
    for (int g = 0; g < kSelectionRun / 16; ++g) {
      const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(word + 2 * g));
      const __m128i eq = _mm_cmpeq_epi8(c, digit);
      const __m128i at_most = _mm_cmpeq_epi8(_mm_min_epu8(c, digit), c);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(key + 16 * g),
                       _mm_and_si128(_mm_andnot_si128(eq, at_most), one));
      tied[g] = static_cast<std::uint32_t>(_mm_movemask_epi8(eq));
    }
    for (int g = 0; g < kSelectionRun / 16; ++g) {  // bytes equal to the digit: rare
      for (std::uint32_t m = tied[g]; m != 0; m &= m - 1) {
        key[16 * g + __builtin_ctz(m)] =
            below_after_tied_digit(static_cast<std::uint64_t>(b_), n, t, further) ? 1 : 0;
      }
    }
    return;
  }
  // Copied out: the ties' further words may refill the stream's buffer.
  std::uint64_t word[kSelectionRun * kMaxDistinguished / 8];
  for (int i = 0; i < sel.words; ++i) word[i] = stream_();
  const auto* first = reinterpret_cast<const unsigned char*>(word);
  for (int i = 0; i < kSelectionRun; ++i) {
    unsigned mask = 0;
    int left = b_;
    for (int j = 0; j < s; ++j) {
      const unsigned t = sel.digit[static_cast<std::size_t>(j * sel.lefts + left)];
      const unsigned c = first[i * s + j];
      const bool in = c != t
                          ? c < t
                          : below_after_tied_digit(static_cast<std::uint64_t>(left),
                                                   n - static_cast<std::uint64_t>(j), t, further);
      mask |= static_cast<unsigned>(in) << j;
      left -= in ? 1 : 0;
    }
    key[i] = static_cast<std::uint8_t>(mask);
  }
}

void BatchSchedule::draw_subsets() {
  // Each batch is a uniform ordered b-tuple of distinct records: offset k uniform in
  // [0, n - k) picks the offset-th record (in ascending order) not picked before. Where the
  // tuples can be counted in 32 bits, a step draws the tuple's rank (its offsets are the
  // rank's digits, subset_of_rank), otherwise the offsets themselves. The draws of
  // kSubsetChunk steps are made together (they share words, rng/bounded.hpp), so the batch
  // of a step depends on the stream only, not on how the caller asks for it. Large unranked
  // batches take a partial Fisher-Yates on order_ (b swaps) instead of the O(b^2) picks.
  subset_step_ = 0;
  if (draws_->by_distinguished) {
    draw_selection_keys();
    return;
  }
  draws_->subset.draw(stream_, offsets_.data());
  if (subset_keys_ > 0) return;  // the ranks, in offsets_[0..kSubsetChunk)
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
