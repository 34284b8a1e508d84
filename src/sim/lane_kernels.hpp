// The lane kernels of the trajectory runner (runner.hpp): one step, the projection and the
// noise transposition of many trajectories at once, stored lane-minor (value of lane w at
// [... * kLanes + w]), with the same IEEE operations per lane as the one-trajectory loop and
// nothing contracted into an FMA (-ffp-contract=off), so the same bits on every path. The
// AVX2 variants are chosen at run time (kHasAvx2). Internal to src/sim/.
#pragma once

#include <emmintrin.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>

#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/sim/loss.hpp"

namespace rdpaudit::sim::detail {

// Whether the lane kernels take their AVX2 paths.
inline const bool kHasAvx2 = __builtin_cpu_supports("avx2");

/// One step of every lane of a sum-of-records loss, lane-minor: th[k][w] += z[k][w] - eta g
/// with g = coordinate_gradient_from_sum(th[k][w], sum[k * kLanes + w], count(w)), for every
/// coordinate k < Loss::d and lane w < kLanes. Always inlined into step_lanes_avx2 and
/// step_lanes_default, so that the compiler vectorises the lane loop for each instruction set.
template <int kLanes, class Loss, class Count>
[[gnu::always_inline]] inline void step_lanes_body(const Loss& loss, double (*th)[kLanes],
                                                   const double (*z)[kLanes], const double* sum,
                                                   const Count& count, double inv_norm,
                                                   double eta) {
  for (int k = 0; k < Loss::d; ++k) {
    for (int w = 0; w < kLanes; ++w) {
      // add_gradient_from_sum adds g to 0, which changes only the sign of a zero g; that
      // cannot change theta + (z - eta * g) unless z and theta are zeros as well. So the
      // numbers are the same, with one addition less in the chain through theta.
      const double g =
          loss.coordinate_gradient_from_sum(th[k][w], sum[k * kLanes + w], count(w), inv_norm);
      th[k][w] += z[k][w] - eta * g;
    }
  }
}

// Four lanes per instruction instead of two (SSE2, the baseline). The same IEEE operations on
// each lane, and no FMA (not in the target; -ffp-contract=off), so the same bits: the unit tests
// compare this path with the one-trajectory loop.
template <int kLanes, class Loss, class Count>
__attribute__((target("avx2"))) void step_lanes_avx2(const Loss& loss, double (*th)[kLanes],
                                                     const double (*z)[kLanes], const double* sum,
                                                     const Count& count, double inv_norm,
                                                     double eta) {
  step_lanes_body<kLanes>(loss, th, z, sum, count, inv_norm, eta);
}

template <int kLanes, class Loss, class Count>
void step_lanes_default(const Loss& loss, double (*th)[kLanes], const double (*z)[kLanes],
                        const double* sum, const Count& count, double inv_norm, double eta) {
  step_lanes_body<kLanes>(loss, th, z, sum, count, inv_norm, eta);
}

/// z[i][w + l] = scale * lane[l][i] for l < 4 and i < count: four lanes' runs of normals
/// transposed into the lane-minor noise, 4 x 4 blocks at a time (AVX2), the same multiply
/// per element as the scalar loop. w is a multiple of 4 and z 32-byte aligned.
template <int kLanes>
__attribute__((target("avx2"))) void scale_into_lanes_avx2(const double* const lane[4],
                                                           std::size_t count, double scale,
                                                           double (*z)[kLanes], int w) {
  const __m256d factor = _mm256_set1_pd(scale);
  std::size_t i = 0;
  for (; i + 4 <= count; i += 4) {
    const __m256d a = _mm256_loadu_pd(lane[0] + i), b = _mm256_loadu_pd(lane[1] + i);
    const __m256d c = _mm256_loadu_pd(lane[2] + i), e = _mm256_loadu_pd(lane[3] + i);
    const __m256d ab_even = _mm256_unpacklo_pd(a, b), ab_odd = _mm256_unpackhi_pd(a, b);
    const __m256d ce_even = _mm256_unpacklo_pd(c, e), ce_odd = _mm256_unpackhi_pd(c, e);
    _mm256_store_pd(&z[i][w],
                    _mm256_mul_pd(factor, _mm256_permute2f128_pd(ab_even, ce_even, 0x20)));
    _mm256_store_pd(&z[i + 1][w],
                    _mm256_mul_pd(factor, _mm256_permute2f128_pd(ab_odd, ce_odd, 0x20)));
    _mm256_store_pd(&z[i + 2][w],
                    _mm256_mul_pd(factor, _mm256_permute2f128_pd(ab_even, ce_even, 0x31)));
    _mm256_store_pd(&z[i + 3][w],
                    _mm256_mul_pd(factor, _mm256_permute2f128_pd(ab_odd, ce_odd, 0x31)));
  }
  for (; i < count; ++i) {
    for (int l = 0; l < 4; ++l) z[i][w + l] = scale * lane[l][i];
  }
}

/// TrajectoryRunner::project_lanes four lanes at a time (AVX2): the same operations per lane
/// (sqrt and division correctly rounded in both), the same selection, so the same bits.
template <int kLanes, int d>
__attribute__((target("avx2"))) void project_lanes_avx2(double (*th)[kLanes], const double* centre,
                                                        double radius) {
  static_assert(kLanes % 4 == 0, "four lanes per register");
  for (int w0 = 0; w0 < kLanes; w0 += 4) {
    __m256d sq = _mm256_setzero_pd();
    for (int k = 0; k < d; ++k) {
      const __m256d c = _mm256_sub_pd(_mm256_load_pd(&th[k][w0]), _mm256_set1_pd(centre[k]));
      sq = _mm256_add_pd(sq, _mm256_mul_pd(c, c));
    }
    // Not (sq <= radius^2), NaN included: the SSE2 path's cmpnle.
    const __m256d outside = _mm256_cmp_pd(sq, _mm256_set1_pd(radius * radius), _CMP_NLE_UQ);
    if (_mm256_movemask_pd(outside) == 0) continue;
    const __m256d scale = _mm256_div_pd(_mm256_set1_pd(radius), _mm256_sqrt_pd(sq));
    for (int k = 0; k < d; ++k) {
      const __m256d t = _mm256_load_pd(&th[k][w0]), c = _mm256_set1_pd(centre[k]);
      const __m256d moved = _mm256_add_pd(c, _mm256_mul_pd(scale, _mm256_sub_pd(t, c)));
      _mm256_store_pd(&th[k][w0], _mm256_blendv_pd(t, moved, outside));
    }
  }
}

/// TrajectoryRunner::project_lanes two lanes per SSE2 register, for CPUs without AVX2: sqrt
/// and division are correctly rounded there as in the scalar code (a plain loop is not
/// vectorised: std::sqrt may set errno).
template <int kLanes, int d>
void project_lanes_sse2(double (*th)[kLanes], const double* centre, double radius) {
  for (int w0 = 0; w0 < kLanes; w0 += 2) {
    __m128d sq = _mm_setzero_pd();
    for (int k = 0; k < d; ++k) {
      const __m128d c = _mm_sub_pd(_mm_load_pd(&th[k][w0]), _mm_set1_pd(centre[k]));
      sq = _mm_add_pd(sq, _mm_mul_pd(c, c));
    }
    // project() returns when sq <= radius^2; a NaN sq goes on, as here.
    const __m128d outside = _mm_cmpnle_pd(sq, _mm_set1_pd(radius * radius));
    if (_mm_movemask_pd(outside) == 0) continue;
    const __m128d scale = _mm_div_pd(_mm_set1_pd(radius), _mm_sqrt_pd(sq));
    for (int k = 0; k < d; ++k) {
      const __m128d t = _mm_load_pd(&th[k][w0]), c = _mm_set1_pd(centre[k]);
      const __m128d moved = _mm_add_pd(c, _mm_mul_pd(scale, _mm_sub_pd(t, c)));
      _mm_store_pd(&th[k][w0], _mm_or_pd(_mm_and_pd(outside, moved), _mm_andnot_pd(outside, t)));
    }
  }
}

/// One step of the logistic loss for lanes w0 .. w0 + 3, lane-minor, AVX2: for each lane,
/// g = the sum over its batch, in the batch's order, of inv_norm times the clipped example
/// gradient, plus lambda theta; then theta += z - eta g. The operations of
/// LogisticLoss::example_gradient and add_gradient and of the per-step update, element by
/// element: IEEE division and square root, exp by the same libm call where the scalar code
/// calls it, the same max and comparisons, nothing contracted into an FMA (-ffp-contract=off)
/// — so the same bits, four lanes per instruction. Lane l's batch is idx[l][0 .. count[l]);
/// a lane whose batch is shorter than another's computes on a row of zeros and adds nothing,
/// and so does the absent record's slot (DataView::absent_index), which add_gradient skips.
template <int kLanes, int d>
__attribute__((target("avx2"))) void logistic_step4_avx2(const LogisticLoss<d>& loss,
                                                         const DataView& data, double (*th)[kLanes],
                                                         const double (*z)[kLanes], int w0,
                                                         const int* const* idx, const int* count,
                                                         double inv_norm, double eta) {
  const int features = loss.features, classes = loss.classes, stride = features + 1;
  const bool clip = std::isfinite(loss.clip_norm);
  const double zero_row[config::kMaxDim] = {};
  __m256d t[d], g[d];
  for (int i = 0; i < d; ++i) {
    t[i] = _mm256_load_pd(&th[i][w0]);
    g[i] = _mm256_setzero_pd();
  }
  const int examples = std::max(std::max(count[0], count[1]), std::max(count[2], count[3]));
  for (int m = 0; m < examples; ++m) {
    const double* row[4];
    double label[4];
    long long on[4];
    for (int l = 0; l < 4; ++l) {
      const bool in = m < count[l] && idx[l][m] != data.absent_index;
      on[l] = in ? -1 : 0;
      row[l] = in ? data.x + static_cast<long>(idx[l][m]) * features : zero_row;
      label[l] = in ? data.labels[idx[l][m]] : 0;
    }
    __m256d x[config::kMaxDim], logit[config::kMaxDim];
    for (int j = 0; j < features; ++j)
      x[j] = _mm256_setr_pd(row[0][j], row[1][j], row[2][j], row[3][j]);
    __m256d top = _mm256_set1_pd(-INFINITY);
    for (int k = 0; k < classes; ++k) {
      const __m256d* w = t + k * stride;
      __m256d v = w[features];
      for (int j = 0; j < features; ++j) v = _mm256_add_pd(v, _mm256_mul_pd(w[j], x[j]));
      logit[k] = v;
      top = _mm256_max_pd(v, top);  // std::max(top, v): top unless top < v, NaN v included
    }
    __m256d total = _mm256_setzero_pd();
    for (int k = 0; k < classes; ++k) {
      alignas(32) double v[4];
      _mm256_store_pd(v, _mm256_sub_pd(logit[k], top));
      for (double& u : v) u = u == 0.0 ? 1.0 : std::exp(u);
      logit[k] = _mm256_load_pd(v);
      total = _mm256_add_pd(total, logit[k]);
    }
    const __m256d y = _mm256_loadu_pd(label);
    __m256d e[d] = {};  // all d written: classes (features + 1) = d (config/load.cpp)
    for (int k = 0; k < classes; ++k) {
      const __m256d one_hot =
          _mm256_and_pd(_mm256_cmp_pd(y, _mm256_set1_pd(k), _CMP_EQ_OQ), _mm256_set1_pd(1.0));
      const __m256d coef = _mm256_sub_pd(_mm256_div_pd(logit[k], total), one_hot);
      for (int j = 0; j < features; ++j) e[k * stride + j] = _mm256_mul_pd(coef, x[j]);
      e[k * stride + features] = coef;
    }
    if (clip) {  // clip_to_norm
      __m256d sq = _mm256_setzero_pd();
      for (int i = 0; i < d; ++i) sq = _mm256_add_pd(sq, _mm256_mul_pd(e[i], e[i]));
      const double bound = loss.clip_norm;
      const __m256d outside = _mm256_cmp_pd(sq, _mm256_set1_pd(bound * bound), _CMP_GT_OQ);
      if (_mm256_movemask_pd(outside) != 0) {
        const __m256d scale = _mm256_div_pd(_mm256_set1_pd(bound), _mm256_sqrt_pd(sq));
        for (int i = 0; i < d; ++i)
          e[i] = _mm256_blendv_pd(e[i], _mm256_mul_pd(e[i], scale), outside);
      }
    }
    const __m256d active =
        _mm256_castsi256_pd(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(on)));
    for (int i = 0; i < d; ++i) {
      const __m256d sum = _mm256_add_pd(g[i], _mm256_mul_pd(_mm256_set1_pd(inv_norm), e[i]));
      g[i] = _mm256_blendv_pd(g[i], sum, active);
    }
  }
  for (int i = 0; i < d; ++i) {
    g[i] = _mm256_add_pd(g[i], _mm256_mul_pd(_mm256_set1_pd(loss.lambda), t[i]));
    const __m256d step =
        _mm256_sub_pd(_mm256_load_pd(&z[i][w0]), _mm256_mul_pd(_mm256_set1_pd(eta), g[i]));
    _mm256_store_pd(&th[i][w0], _mm256_add_pd(t[i], step));
  }
}

/// A loss family's own kernel that steps four lanes at once, where it has one (the sums-of-
/// records families step every lane through step_lanes_* instead; the others take the
/// runner's per-step path). Adding a kernel for a family: specialise this template.
template <class Loss>
struct FourLaneStep {
  static constexpr bool kExists = false;
};

template <int D>
struct FourLaneStep<LogisticLoss<D>> {
  static constexpr bool kExists = true;
  template <int kLanes>
  static void step(const LogisticLoss<D>& loss, const DataView& data, double (*th)[kLanes],
                   const double (*z)[kLanes], int w0, const int* const* idx, const int* count,
                   double inv_norm, double eta) {
    logistic_step4_avx2<kLanes, D>(loss, data, th, z, w0, idx, count, inv_norm, eta);
  }
};

}  // namespace rdpaudit::sim::detail
