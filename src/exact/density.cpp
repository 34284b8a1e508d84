// The density of the law after one more step, bracketed pointwise (docs/exact-laws.md): the
// upper end of the Renyi bracket integrates it.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "gaussian_bounds.hpp"
#include "kernel.hpp"
#include "map_source.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/exact/law.hpp"

namespace rdpaudit::exact {

using namespace detail;

namespace {

/// The density a source of image centre mc (half-width hm) gives at y = mc + d, per unit
/// mass: its range over the image, its value and m-derivative at the centre, the Taylor
/// remainder bound.
struct DensityCoef {
  double f_min = 0, f_max = 0, f_centre = 0, slope = 0, remainder = 0;
  double curvature = 0, third = 0;  ///< f''(centre) / 2; third-order remainder per unit V
};

DensityCoef density_coef(double d, double hm, double s) {
  const double inv_s = 1.0 / s, uc = d * inv_s, du = hm * inv_s;
  const double u1 = uc - du, u2 = uc + du;
  const double f1 = pdf(u1), f2 = pdf(u2);
  DensityCoef c;
  c.f_min = std::min(f1, f2) * inv_s;
  c.f_max = ((u1 <= 0 && u2 >= 0) ? pdf(0.0) : std::max(f1, f2)) * inv_s;
  c.f_centre = pdf(uc) * inv_s;
  c.slope = uc * pdf(uc) * inv_s * inv_s;  // d/dm pdf_s(y - m)
  c.remainder = 0.5 * sup_u2m1_pdf(u1, u2) * inv_s * inv_s * inv_s * hm * hm;
  c.curvature = 0.5 * (uc * uc - 1.0) * pdf(uc) * inv_s * inv_s * inv_s;
  c.third = sup_u3m3u_pdf(u1, u2) * inv_s * inv_s * inv_s * inv_s * hm / 6.0;
  return c;
}

void add_density(const DensityCoef& c, double pl, double pu, double dl, double du, double vl,
                 double vu, double& lo, double& hi) {
  const double lin_lo = std::min(dl * c.slope, du * c.slope);
  const double lin_hi = std::max(dl * c.slope, du * c.slope);
  const double quad_lo = std::min(vl * c.curvature, vu * c.curvature) - vu * c.third;
  const double quad_hi = std::max(vl * c.curvature, vu * c.curvature) + vu * c.third;
  const double t_lo = c.f_centre - c.remainder;
  lo += std::max({pl * c.f_min, (t_lo >= 0 ? pl : pu) * t_lo + lin_lo,
                  pl * c.f_centre + lin_lo + quad_lo, 0.0});
  hi += std::max(0.0, std::min({pu * c.f_max, pu * (c.f_centre + c.remainder) + lin_hi,
                                pu * c.f_centre + lin_hi + quad_hi}));
}

}  // namespace

void detail::density_of_maps(const CellLaw& law, const Step& step, const std::vector<double>& ys,
                             double reach, std::vector<double>& lo, std::vector<double>& hi) {
  if (!law.blobs.empty()) throw InternalError("density_after_step: map cases from blobs");
  const double s = step.noise_std, inv_s = 1.0 / s, h = law.width();
  for (const MapCase& mcase : step.maps) {
    const double w = mcase.weight;
    // the local map's bracket (read on the image's offsets: their range and moments,
    // map_source.hpp), widened by error sup |d/dm pdf_s(y - m)| = error sup |u pdf(u)| / s^2
    // over the image's hull
    const auto add_source = [&](const LocalQuadratic& e, double half, double pl, double pu,
                                double dl, double du, double vl, double vu) {
      const ImageOffsets z = image_offsets(e, half, dl, du, vl, vu);
      const double hm = z.hm, spread = hm + e.error;
      const auto from = std::lower_bound(ys.begin(), ys.end(), e.image - spread - reach);
      const auto to = std::upper_bound(ys.begin(), ys.end(), e.image + spread + reach);
      for (auto it = from; it < to; ++it) {
        const auto i = static_cast<std::size_t>(it - ys.begin());
        double l = 0, u = 0;
        add_density(density_coef(*it - e.image, hm, s), pl, pu, z.dl, z.du, z.vl, z.vu, l, u);
        if (e.error > 0) {
          const double uc = (*it - e.image) * inv_s;
          const double pert =
              pu * e.error * sup_u_pdf(uc - spread * inv_s, uc + spread * inv_s) * inv_s * inv_s;
          l = std::max(0.0, l - pert);
          u += pert;
        }
        lo[i] += w * l;
        hi[i] += w * u;
      }
    };
    for (int j = 0; j < law.cells; ++j) {
      const auto js = static_cast<std::size_t>(j);
      if (law.mass_hi[js] == 0) continue;
      const double x0 = law.lo + j * h;
      add_source(enclose_map(mcase, x0, x0 + h), 0.5 * h, law.mass_lo[js], law.mass_hi[js],
                 law.moment_lo[js], law.moment_hi[js], law.second_lo[js], law.second_hi[js]);
    }
    for (const PointMass& p : law.points) {
      if (p.mass.hi == 0) continue;
      add_source(enclose_map(mcase, p.x, p.x), 0.0, p.mass.lo, p.mass.hi, 0, 0, 0, 0);
    }
    for (std::size_t i = 0; i < ys.size(); ++i) hi[i] += w * law.outside.hi * pdf(0.0) / s;
  }
}

void density_after_step(const CellLaw& law, const Step& step, const std::vector<double>& ys,
                        std::vector<double>& lo, std::vector<double>& hi,
                        const PropagateOptions& options) {
  check_law(law, "density_after_step");
  const double s = step.noise_std, h = law.width();
  lo.resize(ys.size(), 0.0);
  hi.resize(ys.size(), 0.0);
  if (ys.empty()) return;
  // sources beyond the reach send less than pdf(reach) / s ~ 1e-315 / s per unit mass,
  // below double precision's normal range: left out (no floor under the upper bounds, which
  // the far tails' lower bounds could not match)
  const double reach = options.reach * s;
  // points on a lattice y_i = lo + (i0 + i) h / k (as renyi_brackets asks for): the
  // coefficients depend only on an integer offset between point and source, one table per
  // case (slope 1) or per case and lattice point of the image centres (other slopes)
  int k = 0;
  long i0 = 0;
  if (ys.size() >= 2) {
    const double step_y = ys[1] - ys[0];
    const double kk = std::round(h / step_y);
    if (kk >= 1 && std::fabs(kk * step_y - h) <= 1e-9 * h) {
      k = static_cast<int>(kk);
      i0 = std::lround((ys[0] - law.lo) / step_y);
      const double dy = h / k;
      if (std::fabs(law.lo + static_cast<double>(i0) * dy - ys[0]) > 1e-9 * dy ||
          std::fabs(law.lo + static_cast<double>(i0 + static_cast<long>(ys.size()) - 1) * dy -
                    ys.back()) > 1e-6 * dy) {
        k = 0;
      }
    }
  }
  const long count = static_cast<long>(ys.size());
  for (const AffineCase& cs : step.cases) {
    const double a = cs.slope, w = cs.weight;
    std::vector<double> acc_lo(ys.size(), 0.0), acc_hi(ys.size(), 0.0);
    if (k > 0) {
      const bool unit = (a == 1.0);
      const int lattice = unit ? 1 : kLattice;
      const double hm = unit ? 0.5 * h : 0.5 * a * h + 0.5 * h / kLattice;
      const double eps = h / (static_cast<double>(k) * lattice);
      const double offset = unit ? 0.5 * h + cs.shift : 0.0;
      const long half = static_cast<long>(std::ceil((reach + hm) / eps)) + 1;
      // offsets n in [nlo, nhi] are within reach: d = n eps - offset
      long nlo = static_cast<long>(std::floor((-reach - hm + offset) / eps)) - 1;
      long nhi = nlo + 2 * half + 2;
      // base (below) of every cell, and the table clipped to the offsets the points can ask
      // for: the reach is a multiple of s, which can be many times the grid (memory and time
      // would grow with s / h); each entry is computed alone, so the clip changes no value
      std::vector<long> bases(static_cast<std::size_t>(law.cells));
      long base_min = std::numeric_limits<long>::max(), base_max = std::numeric_limits<long>::min();
      for (int j = 0; j < law.cells; ++j) {
        long base = static_cast<long>(j) * k;
        if (!unit) {
          const double mc = a * law.centre(j) + cs.shift;
          base = static_cast<long>(std::round((mc - law.lo) / h * kLattice)) * k;
        }
        bases[static_cast<std::size_t>(j)] = base;
        base_min = std::min(base_min, base);
        base_max = std::max(base_max, base);
      }
      nlo = std::max(nlo, i0 * lattice - base_max);
      nhi = std::min(nhi, (i0 + count - 1) * lattice - base_min);
      std::vector<DensityCoef> table(static_cast<std::size_t>(std::max(0L, nhi - nlo + 1)));
      for (long n = nlo; n <= nhi; ++n) {
        table[static_cast<std::size_t>(n - nlo)] =
            density_coef(static_cast<double>(n) * eps - offset, hm, s);
      }
      for (int j = 0; j < law.cells; ++j) {
        const auto js = static_cast<std::size_t>(j);
        const double pl = law.mass_lo[js], pu = law.mass_hi[js];
        if (pu == 0) continue;
        double dl = law.moment_lo[js], du = law.moment_hi[js];
        double vl = law.second_lo[js], vu = law.second_hi[js];
        // n = (i0 + i) lattice - base
        if (!unit) {
          const double mc = a * law.centre(j) + cs.shift;
          const double r = static_cast<double>(bases[js] / k);
          const double delta = mc - (law.lo + r * h / kLattice);
          dl = a * law.moment_lo[js] + std::min(pl * delta, pu * delta);
          du = a * law.moment_hi[js] + std::max(pl * delta, pu * delta);
          const double c1 = 2 * a * delta * law.moment_lo[js],
                       c2 = 2 * a * delta * law.moment_hi[js];
          vl = std::max(0.0, a * a * law.second_lo[js] + std::min(c1, c2) + delta * delta * pl);
          vu = a * a * law.second_hi[js] + std::max(c1, c2) + delta * delta * pu;
        }
        const long base = bases[js];
        // i with nlo <= (i0 + i) lattice - base <= nhi
        const long i_first = std::max(
            0L, static_cast<long>(std::ceil(static_cast<double>(nlo + base) / lattice)) - i0);
        const long i_last =
            std::min(count - 1,
                     static_cast<long>(std::floor(static_cast<double>(nhi + base) / lattice)) - i0);
        for (long i = i_first; i <= i_last; ++i) {
          const long n = (i0 + i) * lattice - base;
          add_density(table[static_cast<std::size_t>(n - nlo)], pl, pu, dl, du, vl, vu,
                      acc_lo[static_cast<std::size_t>(i)], acc_hi[static_cast<std::size_t>(i)]);
        }
      }
    } else {
      const double hm = 0.5 * a * h;
      for (std::size_t i = 0; i < ys.size(); ++i) {
        const double y = ys[i];
        const double x_from = (y - reach - hm - cs.shift) / a,
                     x_to = (y + reach + hm - cs.shift) / a;
        const int j0 = std::max(0, cell_index(std::floor((x_from - law.lo) / h)));
        const int j1 = std::min(law.cells - 1, cell_index(std::ceil((x_to - law.lo) / h)));
        for (int j = j0; j <= j1; ++j) {
          const auto js = static_cast<std::size_t>(j);
          if (law.mass_hi[js] == 0) continue;
          const double mc = a * law.centre(j) + cs.shift;
          add_density(density_coef(y - mc, hm, s), law.mass_lo[js], law.mass_hi[js],
                      a * law.moment_lo[js], a * law.moment_hi[js], a * a * law.second_lo[js],
                      a * a * law.second_hi[js], acc_lo[i], acc_hi[i]);
        }
      }
    }
    // blobs: each over the points within reach of its image (ys ascending)
    for (const Blob& b : law.blobs) {
      if (b.mass.hi == 0) continue;
      const double mc = a * b.centre + cs.shift, hb = a * b.half_width;
      const auto from = std::lower_bound(ys.begin(), ys.end(), mc - hb - reach);
      const auto to = std::upper_bound(ys.begin(), ys.end(), mc + hb + reach);
      for (auto it = from; it < to; ++it) {
        const auto i = static_cast<std::size_t>(it - ys.begin());
        add_density(density_coef(*it - mc, hb, s), b.mass.lo, b.mass.hi, a * b.moment.lo,
                    a * b.moment.hi, a * a * b.second.lo, a * a * b.second.hi, acc_lo[i],
                    acc_hi[i]);
      }
    }
    for (std::size_t i = 0; i < ys.size(); ++i) {
      const double y = ys[i];
      for (const PointMass& p : law.points) {
        const double f = pdf((y - (a * p.x + cs.shift)) / s) / s;
        acc_lo[i] += p.mass.lo * f;
        acc_hi[i] += p.mass.hi * f;
      }
      // unclamped mass outside the grid, anywhere
      acc_hi[i] += law.outside.hi * pdf(0.0) / s;
      lo[i] += w * acc_lo[i];
      hi[i] += w * acc_hi[i];
    }
  }
  if (!step.maps.empty()) density_of_maps(law, step, ys, reach, lo, hi);
}

}  // namespace rdpaudit::exact
