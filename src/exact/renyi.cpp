// R_alpha brackets of two laws held by the exact engine (docs/exact-laws.md).
#include "rdpaudit/exact/renyi.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "log_convex.hpp"
#include "rdpaudit/core/error.hpp"
#include "tails.hpp"

namespace rdpaudit::exact {

namespace {

using detail::Affine;
using detail::interval_bounds;
using detail::IntervalBounds;
using detail::log_gauss_integral;
using detail::log_tail_integral;
using detail::tail_lower;
using detail::tail_sources;
using detail::TailSource;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

/// log(sum_i exp(t_i)) of terms added one at a time.
class LogSum {
 public:
  void add(double t) {
    if (t == kNegInf) return;
    if (t == kInf) {
      max_ = kInf;
      return;
    }
    if (max_ == kInf) return;
    if (t > max_) {
      sum_ = sum_ * std::exp(max_ - t) + 1.0;
      max_ = t;
    } else {
      sum_ += std::exp(t - max_);
    }
  }
  void add_scaled(double log_weight, const LogSum& other) {
    if (other.max_ == kNegInf) return;
    add(log_weight + other.max_ + std::log(other.sum_));
  }
  double value() const {
    return max_ == kNegInf ? kNegInf : (max_ == kInf ? kInf : max_ + std::log(sum_));
  }

 private:
  double max_ = kNegInf, sum_ = 0.0;
};

/// log of p^alpha q^(1 - alpha): 0 where p = 0, infinite where q = 0 < p.
double log_term(double p, double q, double alpha) {
  if (!(p > 0)) return kNegInf;
  // both below double's normal range (far tails, underflowed): negligible, left out
  if (!(q > 0) && p < 1e-290) return kNegInf;
  if (!(q > 0)) return kInf;
  return alpha * std::log(p) + (1.0 - alpha) * std::log(q);
}

void check_same_grid(const CellLaw& p, const CellLaw& q, const char* where) {
  if (p.cells != q.cells || p.lo != q.lo || p.hi != q.hi || p.clamped != q.clamped) {
    throw InternalError(std::string(where) + ": the two laws are on different grids");
  }
}

}  // namespace

DensityGrid density_grid(const ExactLaw& p, const ExactLaw& q, const RenyiOptions& options,
                         double alpha_max) {
  check_same_grid(p.last, q.last, "density_grid");
  const CellLaw& g = p.last;
  const int k = std::max(2, options.points_per_cell + options.points_per_cell % 2);
  DensityGrid d;
  d.step = g.width() / k;
  // a clamped law has no density beyond [lo, hi]; an unclamped one is integrated over the
  // grid widened by quarters of its width (at most 4 on each side) while the largest order's
  // integrand at an end is not negligible (the tilted law p^a q^(1-a) may sit far out)
  long below = 0, above = 0;
  const long quarter = std::max(1L, static_cast<long>(g.cells) / 4) * k;  // whole cells
  std::vector<double> ys;
  const auto build = [&]() {
    const std::size_t m = static_cast<std::size_t>(g.cells) * static_cast<std::size_t>(k) +
                          static_cast<std::size_t>((below + above) * quarter);
    ys.resize(m + 1);
    d.start = g.lo - static_cast<double>(below * quarter) * d.step;
    for (std::size_t i = 0; i <= m; ++i) ys[i] = d.start + d.step * static_cast<double>(i);
  };
  build();
  if (!g.clamped && alpha_max > 1) {
    for (int round = 0; round < 8; ++round) {
      std::vector<double> ends = {ys.front(), ys.back()}, pl, ph, ql, qh;
      for (const FinalPart& part : p.parts)
        density_after_step(part.before, part.step, ends, pl, ph, options.propagate);
      for (const FinalPart& part : q.parts)
        density_after_step(part.before, part.step, ends, ql, qh, options.propagate);
      const double lf0 =
          std::max(log_term(ph[0], ql[0], alpha_max), log_term(qh[0], pl[0], alpha_max));
      const double lf1 =
          std::max(log_term(ph[1], ql[1], alpha_max), log_term(qh[1], pl[1], alpha_max));
      bool grew = false;
      if (lf0 > -700 && below < 8) {
        ++below;
        grew = true;
      }
      if (lf1 > -700 && above < 8) {
        ++above;
        grew = true;
      }
      if (!grew) break;
      build();
    }
  }
  const std::size_t m = ys.size() - 1;
  const auto fill = [&](const ExactLaw& law, std::vector<double>& lo, std::vector<double>& hi) {
    lo.assign(m + 1, 0.0);
    hi.assign(m + 1, 0.0);
    std::vector<double> l, h;
    for (const FinalPart& part : law.parts) {
      l.assign(m + 1, 0.0);
      h.assign(m + 1, 0.0);
      density_after_step(part.before, part.step, ys, l, h, options.propagate);
      for (std::size_t i = 0; i <= m; ++i) {
        lo[i] += part.weight * l[i];
        hi[i] += part.weight * h[i];
      }
    }
  };
  fill(p, d.p_lo, d.p_hi);
  fill(q, d.q_lo, d.q_hi);
  // every part's density is its before-law's image convolved with N(0, s_part^2), and
  // phi_s' = phi_s * phi_sqrt(s'^2 - s^2) for s' >= s: both densities are convolutions with
  // the smallest part's Gaussian
  d.noise_sd = std::numeric_limits<double>::infinity();
  for (const ExactLaw* law : {&p, &q}) {
    for (const FinalPart& part : law->parts) d.noise_sd = std::min(d.noise_sd, part.step.noise_std);
  }
  if (!(d.noise_sd > 0) || !std::isfinite(d.noise_sd))
    throw InternalError("density_grid: the last step adds no Gaussian noise");
  return d;
}

namespace {

std::string upper_uncertified_reason(const std::string& why) {
  return "the integral beyond the points where the lower density bound is normal (left out "
         "where the integrand there is negligible) and the mass outside the grid: " +
         why;
}

/// log of an upper bound on the integral of p^alpha q^(1 - alpha) over the points' span, from
/// the density bounds at the points and the convexity of log p + y^2 / (2 s^2)
/// (log_convex.hpp): on each interval p <= exp(upper(t) - t^2/(2s^2)) and q >= exp(lower(t) -
/// t^2/(2s^2)), so the integrand is at most exp(alpha upper + (1 - alpha) lower - t^2/(2s^2))
/// (q^(1 - alpha) falls in q), a Gaussian integral on each of at most two affine pieces.
/// Unclamped laws: with `tails` (P's sources, tails.hpp) the integrals beyond the first and
/// the last point where Q's lower bound is normal are added (certified); without, the region
/// beyond is left out where the integrand at its edge is negligible (not certified).
double log_integral_upper(const std::vector<double>& ph, const std::vector<double>& ql,
                          const std::vector<double>& qh, double start, double step, double s,
                          double alpha, bool clamped, const std::vector<TailSource>* tails) {
  std::size_t first = 0, last = ph.size() - 1;
  bool cut_below = false, cut_above = false;
  if (!clamped) {
    // unclamped laws: only where Q's lower density is in double's normal range; the integrand
    // at each end of that range where P's density goes on must be negligible (e^-40 of the
    // total, below the sum's rounding), otherwise the region beyond, where the densities
    // underflow, may hold the tilted law: no bound (this cut is not certified, section 5)
    while (first < last && !(ql[first] > 1e-300)) ++first;
    while (last > first && !(ql[last] > 1e-300)) --last;
    cut_below = first > 0 && ph[first - 1] > 0;
    cut_above = last + 1 < ph.size() && ph[last + 1] > 0;
  }
  const std::vector<IntervalBounds> bounds = interval_bounds(ph, ql, qh, step, s);
  LogSum sum;
  for (std::size_t i = first; i < last; ++i) {
    const IntervalBounds& b = bounds[i];
    if (b.upper.a == kNegInf) continue;  // p's upper bound is 0 at an end: p = 0 between
    const auto piece = [&](const Affine& lower, double t0, double t1) {
      if (!(t1 > t0)) return;
      if (lower.a == kNegInf) {
        sum.add(kInf);  // no lower bound on q where p may be positive
        return;
      }
      const Affine e{alpha * b.upper.a + (1.0 - alpha) * lower.a,
                     alpha * b.upper.b + (1.0 - alpha) * lower.b};
      sum.add(log_gauss_integral(e, t0, t1, s));
    };
    piece(b.lower.first, 0.0, b.lower.t_split);
    piece(b.lower.second, b.lower.t_split, step);
  }
  if (!clamped && tails) {
    const double y_first = start + step * static_cast<double>(first);
    const double y_last = start + step * static_cast<double>(last);
    sum.add(log_tail_integral(*tails, false, y_first, tail_lower(ql, qh, first, step, s, false),
                              alpha, s));
    sum.add(
        log_tail_integral(*tails, true, y_last, tail_lower(ql, qh, last, step, s, true), alpha, s));
    return sum.value() + 1e-12;
  }
  const double lf = sum.value();
  if (!std::isfinite(lf)) return lf;
  if ((cut_below && log_term(ph[first], ql[first], alpha) + std::log(step) > lf - 40) ||
      (cut_above && log_term(ph[last], ql[last], alpha) + std::log(step) > lf - 40)) {
    return kInf;
  }
  // plus 1e-12 relative for the rounding of the sums and of the Gaussian integrals
  return lf + 1e-12;
}

/// Per direction (0: P against Q), the sources of the upper density's tails, when they are
/// certified (tails.hpp); nothing to add for clamped laws.
struct UpperTails {
  bool certified[2] = {true, true};
  std::vector<TailSource> sources[2];
  std::string why;
};

UpperTails upper_tails(const ExactLaw& p, const ExactLaw& q, const DensityGrid& d) {
  UpperTails t;
  if (p.last.clamped) return t;
  for (int k = 0; k < 2; ++k) {
    std::string why;
    t.certified[k] = tail_sources(k == 0 ? p : q, d.noise_sd, t.sources[k], why);
    if (!t.certified[k] && t.why.empty()) t.why = why;
  }
  return t;
}

double upper_from(const DensityGrid& d, const ExactLaw& p, const ExactLaw& q, bool forward,
                  double alpha, const UpperTails& tails) {
  const std::vector<double>& ph = forward ? d.p_hi : d.q_hi;
  const std::vector<double>& ql = forward ? d.q_lo : d.p_lo;
  const std::vector<double>& qh = forward ? d.q_hi : d.p_hi;
  const CellLaw& a = forward ? p.last : q.last;
  const CellLaw& b = forward ? q.last : p.last;
  const int k = forward ? 0 : 1;
  const bool certified = tails.certified[k];
  LogSum total;
  total.add(log_integral_upper(ph, ql, qh, d.start, d.step, d.noise_sd, alpha, a.clamped,
                               certified ? &tails.sources[k] : nullptr));
  for (std::size_t i = 0; i < a.points.size() && i < b.points.size(); ++i) {
    total.add(log_term(a.points[i].mass.hi, b.points[i].mass.lo, alpha));
  }
  // unclamped with certified tails: the integral spans the line, the mass outside the grid
  // included; otherwise the outside mass's term stands for it (not certified)
  if (!a.clamped && !certified) total.add(log_term(a.outside.hi, b.outside.lo, alpha));
  const double v = total.value() / (alpha - 1.0);
  return std::max(v, 0.0);
}

}  // namespace

double renyi_lower(const CellLaw& p, const CellLaw& q, double alpha) {
  check_same_grid(p, q, "renyi_lower");
  if (!(alpha > 1)) throw InternalError("renyi_lower: alpha > 1");
  LogSum s;
  for (std::size_t k = 0; k < p.mass_lo.size(); ++k)
    s.add(log_term(p.mass_lo[k], q.mass_hi[k], alpha));
  if (p.points.size() != q.points.size()) throw InternalError("renyi_lower: point masses differ");
  for (std::size_t i = 0; i < p.points.size(); ++i) {
    if (p.points[i].x != q.points[i].x) throw InternalError("renyi_lower: point masses differ");
    s.add(log_term(p.points[i].mass.lo, q.points[i].mass.hi, alpha));
  }
  s.add(log_term(p.outside.lo, q.outside.hi, alpha));
  // the lower masses may add up to less than 1: the sum over the pieces is still at most the
  // true one's, and the true one is at least 1 (R_alpha >= 0).
  // Rounding (not directed) can make P's lower masses add up to more than its total, or Q's
  // upper masses to less: no true law lies in such brackets, and the sum would carry that
  // excess as if it were divergence (issue 37: noise 10^11 times a projection's interval, a
  // true R_2 of 1e-24 bracketed by [3.9e-10, 4.0e-10]). The masses are scaled to their totals
  // first, P's lower ones down by c_p = total / sum, Q's upper ones up by c_q: each term
  // p^alpha q^(1 - alpha) by c_p^alpha c_q^(1 - alpha).
  const double sum_p = mass_sums(p).lo, sum_q = mass_sums(q).hi;
  const double c_p = sum_p > p.total ? p.total / sum_p : 1.0;
  const double c_q = sum_q < q.total && sum_q > 0 ? q.total / sum_q : 1.0;
  const double scaled = s.value() + alpha * std::log(c_p) + (1.0 - alpha) * std::log(c_q);
  // minus 1e-12 for the rounding of the sum
  return std::max(0.0, (scaled - 1e-12) / (alpha - 1.0));
}

double renyi_upper(const ExactLaw& p, const ExactLaw& q, double alpha, const RenyiOptions& options,
                   std::string* uncertified) {
  check_same_grid(p.last, q.last, "renyi_upper");
  if (!(alpha > 1)) throw InternalError("renyi_upper: alpha > 1");
  const DensityGrid d = density_grid(p, q, options, alpha);
  const UpperTails tails = upper_tails(p, q, d);
  if (uncertified) *uncertified = tails.certified[0] ? "" : upper_uncertified_reason(tails.why);
  return upper_from(d, p, q, true, alpha, tails);
}

std::vector<RenyiBracketRow> renyi_brackets(const ExactLaw& p, const ExactLaw& q,
                                            const std::vector<double>& alphas,
                                            const RenyiOptions& options) {
  double alpha_max = 1;
  for (double a : alphas) alpha_max = std::max(alpha_max, a);
  return renyi_brackets(p, q, alphas, density_grid(p, q, options, alpha_max));
}

std::vector<RenyiBracketRow> renyi_brackets(const ExactLaw& p, const ExactLaw& q,
                                            const std::vector<double>& alphas,
                                            const DensityGrid& d) {
  check_same_grid(p.last, q.last, "renyi_brackets");
  const UpperTails tails = upper_tails(p, q, d);
  std::vector<RenyiBracketRow> rows;
  for (double alpha : alphas) {
    if (!(alpha > 1)) throw InternalError("renyi_brackets: alpha > 1");
    RenyiBracketRow r;
    r.alpha = alpha;
    r.forward = {renyi_lower(p.last, q.last, alpha), upper_from(d, p, q, true, alpha, tails)};
    r.backward = {renyi_lower(q.last, p.last, alpha), upper_from(d, p, q, false, alpha, tails)};
    rows.push_back(r);
  }
  return rows;
}

std::string upper_uncertified(const ExactLaw& p, const ExactLaw& q, const DensityGrid& d) {
  const UpperTails tails = upper_tails(p, q, d);
  return tails.certified[0] && tails.certified[1] ? "" : upper_uncertified_reason(tails.why);
}

}  // namespace rdpaudit::exact
