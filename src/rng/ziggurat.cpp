#include "rdpaudit/rng/ziggurat.hpp"

#include <immintrin.h>

namespace rdpaudit::rng::detail {

std::uint64_t ziggurat_fast_values_portable(const std::uint64_t* words, unsigned n, double* out) {
  std::uint64_t rejected = 0;  // bit i: word i fails the fast test
  for (unsigned i = 0; i < n; ++i) {
    const ZigLayer& layer = kZigSignedLayer[words[i] & kZigSignedLayerMask];
    const std::uint64_t u = words[i] >> 11;
    rejected |= static_cast<std::uint64_t>(u >= layer.accept) << i;
    out[i] = static_cast<double>(static_cast<std::int64_t>(u)) * layer.scale;
  }
  return rejected;
}

namespace {

// u -> double for u < 2^53, exactly: the high 21 bits and the low 32 bits are placed in the
// mantissas of 2^84 and 2^52, and (2^84 + hi 2^32 - (2^84 + 2^52)) + (2^52 + lo) = u, each
// operation exact because every intermediate value is a multiple of its operands' ulp that
// fits in 53 bits (u = 0 gives +0.0, as the scalar conversion does).
__attribute__((target("avx2"))) inline __m256d u53_to_double(__m256i u) {
  const __m256i hi =
      _mm256_or_si256(_mm256_srli_epi64(u, 32), _mm256_castpd_si256(_mm256_set1_pd(0x1.0p84)));
  const __m256i lo = _mm256_blend_epi16(u, _mm256_castpd_si256(_mm256_set1_pd(0x1.0p52)), 0xcc);
  const __m256d high = _mm256_sub_pd(_mm256_castsi256_pd(hi), _mm256_set1_pd(0x1.0p84 + 0x1.0p52));
  return _mm256_add_pd(high, _mm256_castsi256_pd(lo));
}

// Four words per iteration. The table entries ({scale, accept}, 16 bytes) come from four
// 128-bit loads rather than gathers (slower per normal, docs/rng.md): entries 0 and 2 in one
// register, 1 and 3 in the other, so that unpacking the low and high halves gives the scales
// and the bounds in word order.
__attribute__((target("avx2"))) std::uint64_t fast_values_avx2(const std::uint64_t* words,
                                                               unsigned n, double* out) {
  const auto* table = reinterpret_cast<const char*>(kZigSignedLayer.data());
  const auto entry = [table](std::uint64_t word) {
    return _mm_load_si128(reinterpret_cast<const __m128i*>(
        table + ((word & kZigSignedLayerMask) * sizeof(ZigLayer))));
  };
  std::uint64_t rejected = 0;
  unsigned i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + i));
    const __m256i a =
        _mm256_inserti128_si256(_mm256_castsi128_si256(entry(words[i])), entry(words[i + 2]), 1);
    const __m256i b = _mm256_inserti128_si256(_mm256_castsi128_si256(entry(words[i + 1])),
                                              entry(words[i + 3]), 1);
    const __m256d scale = _mm256_castsi256_pd(_mm256_unpacklo_epi64(a, b));
    const __m256i accept = _mm256_unpackhi_epi64(a, b);
    const __m256i u = _mm256_srli_epi64(w, 11);
    // u < 2^53 and accept <= 2^53: the signed comparison is the unsigned one.
    const __m256i passes = _mm256_cmpgt_epi64(accept, u);  // all ones where u < accept
    rejected |= static_cast<std::uint64_t>(~_mm256_movemask_pd(_mm256_castsi256_pd(passes)) & 0xF)
                << i;
    _mm256_storeu_pd(out + i, _mm256_mul_pd(u53_to_double(u), scale));
  }
  if (i < n) rejected |= ziggurat_fast_values_portable(words + i, n - i, out + i) << i;
  return rejected;
}

const bool kHasAvx2 = __builtin_cpu_supports("avx2");

}  // namespace

std::uint64_t ziggurat_fast_values(const std::uint64_t* words, unsigned n, double* out) {
  return kHasAvx2 ? fast_values_avx2(words, n, out) : ziggurat_fast_values_portable(words, n, out);
}

}  // namespace rdpaudit::rng::detail
