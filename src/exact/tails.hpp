// Certified bounds on the integrals beyond the density points of an unclamped law
// (docs/exact-laws.md, section 4 "Beyond the points"); internal to exact/.
//
// The density after the last step is p(y) = sum over the sources (cells, atoms and clusters
// of the law before it, each moved by each case of the step) of integral phi_s(y - m) dnu(m)
// over the source's image [m_lo, m_hi]. Beyond a point y_e (t = y - y_e >= 0 to the right),
// with d = m_hi - y_e, phi_s(y_e + t - m) <= phi_s(d_-) exp(d t / s^2 - t^2 / (2 s^2)) for every
// m <= m_hi (d_- = min(d, 0): for d <= 0 this is phi_s at m_hi, for d > 0 the exponent is
// >= 0 where the sup phi_s(0) may be reached), so each source's share a_k(t) of p is at most
// its upper mass times that. Minkowski's inequality in L^alpha(q^(1 - alpha) dy) then bounds
// (integral p^alpha q^(1 - alpha))^(1/alpha) by the sum over the sources of
// (integral a_k^alpha q^(1 - alpha))^(1/alpha), each a Gaussian integral with the convex
// extrapolation of q's lower bound beyond the last points (log_convex.hpp).
#pragma once

#include <string>
#include <vector>

#include "log_convex.hpp"
#include "rdpaudit/exact/renyi.hpp"

namespace rdpaudit::exact::detail {

/// An upper mass `weight` whose image under the last step lies in [m_lo, m_hi].
struct TailSource {
  double weight = 0, m_lo = 0, m_hi = 0;
};

/// The sources of a law's density after its last step, when its tails can be bounded: every
/// part's last step adds N(0, s^2) with this s, has affine cases only, and the law before it
/// holds no mass outside its grid (mass of unknown location). Otherwise false, `why` says why.
bool tail_sources(const ExactLaw& law, double s, std::vector<TailSource>& out, std::string& why);

/// log of an upper bound on the integral over y beyond y_end (right: y >= y_end, else
/// y <= y_end) of p^alpha q^(1 - alpha), with p's sources `src` and log q at distance t from
/// y_end at least q_lower(t) - t^2 / (2 s^2) (q_lower.a = -infinity: none, +infinity returned
/// unless p is 0). alpha = 1: the integral of p alone (q_lower unused).
double log_tail_integral(const std::vector<TailSource>& src, bool right, double y_end,
                         const Affine& q_lower, double alpha, double s);

}  // namespace rdpaudit::exact::detail
