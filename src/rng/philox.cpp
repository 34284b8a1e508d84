#include "rdpaudit/rng/philox.hpp"

#include <boost/random/normal_distribution.hpp>
#include <stdexcept>

namespace rdpaudit::rng {

__extension__ using Uint128 = unsigned __int128;

Stream::Stream(const StreamId& id) {
  if (id.scenario >= (1u << 20) || id.dataset >= 16u) {
    throw std::out_of_range("rng::Stream: scenario index or dataset out of the counter layout");
  }
  const std::uint32_t tag =
      (static_cast<std::uint32_t>(id.purpose) << 28) | (id.dataset << 24) | id.scenario;
  counter_ = {0u, tag, static_cast<std::uint32_t>(id.trajectory),
              static_cast<std::uint32_t>(id.trajectory >> 32)};
  key_ = {static_cast<std::uint32_t>(id.seed), static_cast<std::uint32_t>(id.seed >> 32)};
}

void Stream::refill() {
  if (counter_[0] == 0xFFFFFFFFu) {
    // 2^33 words drawn: the next block would repeat the stream of another purpose slot.
    throw std::length_error("rng::Stream: stream exhausted (2^33 words)");
  }
  const Counter out = philox4x32_10(counter_, key_);
  ++counter_[0];
  buffer_[0] = (std::uint64_t{out[1]} << 32) | out[0];
  buffer_[1] = (std::uint64_t{out[3]} << 32) | out[2];
  next_ = 0;
}

std::uint64_t Stream::below(std::uint64_t bound) {
  // Lemire, "Fast random integer generation in an interval", ACM TOMACS 2019.
  Uint128 m = static_cast<Uint128>((*this)()) * bound;
  auto low = static_cast<std::uint64_t>(m);
  if (low < bound) {
    const std::uint64_t threshold = (0 - bound) % bound;
    while (low < threshold) {
      m = static_cast<Uint128>((*this)()) * bound;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

}  // namespace rdpaudit::rng

namespace rdpaudit::rng {
double Stream::normal() {
  return boost::random::normal_distribution<double>{}(*this);
}
}  // namespace rdpaudit::rng
