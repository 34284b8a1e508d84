// The accumulation of a source's brackets into the target cells (kernel.hpp), in AVX-512 or
// AVX2 where the CPU has it: eight or four targets per instruction with the same IEEE
// operations per target as the scalar loop, in the same order, and no FMA (-ffp-contract=off),
// so the same bits on every path (the unit tests compare them).
#include "kernel.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace rdpaudit::exact::detail {

namespace {

const bool kHasAvx2 = __builtin_cpu_supports("avx2");
const bool kHasAvx512 = __builtin_cpu_supports("avx512f");

/// The source's brackets and the weight, as one argument.
struct Source {
  double weight, pl, pu, dl, du, vl, vu;
};

// std::min(x, y) is (y < x ? y : x) and std::max(x, y) is (x < y ? y : x), lane by lane on
// GCC's vectors (vminpd / vmaxpd, which select the same operand under every input, NaN and
// signed zeros included); written as macros so that no function takes or returns a vector.
#define RDPAUDIT_MIN(x, y) ((y) < (x) ? (y) : (x))
#define RDPAUDIT_MAX(x, y) ((x) < (y) ? (y) : (x))

/// The columns from coefficient `skip` on, as plain pointers (the stores through memcpy could
/// otherwise alias the vectors' own pointers, which would then be reloaded after every store).
struct Columns {
  const double *slope, *curvature, *g_centre, *t_lo, *t_hi, *third, *g_min, *g_max, *m_slope,
      *m_centre, *m_third, *h_lo, *h_hi, *k_slope, *k_centre, *k_third, *k_lo, *k_hi;
  Columns(const CoefColumns& c, std::ptrdiff_t skip)
      : slope(c.slope.data() + skip),
        curvature(c.curvature.data() + skip),
        g_centre(c.g_centre.data() + skip),
        t_lo(c.t_lo.data() + skip),
        t_hi(c.t_hi.data() + skip),
        third(c.third.data() + skip),
        g_min(c.g_min.data() + skip),
        g_max(c.g_max.data() + skip),
        m_slope(c.m_slope.data() + skip),
        m_centre(c.m_centre.data() + skip),
        m_third(c.m_third.data() + skip),
        h_lo(c.h_lo.data() + skip),
        h_hi(c.h_hi.data() + skip),
        k_slope(c.k_slope.data() + skip),
        k_centre(c.k_centre.data() + skip),
        k_third(c.k_third.data() + skip),
        k_lo(c.k_lo.data() + skip),
        k_hi(c.k_hi.data() + skip) {}
};

/// A source's brackets and weight in every lane of V (double: one lane; GCC vectors of 4 or
/// 8 doubles: AVX2, AVX-512).
template <class V>
struct SourceLanes {
  V pl, pu, dl, du, vl, vu, w;
  explicit SourceLanes(const Source& s) {
    for (std::size_t l = 0; l < sizeof(V) / sizeof(double); ++l) {
      reinterpret_cast<double*>(&pl)[l] = s.pl;
      reinterpret_cast<double*>(&pu)[l] = s.pu;
      reinterpret_cast<double*>(&dl)[l] = s.dl;
      reinterpret_cast<double*>(&du)[l] = s.du;
      reinterpret_cast<double*>(&vl)[l] = s.vl;
      reinterpret_cast<double*>(&vu)[l] = s.vu;
      reinterpret_cast<double*>(&w)[l] = s.weight;
    }
  }
};

/// The six quantities of the target cells: mass, moment and second-moment brackets.
template <class V>
struct TargetLanes {
  V mass_lo, mass_hi, moment_lo, moment_hi, second_lo, second_hi;
};

/// What the source sends through coefficients i .. i + lanes - 1, before the weight: each
/// lane with the IEEE operations of the scalar loop, in its order.
template <class V>
[[gnu::always_inline]] inline void sent(const Columns& c, std::ptrdiff_t i, const SourceLanes<V>& s,
                                        TargetLanes<V>& x) {
#define LD(name, field) \
  V name;               \
  std::memcpy(&name, c.field + i, sizeof(V))
  const V zero{};
  LD(slope, slope);
  LD(curv, curvature);
  LD(gc, g_centre);
  LD(t_lo, t_lo);
  LD(t_hi, t_hi);
  LD(third, third);
  LD(g_min, g_min);
  LD(g_max, g_max);
  const V lin_lo = RDPAUDIT_MIN(s.dl * slope, s.du * slope);
  const V lin_hi = RDPAUDIT_MAX(s.dl * slope, s.du * slope);
  const V base_lo = (gc >= 0 ? s.pl : s.pu) * gc;
  const V quad_lo = RDPAUDIT_MIN(s.vl * curv, s.vu * curv) - s.vu * third;
  const V quad_hi = RDPAUDIT_MAX(s.vl * curv, s.vu * curv) + s.vu * third;
  // std::max({a, b, c}) is max(max(a, b), c), std::min({a, b, c}) likewise
  const V lo = RDPAUDIT_MAX(RDPAUDIT_MAX(s.pl * g_min, (t_lo >= 0 ? s.pl : s.pu) * t_lo + lin_lo),
                            base_lo + lin_lo + quad_lo);
  const V hi =
      RDPAUDIT_MIN(RDPAUDIT_MIN(s.pu * g_max, s.pu * t_hi + lin_hi), s.pu * gc + lin_hi + quad_hi);
  x.mass_lo = RDPAUDIT_MAX(lo, zero);
  x.mass_hi = RDPAUDIT_MAX(hi, zero);
  LD(m_slope, m_slope);
  LD(m_centre, m_centre);
  LD(m_third, m_third);
  LD(h_lo, h_lo);
  LD(h_hi, h_hi);
  const V mlin_lo = RDPAUDIT_MIN(s.dl * m_slope, s.du * m_slope);
  const V mlin_hi = RDPAUDIT_MAX(s.dl * m_slope, s.du * m_slope);
  const V m_lo = RDPAUDIT_MIN(s.pl * m_centre, s.pu * m_centre) + mlin_lo - s.vu * m_third;
  const V m_hi = RDPAUDIT_MAX(s.pl * m_centre, s.pu * m_centre) + mlin_hi + s.vu * m_third;
  x.moment_lo = RDPAUDIT_MAX(RDPAUDIT_MIN(s.pl * h_lo, s.pu * h_lo), m_lo);
  x.moment_hi = RDPAUDIT_MIN(RDPAUDIT_MAX(s.pl * h_hi, s.pu * h_hi), m_hi);
  LD(k_slope, k_slope);
  LD(k_centre, k_centre);
  LD(k_third, k_third);
  LD(k_lo_c, k_lo);
  LD(k_hi_c, k_hi);
  const V klin_lo = RDPAUDIT_MIN(s.dl * k_slope, s.du * k_slope);
  const V klin_hi = RDPAUDIT_MAX(s.dl * k_slope, s.du * k_slope);
  const V k_lo = s.pl * k_centre + klin_lo - s.vu * k_third;
  const V k_hi = s.pu * k_centre + klin_hi + s.vu * k_third;
  x.second_lo = RDPAUDIT_MAX(s.pl * k_lo_c, k_lo);
  x.second_hi = RDPAUDIT_MIN(s.pu * k_hi_c, k_hi);
#undef LD
}

/// The target cells' quantities at index `at` of `out`, and back.
template <class V>
[[gnu::always_inline]] inline void load_targets(const CellLaw& out, std::ptrdiff_t at,
                                                TargetLanes<V>& t) {
  std::memcpy(&t.mass_lo, out.mass_lo.data() + at, sizeof(V));
  std::memcpy(&t.mass_hi, out.mass_hi.data() + at, sizeof(V));
  std::memcpy(&t.moment_lo, out.moment_lo.data() + at, sizeof(V));
  std::memcpy(&t.moment_hi, out.moment_hi.data() + at, sizeof(V));
  std::memcpy(&t.second_lo, out.second_lo.data() + at, sizeof(V));
  std::memcpy(&t.second_hi, out.second_hi.data() + at, sizeof(V));
}
template <class V>
[[gnu::always_inline]] inline void store_targets(const TargetLanes<V>& t, std::ptrdiff_t at,
                                                 CellLaw& out) {
  std::memcpy(out.mass_lo.data() + at, &t.mass_lo, sizeof(V));
  std::memcpy(out.mass_hi.data() + at, &t.mass_hi, sizeof(V));
  std::memcpy(out.moment_lo.data() + at, &t.moment_lo, sizeof(V));
  std::memcpy(out.moment_hi.data() + at, &t.moment_hi, sizeof(V));
  std::memcpy(out.second_lo.data() + at, &t.second_lo, sizeof(V));
  std::memcpy(out.second_hi.data() + at, &t.second_hi, sizeof(V));
}

/// t += w * x, lane by lane
template <class V>
[[gnu::always_inline]] inline void add_sent(TargetLanes<V>& t, const V& w,
                                            const TargetLanes<V>& x) {
  t.mass_lo += w * x.mass_lo;
  t.mass_hi += w * x.mass_hi;
  t.moment_lo += w * x.moment_lo;
  t.moment_hi += w * x.moment_hi;
  t.second_lo += w * x.second_lo;
  t.second_hi += w * x.second_hi;
}

/// The same in the lanes where `keep` is true; the others unchanged.
template <class V, class M>
[[gnu::always_inline]] inline void add_sent_where(TargetLanes<V>& t, const V& w,
                                                  const TargetLanes<V>& x, const M& keep) {
  t.mass_lo = keep ? t.mass_lo + w * x.mass_lo : t.mass_lo;
  t.mass_hi = keep ? t.mass_hi + w * x.mass_hi : t.mass_hi;
  t.moment_lo = keep ? t.moment_lo + w * x.moment_lo : t.moment_lo;
  t.moment_hi = keep ? t.moment_hi + w * x.moment_hi : t.moment_hi;
  t.second_lo = keep ? t.second_lo + w * x.second_lo : t.second_lo;
  t.second_hi = keep ? t.second_hi + w * x.second_hi : t.second_hi;
}

/// Targets 0 .. count - 1 in steps of the lanes of V; returns the first target not done (a
/// remainder shorter than the lanes).
template <class V>
[[gnu::always_inline]] inline int accumulate_lanes(const CoefColumns& coef, int skip, int first,
                                                   int count, const Source& src, CellLaw& out) {
  constexpr int kW = static_cast<int>(sizeof(V) / sizeof(double));
  const Columns c(coef, CoefColumns::kPad + skip);
  const SourceLanes<V> s(src);
  TargetLanes<V> x, t;
  int i = 0;
  for (; i + kW <= count; i += kW) {
    sent(c, i, s, x);
    load_targets(out, first + i, t);
    add_sent(t, s.w, x);
    store_targets(t, first + i, out);
  }
  return i;
}

/// Sources per tile of the Toeplitz accumulation: the coefficients a tile reads for one block
/// of targets, (kTile + lanes) x 18 doubles, stay in the first-level cache.
constexpr int kTile = 32;

/// The Toeplitz accumulation (accumulate_toeplitz) into the targets o_begin .. o_end - 1 of
/// `out`, in blocks of the lanes of V (o_end - o_begin a multiple of them): for each tile of
/// sources, each block of targets is loaded once, receives the tile's sources in ascending
/// order, and is stored; so every target receives every source in ascending order, as in the
/// loop over sources, and the sums are the same bits.
template <class V>
[[gnu::always_inline]] inline void toeplitz_tiles(const CoefColumns& coef, int offset,
                                                  const CellLaw& law, CellLaw& out, int o_begin,
                                                  int o_end) {
  constexpr int kW = static_cast<int>(sizeof(V) / sizeof(double));
  const Columns c(coef, CoefColumns::kPad);
  const int count = static_cast<int>(coef.size()), n = law.cells;
  V lane{}, zero{}, top{};
  for (int l = 0; l < kW; ++l) {
    reinterpret_cast<double*>(&lane)[l] = l;
    reinterpret_cast<double*>(&top)[l] = count;
  }
  TargetLanes<V> t, x;
  for (int j0 = 0; j0 < n; j0 += kTile) {
    const int j1 = std::min(n, j0 + kTile);
    // the targets this tile reaches, from the first block that holds one
    const int reach_lo = std::max(o_begin, offset + j0);
    const int o_hi = std::min(o_end, offset + j1 - 1 + count);
    for (int o = o_begin + (reach_lo - o_begin) / kW * kW; o < o_hi; o += kW) {
      load_targets(out, o, t);
      for (int j = j0; j < j1; ++j) {
        const auto js = static_cast<std::size_t>(j);
        if (law.mass_hi[js] == 0) continue;
        const int i = o - offset - j;  // the coefficient of the block's first target
        if (i >= count || i + kW <= 0) continue;
        const SourceLanes<V> s(Source{1.0, law.mass_lo[js], law.mass_hi[js], law.moment_lo[js],
                                      law.moment_hi[js], law.second_lo[js], law.second_hi[js]});
        sent(c, i, s, x);
        if (i >= 0 && i + kW <= count) {
          add_sent(t, s.w, x);
        } else {
          // the lanes within the source's reach (the columns are padded: the others read
          // padding, and their values are dropped)
          const V at = lane + static_cast<double>(i);
          const auto keep = (at >= zero) & (at < top);
          add_sent_where(t, s.w, x, keep);
        }
      }
      store_targets(t, o, out);
    }
  }
}

#undef RDPAUDIT_MIN
#undef RDPAUDIT_MAX

typedef double Avx2Lanes __attribute__((vector_size(32)));
typedef double Avx512Lanes __attribute__((vector_size(64)));

__attribute__((target("avx2"))) int accumulate_avx2(const CoefColumns& c, int skip, int first,
                                                    int count, const Source& s, CellLaw& out) {
  return accumulate_lanes<Avx2Lanes>(c, skip, first, count, s, out);
}

__attribute__((target("avx512f"))) int accumulate_avx512(const CoefColumns& c, int skip, int first,
                                                         int count, const Source& s, CellLaw& out) {
  return accumulate_lanes<Avx512Lanes>(c, skip, first, count, s, out);
}

__attribute__((target("avx2"))) void toeplitz_avx2(const CoefColumns& c, int offset,
                                                   const CellLaw& law, CellLaw& out, int o_end) {
  toeplitz_tiles<Avx2Lanes>(c, offset, law, out, 0, o_end);
}

__attribute__((target("avx512f"))) void toeplitz_avx512(const CoefColumns& c, int offset,
                                                        const CellLaw& law, CellLaw& out,
                                                        int o_end) {
  toeplitz_tiles<Avx512Lanes>(c, offset, law, out, 0, o_end);
}

}  // namespace

void to_columns(const std::vector<Coef>& coef, int first, int count, CoefColumns& out) {
  const auto n = static_cast<std::size_t>(std::max(count, 0));
  const auto pad = static_cast<std::size_t>(CoefColumns::kPad);
  out.count = static_cast<int>(n);
  for (auto* v :
       {&out.g_min, &out.g_max, &out.g_centre, &out.t_lo, &out.t_hi, &out.slope, &out.curvature,
        &out.third, &out.h_lo, &out.h_hi, &out.k_lo, &out.k_hi, &out.m_centre, &out.m_slope,
        &out.m_third, &out.k_centre, &out.k_slope, &out.k_third})
    v->assign(n + 2 * pad, 0.0);
  for (std::size_t r = 0; r < n; ++r) {
    const Coef& c = coef[static_cast<std::size_t>(first) + r];
    const std::size_t i = pad + r;
    out.g_min[i] = c.g_min;
    out.g_max[i] = c.g_max;
    out.g_centre[i] = c.g_centre;
    out.t_lo[i] = c.g_centre - c.remainder;
    out.t_hi[i] = c.g_centre + c.remainder;
    out.slope[i] = c.slope;
    out.curvature[i] = c.curvature;
    out.third[i] = c.third;
    out.h_lo[i] = c.h_lo;
    out.h_hi[i] = c.h_hi;
    out.k_lo[i] = c.k_lo;
    out.k_hi[i] = c.k_hi;
    out.m_centre[i] = c.m_centre;
    out.m_slope[i] = c.m_slope;
    out.m_third[i] = c.m_third;
    out.k_centre[i] = c.k_centre;
    out.k_slope[i] = c.k_slope;
    out.k_third[i] = c.k_third;
  }
}

void accumulate_columns(const CoefColumns& coef, int skip, int first, int count, double weight,
                        double pl, double pu, double dl, double du, double vl, double vu,
                        CellLaw& out, bool vectorised) {
  const Source s{weight, pl, pu, dl, du, vl, vu};
  int done = 0;
  if (vectorised && kHasAvx512) {
    done = accumulate_avx512(coef, skip, first, count, s, out);
  } else if (vectorised && kHasAvx2) {
    done = accumulate_avx2(coef, skip, first, count, s, out);
  }
  if (done < count) {
    done += accumulate_lanes<double>(coef, skip + done, first + done, count - done, s, out);
  }
}

void accumulate_toeplitz(const CoefColumns& coef, int offset, const CellLaw& law, CellLaw& out,
                         bool vectorised) {
  const int count = static_cast<int>(coef.size()), cells = out.cells;
  if (!vectorised) {
    // the loop over sources (the reference the tiles reproduce)
    for (int j = 0; j < law.cells; ++j) {
      const auto js = static_cast<std::size_t>(j);
      if (law.mass_hi[js] == 0) continue;
      const int lo = std::max(offset + j, 0), hi = std::min(offset + j + count - 1, cells - 1);
      if (hi < lo) continue;
      accumulate_columns(coef, lo - offset - j, lo, hi - lo + 1, 1.0, law.mass_lo[js],
                         law.mass_hi[js], law.moment_lo[js], law.moment_hi[js], law.second_lo[js],
                         law.second_hi[js], out, false);
    }
    return;
  }
  int done = 0;
  if (kHasAvx512) {
    done = cells - cells % 8;
    toeplitz_avx512(coef, offset, law, out, done);
  } else if (kHasAvx2) {
    done = cells - cells % 4;
    toeplitz_avx2(coef, offset, law, out, done);
  }
  toeplitz_tiles<double>(coef, offset, law, out, done, cells);
}

}  // namespace rdpaudit::exact::detail
