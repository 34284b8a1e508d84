// One step of map cases that are not affine (docs/exact-laws.md, "Maps that are not affine"):
// each source is sent through the affine part of its enclosure m = A + e, |e| <= error, with
// the brackets of the affine steps, and every bracket is widened by error times the largest
// m-derivative of what it brackets over the image's hull.
#include <algorithm>
#include <cmath>
#include <vector>

#include "gaussian_bounds.hpp"
#include "kernel.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::exact::detail {

namespace {

/// sup of pdf over [u1, u2].
double sup_pdf(double u1, double u2) {
  if (u1 <= 0.0 && u2 >= 0.0) return pdf(0.0);
  return pdf(std::min(std::fabs(u1), std::fabs(u2)));
}

}  // namespace

void propagate_maps(const CellLaw& law, const Step& step, double reach_sds, CellLaw& out,
                    double& unvisited) {
  if (!law.blobs.empty()) throw InternalError("propagate: map cases from a law with blobs");
  const double s = step.noise_std, inv_s = 1.0 / s, h = law.width(), reach = reach_sds * s;
  const double tail_each = 2.0 * upper_tail(reach_sds);
  const int n = law.cells;
  std::vector<Coef> coef;
  for (const MapCase& mcase : step.maps) {
    const double w = mcase.weight;
    if (w == 0) continue;
    if (!(w > 0) || !mcase.enclose) throw InternalError("propagate: a map case's weight > 0");
    // a source of half-width `half` about its centre, mass [pl, pu], moments about the centre
    const auto send = [&](const LocalAffine& e, double half, double pl, double pu, double dl0,
                          double du0, double vl0, double vu0) {
      const double a = e.slope;
      if (!std::isfinite(a) || !(e.error >= 0) || !std::isfinite(e.image) ||
          !std::isfinite(e.error))
        throw InternalError("propagate: a map's enclosure needs a finite slope and error");
      // the affine part in the image's coordinate (a may be negative or 0: the brackets read
      // the image's offsets through their moments only): moments a D and a^2 V about the image
      const double hm = std::fabs(a) * half, spread = hm + e.error;
      const double dl = std::min(a * dl0, a * du0), du = std::max(a * dl0, a * du0);
      const double vl = a * a * vl0, vu = a * a * vu0;
      const int first = static_cast<int>(std::floor((e.image - spread - reach - law.lo) / h));
      const int last = static_cast<int>(std::ceil((e.image + spread + reach - law.lo) / h));
      const int lo_k = std::max(first, 0), hi_k = std::min(last, n - 1);
      if (hi_k >= lo_k) {
        coefficients(law.lo + lo_k * h, h, hi_k - lo_k + 1, e.image, hm, 1.0, s, coef);
        accumulate(coef, 0, lo_k, hi_k - lo_k + 1, w, pl, pu, dl, du, vl, vu, out);
        if (e.error > 0) {
          // |G'|, |H'| / (h/2), |K'| / (h/2)^2 <= h sup |u pdf(u)| / s^2 over the target and
          // the image's hull (docs/exact-laws.md)
          for (int k = lo_k; k <= hi_k; ++k) {
            const auto ks = static_cast<std::size_t>(k);
            const double e0 = law.lo + k * h;
            const double ua = (e0 - e.image - spread) * inv_s;
            const double ub = (e0 + h - e.image + spread) * inv_s;
            const double pert = w * pu * e.error * h * inv_s * inv_s * sup_u_pdf(ua, ub);
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
        const auto widen = [&](Bracket& b, double edge) {
          const double u = (edge - e.image) * inv_s;
          const double pert =
              pu * e.error * sup_pdf(u - spread * inv_s, u + spread * inv_s) * inv_s;
          b.lo = std::max(0.0, b.lo - pert);
          b.hi += pert;
        };
        widen(up, law.hi);
        widen(down, law.lo);
      }
      add_edges(w, down, up, out);
    };
    for (int j = 0; j < n; ++j) {
      const auto js = static_cast<std::size_t>(j);
      const double pu = law.mass_hi[js];
      if (pu == 0) continue;
      const double x0 = law.lo + j * h;
      send(mcase.enclose(x0, x0 + h), 0.5 * h, law.mass_lo[js], pu, law.moment_lo[js],
           law.moment_hi[js], law.second_lo[js], law.second_hi[js]);
    }
    for (const PointMass& p : law.points) {
      if (p.mass.hi == 0) continue;
      send(mcase.enclose(p.x, p.x), 0.0, p.mass.lo, p.mass.hi, 0, 0, 0, 0);
    }
  }
}

}  // namespace rdpaudit::exact::detail
