// Known-answer and stream-addressing tests for the counter-based generator.
#include <catch2/catch.hpp>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "rdpaudit/rng/philox.hpp"

using namespace rdpaudit::rng;

namespace {

std::vector<std::uint64_t> draw(Stream stream, int n) {
  std::vector<std::uint64_t> words(static_cast<std::size_t>(n));
  for (auto& word : words) word = stream();
  return words;
}

const StreamId kBase{0x0123456789abcdefu, 77, 1, 0xfedcba9876543210u, Purpose::kNoise};

}  // namespace

// Known answers from the kat_vectors file of the Random123 distribution (D. E. Shaw Research),
// "philox2x64 10" lines: counter[2], key -> output[2]. Copied from
// github.com/DEShawResearch/Random123-Boost, libs/random/test/test_philox.cpp, whose comment
// says they were cut and pasted from that kat_vectors file.
TEST_CASE("Philox2x64-10 reproduces the Random123 known-answer vectors", "[rng]") {
  CHECK(philox2x64_10({0u, 0u}, 0u) == Counter2x64{0xca00a0459843d731u, 0x66c24222c9a845b5u});
  CHECK(philox2x64_10({0xffffffffffffffffu, 0xffffffffffffffffu}, 0xffffffffffffffffu) ==
        Counter2x64{0x65b021d60cd8310fu, 0x4d02f3222f86df20u});
  CHECK(philox2x64_10({0x243f6a8885a308d3u, 0x13198a2e03707344u}, 0xa4093822299f31d0u) ==
        Counter2x64{0x0a5e742c2997341cu, 0xb0f883d38000de5du});
}

TEST_CASE("Stream words follow the documented counter layout", "[rng]") {
  // word 2b + e = philox2x64_10({tag << 36 | b, trajectory}, seed)[e],
  // tag = purpose << 24 | dataset << 20 | scenario.
  const std::uint64_t tag = (std::uint64_t{3} << 24) | (std::uint64_t{1} << 20) | 77u;
  Stream stream(kBase);
  for (std::uint64_t b = 0; b < 40; ++b) {  // several refills
    const Counter2x64 expected = philox2x64_10({tag << 36 | b, kBase.trajectory}, kBase.seed);
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
  const auto last =
      philox2x64_10({tag << 36 | (Stream::kWords / 2 - 1), kBase.trajectory}, kBase.seed);
  CHECK(far() == last[0]);
  CHECK(far() == last[1]);
  CHECK(far.position() == Stream::kWords);
  CHECK_THROWS_AS(far(), std::length_error);
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
