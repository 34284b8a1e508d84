#include "rdpaudit/rng/stream.hpp"

#include <cmath>
#include <stdexcept>

namespace rdpaudit::rng {

__extension__ using Uint128 = unsigned __int128;

namespace {
// Block index: the low 36 bits of counter word 0; the main sequence has the blocks below
// 2^35, the retry sequence the blocks from 2^35.
constexpr std::uint64_t kBlocks = Stream::kWords / 2;
}  // namespace

Stream::Stream(const StreamId& id) : trajectory_(id.trajectory), key_{id.seed, 0} {
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
    throw std::length_error("rng::Stream: stream exhausted (2^36 words)");
  }
  // Consecutive blocks in one call: their AES chains overlap in the CPU (docs/rng.md).
  // block_ + kBlocksPerRefill <= 2^35, so the counter word never reaches the retry blocks.
  ars_consecutive(tag_ | block_, trajectory_, key_, kBlocksPerRefill, buffer_.data());
  block_ += kBlocksPerRefill;
  next_ = 0;
}

void Stream::refill_retry() {
  if (retry_block_ == kBlocks) {
    throw std::length_error("rng::Stream: retry sequence exhausted (2^36 words)");
  }
  ars_consecutive(tag_ | (kBlocks + retry_block_), trajectory_, key_, kRetryBlocksPerRefill,
                  retry_.data());
  retry_block_ += kRetryBlocksPerRefill;
  retry_next_ = 0;
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

// The rare paths of the ziggurat (about 1% of normals), kept out of line so that the inline
// fast path stays small. A rejected candidate starts over with a fresh word (fresh layer and
// sign): reusing the layer would bias the layer choice.
double Stream::normal_slow(result_type word) {
  for (;;) {
    const auto layer = static_cast<unsigned>(word & detail::kZigLayerMask);
    const double x = detail::ziggurat_abscissa(word);
    if (detail::ziggurat_fast_accept(word)) return detail::ziggurat_signed(x, word);
    if (layer == 0) return detail::ziggurat_signed(normal_tail(), word);
    // Wedge: (x, y) is uniform on the rectangle's part right of X[layer + 1]; keep it if
    // it lies under f. (A squeeze that avoided most exp calls was 3 % slower per normal
    // than glibc's exp here, through its unpredictable branches.)
    const double y0 = detail::kZigY[layer], y1 = detail::kZigY[layer + 1];
    const double y = y0 + retry_uniform() * (y1 - y0);
    if (y < std::exp(-0.5 * x * x)) {
      return detail::ziggurat_signed(x, word);
    }
    word = retry_word();
  }
}

// Tail x > R of the half normal, exact: Marsaglia, "Generating a variable from the tail of
// the normal distribution", Technometrics 6 (1964). x = R + a with a ~ Exp(R), kept with
// probability exp(-a^2 / 2), tested as 2b > a^2 with b ~ Exp(1).
double Stream::normal_tail() {
  // Uniforms in (0, 1] so that the logarithms stay finite.
  const auto open_uniform = [this] {
    return static_cast<double>(static_cast<std::int64_t>(retry_word() >> 11) + 1) * 0x1.0p-53;
  };
  for (;;) {
    const double a = -std::log(open_uniform()) / detail::kZigR;
    const double b = -std::log(open_uniform());
    if (b + b > a * a) return detail::kZigR + a;
  }
}

}  // namespace rdpaudit::rng
