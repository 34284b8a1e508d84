// Privacy-profile brackets of two laws held by the exact engine (docs/exact-laws.md,
// "Privacy profiles").
#include "rdpaudit/exact/profile.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "log_convex.hpp"
#include "rdpaudit/core/error.hpp"
#include "tails.hpp"

namespace rdpaudit::exact {

namespace detail {

/// A stretch [t0, t1] of an interval of the density points on which p <= exp(upper(t) -
/// t^2/(2s^2)) and q >= exp(lower(t) - t^2/(2s^2)) (lower.a = -infinity: no lower bound), with
/// the integrals of the two bounds over it.
struct ProfilePiece {
  double t0 = 0, t1 = 0;
  Affine upper, lower;
  double p_integral = 0, q_integral = 0;
};

}  // namespace detail

namespace {

using detail::ProfilePiece;

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

/// The pieces of every interval of the points (two per interval: the lower bound's split).
std::vector<ProfilePiece> profile_pieces(const std::vector<double>& ph,
                                         const std::vector<double>& ql,
                                         const std::vector<double>& qh, double w, double s) {
  std::vector<ProfilePiece> out;
  for (const detail::IntervalBounds& b : detail::interval_bounds(ph, ql, qh, w, s)) {
    if (b.upper.a == -kInf) continue;  // p's upper bound is 0 at an end: p = 0 between
    const auto add = [&](const detail::Affine& lower, double t0, double t1) {
      if (!(t1 > t0)) return;
      ProfilePiece piece{t0, t1, b.upper, lower, 0, 0};
      piece.p_integral = std::exp(detail::log_gauss_integral(b.upper, t0, t1, s));
      piece.q_integral = std::exp(detail::log_gauss_integral(lower, t0, t1, s));
      out.push_back(piece);
    };
    add(b.lower.first, 0.0, b.lower.t_split);
    add(b.lower.second, b.lower.t_split, w);
  }
  return out;
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
  // Brackets that rounding pushed past a law's total (lower masses adding up to more, upper
  // ones to less; as renyi_lower) are scaled to it: a, b_rest down, a_rest, b up.
  const Bracket sp = mass_sums(p), sq = mass_sums(q);
  if (sp.lo > p.total) a *= p.total / sp.lo;
  if (sp.hi < p.total && sp.hi > 0) a_rest *= p.total / sp.hi;
  if (sq.hi < q.total && sq.hi > 0) b *= q.total / sq.hi;
  if (sq.lo > q.total) b_rest *= q.total / sq.lo;
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
  const auto [lo, hi] = mass_sums(law);
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
  if (density_.p_hi.size() < 3)
    throw InternalError("ProfileBrackets: the density grid needs at least 3 points");
  const DensityGrid& d = density_;
  pieces_[0] = profile_pieces(d.p_hi, d.q_lo, d.q_hi, d.step, d.noise_sd);
  pieces_[1] = profile_pieces(d.q_hi, d.p_lo, d.p_hi, d.step, d.noise_sd);
  // unclamped: P's mass beyond the points, in closed form from the sources' images
  // (tails.hpp); where those cannot be bounded, the upper mass outside the grid (the density
  // was integrated over the grid only; not certified)
  const double y_last = d.start + d.step * static_cast<double>(d.p_hi.size() - 1);
  for (int k = 0; k < 2; ++k) {
    const ExactLaw& law = k == 0 ? p : q;
    if (law.last.clamped) continue;
    std::vector<detail::TailSource> src;
    std::string why;
    if (detail::tail_sources(law, d.noise_sd, src, why)) {
      beyond_[k] = std::exp(detail::log_tail_integral(src, false, d.start, {}, 1.0, d.noise_sd)) +
                   std::exp(detail::log_tail_integral(src, true, y_last, {}, 1.0, d.noise_sd));
    } else {
      beyond_[k] = law.last.outside.hi;
    }
  }
}

ProfileBrackets::ProfileBrackets(const ProfileBrackets&) = default;
ProfileBrackets::ProfileBrackets(ProfileBrackets&&) noexcept = default;
ProfileBrackets& ProfileBrackets::operator=(const ProfileBrackets&) = default;
ProfileBrackets& ProfileBrackets::operator=(ProfileBrackets&&) noexcept = default;
ProfileBrackets::~ProfileBrackets() = default;

double ProfileBrackets::delta_lower(double epsilon, bool forward) const {
  return forward ? profile_delta_lower(p_->last, q_->last, epsilon)
                 : profile_delta_lower(q_->last, p_->last, epsilon);
}

double ProfileBrackets::delta_upper(double epsilon, bool forward) const {
  check_epsilon(epsilon);
  const double e = std::exp(epsilon);
  const CellLaw& a = forward ? p_->last : q_->last;
  const CellLaw& b = forward ? q_->last : p_->last;
  // (p - e q)_+ <= (p_up - e q_low)_+ with the bounds between the points (log_convex.hpp): on
  // a piece both are exp(affine - t^2/(2s^2)), so p_up > e q_low exactly where the affine
  // difference upper - lower - eps is positive, a sub-interval of the piece in closed form
  double upper = 0, scale = 0;
  const double s = density_.noise_sd;
  for (const ProfilePiece& piece : pieces_[forward ? 0 : 1]) {
    if (piece.lower.a == -kInf) {
      upper += piece.p_integral;  // no lower bound on q: (p - e q)_+ <= p
      scale += piece.p_integral;
      continue;
    }
    const double c = piece.upper.a - piece.lower.a - epsilon, g = piece.upper.b - piece.lower.b;
    double t0 = piece.t0, t1 = piece.t1;  // where c + g t > 0
    if (g > 0) {
      t0 = std::max(t0, -c / g);
    } else if (g < 0) {
      t1 = std::min(t1, -c / g);
    } else if (!(c > 0)) {
      continue;
    }
    if (!(t1 > t0)) continue;
    double pi = piece.p_integral, qi = piece.q_integral;
    if (t0 > piece.t0 || t1 < piece.t1) {
      pi = std::exp(detail::log_gauss_integral(piece.upper, t0, t1, s));
      qi = std::exp(detail::log_gauss_integral(piece.lower, t0, t1, s));
    }
    upper += std::max(0.0, pi - e * qi);
    scale += pi + e * qi;
  }
  // rounding of the Gaussian integrals (~1e-13 relative each: exp of a square) and of the sums
  upper += 1e-12 * scale;
  for (std::size_t i = 0; i < a.points.size() && i < b.points.size(); ++i)
    upper += std::max(0.0, a.points[i].mass.hi - e * b.points[i].mass.lo);
  // unclamped: P's mass beyond the points, where the density was not integrated
  upper += beyond_[forward ? 0 : 1];
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
