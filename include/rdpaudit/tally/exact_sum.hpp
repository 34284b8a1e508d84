// An exact sum of doubles: the moment sums of the tallies add up to the same bits whatever
// the order of the additions, the split of the trajectories into threads, ranks, parts,
// looks or checkpoint slabs. (Floating-point addition is not associative: a double
// accumulator gives numbers that depend on the order; this one gives none.)
//
// Every finite double is m 2^(e - 1074) with an integer m < 2^53 and 0 <= e <= 2045 (IEEE
// binary64, subnormals included), so a sum of doubles is an integer multiple of 2^-1074. It
// is kept as signed 32-bit digits in int64 limbs: an addition adds m shifted into three
// limbs, carries are propagated every 2^29 additions (each limb stays far from overflow) and
// before any read. The canonical form (every limb but the top one in [0, 2^32)) is unique, so
// value() — a fixed function of it — is the same for any order of the same additions.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace rdpaudit::tally {

class ExactSum {
 public:
  static constexpr int kLimbs = 68;  ///< 2046 + 53 bits of position, carries, and a sign

  /// Adds a finite x (non-finite values are a caller's error: std::invalid_argument).
  void add(double x);
  void merge(const ExactSum& other);
  /// The sum as a double (the limbs summed from the top: accurate to a few units in the last
  /// place), the same bits for any order of the same additions.
  double value() const;

  /// The canonical limbs (kLimbs values), for serialisation; from_limbs inverts it.
  std::vector<std::int64_t> limbs() const;
  static ExactSum from_limbs(const std::int64_t* limbs);

  bool operator==(const ExactSum& other) const { return limbs() == other.limbs(); }

 private:
  void normalize();
  std::array<std::int64_t, kLimbs> limb_{};
  std::int32_t pending_ = 0;  ///< additions since the last carry propagation
};

}  // namespace rdpaudit::tally
