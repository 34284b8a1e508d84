// Known-answer and stream-addressing tests for the counter-based generator (ARS).
#include <catch2/catch.hpp>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "rdpaudit/rng/bounded.hpp"
#include "rdpaudit/rng/stream.hpp"

using namespace rdpaudit::rng;

namespace {

std::vector<std::uint64_t> draw(Stream stream, int n) {
  std::vector<std::uint64_t> words(static_cast<std::size_t>(n));
  for (auto& word : words) word = stream();
  return words;
}

const StreamId kBase{0x0123456789abcdefu, 77, 1, 0xfedcba9876543210u, Purpose::kNoise};

}  // namespace

// Known answers from the kat_vectors file of the Random123 distribution (D. E. Shaw Research,
// version 1.x, examples/kat_vectors, as mirrored in github.com/girving/random123-manual),
// the three "ars4x32 10" lines: counter c0..c3, key k0..k3 -> output, 32-bit words, here
// packed little-endian into 64-bit halves (word 0 = c1 << 32 | c0). The file has vectors for
// 10 rounds only; 7 rounds run the same code with a smaller round count.
struct ArsKnownAnswer {
  Block128 ctr, key, out;
};
const ArsKnownAnswer kArsKat[] = {
    {{0, 0}, {0, 0}, {0x506401ef8d73ee19u, 0x0cbe9c0d13c2dbe4u}},
    {{0x85a308d3243f6a88u, 0x0370734413198a2eu},
     {0x299f31d0a4093822u, 0xec4e6c89082efa98u},
     {0x8357ad74a516e7d6u, 0x8763fff35b59b3ecu}},
    {{~std::uint64_t{0}, ~std::uint64_t{0}},
     {~std::uint64_t{0}, 0},
     {0x9f635551bb3743b1u, 0xa19478a9ecbc87fcu}},
};

TEST_CASE("ARS-10 reproduces the Random123 known-answer vectors", "[rng]") {
  for (const auto& kat : kArsKat) {
    CHECK(ars(kat.ctr, kat.key, 10) == kat.out);
    CHECK(detail::ars_portable(kat.ctr, kat.key, 10) == kat.out);
    if (detail::cpu_has_aesni()) CHECK(detail::ars_aesni(kat.ctr, kat.key, 10) == kat.out);
  }
  CHECK_THROWS_AS(ars({0, 0}, {0, 0}, 0), std::invalid_argument);
  CHECK_THROWS_AS(ars({0, 0}, {0, 0}, 11), std::invalid_argument);
}

TEST_CASE("AES-NI and portable ARS agree bit for bit at every round count", "[rng]") {
  if (!detail::cpu_has_aesni()) {
    WARN("no AES-NI on this CPU: only the portable implementation runs");
    return;
  }
  // Inputs from a splitmix64 sequence: independent of the generator under test.
  std::uint64_t z = 0;
  const auto next = [&z] {
    std::uint64_t x = (z += 0x9E3779B97F4A7C15u);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9u;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBu;
    return x ^ (x >> 31);
  };
  for (int rounds = 1; rounds <= 10; ++rounds) {
    for (int i = 0; i < 200; ++i) {
      const Block128 ctr{next(), next()}, key{next(), next()};
      REQUIRE(detail::ars_aesni(ctr, key, rounds) == detail::ars_portable(ctr, key, rounds));
    }
  }
}

TEST_CASE("ars_consecutive computes ars of consecutive counters", "[rng]") {
  const Block128 key{0x0123456789abcdefu, 0};
  for (unsigned count : {1u, 7u, 8u, 13u, 16u, 24u, 32u, 41u}) {
    std::vector<std::uint64_t> out(2 * count);
    ars_consecutive(1000, 42, key, count, out.data());
    for (unsigned j = 0; j < count; ++j) {
      const Block128 expected = detail::ars_portable({1000 + j, 42}, key, kArsRounds);
      CHECK(out[2 * j] == expected[0]);
      CHECK(out[2 * j + 1] == expected[1]);
    }
  }
}

TEST_CASE("Stream words follow the documented counter layout", "[rng]") {
  // word 2b + e = ars({tag << 36 | b, trajectory}, {seed, 0})[e] (ARS-7),
  // tag = purpose << 24 | dataset << 20 | scenario.
  const std::uint64_t tag = (std::uint64_t{3} << 24) | (std::uint64_t{1} << 20) | 77u;
  Stream stream(kBase);
  for (std::uint64_t b = 0; b < 40; ++b) {  // several refills
    const Block128 expected =
        detail::ars_portable({tag << 36 | b, kBase.trajectory}, {kBase.seed, 0}, kArsRounds);
    CHECK(stream() == expected[0]);
    CHECK(stream() == expected[1]);
  }
}

TEST_CASE("The same StreamId gives the same sequence", "[rng]") {
  CHECK(draw(Stream(kBase), 1000) == draw(Stream(kBase), 1000));
  Stream a(kBase), b(kBase);
  for (int i = 0; i < 1000; ++i) {
    REQUIRE(a.normal() == b.normal());
    REQUIRE(a.uniform() == b.uniform());
    REQUIRE(a.below(1000) == b.below(1000));
  }
}

TEST_CASE("Each field of the StreamId selects a different sequence", "[rng]") {
  std::vector<StreamId> ids(6, kBase);
  ids[1].seed ^= std::uint64_t{1} << 63;
  ids[2].scenario = 78;
  ids[3].dataset = 0;
  ids[4].trajectory ^= 1u;
  ids[5].purpose = Purpose::kInit;
  // Also the fields' extremes, which sit next to each other in the counter.
  StreamId high = kBase;
  high.scenario = (1u << 20) - 1;
  high.dataset = 15;
  high.purpose = Purpose::kTest;
  ids.push_back(high);
  high.trajectory = ~std::uint64_t{0};
  ids.push_back(high);

  std::vector<std::vector<std::uint64_t>> sequences;
  for (const auto& id : ids) sequences.push_back(draw(Stream(id), 64));
  for (std::size_t i = 0; i < sequences.size(); ++i) {
    for (std::size_t j = i + 1; j < sequences.size(); ++j) {
      INFO("streams " << i << " and " << j);
      // Not merely shifted copies of each other either: no word in common.
      for (auto word : sequences[i]) {
        for (auto other : sequences[j]) REQUIRE(word != other);
      }
    }
  }
}

TEST_CASE("A stream does not depend on the draws of other streams", "[rng]") {
  const auto alone = draw(Stream(kBase), 300);
  StreamId other_id = kBase;
  other_id.purpose = Purpose::kBatch;
  Stream stream(kBase), other(other_id);
  std::vector<std::uint64_t> interleaved;
  for (int i = 0; i < 300; ++i) {
    for (int k = 0; k < i % 7; ++k) other();  // the other stream is drawn from in between
    interleaved.push_back(stream());
  }
  CHECK(interleaved == alone);
  // And creating streams in another order gives the same words.
  Stream late(kBase);
  CHECK(draw(late, 300) == alone);
}

TEST_CASE("Word n is a function of the StreamId and n: discard and position", "[rng]") {
  const auto words = draw(Stream(kBase), 200);
  for (std::uint64_t skip : {0u, 1u, 15u, 16u, 17u, 31u, 32u, 100u, 199u}) {
    Stream stream(kBase);
    stream.discard(skip);
    CHECK(stream.position() == skip);
    CHECK(stream() == words[skip]);
    CHECK(stream.position() == skip + 1);
  }
  Stream stream(kBase);
  for (int i = 0; i < 20; ++i) stream();
  stream.discard(37);
  CHECK(stream.position() == 57u);
  CHECK(stream() == words[57]);
  // Far away as well: compared with the layout's formula.
  Stream far(kBase);
  far.discard(Stream::kWords - 2);
  const std::uint64_t tag = (std::uint64_t{3} << 24) | (std::uint64_t{1} << 20) | 77u;
  const auto last = detail::ars_portable({tag << 36 | (Stream::kWords / 2 - 1), kBase.trajectory},
                                         {kBase.seed, 0}, kArsRounds);
  CHECK(far() == last[0]);
  CHECK(far() == last[1]);
  CHECK(far.position() == Stream::kWords);
  CHECK_THROWS_AS(far(), std::length_error);
}

TEST_CASE("next_words gives the next words of the stream, in the buffer or across a refill",
          "[rng]") {
  const auto words = draw(Stream(kBase), 400);
  // Runs of every length up to 40 from every offset 0-70: within the buffer of 64 words and
  // across its end (then through the scratch), interleaved with single draws.
  for (unsigned n = 1; n <= 40; ++n) {
    for (unsigned start = 0; start <= 70; start += 3) {
      Stream stream(kBase);
      stream.discard(start);
      std::uint64_t scratch[40] = {};
      const std::uint64_t* run = stream.next_words(scratch, n);
      INFO("n " << n << " start " << start);
      REQUIRE(std::vector<std::uint64_t>(run, run + n) ==
              std::vector<std::uint64_t>(words.begin() + start, words.begin() + start + n));
      CHECK(stream.position() == start + n);
      CHECK(stream() == words[start + n]);
    }
  }
}

TEST_CASE("A stream refuses to run past its end or outside the layout", "[rng]") {
  Stream stream(kBase);
  CHECK_THROWS_AS(stream.discard(Stream::kWords + 1), std::length_error);
  stream.discard(Stream::kWords);
  CHECK_THROWS_AS(stream(), std::length_error);

  StreamId bad = kBase;
  bad.scenario = 1u << 20;
  CHECK_THROWS_AS(Stream(bad), std::out_of_range);
  bad = kBase;
  bad.dataset = 16;
  CHECK_THROWS_AS(Stream(bad), std::out_of_range);
  bad = kBase;
  bad.purpose = static_cast<Purpose>(16);
  CHECK_THROWS_AS(Stream(bad), std::out_of_range);
}

TEST_CASE("below stays under its bound and uniform inside the unit interval", "[rng]") {
  Stream stream(kBase);
  for (std::uint64_t bound :
       {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{3}, std::uint64_t{10},
        std::uint64_t{1000003}, (std::uint64_t{1} << 63) + 1, ~std::uint64_t{0}}) {
    bool seen_high_half = false;
    for (int i = 0; i < 2000; ++i) {
      const std::uint64_t value = stream.below(bound);
      REQUIRE(value < bound);
      seen_high_half = seen_high_half || value >= bound / 2;
    }
    CHECK(seen_high_half);  // not stuck at the low end
  }
  for (int i = 0; i < 10000; ++i) {
    const double u = stream.uniform();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
  }
}

TEST_CASE("BoundedDraws gives Lemire's unbiased integer below the product, in digits",
          "[rng][bounded]") {
  // Each group of consecutive bounds with product P < 2^64 takes one word x (more if
  // rejected): the digits must be those of floor(x P / 2^64) in the mixed radix of the
  // bounds, and x must be rejected exactly when x P mod 2^64 < 2^64 mod P.
  __extension__ using Uint128 = unsigned __int128;
  const std::vector<std::vector<std::uint64_t>> cases = {
      {50, 49},                                                         // sampling 2 of 50
      {3, 5, 7},                                                        // small bounds
      {(std::uint64_t{1} << 32) - 1, (std::uint64_t{1} << 32) - 5, 3},  // two groups
      {4294967291u, 4294967279u, 4294967231u},                          // rejections are likely-ish
      {1, 2, 1},
  };
  std::vector<std::uint64_t> fisher_yates;
  for (std::uint64_t i = 100; i >= 2; --i) fisher_yates.push_back(i);
  auto all = cases;
  all.push_back(fisher_yates);
  for (const auto& bounds : all) {
    const BoundedDraws draws(bounds);
    Stream stream(kBase), words(kBase);
    std::vector<std::uint32_t> out(bounds.size());
    for (int rep = 0; rep < 2000; ++rep) {
      draws.draw(stream, out.data());
      // The same from the definition, on a copy of the stream's words.
      std::size_t k = 0;
      while (k < bounds.size()) {
        std::size_t end = k;
        Uint128 product = 1;
        while (end < bounds.size() && ((product * bounds[end]) >> 64) == 0)
          product *= bounds[end++];
        const auto p = static_cast<std::uint64_t>(product);
        Uint128 m;
        do {
          m = static_cast<Uint128>(words()) * p;
        } while (static_cast<std::uint64_t>(m) < (0 - p) % p);
        auto value = static_cast<std::uint64_t>(m >> 64);  // uniform in [0, P)
        for (std::size_t i = end; i-- > k;) {
          INFO("bounds " << bounds.size() << " digit " << i);
          REQUIRE(out[i] == value % bounds[i]);
          value /= bounds[i];
        }
        k = end;
      }
      REQUIRE(stream.position() == words.position());
    }
  }
  CHECK(BoundedDraws({50, 49}).words() == 1);
  CHECK(BoundedDraws(fisher_yates).words() < 12);  // 99 draws from about 9 words
  CHECK_THROWS_AS(BoundedDraws({0}), std::invalid_argument);
}
