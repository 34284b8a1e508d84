// Certified propagation of a 1-D law through one noisy-SGD step (docs/exact-laws.md).
#include "rdpaudit/exact/law.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "rdpaudit/core/error.hpp"

namespace rdpaudit::exact {

namespace {

constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;

double pdf(double u) { return kInvSqrt2Pi * std::exp(-0.5 * u * u); }
double upper_tail(double u) { return 0.5 * std::erfc(u * kInvSqrt2); }  // P(Z > u)
double lower_tail(double u) { return 0.5 * std::erfc(-u * kInvSqrt2); }  // P(Z <= u)

/// P(u1 < Z <= u2), u1 <= u2, from the tail on the side where both ends lie (no cancellation
/// of two numbers near 1).
double interval_prob(double u1, double u2) {
  if (u1 >= 0.0) return std::max(0.0, upper_tail(u1) - upper_tail(u2));
  if (u2 <= 0.0) return std::max(0.0, lower_tail(u2) - lower_tail(u1));
  return std::max(0.0, 1.0 - upper_tail(u2) - lower_tail(u1));
}

/// sup of |u| pdf(u) over [u1, u2]: the function rises on [0, 1] and falls beyond.
double sup_u_pdf(double u1, double u2) {
  if ((u1 <= 1.0 && u2 >= 1.0) || (u1 <= -1.0 && u2 >= -1.0)) return pdf(1.0);
  return std::max(std::fabs(u1) * pdf(u1), std::fabs(u2) * pdf(u2));
}

/// sup of |u^2 - 1| pdf(u) over [u1, u2]: maxima at 0 and +-sqrt(3), zeros at +-1.
double sup_u2m1_pdf(double u1, double u2) {
  const auto f = [](double u) { return std::fabs(u * u - 1.0) * pdf(u); };
  double m = std::max(f(u1), f(u2));
  constexpr double kRoot3 = 1.7320508075688772935;
  for (double c : {0.0, kRoot3, -kRoot3}) {
    if (u1 <= c && c <= u2) m = std::max(m, f(c));
  }
  return m;
}

/// What one source (a cell's image interval [mc - hm, mc + hm], or a point: hm = 0) sends
/// to one target cell, per unit of the source's mass and moment.
struct Coef {
  double g_min = 0, g_max = 0;  ///< range of the target's probability over the source
  double g_centre = 0;          ///< at the source's centre
  double remainder = 0;         ///< Taylor remainder bound per unit mass
  double slope = 0;             ///< d/dx of the probability at the centre (times the moment)
  double h_lo = 0, h_hi = 0;    ///< range of the target's first moment per unit mass
};

/// The coefficients of target cells [e0 + i h, e0 + (i + 1) h), i = 0 .. count - 1, from a
/// source whose image has centre mc and half-width hm under a map of slope a, noise s.
void coefficients(double e0, double h, int count, double mc, double hm, double a, double s,
                  std::vector<Coef>& out) {
  out.assign(static_cast<std::size_t>(count), Coef{});
  const double inv_s = 1.0 / s, du = hm * inv_s;
  const double peak = std::erf(0.5 * h * inv_s * kInvSqrt2);
  double u_prev = (e0 - mc) * inv_s;
  double pdf_prev = pdf(u_prev), psi_prev = sup_u_pdf(u_prev - du, u_prev + du);
  for (int i = 0; i < count; ++i) {
    const double ea = e0 + i * h, eb = ea + h, y = ea + 0.5 * h;
    const double ua = u_prev, ub = (eb - mc) * inv_s;
    const double pdf_b = pdf(ub), psi_b = sup_u_pdf(ub - du, ub + du);
    Coef& c = out[static_cast<std::size_t>(i)];
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
      const double g2 = std::min(psi_prev + psi_b,
                                 h * inv_s * sup_u2m1_pdf(ua - du, ub + du)) * inv_s * inv_s;
      c.remainder = 0.5 * g2 * hm * hm;
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
    }
    u_prev = ub;
    pdf_prev = pdf_b;
    psi_prev = psi_b;
  }
}

/// Adds weight * (what a source of mass [pl, pu] and moment [dl, du] sends through the
/// coefficients) to the target cells first .. first + count - 1 of `out`.
void accumulate(const std::vector<Coef>& coef, int skip, int first, int count, double weight,
                double pl, double pu, double dl, double du, CellLaw& out) {
  for (int i = 0; i < count; ++i) {
    const Coef& c = coef[static_cast<std::size_t>(skip + i)];
    const double lin_lo = std::min(dl * c.slope, du * c.slope);
    const double lin_hi = std::max(dl * c.slope, du * c.slope);
    const double t_lo = c.g_centre - c.remainder, t_hi = c.g_centre + c.remainder;
    const double lo = std::max(pl * c.g_min, (t_lo >= 0 ? pl : pu) * t_lo + lin_lo);
    const double hi = std::min(pu * c.g_max, pu * t_hi + lin_hi);
    const auto k = static_cast<std::size_t>(first + i);
    out.mass_lo[k] += weight * std::max(lo, 0.0);
    out.mass_hi[k] += weight * std::max(hi, 0.0);
    out.moment_lo[k] += weight * std::min(pl * c.h_lo, pu * c.h_lo);
    out.moment_hi[k] += weight * std::max(pl * c.h_hi, pu * c.h_hi);
  }
}

/// Mass a source sends beyond `edge` (upwards = true: above it), as bounds for a source with
/// image centre mc, half-width hm, slope a, mass [pl, pu] and moment [dl, du].
Bracket beyond(double edge, bool upwards, double mc, double hm, double a, double s, double pl,
               double pu, double dl, double du) {
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
  const double lo = std::max(pl * range_lo, (t_lo >= 0 ? pl : pu) * t_lo + lin_lo);
  const double hi = std::min(pu * range_hi, pu * (fc + rem) + lin_hi);
  return {std::max(lo, 0.0), std::max(hi, 0.0)};
}

void check_law(const CellLaw& law, const char* where) {
  const auto n = static_cast<std::size_t>(law.cells);
  if (law.cells < 1 || !(law.hi > law.lo) || law.mass_lo.size() != n || law.mass_hi.size() != n ||
      law.moment_lo.size() != n || law.moment_hi.size() != n ||
      (law.clamped && law.points.size() < 2)) {
    throw InternalError(std::string(where) + ": a malformed CellLaw");
  }
}

}  // namespace

double CellLaw::total_gap() const {
  double gap = outside.hi - outside.lo;
  for (int k = 0; k < cells; ++k) gap += mass_hi[static_cast<std::size_t>(k)] - mass_lo[static_cast<std::size_t>(k)];
  for (const PointMass& p : points) gap += p.mass.hi - p.mass.lo;
  return gap;
}

CellLaw empty_like(const CellLaw& like) {
  CellLaw law;
  law.lo = like.lo;
  law.hi = like.hi;
  law.cells = like.cells;
  law.clamped = like.clamped;
  law.total = 0.0;
  const auto n = static_cast<std::size_t>(like.cells);
  law.mass_lo.assign(n, 0.0);
  law.mass_hi.assign(n, 0.0);
  law.moment_lo.assign(n, 0.0);
  law.moment_hi.assign(n, 0.0);
  if (like.clamped) law.points = {PointMass{like.lo, {}}, PointMass{like.hi, {}}};
  return law;
}

CellLaw initial_law(double lo, double hi, int cells, bool clamped, double x0, double sd) {
  if (cells < 1 || !(hi > lo) || !(sd >= 0) || !std::isfinite(x0)) {
    throw InternalError("initial_law: cells >= 1, hi > lo, sd >= 0, finite x0");
  }
  CellLaw shape;
  shape.lo = lo;
  shape.hi = hi;
  shape.cells = cells;
  shape.clamped = clamped;
  CellLaw start = empty_like(shape);
  const double x = clamped ? std::clamp(x0, lo, hi) : x0;
  start.points.push_back(PointMass{x, {1.0, 1.0}});
  start.total = 1.0;
  if (sd == 0) {
    // a point mass inside the grid, or on an atom
    if (clamped && (x == lo || x == hi)) {
      start.points.pop_back();
      start.points[x == lo ? 0 : 1].mass = {1.0, 1.0};
    } else if (!clamped && (x < lo || x > hi)) {
      start.points.pop_back();
      start.outside = {1.0, 1.0};
    }
    return start;
  }
  // N(x0, sd^2) is one exact step from the point mass
  return propagate(start, Step{{AffineCase{1.0, 1.0, 0.0}}, sd});
}

void add_scaled(CellLaw& acc, const CellLaw& law, double weight) {
  if (acc.cells != law.cells || acc.lo != law.lo || acc.hi != law.hi ||
      acc.clamped != law.clamped) {
    throw InternalError("add_scaled: laws on different grids");
  }
  for (std::size_t k = 0; k < acc.mass_lo.size(); ++k) {
    acc.mass_lo[k] += weight * law.mass_lo[k];
    acc.mass_hi[k] += weight * law.mass_hi[k];
    acc.moment_lo[k] += weight * law.moment_lo[k];
    acc.moment_hi[k] += weight * law.moment_hi[k];
  }
  for (const PointMass& p : law.points) {
    auto it = std::find_if(acc.points.begin(), acc.points.end(),
                           [&](const PointMass& q) { return q.x == p.x; });
    if (it == acc.points.end()) {
      acc.points.push_back(PointMass{p.x, {weight * p.mass.lo, weight * p.mass.hi}});
    } else {
      it->mass.lo += weight * p.mass.lo;
      it->mass.hi += weight * p.mass.hi;
    }
  }
  acc.outside.lo += weight * law.outside.lo;
  acc.outside.hi += weight * law.outside.hi;
  acc.total += weight * law.total;
}

void tighten(CellLaw& law) {
  double sum_lo = law.outside.lo, sum_hi = law.outside.hi;
  for (std::size_t k = 0; k < law.mass_lo.size(); ++k) {
    sum_lo += law.mass_lo[k];
    sum_hi += law.mass_hi[k];
  }
  for (const PointMass& p : law.points) {
    sum_lo += p.mass.lo;
    sum_hi += p.mass.hi;
  }
  const double t = law.total;
  // the sums are rounded: a slack far above their rounding error keeps the bounds valid
  const double slack = 1e-12 * t;
  const auto fix = [&](double& lo, double& hi) {
    const double l = lo, u = hi;
    hi = std::min(u, t - (sum_lo - l) + slack);
    lo = std::max(l, t - (sum_hi - u) - slack);
    lo = std::max(lo, 0.0);
    hi = std::max(hi, lo);
  };
  const double half = 0.5 * law.width();
  for (std::size_t k = 0; k < law.mass_lo.size(); ++k) {
    fix(law.mass_lo[k], law.mass_hi[k]);
    law.moment_lo[k] = std::max(law.moment_lo[k], -half * law.mass_hi[k]);
    law.moment_hi[k] = std::min(law.moment_hi[k], half * law.mass_hi[k]);
    if (law.moment_lo[k] > law.moment_hi[k]) {
      // rounding only: the true moment lies in both brackets
      const double m = 0.5 * (law.moment_lo[k] + law.moment_hi[k]);
      law.moment_lo[k] = law.moment_hi[k] = m;
    }
  }
  for (PointMass& p : law.points) fix(p.mass.lo, p.mass.hi);
  if (!law.clamped) fix(law.outside.lo, law.outside.hi);
}

CellLaw propagate(const CellLaw& law, const Step& step, const PropagateOptions& options) {
  check_law(law, "propagate");
  const double s = step.noise_std;
  if (!(s > 0) || step.cases.empty()) throw InternalError("propagate: noise_std > 0, cases");
  CellLaw out = empty_like(law);
  out.total = law.total;
  const int n = law.cells;
  const double h = law.width(), reach = options.reach * s;
  const double tail_each = 2.0 * upper_tail(options.reach);  // per unit mass, beyond the window
  double unvisited = 0.0;  // upper bound on the mass sent to cells no window visited
  std::vector<Coef> coef;

  // the atoms / the outside bucket of the output
  const auto add_beyond = [&](double weight, double mc, double hm, double a, double pl, double pu,
                              double dl, double du) {
    const Bracket up = beyond(law.hi, true, mc, hm, a, s, pl, pu, dl, du);
    const Bracket down = beyond(law.lo, false, mc, hm, a, s, pl, pu, dl, du);
    if (law.clamped) {
      out.points[0].mass.lo += weight * down.lo;
      out.points[0].mass.hi += weight * down.hi;
      out.points[1].mass.lo += weight * up.lo;
      out.points[1].mass.hi += weight * up.hi;
    } else {
      out.outside.lo += weight * (up.lo + down.lo);
      out.outside.hi += weight * (up.hi + down.hi);
    }
  };
  // the target cells within reach of an image [m_lo, m_hi]: [first, last]
  const auto window = [&](double m_lo, double m_hi, int& first, int& last) {
    first = static_cast<int>(std::floor((m_lo - reach - law.lo) / h));
    last = static_cast<int>(std::ceil((m_hi + reach - law.lo) / h));
  };

  for (const AffineCase& cs : step.cases) {
    if (cs.weight == 0) continue;
    if (!(cs.slope > 0) || !(cs.weight > 0)) throw InternalError("propagate: slope > 0, weight > 0");
    const double a = cs.slope, hm = 0.5 * a * h;
    // cells: with slope 1 the coefficients depend only on the offset target - source
    // (a Toeplitz kernel), so one table serves every source
    const bool toeplitz = (a == 1.0);
    int t_first = 0, t_last = -1;
    if (toeplitz) {
      const double mc0 = law.centre(0) + cs.shift;
      window(mc0 - hm, mc0 + hm, t_first, t_last);
      coefficients(law.lo + t_first * h, h, t_last - t_first + 1, mc0, hm, a, s, coef);
    }
    for (int j = 0; j < n; ++j) {
      const auto js = static_cast<std::size_t>(j);
      const double pl = law.mass_lo[js], pu = law.mass_hi[js];
      if (pu == 0) continue;
      const double dl = law.moment_lo[js], du = law.moment_hi[js];
      const double mc = a * law.centre(j) + cs.shift;
      int first = 0, last = -1, skip = 0;
      if (toeplitz) {
        first = t_first + j;
        last = t_last + j;
      } else {
        window(mc - hm, mc + hm, first, last);
        coefficients(law.lo + first * h, h, last - first + 1, mc, hm, a, s, coef);
      }
      const int lo_k = std::max(first, 0), hi_k = std::min(last, n - 1);
      skip = lo_k - first;
      if (hi_k >= lo_k) accumulate(coef, skip, lo_k, hi_k - lo_k + 1, cs.weight, pl, pu, dl, du, out);
      unvisited += cs.weight * pu * tail_each;
      add_beyond(cs.weight, mc, hm, a, pl, pu, dl, du);
    }
    // point masses (atoms, a starting point): exact images
    for (const PointMass& p : law.points) {
      if (p.mass.hi == 0) continue;
      const double mc = a * p.x + cs.shift;
      int first = 0, last = -1;
      window(mc, mc, first, last);
      const int lo_k = std::max(first, 0), hi_k = std::min(last, n - 1);
      if (hi_k >= lo_k) {
        coefficients(law.lo + lo_k * h, h, hi_k - lo_k + 1, mc, 0.0, a, s, coef);
        accumulate(coef, 0, lo_k, hi_k - lo_k + 1, cs.weight, p.mass.lo, p.mass.hi, 0, 0, out);
      }
      unvisited += cs.weight * p.mass.hi * tail_each;
      add_beyond(cs.weight, mc, 0.0, a, p.mass.lo, p.mass.hi, 0, 0);
    }
  }
  // mass outside an unclamped grid: anywhere; it may reach any cell, at most a cell's peak
  // probability of it, and may stay outside
  if (!law.clamped && law.outside.hi > 0) {
    const double peak = std::erf(0.5 * h / s * kInvSqrt2);
    for (int k = 0; k < n; ++k) {
      const auto ks = static_cast<std::size_t>(k);
      out.mass_hi[ks] += law.outside.hi * peak;
      out.moment_lo[ks] -= law.outside.hi * peak * 0.5 * h;
      out.moment_hi[ks] += law.outside.hi * peak * 0.5 * h;
    }
    out.outside.hi += law.outside.hi;
  }
  if (unvisited > 0) {
    for (int k = 0; k < n; ++k) {
      const auto ks = static_cast<std::size_t>(k);
      out.mass_hi[ks] += unvisited;
      out.moment_lo[ks] -= unvisited * 0.5 * h;
      out.moment_hi[ks] += unvisited * 0.5 * h;
    }
  }
  tighten(out);
  return out;
}

void density_after_step(const CellLaw& law, const Step& step, const std::vector<double>& ys,
                        std::vector<double>& lo, std::vector<double>& hi,
                        const PropagateOptions& options) {
  check_law(law, "density_after_step");
  const double s = step.noise_std, inv_s = 1.0 / s, h = law.width();
  lo.resize(ys.size(), 0.0);
  hi.resize(ys.size(), 0.0);
  // sources beyond the reach send less than pdf(reach) / s ~ 1e-315 / s per unit mass,
  // below double precision's normal range: left out (no floor under the upper bounds, which
  // the far tails' lower bounds could not match)
  const double reach = options.reach * s;
  for (const AffineCase& cs : step.cases) {
    const double a = cs.slope, hm = 0.5 * a * h, w = cs.weight;
    for (std::size_t i = 0; i < ys.size(); ++i) {
      const double y = ys[i];
      double acc_lo = 0.0, acc_hi = 0.0;
      const double x_from = (y - reach - hm - cs.shift) / a, x_to = (y + reach + hm - cs.shift) / a;
      const int j0 = std::max(0, static_cast<int>(std::floor((x_from - law.lo) / h)));
      const int j1 = std::min(law.cells - 1, static_cast<int>(std::ceil((x_to - law.lo) / h)));
      for (int j = j0; j <= j1; ++j) {
        const auto js = static_cast<std::size_t>(j);
        const double pl = law.mass_lo[js], pu = law.mass_hi[js];
        if (pu == 0) continue;
        const double mc = a * law.centre(j) + cs.shift;
        const double uc = (y - mc) * inv_s, du = hm * inv_s;
        const double u1 = uc - du, u2 = uc + du;
        const double f1 = pdf(u1), f2 = pdf(u2);
        const double fmin = std::min(f1, f2) * inv_s;
        const double fmax = ((u1 <= 0 && u2 >= 0) ? pdf(0.0) : std::max(f1, f2)) * inv_s;
        const double fc = pdf(uc) * inv_s;
        const double slope = a * uc * pdf(uc) * inv_s * inv_s;  // d/dx pdf_s(y - a x - c)
        const double rem = 0.5 * sup_u2m1_pdf(u1, u2) * inv_s * inv_s * inv_s * hm * hm;
        const double dl = law.moment_lo[js], dh = law.moment_hi[js];
        const double lin_lo = std::min(dl * slope, dh * slope);
        const double lin_hi = std::max(dl * slope, dh * slope);
        const double t_lo = fc - rem;
        acc_lo += std::max({pl * fmin, (t_lo >= 0 ? pl : pu) * t_lo + lin_lo, 0.0});
        acc_hi += std::max(0.0, std::min(pu * fmax, pu * (fc + rem) + lin_hi));
      }
      for (const PointMass& p : law.points) {
        const double u = (y - (a * p.x + cs.shift)) * inv_s;
        const double f = pdf(u) * inv_s;
        acc_lo += p.mass.lo * f;
        acc_hi += p.mass.hi * f;
      }
      // unclamped mass outside the grid, anywhere
      acc_hi += law.outside.hi * pdf(0.0) * inv_s;
      lo[i] += w * acc_lo;
      hi[i] += w * acc_hi;
    }
  }
}

}  // namespace rdpaudit::exact
