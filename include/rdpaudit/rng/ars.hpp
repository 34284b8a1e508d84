// ARS-7, the counter-based generator under every rng::Stream: "AES Random Stream" of Salmon,
// Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3" (SC'11), Random123's
// ars1xm128i with its default 7 rounds. A keyed bijection of a 128-bit counter built from
// AES rounds with a Weyl key schedule; one x86 AESENC instruction per round, so a 64-bit word
// costs a fraction of a nanosecond (docs/rng.md). Not cryptographic, and not meant to be.
#pragma once

#include <array>
#include <cstdint>

namespace rdpaudit::rng {

/// A 128-bit value as (low 64 bits, high 64 bits), little-endian as in Random123's
/// r123array4x32 {c0, c1, c2, c3}: word 0 = c1 << 32 | c0, word 1 = c3 << 32 | c2.
using Block128 = std::array<std::uint64_t, 2>;

/// Rounds of the production generator (Random123's default; no statistical flaw is known
/// from 5 rounds on, so 7 keeps a margin).
inline constexpr int kArsRounds = 7;

/// ARS with `rounds` AES rounds (1..10): v = ctr ^ k0; v = AESENC(v, k_r) for r = 1..rounds-1;
/// v = AESENCLAST(v, k_rounds); k_{r+1} = k_r + (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B) in
/// each 64-bit half. Uses AES-NI where the CPU has it, portable C++ elsewhere; both give the
/// same bits (tests/unit/test_rng.cpp).
Block128 ars(Block128 ctr, Block128 key, int rounds = kArsRounds);

/// out[2j], out[2j + 1] = ars({lo + j, hi}, key) for j < count: the consecutive blocks a
/// Stream refill needs, computed together so that their AES latency chains overlap. The
/// caller ensures lo + count does not wrap.
void ars_consecutive(std::uint64_t lo, std::uint64_t hi, const Block128& key, unsigned count,
                     std::uint64_t* out);

namespace detail {
/// Whether this CPU executes AESENC (the fast path of ars and ars_consecutive).
bool cpu_has_aesni();
/// The two implementations behind ars, for the test that they agree bit for bit.
Block128 ars_portable(Block128 ctr, Block128 key, int rounds);
Block128 ars_aesni(Block128 ctr, Block128 key, int rounds);  ///< only if cpu_has_aesni()
}  // namespace detail

}  // namespace rdpaudit::rng
