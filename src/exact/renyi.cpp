// R_alpha brackets of two laws held by the exact engine (docs/exact-laws.md).
#include "rdpaudit/exact/renyi.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "rdpaudit/core/error.hpp"

namespace rdpaudit::exact {

namespace {

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
  return d;
}

namespace {

/// log of an upper bound on the integral of p_hi^alpha q_lo^(1 - alpha) over the grid, by the
/// trapezoidal rule plus its difference to the rule of twice the step.
double log_integral_upper(const std::vector<double>& ph, const std::vector<double>& ql, double step,
                          double alpha, bool clamped) {
  std::size_t first = 0, last = ph.size() - 1;
  bool cut_below = false, cut_above = false;
  if (!clamped) {
    // unclamped laws: only where Q's lower density is in double's normal range; the integrand
    // at each end of that range where P's density goes on must be negligible (e^-40 of the
    // total, below the sum's rounding), otherwise the region beyond, where the densities
    // underflow, may hold the tilted law: no bound
    while (first < last && !(ql[first] > 1e-300)) ++first;
    while (last > first && !(ql[last] > 1e-300)) --last;
    cut_below = first > 0 && ph[first - 1] > 0;
    cut_above = last + 1 < ph.size() && ph[last + 1] > 0;
  }
  LogSum fine, coarse;
  for (std::size_t i = first; i <= last; ++i) {
    double t = log_term(ph[i], ql[i], alpha);
    const bool end = (i == first || i == last);
    if (end) t += std::log(0.5);
    fine.add(t);
    if ((i - first) % 2 == 0) coarse.add(t);
  }
  const double lf = fine.value() + std::log(step), lc = coarse.value() + std::log(2.0 * step);
  if (!std::isfinite(lf) || !std::isfinite(lc)) return std::max(lf, lc);
  if ((cut_below && log_term(ph[first], ql[first], alpha) + std::log(step) > lf - 40) ||
      (cut_above && log_term(ph[last], ql[last], alpha) + std::log(step) > lf - 40)) {
    return kInf;
  }
  // max(I, I2) + |I - I2|
  const double hi = std::max(lf, lc), lo = std::min(lf, lc);
  // plus 1e-12 relative for the rounding of the sums
  return hi + std::log(2.0 - std::exp(lo - hi)) + 1e-12;
}

double upper_from(const DensityGrid& d, const ExactLaw& p, const ExactLaw& q, bool forward,
                  double alpha) {
  const std::vector<double>& ph = forward ? d.p_hi : d.q_hi;
  const std::vector<double>& ql = forward ? d.q_lo : d.p_lo;
  const CellLaw& a = forward ? p.last : q.last;
  const CellLaw& b = forward ? q.last : p.last;
  LogSum total;
  total.add(log_integral_upper(ph, ql, d.step, alpha, a.clamped));
  for (std::size_t i = 0; i < a.points.size() && i < b.points.size(); ++i) {
    total.add(log_term(a.points[i].mass.hi, b.points[i].mass.lo, alpha));
  }
  if (!a.clamped) total.add(log_term(a.outside.hi, b.outside.lo, alpha));
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
  // true one's, and the true one is at least 1 (R_alpha >= 0)
  // minus 1e-12 for the rounding of the sum
  return std::max(0.0, (s.value() - 1e-12) / (alpha - 1.0));
}

double renyi_upper(const ExactLaw& p, const ExactLaw& q, double alpha, const RenyiOptions& options,
                   std::string* uncertified) {
  check_same_grid(p.last, q.last, "renyi_upper");
  if (!(alpha > 1)) throw InternalError("renyi_upper: alpha > 1");
  const DensityGrid d = density_grid(p, q, options, alpha);
  if (uncertified) {
    *uncertified = "the trapezoidal rule's error (estimated by the rule of twice the step)";
    if (!p.last.clamped)
      *uncertified += "; the integral beyond the grid (taken as the outside mass's bound)";
  }
  return upper_from(d, p, q, true, alpha);
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
  std::vector<RenyiBracketRow> rows;
  for (double alpha : alphas) {
    if (!(alpha > 1)) throw InternalError("renyi_brackets: alpha > 1");
    RenyiBracketRow r;
    r.alpha = alpha;
    r.forward = {renyi_lower(p.last, q.last, alpha), upper_from(d, p, q, true, alpha)};
    r.backward = {renyi_lower(q.last, p.last, alpha), upper_from(d, p, q, false, alpha)};
    rows.push_back(r);
  }
  return rows;
}

}  // namespace rdpaudit::exact
