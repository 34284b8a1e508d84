// Checks the ziggurat tables of rdpaudit/rng/ziggurat.hpp against their definition, using
// only <cmath>: the literals were computed elsewhere (mpmath), so this is an independent check.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <vector>

#include "rdpaudit/rng/stream.hpp"
#include "rdpaudit/rng/ziggurat.hpp"

using namespace rdpaudit::rng::detail;

namespace {
double f(double x) {
  return std::exp(-0.5 * x * x);
}
}  // namespace

TEST_CASE("Ziggurat tables have the documented shape", "[rng][ziggurat]") {
  CHECK(kZigX[1] == kZigR);
  CHECK(kZigX[kZigLayers] == 0.0);
  CHECK(kZigY[0] == 0.0);
  CHECK(kZigY[kZigLayers] == 1.0);
  for (int i = 0; i < kZigLayers; ++i) REQUIRE(kZigX[i] > kZigX[i + 1]);
  // Y[i] = f(X[i]) up to rounding: the literal X[i] is off by up to 2^-53 relative, which
  // moves f(X[i]) by X[i]^2 2^-53 relative (df / f = -x dx); exp and the literal Y[i] add an
  // ulp each. (A mistyped literal is off by far more.)
  for (int i = 1; i < kZigLayers; ++i) {
    INFO("layer " << i);
    const double rounding = (kZigX[i] * kZigX[i] + 4.0) * 0x1.0p-53;
    REQUIRE(kZigY[i] == Approx(f(kZigX[i])).epsilon(rounding));
  }
}

TEST_CASE("Every ziggurat layer has the area V and V includes the tail", "[rng][ziggurat]") {
  const double tail = std::sqrt(2 * std::atan(1.0)) * std::erfc(kZigR / std::sqrt(2.0));
  CHECK(kZigV == Approx(kZigR * f(kZigR) + tail).epsilon(1e-14));
  CHECK(kZigX[0] * kZigY[1] == Approx(kZigV).epsilon(1e-14));
  // Y[i+1] - Y[i] loses up to ~10 bits to cancellation in the top layers, hence 1e-11: a wrong
  // layer (a typo in one literal) would be off by far more.
  for (int i = 1; i < kZigLayers; ++i) {
    INFO("layer " << i);
    REQUIRE(kZigX[i] * (kZigY[i + 1] - kZigY[i]) == Approx(kZigV).epsilon(1e-11));
  }
}

TEST_CASE("The integer fast-path test decides exactly as the floating-point edge test",
          "[rng][ziggurat]") {
  constexpr std::uint64_t kOne = std::uint64_t{1} << 53;
  double accepted = 0;
  for (int i = 0; i < kZigLayers; ++i) {
    INFO("layer " << i);
    const ZigLayer& layer = kZigLayer[i];
    REQUIRE(layer.scale == std::ldexp(kZigX[i], -53));
    REQUIRE(layer.accept <= kOne);
    if (layer.accept > 0) {
      REQUIRE(static_cast<double>(layer.accept - 1) * layer.scale < kZigX[i + 1]);
    }
    if (layer.accept < kOne)
      REQUIRE(static_cast<double>(layer.accept) * layer.scale >= kZigX[i + 1]);
    accepted += std::ldexp(static_cast<double>(layer.accept), -53) / kZigLayers;
  }
  // With 1024 layers 99.57% of candidates take the fast path (mean of X[i+1] / X[i], mpmath:
  // 0.99572343331).
  CHECK(accepted == Approx(0.99572343).margin(1e-7));
  CHECK(accepted < 1.0);
}

TEST_CASE("The ziggurat splits its word into disjoint layer and sign and uniform bits",
          "[rng][ziggurat]") {
  CHECK(kZigLayers == 1024);
  CHECK(ziggurat_signed(1.5, 0x400) == -1.5);
  CHECK(ziggurat_signed(1.5, ~std::uint64_t{0x400}) == 1.5);
  CHECK(ziggurat_signed(1.5, 0x3FF) == 1.5);  // the layer bits are not the sign
  // Layer 1023 (the top, pure wedge) never takes the fast path; u = 0 in layer 3 always does.
  CHECK_FALSE(ziggurat_fast_accept(0x3FF));
  CHECK(ziggurat_fast_accept(0x7FF & ~std::uint64_t{0x3FC}));
  CHECK(ziggurat_abscissa(~std::uint64_t{0} & ~std::uint64_t{0x3FF}) ==
        Approx(kZigX[0]).epsilon(1e-15));
  CHECK(ziggurat_abscissa(0x7FF) == 0.0);  // bits 0-10 do not reach u
}

TEST_CASE("The signed table gives the fast path's value with its sign, bit for bit",
          "[rng][ziggurat]") {
  rdpaudit::rng::Stream stream({2, 0, 0, 9, rdpaudit::rng::Purpose::kTest});
  std::vector<std::uint64_t> words;
  for (int i = 0; i < 200000; ++i) words.push_back(stream());
  for (std::uint64_t low = 0; low < 2048; ++low) {
    words.push_back(low);                              // u = 0: +0.0 or -0.0
    words.push_back(low | (~std::uint64_t{0} << 11));  // the largest u
  }
  for (std::uint64_t word : words) {
    const double want = ziggurat_signed(ziggurat_abscissa(word), word);
    const double got = ziggurat_fast_value(word);
    INFO("word " << word);
    REQUIRE(std::signbit(got) == std::signbit(want));
    REQUIRE(got == want);
    REQUIRE(kZigSignedLayer[word & 0x7FF].accept == kZigLayer[word & 0x3FF].accept);
  }
}

namespace {
// The retry sequence of a stream as docs/rng.md lays it out: word 2b + e is half e of ARS-7 at
// block 2^35 + b of the stream's counter space, computed here from the layout's formula.
class RetryWords {
 public:
  explicit RetryWords(const rdpaudit::rng::StreamId& id)
      : tag_((std::uint64_t{static_cast<std::uint32_t>(id.purpose)} << 24) |
             (std::uint64_t{id.dataset} << 20) | id.scenario),
        id_(id) {}
  std::uint64_t operator()() {
    const auto block = rdpaudit::rng::detail::ars_portable(
        {tag_ << 36 | ((std::uint64_t{1} << 35) + next_ / 2), id_.trajectory}, {id_.seed, 0},
        rdpaudit::rng::kArsRounds);
    return block[next_++ % 2];
  }

 private:
  std::uint64_t tag_;
  rdpaudit::rng::StreamId id_;
  std::uint64_t next_ = 0;
};

// Stream::normal() written out from the layout: the first word of each normal from the
// stream, every further word from its retry sequence (the tail draws two open uniforms per
// try, as Stream::normal_tail does).
double normal_always_exp(rdpaudit::rng::Stream& s, RetryWords& retry) {
  std::uint64_t word = s();
  for (;;) {
    const auto layer = static_cast<int>(word & 0x3FF);
    const double x = ziggurat_abscissa(word);
    if (ziggurat_fast_accept(word)) return ziggurat_signed(x, word);
    if (layer == 0) {
      for (;;) {
        const double u1 =
            static_cast<double>(static_cast<std::int64_t>(retry() >> 11) + 1) * 0x1.0p-53;
        const double u2 =
            static_cast<double>(static_cast<std::int64_t>(retry() >> 11) + 1) * 0x1.0p-53;
        const double t = -std::log(u1) / kZigR, e = -std::log(u2);
        if (e + e > t * t) return ziggurat_signed(kZigR + t, word);
      }
    }
    const double u = static_cast<double>(static_cast<std::int64_t>(retry() >> 11)) * 0x1.0p-53;
    const double y = kZigY[layer] + u * (kZigY[layer + 1] - kZigY[layer]);
    if (y < std::exp(-0.5 * x * x)) return ziggurat_signed(x, word);
    word = retry();
  }
}
}  // namespace

TEST_CASE("normal() and normals() give the draws of the sampler written out from the layout",
          "[rng][ziggurat]") {
  using rdpaudit::rng::Purpose;
  using rdpaudit::rng::Stream;
  using rdpaudit::rng::StreamId;
  // 2e6 draws: about 8 500 slow draws, 110 of them in the tail, so every path is exercised.
  constexpr std::size_t kDraws = 2000000;
  const StreamId id{31, 2, 1, 5, Purpose::kTest};
  Stream reference(id);
  RetryWords retry(id);
  Stream one(StreamId{31, 2, 1, 5, Purpose::kTest});
  Stream bulk(StreamId{31, 2, 1, 5, Purpose::kTest});
  std::vector<double> many(kDraws);
  // Uneven pieces, so that pieces end inside the word buffer and at slow draws.
  for (std::size_t done = 0, piece = 1; done < kDraws; done += piece, piece = piece % 37 + 1) {
    bulk.normals(many.data() + done, std::min(piece, kDraws - done));
  }
  for (std::size_t i = 0; i < kDraws; ++i) {
    const double expected = normal_always_exp(reference, retry);
    INFO("draw " << i);
    REQUIRE(one.normal() == expected);
    REQUIRE(many[i] == expected);
  }
  // One word of the stream per normal, whatever the slow draws took.
  CHECK(bulk.position() == kDraws);
  CHECK(reference.position() == kDraws);
}

TEST_CASE("The vectorised fast path gives the portable loop's values and rejections",
          "[rng][ziggurat]") {
  using rdpaudit::rng::Purpose;
  using rdpaudit::rng::Stream;
  using rdpaudit::rng::StreamId;
  // Random words, and for every layer and sign the words just below, at and above the
  // acceptance bound (u = accept - 1, accept, accept + 1) and u = 0 and u = 2^53 - 1.
  std::vector<std::uint64_t> words;
  Stream stream(StreamId{5, 0, 0, 9, Purpose::kTest});
  for (int i = 0; i < 100000; ++i) words.push_back(stream());
  for (std::uint64_t index = 0; index < 2 * kZigLayers; ++index) {
    const std::uint64_t accept = kZigSignedLayer[index].accept;
    for (std::uint64_t u :
         {std::uint64_t{0}, accept - 1, accept, accept + 1, (std::uint64_t{1} << 53) - 1}) {
      if (u >= (std::uint64_t{1} << 53)) continue;
      words.push_back(u << 11 | index);
    }
  }
  std::size_t rejected = 0;
  for (std::size_t start = 0; start < words.size(); start += 64) {
    // Every length 1..64 over the run, so the vector loop's tails are covered too.
    const auto n =
        static_cast<unsigned>(std::min<std::size_t>(1 + start / 64 % 64, words.size() - start));
    std::vector<double> fast(n), portable(n);
    const std::uint64_t a = ziggurat_fast_values(words.data() + start, n, fast.data());
    const std::uint64_t b = ziggurat_fast_values_portable(words.data() + start, n, portable.data());
    REQUIRE(a == b);
    for (unsigned i = 0; i < n; ++i) {
      const std::uint64_t word = words[start + i];
      INFO("word " << word);
      REQUIRE(((a >> i) & 1) == (ziggurat_fast_accept(word) ? 0u : 1u));
      REQUIRE(std::signbit(fast[i]) == std::signbit(portable[i]));
      REQUIRE(fast[i] == portable[i]);
      REQUIRE(fast[i] == ziggurat_fast_value(word));
      rejected += (a >> i) & 1;
    }
  }
  CHECK(rejected > 1000);
}
