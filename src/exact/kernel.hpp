// The one-step kernel of a law's propagation, per source and target cell (docs/exact-laws.md,
// section 3): the coefficients a source sends to target cells through, their accumulation,
// and the mass sent beyond an edge; shared by the affine steps (law.cpp) and the steps of
// maps that are not affine (map_step.cpp). Internal to exact/.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "gaussian_bounds.hpp"
#include "rdpaudit/exact/law.hpp"

namespace rdpaudit::exact::detail {

/// What one source (a cell's image interval [mc - hm, mc + hm], or a point: hm = 0) sends
/// to one target cell, per unit of the source's mass and moment.
struct Coef {
  double g_min = 0, g_max = 0;  ///< range of the target's probability over the source
  double g_centre = 0;          ///< at the source's centre
  double remainder = 0;         ///< Taylor remainder bound per unit mass
  double slope = 0;             ///< d/dx of the probability at the centre (times the moment)
  double h_lo = 0, h_hi = 0;    ///< range of the target's first moment per unit mass
  double curvature = 0;         ///< half the second m-derivative of the probability at the centre
  double third = 0;             ///< third-order remainder per unit of second moment
  double k_lo = 0, k_hi = 0;    ///< range of the target's second moment per unit mass
  /// Taylor bracket of the target's first moment: value and m-derivative at the centre, and
  /// the remainder per unit of second moment
  double m_centre = 0, m_slope = 0, m_third = 0;
  /// the same for the target's second moment
  double k_centre = 0, k_slope = 0, k_third = 0;
};

/// The coefficients of target cells [e0 + i h, e0 + (i + 1) h), i = begin .. count - 1 (out[i
/// - begin]), from a source whose image has centre mc and half-width hm under a map of slope a,
/// noise s. A window clipped to the targets a grid can hold starts at begin > 0 with the same
/// bits as the whole window's entries.
inline void coefficients(double e0, double h, int count, double mc, double hm, double a, double s,
                         std::vector<Coef>& out, int begin = 0) {
  out.assign(static_cast<std::size_t>(std::max(0, count - begin)), Coef{});
  const double inv_s = 1.0 / s, du = hm * inv_s;
  const double peak = std::erf(0.5 * h * inv_s * kInvSqrt2);
  // the lower edge of target `begin` as the loop computes it (the previous target's upper edge)
  double u_prev = begin == 0 ? (e0 - mc) * inv_s : ((e0 + (begin - 1) * h) + h - mc) * inv_s;
  double pdf_prev = pdf(u_prev), psi_prev = sup_u_pdf(u_prev - du, u_prev + du);
  for (int i = begin; i < count; ++i) {
    const double ea = e0 + i * h, eb = ea + h, y = ea + 0.5 * h;
    const double ua = u_prev, ub = (eb - mc) * inv_s;
    const double pdf_b = pdf(ub), psi_b = sup_u_pdf(ub - du, ub + du);
    Coef& c = out[static_cast<std::size_t>(i - begin)];
    c.g_centre = interval_prob(ua, ub);
    if (hm > 0) {
      const double g_lo = interval_prob(ua + du, ub + du);  // centre at mc - hm
      const double g_hi = interval_prob(ua - du, ub - du);  // centre at mc + hm
      c.g_min = std::min(g_lo, g_hi);
      // unimodal in the centre, largest when the centre is the target's midpoint
      c.g_max = (mc + hm <= y) ? g_hi : (mc - hm >= y ? g_lo : peak);
      c.g_max = std::max(c.g_max, std::max(g_lo, g_hi));
      c.slope = a * (pdf_prev - pdf_b) * inv_s;
      // G''(m) = (u_a pdf(u_a) - u_b pdf(u_b)) / s^2 with u_b - u_a = h / s: by the mean value
      // theorem at most h / s times sup |(1 - u^2) pdf(u)| / s^2 over the edges' range (second
      // order in h / s relative to G), and at most the sum of the two terms
      const double g2 =
          std::min(psi_prev + psi_b, h * inv_s * sup_u2m1_pdf(ua - du, ub + du)) * inv_s * inv_s;
      c.remainder = 0.5 * g2 * hm * hm;
      // second order: G''(centre) / 2, and |G'''| <= (h / s) sup |(u^3 - 3u) pdf| / s^3 (mean
      // value theorem on (1 - u^2) pdf(u) between the edges) with |m - centre|^3 <= hm (m -
      // centre)^2
      c.curvature = 0.5 * (ua * pdf_prev - ub * pdf_b) * inv_s * inv_s;
      const double g3 = std::min(sup_1mu2_pdf(ua - du, ua + du) + sup_1mu2_pdf(ub - du, ub + du),
                                 h * inv_s * sup_u3m3u_pdf(ua - du, ub + du)) *
                        inv_s * inv_s * inv_s;
      c.third = g3 * hm / 6.0;
      // the target's second moment K(m): its value at the centre and |K'| <= (h/2)^2 (h/s)
      // sup |u pdf(u)| / s over the image
      const double k_c = second_moment_integral(y, h, mc, s);
      const double k_slope = 0.25 * h * h * h * inv_s * sup_u_pdf(ua - du, ub + du) * inv_s;
      c.k_lo = std::max(0.0, k_c - hm * k_slope);
      c.k_hi = std::min(0.25 * h * h * c.g_max, k_c + hm * k_slope);
      c.k_hi = std::max(c.k_hi, c.k_lo);
      // the first moment H(m) by Taylor: |H''| <= (h/2) h sup |(u^2 - 1) pdf| / s^3
      first_moment_integrals(y, h, mc, s, c.m_centre, c.m_slope);
      c.m_third = 0.5 * 0.5 * h * h * sup_u2m1_pdf(ua - du, ub + du) * inv_s * inv_s * inv_s;
      // and K(m): |K''| <= (h/2)^2 h sup |(u^2 - 1) pdf| / s^3
      c.k_centre = k_c;
      c.k_slope = second_moment_slope(y, h, mc, s);
      c.k_third = 0.5 * 0.25 * h * h * h * sup_u2m1_pdf(ua - du, ub + du) * inv_s * inv_s * inv_s;
      // mean offset within the target of N(m, s^2) given the target: increasing in m
      const auto mean_offset = [&](double m, double g) {
        const double u1 = (ea - m) * inv_s, u2 = (eb - m) * inv_s;
        double mu = g > 0 ? s * (pdf(u1) - pdf(u2)) / g + (m - y) : (m < y ? -0.5 * h : 0.5 * h);
        if (!std::isfinite(mu)) mu = m < y ? -0.5 * h : 0.5 * h;
        return std::clamp(mu, -0.5 * h, 0.5 * h);
      };
      const double mu_lo = mean_offset(mc - hm, g_lo), mu_hi = mean_offset(mc + hm, g_hi);
      c.h_lo = std::min(c.g_min * mu_lo, c.g_max * mu_lo);
      c.h_hi = std::max(c.g_min * mu_hi, c.g_max * mu_hi);
    } else {
      c.g_min = c.g_max = c.g_centre;
      double mu = c.g_centre > 0 ? s * (pdf_prev - pdf_b) / c.g_centre + (mc - y)
                                 : (mc < y ? -0.5 * h : 0.5 * h);
      if (!std::isfinite(mu)) mu = mc < y ? -0.5 * h : 0.5 * h;
      mu = std::clamp(mu, -0.5 * h, 0.5 * h);
      c.h_lo = c.h_hi = c.g_centre * mu;
      c.k_lo = c.k_hi = std::min(0.25 * h * h * c.g_centre, second_moment_integral(y, h, mc, s));
      first_moment_integrals(y, h, mc, s, c.m_centre, c.m_slope);
      c.m_centre = std::clamp(c.m_centre, c.h_lo, c.h_hi);
      c.k_centre = c.k_lo;
    }
    u_prev = ub;
    pdf_prev = pdf_b;
    psi_prev = psi_b;
  }
}

/// The coefficients by field, one array each (the layout the vectorised accumulation reads),
/// with the Taylor bracket's ends g_centre -+ remainder computed once per table.
struct CoefColumns {
  /// Each column holds kPad zeros before and after the coefficients (a block of targets at a
  /// source's reach reads them, and drops their lanes).
  static constexpr int kPad = 8;
  int count = 0;
  std::vector<double> g_min, g_max, g_centre, t_lo, t_hi, slope, curvature, third, h_lo, h_hi, k_lo,
      k_hi, m_centre, m_slope, m_third, k_centre, k_slope, k_third;
  std::size_t size() const { return static_cast<std::size_t>(count); }
};

/// Coefficients first .. first + count - 1 of `coef` as columns.
void to_columns(const std::vector<Coef>& coef, int first, int count, CoefColumns& out);

/// Adds weight * (what a source of mass [pl, pu], moment [dl, du] and second moment [vl, vu]
/// sends through the coefficients skip .. skip + count - 1) to the target cells first ..
/// first + count - 1 of `out` (kernel.cpp: AVX2 where the CPU has it and `vectorised`, the
/// same bits either way).
void accumulate_columns(const CoefColumns& coef, int skip, int first, int count, double weight,
                        double pl, double pu, double dl, double du, double vl, double vu,
                        CellLaw& out, bool vectorised = true);

/// What every cell j of `law` with a positive upper mass sends through one table of weight 1
/// whose coefficient i goes to target index offset + j + i of `out` (a Toeplitz kernel: the
/// same table for every source, moved by its index), for the targets within 0 .. out.cells -
/// 1. The same bits as accumulate_columns over j = 0, 1, ... (kernel.cpp: tiles of sources
/// and blocks of targets, in AVX-512 or AVX2 where the CPU has it and `vectorised`).
void accumulate_toeplitz(const CoefColumns& coef, int offset, const CellLaw& law, CellLaw& out,
                         bool vectorised = true);

/// The same from coefficients as rows.
inline void accumulate(const std::vector<Coef>& coef, int skip, int first, int count, double weight,
                       double pl, double pu, double dl, double du, double vl, double vu,
                       CellLaw& out) {
  thread_local CoefColumns columns;
  to_columns(coef, skip, count, columns);
  accumulate_columns(columns, 0, first, count, weight, pl, pu, dl, du, vl, vu, out);
}

/// Mass a source sends beyond `edge` (upwards = true: above it), as bounds for a source with
/// image centre mc, half-width hm, slope a, mass [pl, pu] and moment [dl, du].
inline Bracket beyond(double edge, bool upwards, double mc, double hm, double a, double s,
                      double pl, double pu, double dl, double du, double vl, double vu) {
  const double inv_s = 1.0 / s;
  const auto f = [&](double m) {
    const double u = (edge - m) * inv_s;
    return upwards ? upper_tail(u) : lower_tail(u);
  };
  const double fc = f(mc);
  if (hm == 0) return {pl * fc, pu * fc};
  const double f_lo = f(mc - hm), f_hi = f(mc + hm);
  const double range_lo = upwards ? f_lo : f_hi, range_hi = upwards ? f_hi : f_lo;
  const double uc = (edge - mc) * inv_s;
  const double slope = a * (upwards ? 1.0 : -1.0) * pdf(uc) * inv_s;
  const double rem = 0.5 * sup_u_pdf(uc - hm * inv_s, uc + hm * inv_s) * inv_s * inv_s * hm * hm;
  const double lin_lo = std::min(dl * slope, du * slope), lin_hi = std::max(dl * slope, du * slope);
  const double t_lo = fc - rem;
  // second order: f'' = +-u pdf(u) / s^2 at the centre, |f'''| <= sup |1 - u^2| pdf / s^3
  const double curv = 0.5 * (upwards ? 1.0 : -1.0) * uc * pdf(uc) * inv_s * inv_s * a * a;
  const double third = sup_1mu2_pdf(uc - hm * inv_s, uc + hm * inv_s) * inv_s * inv_s * inv_s * a *
                       a * a * (hm / a) / 6.0;
  const double quad_lo = std::min(vl * curv, vu * curv) - vu * third;
  const double quad_hi = std::max(vl * curv, vu * curv) + vu * third;
  const double lo =
      std::max({pl * range_lo, (t_lo >= 0 ? pl : pu) * t_lo + lin_lo, pl * fc + lin_lo + quad_lo});
  const double hi = std::min({pu * range_hi, pu * (fc + rem) + lin_hi, pu * fc + lin_hi + quad_hi});
  return {std::max(lo, 0.0), std::max(hi, 0.0)};
}

/// Adds weight times the masses a source sends below the grid's lower end and above its upper
/// end to the boundary atoms (clamped) or to the outside mass.
inline void add_edges(double weight, Bracket below, Bracket above, CellLaw& out) {
  if (out.clamped) {
    out.points[0].mass.lo += weight * below.lo;
    out.points[0].mass.hi += weight * below.hi;
    out.points[1].mass.lo += weight * above.lo;
    out.points[1].mass.hi += weight * above.hi;
  } else {
    out.outside.lo += weight * (below.lo + above.lo);
    out.outside.hi += weight * (below.hi + above.hi);
  }
}

/// What a step's map cases (Step::maps) send from `law` into `out` (cells, atoms or outside
/// mass), each source within reach_sds noise sds of its image; adds to `unvisited` the upper
/// bound, per target cell, on what is sent farther (map_step.cpp).
void propagate_maps(const CellLaw& law, const Step& step, double reach_sds, CellLaw& out,
                    double& unvisited);

/// Frees what propagate_maps keeps across the steps of a chain on this thread (its
/// coefficients; up to kMapCoefficientsKept of them): a chain's evolution calls it when done, so no
/// memory is held between chains.
void release_map_coefficients();

/// Adds, for each point y of `ys`, the bounds on the density the map cases of `step` give at y
/// from `law` (map_step.cpp).
void density_of_maps(const CellLaw& law, const Step& step, const std::vector<double>& ys,
                     double reach, std::vector<double>& lo, std::vector<double>& hi);

}  // namespace rdpaudit::exact::detail
