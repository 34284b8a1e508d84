// Known-answer and stream-addressing tests for the counter-based generator.
#include <catch2/catch.hpp>

#include "rdpaudit/rng/philox.hpp"

using namespace rdpaudit::rng;

// Known answers from the Random123 distribution (kat_vectors, "philox4x32 10" lines):
// counter[4], key[2] -> output[4].
TEST_CASE("Philox4x32-10 reproduces the Random123 known-answer vectors", "[rng]") {
  CHECK(philox4x32_10({0u, 0u, 0u, 0u}, {0u, 0u}) ==
        Counter{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u});
  CHECK(philox4x32_10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                      {0xffffffffu, 0xffffffffu}) ==
        Counter{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu});
  CHECK(philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                      {0xa4093822u, 0x299f31d0u}) ==
        Counter{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u});
}
