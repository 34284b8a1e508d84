// One step of map cases that are not affine (docs/exact-laws.md, "Maps that are not affine"):
// each source is sent through the quadratic (or affine) part of its enclosure m = Q + e,
// |e| <= error, with the brackets of the affine steps read on the image's offsets, and every
// bracket is widened by error times the largest m-derivative of what it brackets over the
// image's hull.
#include <algorithm>
#include <cmath>
#include <functional>
#include <unordered_map>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "gaussian_bounds.hpp"
#include "kernel.hpp"
#include "map_source.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::exact::detail {

namespace {

/// What one source's image sends to its window of targets: the coefficients, and per target
/// the rate h sup |u pdf(u)| / s^2 over the target and the image's hull at which the target's
/// mass changes with the image's position. A chain's map cases send each cell to the same
/// image at every step, so these are kept across steps, keyed by every input of their
/// computation (a hit returns the very numbers a fresh computation would).
struct Sent {
  std::vector<Coef> coef;
  std::vector<double> rate;
};

struct SentKey {
  double e0, h, mc, hm, spread, s;
  int count;
  bool rates;  ///< the rates too (the enclosure has an error)
  bool operator==(const SentKey& o) const {
    return e0 == o.e0 && h == o.h && mc == o.mc && hm == o.hm && spread == o.spread && s == o.s &&
           count == o.count && rates == o.rates;
  }
};

struct SentHash {
  std::size_t operator()(const SentKey& k) const {
    std::size_t seed = std::hash<int>()(2 * k.count + (k.rates ? 1 : 0));
    for (double v : {k.e0, k.h, k.mc, k.hm, k.spread, k.s})
      seed ^= std::hash<double>()(v) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
    return seed;
  }
};

struct SentCache {
  std::unordered_map<SentKey, Sent, SentHash> entries;
  std::size_t held = 0;  ///< coefficients in `entries`
};

SentCache& sent_cache() {
  thread_local SentCache cache;
  return cache;
}

const Sent& sent(const SentKey& key) {
  auto& [cache, held] = sent_cache();
  const auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const auto count = static_cast<std::size_t>(key.count);
  if (held + count > kMapCoefficientsKept) {
    cache.clear();
    held = 0;
  }
  Sent& e = cache[key];
  held += count;
  coefficients(key.e0, key.h, key.count, key.mc, key.hm, 1.0, key.s, e.coef);
  if (key.rates) {
    const double inv_s = 1.0 / key.s;
    e.rate.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      const double ea = key.e0 + static_cast<double>(i) * key.h;
      const double ua = (ea - key.mc - key.spread) * inv_s;
      const double ub = (ea + key.h - key.mc + key.spread) * inv_s;
      e.rate[i] = key.h * inv_s * inv_s * sup_u_pdf(ua, ub);
    }
  }
  return e;
}

/// sup of pdf over [u1, u2].
double sup_pdf(double u1, double u2) {
  if (u1 <= 0.0 && u2 >= 0.0) return pdf(0.0);
  return pdf(std::min(std::fabs(u1), std::fabs(u2)));
}

}  // namespace

void release_map_coefficients() {
  // swap, not clear: clear keeps the bucket array
  SentCache& c = sent_cache();
  if (c.held == 0) return;
  std::unordered_map<SentKey, Sent, SentHash>().swap(c.entries);
  c.held = 0;
#if defined(__GLIBC__)
  // the coefficients are many blocks below glibc's mmap threshold: freed, they stay in the
  // process's heap (its resident memory) until trimmed
  malloc_trim(0);
#endif
}

void propagate_maps(const CellLaw& law, const Step& step, double reach_sds, CellLaw& out,
                    double& unvisited) {
  if (!law.blobs.empty()) throw InternalError("propagate: map cases from a law with blobs");
  const double s = step.noise_std, inv_s = 1.0 / s, h = law.width(), reach = reach_sds * s;
  const double tail_each = 2.0 * upper_tail(reach_sds);
  const int n = law.cells;
  for (const MapCase& mcase : step.maps) {
    const double w = mcase.weight;
    if (w == 0) continue;
    if (!(w > 0) || !mcase.enclose) throw InternalError("propagate: a map case's weight > 0");
    // a source of half-width `half` about its centre, mass [pl, pu], moments about the centre
    const auto send = [&](const LocalQuadratic& e, double half, double pl, double pu, double dl0,
                          double du0, double vl0, double vu0) {
      if (!std::isfinite(e.slope) || !std::isfinite(e.curvature) || !std::isfinite(e.image) ||
          !(e.curvature_radius >= 0) || !std::isfinite(e.curvature_radius) || !(e.error >= 0) ||
          !std::isfinite(e.error))
        throw InternalError("propagate: a map's enclosure needs a finite slope and error");
      const ImageOffsets z = image_offsets(e, half, dl0, du0, vl0, vu0);
      const double hm = z.hm, spread = hm + e.error;
      const double dl = z.dl, du = z.du, vl = z.vl, vu = z.vu;
      const int first = cell_index(std::floor((e.image - spread - reach - law.lo) / h));
      const int last = cell_index(std::ceil((e.image + spread + reach - law.lo) / h));
      const int lo_k = std::max(first, 0), hi_k = std::min(last, n - 1);
      if (hi_k >= lo_k) {
        const Sent& to =
            sent({law.lo + lo_k * h, h, e.image, hm, spread, s, hi_k - lo_k + 1, e.error > 0});
        accumulate(to.coef, 0, lo_k, hi_k - lo_k + 1, w, pl, pu, dl, du, vl, vu, out);
        if (e.error > 0) {
          // |G'|, |H'| / (h/2), |K'| / (h/2)^2 <= h sup |u pdf(u)| / s^2 over the target and
          // the image's hull (docs/exact-laws.md)
          for (int k = lo_k; k <= hi_k; ++k) {
            const auto ks = static_cast<std::size_t>(k);
            const double pert = w * pu * e.error * to.rate[static_cast<std::size_t>(k - lo_k)];
            out.mass_lo[ks] -= pert;
            out.mass_hi[ks] += pert;
            out.moment_lo[ks] -= 0.5 * h * pert;
            out.moment_hi[ks] += 0.5 * h * pert;
            out.second_lo[ks] -= 0.25 * h * h * pert;
            out.second_hi[ks] += 0.25 * h * h * pert;
          }
        }
      }
      unvisited += w * pu * tail_each;
      Bracket up = beyond(law.hi, true, e.image, hm, 1.0, s, pl, pu, dl, du, vl, vu);
      Bracket down = beyond(law.lo, false, e.image, hm, 1.0, s, pl, pu, dl, du, vl, vu);
      if (e.error > 0) {
        // the mass beyond an edge changes with m at the rate pdf((edge - m) / s) / s
        const auto widen = [&](Bracket& edge_mass, double edge) {
          const double u = (edge - e.image) * inv_s;
          const double pert =
              pu * e.error * sup_pdf(u - spread * inv_s, u + spread * inv_s) * inv_s;
          edge_mass.lo = std::max(0.0, edge_mass.lo - pert);
          edge_mass.hi += pert;
        };
        widen(up, law.hi);
        widen(down, law.lo);
      }
      add_edges(w, down, up, out);
    };
    const auto enclose = [&mcase](double x_lo, double x_hi) {
      return enclose_map(mcase, x_lo, x_hi);
    };
    for (int j = 0; j < n; ++j) {
      const auto js = static_cast<std::size_t>(j);
      const double pu = law.mass_hi[js];
      if (pu == 0) continue;
      const double x0 = law.lo + j * h;
      send(enclose(x0, x0 + h), 0.5 * h, law.mass_lo[js], pu, law.moment_lo[js], law.moment_hi[js],
           law.second_lo[js], law.second_hi[js]);
    }
    for (const PointMass& p : law.points) {
      if (p.mass.hi == 0) continue;
      send(enclose(p.x, p.x), 0.0, p.mass.lo, p.mass.hi, 0, 0, 0, 0);
    }
  }
}

}  // namespace rdpaudit::exact::detail
