#include "rdpaudit/rng/ars.hpp"

#include <immintrin.h>

#include <stdexcept>

namespace rdpaudit::rng {

namespace {

constexpr std::uint64_t kWeyl0 = 0x9E3779B97F4A7C15u;  // golden ratio (Random123 ars.h)
constexpr std::uint64_t kWeyl1 = 0xBB67AE8584CAA73Bu;  // sqrt(3) - 1

void check_rounds(int rounds) {
  if (rounds < 1 || rounds > 10) throw std::invalid_argument("rng::ars: rounds must be in [1, 10]");
}

// ---- portable AES rounds (FIPS-197), for CPUs without AES-NI and as the tests' reference ----

// Multiplication by x in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1.
constexpr std::uint8_t xtime(std::uint8_t a) {
  return static_cast<std::uint8_t>((a << 1) ^ ((a & 0x80) ? 0x1B : 0));
}

constexpr std::uint8_t gf_mul(std::uint8_t a, std::uint8_t b) {
  std::uint8_t p = 0;
  for (; b != 0; b >>= 1, a = xtime(a)) {
    if (b & 1) p ^= a;
  }
  return p;
}

// The S-box from its definition (FIPS-197 section 5.1.1): the multiplicative inverse (a^254)
// followed by the affine map b ^ rotl(b, 1..4) ^ 0x63, so no 256-entry literal can be mistyped.
constexpr std::array<std::uint8_t, 256> make_sbox() {
  std::array<std::uint8_t, 256> s{};
  for (int x = 0; x < 256; ++x) {
    std::uint8_t inv = 1, base = static_cast<std::uint8_t>(x);
    for (int e = 254; e > 0; e >>= 1, base = gf_mul(base, base)) {
      if (e & 1) inv = gf_mul(inv, base);
    }
    if (x == 0) inv = 0;
    const auto rotl = [inv](int k) {
      return static_cast<std::uint8_t>((inv << k) | (inv >> (8 - k)));
    };
    s[x] = static_cast<std::uint8_t>(inv ^ rotl(1) ^ rotl(2) ^ rotl(3) ^ rotl(4) ^ 0x63);
  }
  return s;
}

constexpr std::array<std::uint8_t, 256> kSbox = make_sbox();
static_assert(kSbox[0x00] == 0x63 && kSbox[0x01] == 0x7C && kSbox[0x53] == 0xED &&
                  kSbox[0xFF] == 0x16,
              "AES S-box entries of FIPS-197 Figure 7");

using State = std::array<std::uint8_t, 16>;  // byte r + 4c is row r, column c

State to_state(const Block128& v) {
  State s{};
  for (int i = 0; i < 16; ++i) s[i] = static_cast<std::uint8_t>(v[i / 8] >> (8 * (i % 8)));
  return s;
}

Block128 to_block(const State& s) {
  Block128 v{0, 0};
  for (int i = 0; i < 16; ++i) v[i / 8] |= std::uint64_t{s[i]} << (8 * (i % 8));
  return v;
}

// One AES round as the AESENC / AESENCLAST instructions define it: ShiftRows, SubBytes,
// MixColumns (not in the last round), then XOR with the round key.
Block128 aes_round(const Block128& v, const Block128& round_key, bool last) {
  const State in = to_state(v);
  State s{};
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 4; ++c) s[r + 4 * c] = kSbox[in[r + 4 * ((c + r) % 4)]];
  }
  if (!last) {
    for (int c = 0; c < 4; ++c) {
      const std::uint8_t a0 = s[4 * c], a1 = s[4 * c + 1], a2 = s[4 * c + 2], a3 = s[4 * c + 3];
      const auto mul3 = [](std::uint8_t a) { return static_cast<std::uint8_t>(xtime(a) ^ a); };
      s[4 * c] = static_cast<std::uint8_t>(xtime(a0) ^ mul3(a1) ^ a2 ^ a3);
      s[4 * c + 1] = static_cast<std::uint8_t>(a0 ^ xtime(a1) ^ mul3(a2) ^ a3);
      s[4 * c + 2] = static_cast<std::uint8_t>(a0 ^ a1 ^ xtime(a2) ^ mul3(a3));
      s[4 * c + 3] = static_cast<std::uint8_t>(mul3(a0) ^ a1 ^ a2 ^ xtime(a3));
    }
  }
  Block128 out = to_block(s);
  out[0] ^= round_key[0];
  out[1] ^= round_key[1];
  return out;
}

// ---- AES-NI: one instruction per round ----

__attribute__((target("aes,sse2"))) inline __m128i ars_m128(__m128i v, __m128i key, int rounds) {
  const __m128i weyl =
      _mm_set_epi64x(static_cast<long long>(kWeyl1), static_cast<long long>(kWeyl0));
  v = _mm_xor_si128(v, key);
  for (int r = 1; r < rounds; ++r) {
    key = _mm_add_epi64(key, weyl);
    v = _mm_aesenc_si128(v, key);
  }
  key = _mm_add_epi64(key, weyl);
  return _mm_aesenclast_si128(v, key);
}

__attribute__((target("aes,sse2"))) inline __m128i load(std::uint64_t lo, std::uint64_t hi) {
  return _mm_set_epi64x(static_cast<long long>(hi), static_cast<long long>(lo));
}

__attribute__((target("aes,sse2"))) inline void store(__m128i v, std::uint64_t* out) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), v);  // little-endian: low word first
}

// Eight blocks round by round: eight independent AESENC chains keep the AES unit busy
// (one block alone would wait out each instruction's latency).
__attribute__((target("aes,sse2"))) void ars_eight_aesni(std::uint64_t lo, std::uint64_t hi,
                                                         const Block128& key, std::uint64_t* out) {
  const __m128i weyl =
      _mm_set_epi64x(static_cast<long long>(kWeyl1), static_cast<long long>(kWeyl0));
  __m128i k = load(key[0], key[1]);
  __m128i v[8];
  for (int j = 0; j < 8; ++j) v[j] = _mm_xor_si128(load(lo + j, hi), k);
  for (int r = 1; r < kArsRounds; ++r) {
    k = _mm_add_epi64(k, weyl);
    for (int j = 0; j < 8; ++j) v[j] = _mm_aesenc_si128(v[j], k);
  }
  k = _mm_add_epi64(k, weyl);
  for (int j = 0; j < 8; ++j) store(_mm_aesenclast_si128(v[j], k), out + 2 * j);
}

// Sixteen blocks with VAES: two blocks per 256-bit AESENC (Zen 3 and later, Ice Lake and
// later), half the instructions of ars_eight_aesni per block. Same round function, same bits.
__attribute__((target("vaes,avx2,aes"))) void ars_sixteen_vaes(std::uint64_t lo, std::uint64_t hi,
                                                               const Block128& key,
                                                               std::uint64_t* out) {
  const __m256i weyl =
      _mm256_set_epi64x(static_cast<long long>(kWeyl1), static_cast<long long>(kWeyl0),
                        static_cast<long long>(kWeyl1), static_cast<long long>(kWeyl0));
  __m256i k = _mm256_set_epi64x(static_cast<long long>(key[1]), static_cast<long long>(key[0]),
                                static_cast<long long>(key[1]), static_cast<long long>(key[0]));
  const auto h = static_cast<long long>(hi);
  __m256i v[8];
  for (int j = 0; j < 8; ++j) {
    const auto c = static_cast<long long>(lo + 2 * j);  // blocks 2j (low half), 2j + 1 (high)
    v[j] = _mm256_xor_si256(_mm256_set_epi64x(h, c + 1, h, c), k);
  }
  for (int r = 1; r < kArsRounds; ++r) {
    k = _mm256_add_epi64(k, weyl);
    for (int j = 0; j < 8; ++j) v[j] = _mm256_aesenc_epi128(v[j], k);
  }
  k = _mm256_add_epi64(k, weyl);
  for (int j = 0; j < 8; ++j) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 4 * j), _mm256_aesenclast_epi128(v[j], k));
  }
}

const bool kHasVaes = __builtin_cpu_supports("vaes") && __builtin_cpu_supports("avx2");

__attribute__((target("aes,sse2"))) void ars_consecutive_aesni(std::uint64_t lo, std::uint64_t hi,
                                                               const Block128& key, unsigned count,
                                                               std::uint64_t* out) {
  unsigned j = 0;
  if (kHasVaes) {
    for (; j + 16 <= count; j += 16) ars_sixteen_vaes(lo + j, hi, key, out + 2 * j);
  }
  for (; j + 8 <= count; j += 8) ars_eight_aesni(lo + j, hi, key, out + 2 * j);
  for (; j < count; ++j) {
    store(ars_m128(load(lo + j, hi), load(key[0], key[1]), kArsRounds), out + 2 * j);
  }
}

const bool kHasAesni = __builtin_cpu_supports("aes");

}  // namespace

namespace detail {

bool cpu_has_aesni() {
  return kHasAesni;
}

Block128 ars_portable(Block128 ctr, Block128 key, int rounds) {
  check_rounds(rounds);
  Block128 v{ctr[0] ^ key[0], ctr[1] ^ key[1]};
  for (int r = 1; r <= rounds; ++r) {
    key = {key[0] + kWeyl0, key[1] + kWeyl1};
    v = aes_round(v, key, r == rounds);
  }
  return v;
}

__attribute__((target("aes,sse2"))) Block128 ars_aesni(Block128 ctr, Block128 key, int rounds) {
  check_rounds(rounds);
  Block128 out;
  store(ars_m128(load(ctr[0], ctr[1]), load(key[0], key[1]), rounds), out.data());
  return out;
}

}  // namespace detail

Block128 ars(Block128 ctr, Block128 key, int rounds) {
  return kHasAesni ? detail::ars_aesni(ctr, key, rounds) : detail::ars_portable(ctr, key, rounds);
}

void ars_consecutive(std::uint64_t lo, std::uint64_t hi, const Block128& key, unsigned count,
                     std::uint64_t* out) {
  if (kHasAesni) return ars_consecutive_aesni(lo, hi, key, count, out);
  for (unsigned j = 0; j < count; ++j) {
    const Block128 v = detail::ars_portable({lo + j, hi}, key, kArsRounds);
    out[2 * j] = v[0];
    out[2 * j + 1] = v[1];
  }
}

}  // namespace rdpaudit::rng
