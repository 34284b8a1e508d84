// Several uniform integers from one 64-bit word, exactly: the batched ranged draws of
// Brackett-Rozinsky and Lemire, "Batched ranged random integer generation" (arXiv:2408.06213,
// 2024). For bounds b_1..b_k whose product P
// fits in 64 bits, multiplying a word x by b_1, keeping the high half as the first value and
// the low half for the next multiplication, and so on, yields the mixed-radix digits of
// floor(x P / 2^64), and the last low half is x P mod 2^64: Lemire's unbiased method for one
// integer below P ("Fast random integer generation in an interval", ACM TOMACS 2019) with the
// result written in digits. Rejecting x when x P mod 2^64 < 2^64 mod P makes every tuple of
// digits exactly equally likely.
#pragma once

#include <cstdint>
#include <vector>

#include "rdpaudit/rng/stream.hpp"

namespace rdpaudit::rng {

class BoundedDraws {
 public:
  /// bounds[k] >= 1 for every k.
  explicit BoundedDraws(const std::vector<std::uint64_t>& bounds);

  /// out[k] uniform in [0, bounds[k]), independent, for k < size(); consecutive bounds whose
  /// product fits in 64 bits share one word of the stream.
  void draw(Stream& stream, std::uint32_t* out) const {
    draw_to(stream, [out](int k, std::uint32_t value) { out[k] = value; });
  }

  /// draw() for callers that use each value at once: sink(k, value) for k = 0, 1, ...,
  /// size() - 1 in order, except that the calls of a rejected word are made again, for the
  /// same k, with the values of the next word: the last call for each k gives the value.
  template <class Sink>
  void draw_to(Stream& stream, Sink&& sink) const {
    const std::uint64_t* bounds = bounds_.data();
    for (const Group& g : groups_) {
      const int first = g.first, end = g.first + g.count;  // locals: the sink may alias nothing
      const std::uint64_t threshold = g.threshold;
      for (;;) {
        std::uint64_t x = stream();
        for (int k = first; k < end; ++k) {
          const Uint128 m = static_cast<Uint128>(x) * bounds[k];
          sink(k, static_cast<std::uint32_t>(m >> 64));
          x = static_cast<std::uint64_t>(m);
        }
        if (x >= threshold) break;  // probability of a retry: threshold / 2^64 < P / 2^64
      }
    }
  }

  int size() const { return static_cast<int>(bounds_.size()); }
  /// Words one draw takes when nothing is rejected.
  int words() const { return static_cast<int>(groups_.size()); }

 private:
  __extension__ using Uint128 = unsigned __int128;
  struct Group {
    int first, count;         ///< bounds_[first .. first + count)
    std::uint64_t threshold;  ///< 2^64 mod (product of the group's bounds)
  };
  std::vector<std::uint64_t> bounds_;
  std::vector<Group> groups_;
};

}  // namespace rdpaudit::rng
