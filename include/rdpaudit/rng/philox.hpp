// Counter-based random numbers: Philox2x64-10 (Salmon, Moraes, Dror, Shaw, "Parallel random
// numbers: as easy as 1, 2, 3", SC'11), written here because Boost 1.74 has no counter-based
// engine. A draw is a pure function of (key, counter), so every stream can be addressed by
// (seed, scenario, dataset, trajectory id, purpose) and results do not depend on how
// trajectories are split over threads or ranks. Layout and speed: docs/rng.md.
#pragma once

#include <array>
#include <cstdint>
#include <limits>

#include "rdpaudit/rng/ziggurat.hpp"

namespace rdpaudit::rng {

using Counter2x64 = std::array<std::uint64_t, 2>;

/// One Philox2x64 block with 10 rounds: the bijection counter -> 128 random bits under key.
inline Counter2x64 philox2x64_10(Counter2x64 ctr, std::uint64_t key) {
  __extension__ using Uint128 = unsigned __int128;
  constexpr std::uint64_t kMul = 0xD2B74407B1CE6E93u, kWeyl = 0x9E3779B97F4A7C15u;
  for (int round = 0; round < 10; ++round) {
    const Uint128 product = static_cast<Uint128>(kMul) * ctr[0];
    ctr = {static_cast<std::uint64_t>(product >> 64) ^ key ^ ctr[1],
           static_cast<std::uint64_t>(product)};
    key += kWeyl;
  }
  return ctr;
}

/// What a stream is used for. Each purpose gets independent numbers, so adding draws for
/// one purpose never shifts the numbers of another.
enum class Purpose : std::uint32_t {
  kInit = 1,   ///< initial parameters theta_0
  kBatch = 2,  ///< batch composition (permutations, subsets, Poisson inclusions)
  kNoise = 3,  ///< per-step Gaussian noise
  kPilot = 4,  ///< pilot run that places histogram bins (independent of the counted samples)
  kTest = 15,  ///< reserved for tests and benchmarks
};

/// Identifies one stream. Dataset 0 is D, 1 is D'.
struct StreamId {
  std::uint64_t seed = 0;
  std::uint32_t scenario = 0;  ///< < 2^20
  std::uint32_t dataset = 0;   ///< < 2^4
  std::uint64_t trajectory = 0;
  Purpose purpose = Purpose::kTest;  ///< < 2^4
};

/// A sequence of 64-bit random words: word 2b + e of the stream is element e of
/// philox2x64_10({tag << 36 | b, trajectory}, seed) with tag = purpose << 24 | dataset << 20 |
/// scenario, for blocks b < 2^36 (2^37 words per stream). Models Boost's
/// UniformRandomNumberGenerator, so Boost.Random distributions can draw from it.
class Stream {
 public:
  using result_type = std::uint64_t;

  /// Words in one stream; drawing more throws std::length_error.
  static constexpr std::uint64_t kWords = std::uint64_t{1} << 37;

  explicit Stream(const StreamId& id);

  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }

  result_type operator()() {
    if (next_ == kBufferWords) refill();
    return buffer_[next_++];
  }

  /// Uniform double in [0, 1) with 53 random bits.
  double uniform() {
    // Through int64: the value fits, and the signed conversion is one instruction on x86-64.
    return static_cast<double>(static_cast<std::int64_t>((*this)() >> 11)) * 0x1.0p-53;
  }

  /// Uniform integer in [0, bound) without modulo bias (Lemire's method), bound > 0.
  std::uint64_t below(std::uint64_t bound);

  /// Standard normal N(0, 1): 256-layer ziggurat (rdpaudit/rng/ziggurat.hpp). One word per
  /// normal on the fast path (98.5% of calls); the rest takes the wedge or tail path.
  double normal() {
    const result_type word = (*this)();
    if (detail::ziggurat_fast_accept(word)) {
      return detail::ziggurat_signed(detail::ziggurat_abscissa(word), word);
    }
    return normal_slow(word);
  }

  /// Index of the next word this stream returns (words drawn so far).
  std::uint64_t position() const { return 2 * block_ - (kBufferWords - next_); }

  /// Skips n words, as if n words had been drawn; throws std::length_error past kWords.
  void discard(std::uint64_t n);

 private:
  static constexpr unsigned kBlocksPerRefill = 8;  ///< blocks computed together (docs/rng.md)
  static constexpr unsigned kBufferWords = 2 * kBlocksPerRefill;

  void refill();
  double normal_slow(result_type word);
  double normal_tail();

  std::uint64_t tag_;         ///< high 28 bits of counter word 0, already shifted
  std::uint64_t trajectory_;  ///< counter word 1
  std::uint64_t key_;         ///< the seed
  std::uint64_t block_ = 0;   ///< first block of the next refill
  std::array<std::uint64_t, kBufferWords> buffer_{};
  unsigned next_ = kBufferWords;
};

}  // namespace rdpaudit::rng
