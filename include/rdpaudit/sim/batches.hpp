// Mini-batch schedules of every scheme the sources use, drawn from a trajectory's own
// batch stream so the schedule is a pure function of (seed, scenario, dataset, trajectory).
#pragma once

#include <algorithm>
#include <boost/random/binomial_distribution.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/rng/bounded.hpp"
#include "rdpaudit/rng/stream.hpp"

namespace rdpaudit::sim {

/// How a batch scheme draws its batches, as the simulator's paths read it: one row per scheme
/// in scheme_traits, the draw itself in BatchSchedule::next (one case per scheme). The scheme's
/// name and steps per epoch are config's, the bounds it meets bounds'.
struct SchemeTraits {
  bool partition = false;         ///< an epoch's batches are consecutive blocks of one record order
  bool differing_placed = false;  ///< that order puts the differing record in batch j0
  bool shuffled_once = false;     ///< that order drawn once, for every epoch
  bool shuffled_each_epoch = false;  ///< that order drawn again at the start of every epoch
  bool subset_each_step = false;     ///< batch_size distinct records drawn afresh every step
  bool poisson = false;  ///< every record in every step's batch with probability q; sum / (q n)
  /// every record in one uniform step of each epoch of t steps (random allocation); sum / b
  bool allocated = false;
  /// Where all records but a few copy one row, may draw only those few records' positions
  /// or inclusions, and how many others join (BatchDraws::by_distinguished).
  bool by_distinguished = false;
  /// By_distinguished, a step's batch is a mask of the distinguished records and a count of
  /// background records (BatchSchedule::next_counted): the records' memberships are drawn
  /// step by step, not as positions in an order or a key of a subset; its size varies.
  bool counted = false;
};

constexpr SchemeTraits scheme_traits(config::BatchScheme scheme) {
  SchemeTraits t;
  switch (scheme) {
    case config::BatchScheme::kFixedOrder:
      t.partition = t.differing_placed = true;
      break;
    case config::BatchScheme::kShufflePartition:
      t.partition = t.shuffled_once = t.by_distinguished = true;
      break;
    case config::BatchScheme::kShuffleEachEpoch:
      t.partition = t.shuffled_each_epoch = t.by_distinguished = true;
      break;
    case config::BatchScheme::kSampleWithoutReplacement:
      t.subset_each_step = t.by_distinguished = true;
      break;
    case config::BatchScheme::kPoisson:
      t.poisson = t.by_distinguished = t.counted = true;
      break;
    case config::BatchScheme::kFullBatch:
      t.partition = true;
      break;
    case config::BatchScheme::kRandomAllocation:
      t.allocated = t.by_distinguished = t.counted = true;
      break;
  }
  return t;
}

namespace detail {
/// Shuffles of up to this many records keep the records not yet picked in one 64-bit mask.
constexpr int kMaskRecords = 64;
/// out[k] = the rank[k]-th (from 0, in ascending order) of the records 0..n-1 not among
/// out[0..k), for k < picks (rank[k] < n - k); then the records left, ascending, up to
/// out[n-1]. n <= kMaskRecords. With `pdep`, by the BMI2 instruction PDEP (the CPU must have
/// it); the same numbers either way.
void order_by_rank(int n, const std::uint32_t* rank, int picks, int* out, bool pdep);
/// Whether BatchSchedule takes order_by_rank's PDEP path on this CPU (BMI2, not microcoded).
bool order_by_rank_uses_pdep();
}  // namespace detail

/// Records that are bitwise copies of one row are interchangeable in a batch whose gradient
/// needs only the multiset of its rows (the sum-of-records losses): a schedule may then draw
/// only what the few other records do. At most this many such "distinguished" records.
constexpr int kMaxDistinguished = 8;

/// The records of a dataset (n rows of width p, row-major; labels, or null) whose row or
/// label differs, bitwise, from the background row: the row, with its label, that all but
/// the fewest records repeat (the first such record's). Ascending; nullopt when every row is
/// repeated by fewer than n - kMaxDistinguished records.
std::optional<std::vector<int>> distinguished_records(const double* x, const int* labels, int n,
                                                      int p);

/// The radices of the draws of one scenario's schedules: the same for every trajectory, so
/// that callers running many may build them once (BatchSchedule's second constructor).
struct BatchDraws {
  /// Every record is drawn (a uniform order, a uniform ordered b-tuple).
  explicit BatchDraws(const config::Scenario& s);
  /// The records not in `distinguished` (ascending, at most kMaxDistinguished) are copies
  /// of one background row: shuffle_partition, shuffle_each_epoch and
  /// sample_without_replacement draw only where the distinguished records go, Poisson and
  /// random allocation (the counted schemes) only the distinguished records' inclusions or
  /// steps and how many others join (by_distinguished); the other schemes draw as the first
  /// constructor. The batches then have the law of the full draws as multisets of rows only:
  /// for sum-of-records losses without a crafted record (counted schemes: with one, the
  /// crafted record among the distinguished; docs/rng.md, "Interchangeable records").
  /// `others_inert`: the background records add nothing to any gradient, whatever their
  /// number (the linear loss on rows of zeros), so the counted schemes do not draw how many
  /// join.
  BatchDraws(const config::Scenario& s, std::vector<int> distinguished, bool others_inert = false);

  bool by_distinguished;           ///< the draws of the second constructor
  std::vector<int> distinguished;  ///< by_distinguished: the distinguished records, ascending
  std::vector<int> background;     ///< by_distinguished: the other records, ascending
  /// BatchSchedule::shuffle(): the picks' ranks, or Fisher-Yates; by_distinguished, the
  /// ranks of the distinguished records' positions among the positions left
  rng::BoundedDraws shuffle;
  /// Sampling without replacement, where each step's batch is a key below this (0: none):
  /// the rank of its ordered b-tuple (subset_ranks), or, by_distinguished, the mask of the
  /// distinguished records it holds (2^s keys). subset_of_key gives the records.
  std::uint32_t subset_keys;
  /// kSubsetChunk steps' draws: ranks uniform in [0, subset_keys); or, when there are too
  /// many, offsets k uniform in [0, n - k), k < b. Empty by_distinguished (selection).
  rng::BoundedDraws subset;
  /// By_distinguished sampling without replacement: distinguished record j (< s) is in a
  /// step's batch iff U < left / (n - j), left = b - (records chosen before it), for U uniform
  /// in [0, 1) read in base 256 (sequential selection, BatchSchedule::draw_selection_run):
  /// the draw's first digit is its byte of the words of a run of kSelectionRun steps, and
  /// only where it equals the probability's first digit do further bytes, from the words
  /// after the run, decide.
  struct Selection {
    int words = 0;  ///< words of the first digits of kSelectionRun steps (s bytes a step)
    int lefts = 0;  ///< b + 1: the values of `left`
    /// floor(256 left / (n - j)) at [j lefts + left]: the probability's first digit (256
    /// where left = n - j, probability 1)
    std::vector<std::uint16_t> digit;
  } selection;
  /// The batch of key `key` (< subset_keys) into out[0..b): subset_of_rank's tuple, or the
  /// distinguished records of the mask (ascending) followed by the first background records.
  /// False, with nothing written, for a mask no batch has (more than b records, or fewer
  /// than b - (background records)).
  bool subset_of_key(int n, int b, std::uint32_t key, int* out) const;
  /// The counted schemes by distinguished records (BatchSchedule::next_counted); the batch
  /// is the step's count of background records (the first ones, ascending) followed by the
  /// distinguished ones it holds.
  /// Poisson: each step, distinguished record j is in the batch iff U_j < q (U_j =
  /// Stream::uniform(), j = 0, 1, ..., s - 1), then the number of background records that
  /// join is drawn from Binomial(n - s, q) (Boost's binomial_distribution: BTRD, inversion
  /// below mean 11) unless they are inert. q >= 1: every record, nothing drawn.
  /// Random allocation: at the first step of each epoch of t steps, distinguished record
  /// j = 0, 1, ..., s - 1 draws its step Stream::below(t); then the background counts of the
  /// epoch's steps, Multinomial(n - s; 1/t, ..., 1/t), are drawn a block of steps at a time
  /// (BatchSchedule::draw_allocation_block): a block of c steps, c = min(kAllocationBlock,
  /// steps left in the epoch, steps left in the trajectory), takes K ~ Binomial(m, c/L) of the
  /// m background records not yet placed in the epoch (L its steps left; K = m where the block
  /// ends the epoch), then puts each of the K records in one of the block's c steps, uniformly
  /// (16 bits of a word each, Lemire's rejection), or, where K > kBallsPerStep c, draws the
  /// block's counts as sequential binomials Binomial(k, 1/(c - i)) (BatchSchedule::
  /// binomial_count). Unless they are inert: then nothing but the s steps is drawn.
  struct Counted {
    bool others = false;  ///< the background count is drawn (not inert)
    /// Poisson's Binomial(n - s, q)
    boost::random::binomial_distribution<int, double> poisson;
    /// Random allocation, others drawn: log(1 - 1/k) at [k] for k = 2 .. min(t,
    /// kAllocationBlock) (steps left in a block)
    std::vector<double> log_keep;
  } counted;
  /// Binomial means below this are drawn by inversion (BatchSchedule::binomial_count), as
  /// Boost's binomial_distribution draws them.
  static constexpr double kInversionMean = 11.0;

 private:
  BatchDraws(const config::Scenario& s, bool by_distinguished, std::vector<int> distinguished,
             bool others_inert);
};

class BatchSchedule {
 public:
  /// `fixed_order` is the record order of the fixed-order scheme (shared, read-only).
  BatchSchedule(const config::Scenario& s, const std::vector<int>& fixed_order,
                rng::Stream& stream);
  /// The same schedule, with the draws' radices of the scenario built by the caller
  /// (`draws`, shared, read-only, must outlive the schedule).
  BatchSchedule(const config::Scenario& s, const std::vector<int>& fixed_order,
                const BatchDraws& draws, rng::Stream& stream);

  /// Indices of the batch of the next step (steps 0, 1, 2, ... in order); valid until the
  /// next call.
  const int* next(int& count);
  /// By_distinguished counted schemes (BatchDraws::Counted): the next step's batch as the
  /// mask of the distinguished records in it (bit j: BatchDraws::distinguished[j]) and, in
  /// `others`, how many background records join (0 where they are inert). next() returns the
  /// same batch as record indices (the background ones first).
  std::uint32_t next_counted(int& others);
  /// next_counted() for the next `len` steps: masks[i] and others[i] as its calls give them,
  /// the same draws (random allocation fills them a block at a time).
  void next_counted_run(int len, std::uint32_t* masks, int* others);
  /// next() of the sampling-without-replacement scheme (count = batch_size()), for callers
  /// that know the scheme and want it inlined.
  const int* next_subset();
  /// Sampling without replacement when BatchDraws::subset_keys > 0: the key of the next
  /// step's batch, whose records are BatchDraws::subset_of_key(n, b, key) (next_subset()
  /// returns them). Callers that keep a table of per-batch quantities by key read it instead.
  std::uint32_t next_subset_key();
  /// Sampling without replacement draws the batches of this many steps at once (their ranks,
  /// or offsets, share words: 5 steps per word at n = 50, b = 2, instead of one word per step).
  static constexpr int kSubsetChunk = 32;
  /// By_distinguished sampling without replacement draws the keys of this many steps at
  /// once (one byte a draw, BatchDraws::Selection), kSubsetChunk of them handed out at a time.
  static constexpr int kSelectionRun = 256;
  /// Random allocation by distinguished records draws the background counts of up to this
  /// many steps at once (BatchDraws::Counted), with one binomial for the block (none where it
  /// ends the epoch) and one 16-bit draw per record where there are at most kBallsPerStep
  /// records a step.
  static constexpr int kAllocationBlock = 64;
  static constexpr int kBallsPerStep = 16;
  /// The keys of the next kSubsetChunk batches, as kSubsetChunk next_subset_key() calls
  /// would give them, for callers that draw in chunks: calls f(i, key) for batch i =
  /// 0, 1, ..., kSubsetChunk - 1 in order, where a call may be repeated for the same i with
  /// another key (a rejected word, rng/bounded.hpp): the last call for each i counts. Only at
  /// a chunk boundary (steps 0, kSubsetChunk, 2 kSubsetChunk, ... of the trajectory).
  template <class F>
  void next_subset_keys(F&& f) {
    if (!draws_->by_distinguished) {
      draws_->subset.draw_to(stream_, f);  // the keys are the ranks drawn
      return;
    }
    draw_subsets();  // a key needs all s draws of its step
    for (int i = 0; i < kSubsetChunk; ++i) f(i, offsets_[static_cast<std::size_t>(i)]);
    subset_step_ = kSubsetChunk;
  }
  /// Ordered b-tuples of distinct records, n (n-1) ... (n-b+1), when that is below 2^32 (the
  /// batches are then drawn by rank); 0 otherwise.
  static std::uint64_t subset_ranks(int n, int b);
  /// The batch of rank `rank` (< subset_ranks(n, b)) into out[0..b): offset k, digit k of the
  /// rank in the mixed radix (n, n-1, ..., n-b+1) (most significant first), picks the
  /// offset-th record, in ascending order, of those not picked before.
  static void subset_of_rank(int n, int b, std::uint32_t rank, int* out);
  bool samples_without_replacement() const { return traits_.subset_each_step; }

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
    if (traits_.shuffled_each_epoch) shuffle();
  }
  /// start_epoch() of schedules[0..count) (of one scenario), the same draws; faster than
  /// one after the other (their shuffles are interleaved).
  static void start_epochs(BatchSchedule* schedules, int count);
  /// Batch j (< batches_per_epoch()) of the current partition, batch_size() records.
  const int* batch_at(long j) const {
    if (stale_) build_order();
    return order_.data() + j * b_;
  }
  /// BatchDraws::by_distinguished partitions: the positions in the current order (ascending;
  /// batch position / b, or none from m b on) of the distinguished records, and the records
  /// there, distinguished_count() of each. Callers that know every other record to be a copy
  /// of one row may form batch sums from them instead of batch_at().
  bool by_distinguished() const { return draws_->by_distinguished; }
  int distinguished_count() const { return static_cast<int>(draws_->distinguished.size()); }
  /// Starts the schedule again as if constructed now, from the stream's current state (the
  /// caller gives the stream object a new StreamId first): the same draws as a new schedule,
  /// without allocating (the simulator reuses one schedule per lane).
  void restart();
  const int* distinguished_positions() const { return at_; }
  const int* distinguished_at_positions() const { return at_record_; }
  int batch_size() const { return b_; }

 private:
  BatchSchedule(const config::Scenario& s, const std::vector<int>& fixed_order,
                std::unique_ptr<const BatchDraws> own, const BatchDraws* shared,
                rng::Stream& stream);
  /// Subsets up to this size are picked by counting earlier picks (pick_unpicked), larger ones
  /// by a partial Fisher-Yates; every ranked subset (subset_ranks() > 0) is this small.
  static constexpr int kSmallSubset = 12;
  void shuffle();
  /// shuffle() by_distinguished: the distinguished records at a uniform ordered tuple of
  /// distinct positions (at_, at_record_); the order is built when asked for (build_order).
  void place_distinguished();
  /// order_ from at_ and at_record_: the background records, ascending, in the other places.
  void build_order() const;
  /// By_distinguished sampling without replacement: the keys of the next kSubsetChunk steps
  /// into offsets_[0 .. kSubsetChunk), from the run of kSelectionRun steps' keys.
  void draw_selection_keys();
  /// The keys of the next kSelectionRun steps into run_keys_ (BatchDraws::Selection).
  void draw_selection_run();
  /// The next kSubsetChunk keys into offsets_, or (no keys) batches into subsets_.
  void draw_subsets();
  /// Random allocation, at the start of every epoch: record i = 0, 1, ..., n - 1 goes to step
  /// Stream::below(t); order_ holds the records by step (ascending within a step), step j's
  /// from allocation_start_[j] to allocation_start_[j + 1].
  void allocate();
  /// next_counted() of random allocation, for step j of the epoch.
  std::uint32_t allocated_step(long j, int& others);
  /// Random allocation by distinguished records, counted others: the background counts of
  /// the block of steps starting at step j of the epoch into block_counts_ (BatchDraws::
  /// Counted).
  void draw_allocation_block(long j);
  /// k records each into one of c steps, uniformly (c <= kAllocationBlock): their counts
  /// added to count[0 .. c).
  void throw_balls(int k, int c, int* count);
  /// Binomial(m, 1/bins), 2 <= bins <= kAllocationBlock: inversion below kInversionMean,
  /// Boost's sampler otherwise.
  int binomial_count(int m, long bins);
  /// next() of the by_distinguished counted schemes: the batch of mask and others (as
  /// next_counted gives them) as record indices in order_.
  const int* counted_batch(std::uint32_t mask, int others, int& count);

  config::BatchScheme scheme_;
  SchemeTraits traits_;
  int n_, b_;
  long per_epoch_;
  long steps_;  ///< T, the trajectory's steps
  long step_in_epoch_ = 0;
  std::uint32_t generation_ = 0;
  double q_, log1m_q_, inv_norm_;
  rng::Stream& stream_;
  const std::vector<int>& fixed_order_;
  /// Permutation / working array of this trajectory; by_distinguished, built from at_ and
  /// at_record_ when first asked for after a shuffle (stale_ until then: const readers of
  /// one schedule are one trajectory's, on one thread).
  mutable std::vector<int> order_;
  mutable bool stale_ = false;
  int at_[kMaxDistinguished] = {}, at_record_[kMaxDistinguished] = {};
  std::unique_ptr<const BatchDraws> own_draws_;  ///< first constructor
  const BatchDraws* draws_;
  std::uint32_t subset_keys_;           ///< draws_->subset_keys
  std::vector<std::uint32_t> offsets_;  ///< the draws of draws_->shuffle or draws_->subset; keys
  std::vector<int> subsets_;            ///< unranked: kSubsetChunk batches of b, step-major
  int subset_step_ = kSubsetChunk;      ///< next step of the chunk (kSubsetChunk: draw more)
  /// By_distinguished sampling without replacement: the keys of a run of steps (kSelectionRun
  /// of them; empty for other schemes, whose schedules stay small), the next at run_next_
  /// (kSelectionRun: draw the next run)
  std::vector<std::uint8_t> run_keys_;
  /// Random allocation: each step's first position in order_ (t + 1 entries), and each
  /// record's step in the epoch (n entries), each step's next free slot (t entries); empty
  /// for other schemes
  std::vector<int> allocation_start_, allocation_step_, allocation_cursor_;
  /// Random allocation by distinguished records: each distinguished record's step in the
  /// epoch, and the background records not yet placed in it
  int allocated_at_[kMaxDistinguished] = {};
  int others_left_ = 0;
  /// Random allocation, counted others: the trajectory's step, and the current block's
  /// background counts, the next at block_next_ (block_len_: draw a block)
  long step_ = 0;
  int block_next_ = 0, block_len_ = 0;
  int block_counts_[kAllocationBlock] = {};
  int run_next_ = kSelectionRun;
};

// Sampling without replacement, the batch of the next step (batch_size() records).
inline const int* BatchSchedule::next_subset() {
  if (subset_keys_ > 0) {
    int* out = subsets_.data();
    draws_->subset_of_key(n_, b_, next_subset_key(), out);
    return out;
  }
  if (subset_step_ == kSubsetChunk) draw_subsets();
  return subsets_.data() + static_cast<long>(subset_step_++) * b_;
}

inline std::uint32_t BatchSchedule::next_counted(int& others) {
  if (traits_.allocated) {
    const long j = step_in_epoch_;
    if (++step_in_epoch_ == per_epoch_) step_in_epoch_ = 0;
    return allocated_step(j, others);
  }
  const int s = distinguished_count();
  if (q_ >= 1.0) {  // every record, nothing drawn
    others = draws_->counted.others ? n_ - s : 0;
    return (std::uint32_t{1} << s) - 1;
  }
  std::uint32_t mask = 0;
  for (int j = 0; j < s; ++j) mask |= static_cast<std::uint32_t>(stream_.uniform() < q_) << j;
  others = draws_->counted.others ? draws_->counted.poisson(stream_) : 0;
  return mask;
}

inline std::uint32_t BatchSchedule::allocated_step(long j, int& others) {
  const int s = distinguished_count();
  if (j == 0) {  // a new epoch: the distinguished records' steps, every background one unplaced
    for (int k = 0; k < s; ++k)
      allocated_at_[k] = static_cast<int>(stream_.below(static_cast<std::uint64_t>(per_epoch_)));
    others_left_ = n_ - s;
  }
  std::uint32_t mask = 0;
  for (int k = 0; k < s; ++k) mask |= static_cast<std::uint32_t>(allocated_at_[k] == j) << k;
  others = 0;
  if (draws_->counted.others) {
    // A block never spans two epochs: at j = 0 the last one is used up.
    if (block_next_ == block_len_) draw_allocation_block(j);
    others = block_counts_[block_next_++];
  }
  ++step_;
  return mask;
}

inline std::uint32_t BatchSchedule::next_subset_key() {
  if (subset_step_ == kSubsetChunk) draw_subsets();
  return offsets_[static_cast<std::size_t>(subset_step_++)];
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
      return batch_at(j);
    case config::BatchScheme::kShuffleEachEpoch:
      if (j == 0) shuffle();
      count = b_;
      return batch_at(j);
    case config::BatchScheme::kSampleWithoutReplacement:
      count = b_;
      return next_subset();
    case config::BatchScheme::kPoisson: {
      if (draws_->by_distinguished) {
        int others = 0;
        const std::uint32_t mask = next_counted(others);
        return counted_batch(mask, others, count);
      }
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
    case config::BatchScheme::kRandomAllocation: {
      if (draws_->by_distinguished) {
        int others = 0;
        const std::uint32_t mask = allocated_step(j, others);
        return counted_batch(mask, others, count);
      }
      if (j == 0) allocate();
      const int begin = allocation_start_[static_cast<std::size_t>(j)];
      count = allocation_start_[static_cast<std::size_t>(j) + 1] - begin;
      return order_.data() + begin;
    }
  }
  count = 0;
  return order_.data();
}

/// The fixed-order scheme's record order: records in index order, with the differing record
/// swapped into the first slot of batch j0.
std::vector<int> fixed_order(const config::Scenario& s);

}  // namespace rdpaudit::sim
