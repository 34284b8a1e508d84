// Counter-based random numbers: Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random
// numbers: as easy as 1, 2, 3", SC'11), written here because Boost 1.74 has no counter-based
// engine. A draw is a pure function of (key, counter), so every stream can be addressed by
// (seed, scenario, dataset, trajectory id, purpose) and results do not depend on how
// trajectories are split over threads or ranks.
#pragma once

#include <array>
#include <cstdint>
#include <limits>

namespace rdpaudit::rng {

using Counter = std::array<std::uint32_t, 4>;
using Key = std::array<std::uint32_t, 2>;

/// One Philox4x32 block with 10 rounds: the bijection counter -> 128 random bits under key.
inline Counter philox4x32_10(Counter ctr, Key key) {
  constexpr std::uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr std::uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = std::uint64_t{kMul0} * ctr[0];
    const std::uint64_t p1 = std::uint64_t{kMul1} * ctr[2];
    const auto hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
    const auto hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
    ctr = {hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0};
    key[0] += kWeyl0;
    key[1] += kWeyl1;
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
  Purpose purpose = Purpose::kTest;
};

/// A sequence of 64-bit random words: block i of the stream is Philox(counter = (i, tag,
/// trajectory_lo, trajectory_hi), key = seed). Models Boost's UniformRandomNumberGenerator,
/// so Boost.Random distributions can draw from it. 2^33 words per stream.
class Stream {
 public:
  using result_type = std::uint64_t;

  explicit Stream(const StreamId& id);

  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }

  result_type operator()() {
    if (next_ == 2) refill();
    return buffer_[next_++];
  }

  /// Uniform double in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>((*this)() >> 11) * 0x1.0p-53; }

  /// Uniform integer in [0, bound) without modulo bias (Lemire's method), bound > 0.
  std::uint64_t below(std::uint64_t bound);

  /// Standard normal N(0, 1).
  double normal();

 private:
  void refill();

  Counter counter_;
  Key key_;
  std::array<std::uint64_t, 2> buffer_{};
  int next_ = 2;
};

}  // namespace rdpaudit::rng
