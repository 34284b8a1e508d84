#include "rdpaudit/rng/philox.hpp"

#include <stdexcept>

namespace rdpaudit::rng {

__extension__ using Uint128 = unsigned __int128;

namespace {
constexpr std::uint64_t kBlocks = Stream::kWords / 2;  // block index: low 36 bits of counter 0
}  // namespace

Stream::Stream(const StreamId& id) : trajectory_(id.trajectory), key_(id.seed) {
  const auto purpose = static_cast<std::uint32_t>(id.purpose);
  if (id.scenario >= (1u << 20) || id.dataset >= 16u || purpose >= 16u) {
    throw std::out_of_range("rng::Stream: scenario, dataset or purpose out of the counter layout");
  }
  const std::uint64_t tag =
      (std::uint64_t{purpose} << 24) | (std::uint64_t{id.dataset} << 20) | id.scenario;
  tag_ = tag << 36;
}

void Stream::refill() {
  if (block_ == kBlocks) {
    // The next block index would carry into the tag, i.e. into another stream's counters.
    throw std::length_error("rng::Stream: stream exhausted (2^37 words)");
  }
  // Eight independent blocks: their ten-round multiply chains overlap in the CPU, which is
  // what makes a word cost about half of one block's latency (docs/rng.md).
  for (unsigned j = 0; j < kBlocksPerRefill; ++j) {
    const Counter2x64 out = philox2x64_10({tag_ | (block_ + j), trajectory_}, key_);
    buffer_[2 * j] = out[0];
    buffer_[2 * j + 1] = out[1];
  }
  block_ += kBlocksPerRefill;
  next_ = 0;
}

void Stream::discard(std::uint64_t n) {
  const std::uint64_t here = position();
  if (n > kWords - here) throw std::length_error("rng::Stream: discard past the stream's end");
  const std::uint64_t target = here + n;
  block_ = target / kBufferWords * kBlocksPerRefill;
  next_ = kBufferWords;
  if (target % kBufferWords != 0) {
    refill();
    next_ = static_cast<unsigned>(target % kBufferWords);
  }
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
