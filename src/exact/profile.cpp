// Privacy-profile brackets of two laws held by the exact engine (docs/exact-laws.md,
// "Privacy profiles").
#include "rdpaudit/exact/profile.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "rdpaudit/core/error.hpp"

namespace rdpaudit::exact {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
/// Unit roundoff (with a margin) for the rounding of sums of non-negative terms: a sum of n
/// terms is off by at most n u times the sum of the terms.
constexpr double kRound = 2.3e-16;
/// The bisections over eps stop here: e^512 is finite, e^eps times a zero mass is 0.
constexpr double kMaxEpsilon = 512.0;

void check_epsilon(double epsilon) {
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon))
    throw InternalError("profile bracket: epsilon", fmt::format("{}", epsilon),
                        "must be >= 0 and finite");
}

/// The smallest eps in [0, kMaxEpsilon] found with f(eps) <= delta (f non-increasing), by
/// doubling then bisection to 1e-12 relative: the returned point always satisfies it (so a
/// bracket built from it holds even where f is not exactly monotone); +infinity when even
/// kMaxEpsilon does not. `keep_above`: return instead the largest eps found with f > delta
/// (0 when f(0) <= delta; kMaxEpsilon when f stays above delta).
template <class F>
double crossing(const F& f, double delta, bool keep_above) {
  if (f(0.0) <= delta) return 0.0;
  double lo = 0.0, hi = 1.0;  // f(lo) > delta
  while (f(hi) > delta) {
    lo = hi;
    hi *= 2.0;
    if (hi > kMaxEpsilon) return keep_above ? lo : kInf;
  }
  for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    (f(mid) > delta ? lo : hi) = mid;
  }
  return keep_above ? lo : hi;
}

}  // namespace

double profile_delta_lower(const CellLaw& p, const CellLaw& q, double epsilon) {
  check_epsilon(epsilon);
  if (p.cells != q.cells || p.lo != q.lo || p.hi != q.hi || p.points.size() != q.points.size())
    throw InternalError("profile_delta_lower: the two laws are on different grids");
  const double e = std::exp(epsilon);
  // S's lower P mass and upper Q mass (a, b), and the other pieces' upper P and lower Q masses
  double a = 0, b = 0, a_rest = 0, b_rest = 0;
  std::size_t pieces = 0;
  const auto piece = [&](double pl, double ph, double ql, double qh) {
    ++pieces;
    if (pl > e * qh) {
      a += pl;
      b += qh;
    } else {
      a_rest += ph;
      b_rest += ql;
    }
  };
  for (std::size_t k = 0; k < p.mass_lo.size(); ++k)
    piece(p.mass_lo[k], p.mass_hi[k], q.mass_lo[k], q.mass_hi[k]);
  for (std::size_t i = 0; i < p.points.size(); ++i) {
    if (p.points[i].x != q.points[i].x)
      throw InternalError("profile_delta_lower: point masses differ");
    piece(p.points[i].mass.lo, p.points[i].mass.hi, q.points[i].mass.lo, q.points[i].mass.hi);
  }
  piece(p.outside.lo, p.outside.hi, q.outside.lo, q.outside.hi);
  // P(S) >= max(a, total - a_rest), Q(S) <= min(b, total - b_rest): S and its complement
  // partition the law, whose total is exact
  const double n = static_cast<double>(pieces + 2) * kRound;
  const double a2 = p.total - a_rest, b2 = q.total - b_rest;
  const bool by_a = a >= a2, by_b = b <= b2;
  const double p_s = by_a ? a : a2, q_s = by_b ? b : b2;
  const double slack = n * ((by_a ? a : p.total + a_rest) + e * (by_b ? b : q.total + b_rest));
  return std::max(0.0, p_s - e * q_s - slack);
}

bool brackets_hold_total(const CellLaw& law, std::string& why) {
  double lo = law.outside.lo, hi = law.outside.hi;
  for (std::size_t k = 0; k < law.mass_lo.size(); ++k) {
    lo += law.mass_lo[k];
    hi += law.mass_hi[k];
  }
  for (const PointMass& x : law.points) {
    lo += x.mass.lo;
    hi += x.mass.hi;
  }
  const double tol = 1e-9 * law.total;
  if (lo <= law.total + tol && hi >= law.total - tol) return true;
  why = fmt::format(
      "the engine's mass brackets cannot hold the law's total {:.17g}: the lower masses add up "
      "to {:.17g}, the upper to {:.17g}",
      law.total, lo, hi);
  return false;
}

ProfileBrackets::ProfileBrackets(const ExactLaw& p, const ExactLaw& q, const RenyiOptions& options)
    : ProfileBrackets(p, q, density_grid(p, q, options, 1.0)) {}

ProfileBrackets::ProfileBrackets(const ExactLaw& p, const ExactLaw& q, DensityGrid density)
    : p_(&p), q_(&q), density_(std::move(density)) {
  if (density_.p_hi.size() < 3 || density_.p_hi.size() % 2 == 0)
    throw InternalError("ProfileBrackets: the density grid needs an even number of steps");
}

double ProfileBrackets::delta_lower(double epsilon, bool forward) const {
  return forward ? profile_delta_lower(p_->last, q_->last, epsilon)
                 : profile_delta_lower(q_->last, p_->last, epsilon);
}

double ProfileBrackets::delta_upper(double epsilon, bool forward) const {
  check_epsilon(epsilon);
  const double e = std::exp(epsilon);
  const std::vector<double>& ph = forward ? density_.p_hi : density_.q_hi;
  const std::vector<double>& ql = forward ? density_.q_lo : density_.p_lo;
  const CellLaw& a = forward ? p_->last : q_->last;
  const CellLaw& b = forward ? q_->last : p_->last;
  // (p - e q)_+ <= (p_hi - e q_lo)_+ pointwise; the trapezoidal rule on the step and on twice
  // the step (the number of steps is even), and their difference added
  const std::size_t m = ph.size() - 1;
  double fine = 0, coarse = 0, total = 0;
  for (std::size_t i = 0; i <= m; ++i) {
    const double f = std::max(0.0, ph[i] - e * ql[i]);
    const double w = (i == 0 || i == m) ? 0.5 : 1.0;
    fine += w * f;
    if (i % 2 == 0) coarse += w * f;
    total += ph[i];
  }
  fine *= density_.step;
  coarse *= 2.0 * density_.step;
  double upper = std::max(fine, coarse) + std::fabs(fine - coarse);
  // rounding of the sums: relative to the largest terms
  upper += static_cast<double>(m + 2) * kRound * total * density_.step;
  for (std::size_t i = 0; i < a.points.size() && i < b.points.size(); ++i)
    upper += std::max(0.0, a.points[i].mass.hi - e * b.points[i].mass.lo);
  // unclamped: the mass beyond the grid's ends, where the density was not integrated
  if (!a.clamped) upper += a.outside.hi;
  return std::min(upper, a.total);
}

Bracket ProfileBrackets::delta(double epsilon, bool forward) const {
  Bracket out{delta_lower(epsilon, forward), delta_upper(epsilon, forward)};
  out.hi = std::max(out.hi, out.lo);
  return out;
}

Bracket ProfileBrackets::epsilon(double delta, bool forward) const {
  if (!(delta > 0.0 && delta < 1.0))
    throw InternalError("profile bracket: delta", fmt::format("{}", delta), "must be in (0, 1)");
  Bracket out;
  // eps(delta) >= every eps with delta(eps) >= delta_lower(eps) > delta (delta(.) does not
  // increase), and <= every eps with delta(eps) <= delta_upper(eps) <= delta
  out.lo = crossing([&](double e) { return delta_lower(e, forward); }, delta, true);
  out.hi = crossing([&](double e) { return delta_upper(e, forward); }, delta, false);
  out.hi = std::max(out.hi, out.lo);
  return out;
}

}  // namespace rdpaudit::exact
