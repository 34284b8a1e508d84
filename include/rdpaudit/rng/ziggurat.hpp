// Tables of the 1024-layer ziggurat for the standard normal (Marsaglia & Tsang, "The ziggurat
// method for generating random variables", J. Stat. Softw. 5(8), 2000), used by
// Stream::normal(). See docs/rng.md for why the project has its own sampler instead of
// boost::random::normal_distribution (speed: Boost's 128-layer ziggurat costs about 3 ns more
// per normal on this Stream, which misses the 6 ns budget).
//
// f(x) = exp(-x^2 / 2). The half-normal area under f is cut into 1024 pieces of equal area V:
// layer 0 is the base strip [0, X[0]) x [0, f(R)) together with the tail x >= R (X[0] =
// V / f(R)); layer i >= 1 is the rectangle [0, X[i]) x [Y[i], Y[i+1]) with Y[i] = f(X[i]).
// X[1] = R, X[1024] = 0, Y[0] = 0, Y[1024] = 1 = f(0). R is the root, found by bisection at 60
// decimal digits with mpmath, of "the top layer closes at x = 0", where
// V = R f(R) + sqrt(pi/2) erfc(R / sqrt 2) and X[i+1] = sqrt(-2 ln(V / X[i] + f(X[i]))).
// Those values rounded to double (Python repr) are in ziggurat_tables.inc, written by
// scripts/gen_ziggurat_tables.py. 1024 layers rather than Marsaglia and Tsang's 256: 0.43 % of
// draws take the slow path instead of 1.49 %, and the signed table (32 KB) still fits the L1
// cache (docs/rng.md). tests/unit/test_rng_ziggurat.cpp checks them independently with
// <cmath>: equal areas, Y = f(X), and V.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

namespace rdpaudit::rng::detail {

/// Bits of a word: 0-9 the layer, 10 the sign, 11-63 the position u in the layer.
inline constexpr int kZigLayerBits = 10;
inline constexpr int kZigLayers = 1 << kZigLayerBits;
inline constexpr std::uint64_t kZigLayerMask = kZigLayers - 1;
inline constexpr std::uint64_t kZigSignBit = kZigLayers;
inline constexpr std::uint64_t kZigSignedLayerMask = kZigSignBit | kZigLayerMask;

// kZigR, kZigV, kZigX[0..1024] and kZigY[0..1024], generated.
#include "rdpaudit/rng/ziggurat_tables.inc"

/// What the fast path reads for one layer, side by side so that one draw touches one line.
struct ZigLayer {
  double scale;          ///< X[i] * 2^-53: x = u * scale for the 53-bit integer u
  std::uint64_t accept;  ///< u < accept  <=>  u * scale < X[i+1] (computed in double)
};

/// The smallest u in [0, 2^53] with double(u) * scale >= bound, so that the integer test
/// u < accept makes exactly the decision "x < X[i+1]" on the rounded x the caller returns.
constexpr std::uint64_t ziggurat_first_rejected(double scale, double bound) {
  constexpr std::uint64_t kOne = std::uint64_t{1} << 53;
  const double guess = bound / scale;
  std::uint64_t u = guess <= 0 ? 0 : guess >= 0x1.0p53 ? kOne : static_cast<std::uint64_t>(guess);
  while (u > 0 && static_cast<double>(u - 1) * scale >= bound) --u;
  while (u < kOne && static_cast<double>(u) * scale < bound) ++u;
  return u;
}

constexpr std::array<ZigLayer, kZigLayers> make_ziggurat_layers() {
  std::array<ZigLayer, kZigLayers> layers{};
  for (int i = 0; i < kZigLayers; ++i) {
    const double scale = kZigX[i] * 0x1.0p-53;
    layers[i] = {scale, ziggurat_first_rejected(scale, kZigX[i + 1])};
  }
  return layers;
}

alignas(64) inline constexpr std::array<ZigLayer, kZigLayers> kZigLayer = make_ziggurat_layers();

/// kZigLayer twice, the second time with the scales negated: entry 1024 s + i is layer i for
/// sign bit s, so bits 0-10 of a word (layer and sign) index the signed scale at once. u times
/// the negated scale is exactly minus u times the scale (zero included: -0.0), so the fast
/// path's value needs no separate sign step (ziggurat_fast_value).
constexpr std::array<ZigLayer, 2 * kZigLayers> make_signed_ziggurat_layers() {
  std::array<ZigLayer, 2 * kZigLayers> layers{};
  const auto unsigned_layers = make_ziggurat_layers();
  for (int i = 0; i < kZigLayers; ++i) {
    layers[i] = unsigned_layers[i];
    layers[kZigLayers + i] = {-unsigned_layers[i].scale, unsigned_layers[i].accept};
  }
  return layers;
}

alignas(64) inline constexpr std::array<ZigLayer, 2 * kZigLayers> kZigSignedLayer =
    make_signed_ziggurat_layers();

/// The candidate |x| of a 64-bit word: bits 0-9 pick the layer, bits 11-63 are u.
inline double ziggurat_abscissa(std::uint64_t word) {
  return static_cast<double>(static_cast<std::int64_t>(word >> 11)) *
         kZigLayer[word & kZigLayerMask].scale;
}

/// Whether the word's candidate lies inside the layer's part that is wholly under f.
inline bool ziggurat_fast_accept(std::uint64_t word) {
  return (word >> 11) < kZigLayer[word & kZigLayerMask].accept;
}

/// x with the sign taken from bit 10 of the word (a bit used neither for the layer nor for u).
inline double ziggurat_signed(double x, std::uint64_t word) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  bits ^= (word & kZigSignBit) << (63 - kZigLayerBits);
  std::memcpy(&x, &bits, sizeof bits);
  return x;
}

/// ziggurat_signed(ziggurat_abscissa(word), word), the fast path's normal, from one table entry.
inline double ziggurat_fast_value(std::uint64_t word) {
  return static_cast<double>(static_cast<std::int64_t>(word >> 11)) *
         kZigSignedLayer[word & kZigSignedLayerMask].scale;
}

/// The fast path over n <= 64 words: out[i] = ziggurat_fast_value(words[i]) for every i < n;
/// returns the mask of the words that fail ziggurat_fast_accept (bit i: words[i]), whose
/// values are not normals (they take the slow path). Vectorised with AVX2 where the CPU has
/// it; the same bits either way (tests/unit/test_rng_ziggurat.cpp).
std::uint64_t ziggurat_fast_values(const std::uint64_t* words, unsigned n, double* out);
/// The portable loop behind ziggurat_fast_values, for the test that both agree.
std::uint64_t ziggurat_fast_values_portable(const std::uint64_t* words, unsigned n, double* out);

}  // namespace rdpaudit::rng::detail
