// Counter-based random streams: every draw is a pure function of (seed, scenario, dataset,
// trajectory id, purpose) and its position, computed by ARS-7 (rdpaudit/rng/ars.hpp), so
// results do not depend on how trajectories are split over threads or ranks. Layout, the
// choice of generator, and speed: docs/rng.md.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "rdpaudit/rng/ars.hpp"
#include "rdpaudit/rng/ziggurat.hpp"

namespace rdpaudit::rng {

/// Names what a seed produces: bumped whenever the draws of any stream, or how the simulator
/// turns them into batches and noise, change (1: Philox2x64-10; 2: ARS-7, 256-layer ziggurat;
/// 3: normals one word each with a retry sequence, 1024 layers, batch draws of interchangeable
/// records; 4: their sampling without replacement by base-256 digits; 5: their Poisson
/// sampling by the distinguished records' inclusions and a binomial count of the others; 6:
/// their random allocation by the distinguished records' steps and the others' counts, one
/// step's binomial at a time; 7: those counts a block of steps at a time, one binomial a block
/// and one 16-bit draw a record).
/// Written to every results file (`generator`), so two files say whether their numbers can be
/// compared draw for draw.
inline constexpr const char* kGenerator =
    "generator 7: ARS-7 counter-based streams; normals by a 1024-layer ziggurat, one word each, "
    "slow draws from the retry sequence; batches drawn for interchangeable records, their "
    "sampling without replacement by base-256 digits, their Poisson sampling by binomial counts "
    "of the others, their random allocation by the others' counts a block of steps at a time "
    "(docs/rng.md)";

/// What a stream is used for. Each purpose gets independent numbers, so adding draws for
/// one purpose never shifts the numbers of another.
enum class Purpose : std::uint32_t {
  kInit = 1,       ///< initial parameters theta_0
  kBatch = 2,      ///< batch composition (permutations, subsets, Poisson inclusions)
  kNoise = 3,      ///< per-step Gaussian noise
  kPilot = 4,      ///< pilot draws of tests that stand in for a simulator's pilot run
  kData = 5,       ///< generated data sets (data.seed: the logistic preset's points)
  kBootstrap = 6,  ///< the plug-in's bootstrap resamples (per scenario)
  kPatterns = 7,   ///< batch schedules sampled for the Rao-Blackwellised exact mixture
  kTest = 15,      ///< reserved for tests and benchmarks: never used by the tool itself
};

/// Dataset ids in the stream address: the counted trajectories of D and D', and the pilot
/// (selection phase) of each, whose own ids give numbers independent of every counted
/// trajectory; and the sampled evaluations of `rdpaudit search` (kSearchD, kSearchDPrime),
/// which `run` never draws, so the samples that certify a found adversary are independent of
/// the ones that chose it. Streams that belong to no dataset (data, bootstrap, patterns) use
/// kD (the search's bootstrap: kSearchD) and are told apart by their purpose.
enum Dataset : std::uint32_t {
  kD = 0,
  kDPrime = 1,
  kPilotD = 2,
  kPilotDPrime = 3,
  kSearchD = 4,
  kSearchDPrime = 5
};

/// Whether trajectories of `dataset` train on D' (else on D).
inline constexpr bool is_dprime(Dataset dataset) {
  return dataset == kDPrime || dataset == kPilotDPrime || dataset == kSearchDPrime;
}

/// Identifies one stream. Dataset 0 is D, 1 is D'.
struct StreamId {
  std::uint64_t seed = 0;
  std::uint32_t scenario = 0;  ///< < 2^20
  std::uint32_t dataset = 0;   ///< < 2^4
  std::uint64_t trajectory = 0;
  Purpose purpose = Purpose::kTest;  ///< < 2^4
};

/// A sequence of 64-bit random words: word 2b + e of the stream is 64-bit half e of
/// ars({tag << 36 | b, trajectory}, {seed, 0}) (ARS-7) with tag = purpose << 24 | dataset << 20 |
/// scenario, for blocks b < 2^35 (2^36 words per stream). Models Boost's
/// UniformRandomNumberGenerator, so Boost.Random distributions can draw from it.
///
/// Normals take one word each from that sequence; the ziggurat's slow path (0.43 % of draws)
/// takes its further words from a second sequence, the blocks 2^35 + b, in order. So normal
/// i always starts from word i, whatever the earlier draws needed, and a run of normals is
/// computed as one vector pass over the words with the few slow draws patched in after
/// (normals(); docs/rng.md).
class Stream {
 public:
  using result_type = std::uint64_t;

  /// Words in one stream's main sequence; drawing more throws std::length_error.
  static constexpr std::uint64_t kWords = std::uint64_t{1} << 36;

  explicit Stream(const StreamId& id);

  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }

  result_type operator()() {
    if (next_ == kBufferWords) refill();
    return buffer_[next_++];
  }

  /// The next n words, the same as n calls of operator(): a pointer into the buffer where
  /// they lie there in one run, else `scratch` (room for n words) filled with them. Valid
  /// until the next draw from this stream. (Callers load them as vectors straight from the
  /// buffer, without a copy through the stack.)
  const result_type* next_words(result_type* scratch, unsigned n) {
    if (kBufferWords - next_ >= n) {
      const result_type* run = buffer_.data() + next_;
      next_ += n;
      return run;
    }
    for (unsigned i = 0; i < n; ++i) scratch[i] = (*this)();
    return scratch;
  }

  /// Uniform double in [0, 1) with 53 random bits.
  double uniform() {
    // Through int64: the value fits, and the signed conversion is one instruction on x86-64.
    return static_cast<double>(static_cast<std::int64_t>((*this)() >> 11)) * 0x1.0p-53;
  }

  /// Uniform integer in [0, bound) without modulo bias (Lemire's method), bound > 0.
  std::uint64_t below(std::uint64_t bound);

  /// Standard normal N(0, 1): 1024-layer ziggurat (rdpaudit/rng/ziggurat.hpp). One word of
  /// the stream per normal; the 0.43% of draws that fail the fast test take the wedge or tail
  /// path with further words from the retry sequence.
  double normal() {
    const result_type word = (*this)();
    if (detail::ziggurat_fast_accept(word)) return detail::ziggurat_fast_value(word);
    return normal_slow(word);
  }

  /// out[0..n) = n successive normal() draws, the same numbers: the fast path of every
  /// buffered word at once (detail::ziggurat_fast_values, AVX2 where the CPU has it), then
  /// the slow path of the words that failed it, in order.
  void normals(double* out, std::size_t n) {
    std::size_t i = 0;
    while (i < n) {
      if (next_ == kBufferWords) refill();
      const auto count = static_cast<unsigned>(std::min<std::size_t>(n - i, kBufferWords - next_));
      const std::uint64_t* words = buffer_.data() + next_;
      // normal_slow draws from the retry sequence only, so `words` stays valid.
      for (std::uint64_t slow = detail::ziggurat_fast_values(words, count, out + i); slow != 0;
           slow &= slow - 1) {
        const auto k = static_cast<unsigned>(__builtin_ctzll(slow));
        out[i + k] = normal_slow(words[k]);
      }
      i += count;
      next_ += count;
    }
  }

  /// Index of the next word this stream returns (words drawn so far).
  std::uint64_t position() const { return 2 * block_ - (kBufferWords - next_); }

  /// Skips n words, as if n words had been drawn; throws std::length_error past kWords.
  void discard(std::uint64_t n);

 private:
  static constexpr unsigned kBlocksPerRefill = 32;  ///< blocks computed together (docs/rng.md)
  static constexpr unsigned kBufferWords = 2 * kBlocksPerRefill;

  static constexpr unsigned kRetryBlocksPerRefill = 4;
  static constexpr unsigned kRetryWords = 2 * kRetryBlocksPerRefill;

  void refill();
  void refill_retry();
  /// The next word of the retry sequence.
  result_type retry_word() {
    if (retry_next_ == kRetryWords) refill_retry();
    return retry_[retry_next_++];
  }
  double retry_uniform() {
    return static_cast<double>(static_cast<std::int64_t>(retry_word() >> 11)) * 0x1.0p-53;
  }
  double normal_slow(result_type word);
  double normal_tail();

  std::uint64_t tag_;         ///< high 28 bits of counter word 0, already shifted
  std::uint64_t trajectory_;  ///< counter word 1
  Block128 key_;              ///< {seed, 0}
  std::uint64_t block_ = 0;   ///< first block of the next refill
  std::array<std::uint64_t, kBufferWords> buffer_{};
  unsigned next_ = kBufferWords;
  std::uint64_t retry_block_ = 0;  ///< next block of the retry sequence, from 0 (block 2^35 + it)
  std::array<std::uint64_t, kRetryWords> retry_{};
  unsigned retry_next_ = kRetryWords;
};

}  // namespace rdpaudit::rng
