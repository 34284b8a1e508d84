// The pair of the last-iterate heuristic (last_iterate_heuristic.hpp): P a Gaussian mixture
// sum_k w_k N(k, s^2), w = Binomial(T, q), s^2 = z^2 T, against Q = N(0, s^2). Its privacy
// loss L(x) = log(p/q)(x) = log sum_k w_k exp((k x - k^2 / 2) / s^2) increases in x (its
// derivative is the posterior mean of k over s^2), so each hockey-stick divergence is a tail
// difference at the one root of L = +-eps.
#include "rdpaudit/bounds/last_iterate_heuristic.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "rdpaudit/core/error.hpp"

namespace rdpaudit::bounds::heuristic {
namespace {

struct Mixture {
  std::vector<double> k, log_w;  // the components of weight above e^-745 of the largest
  double s = 1.0;
};

Mixture mixture(long T, double q, double z) {
  if (T < 1 || !(q > 0 && q <= 1) || !(z > 0 && std::isfinite(z)))
    throw InternalError(fmt::format("last-iterate heuristic: T = {}, q = {}, z = {}", T, q, z));
  Mixture m;
  m.s = z * std::sqrt(static_cast<double>(T));
  std::vector<double> lw(static_cast<std::size_t>(T) + 1);
  const double lq = std::log(q), lp = q < 1 ? std::log1p(-q) : -INFINITY;
  double top = -INFINITY;
  for (long k = 0; k <= T; ++k) {
    const double kk = static_cast<double>(k), tt = static_cast<double>(T);
    double l = std::lgamma(tt + 1) - std::lgamma(kk + 1) - std::lgamma(tt - kk + 1);
    l += (k > 0 ? kk * lq : 0.0) + (k < T ? (tt - kk) * lp : 0.0);
    lw[static_cast<std::size_t>(k)] = l;
    top = std::max(top, l);
  }
  for (long k = 0; k <= T; ++k) {
    if (lw[static_cast<std::size_t>(k)] < top - 745.0) continue;
    m.k.push_back(static_cast<double>(k));
    m.log_w.push_back(lw[static_cast<std::size_t>(k)]);
  }
  return m;
}

double log_sum_exp(const std::vector<double>& v) {
  const double top = *std::max_element(v.begin(), v.end());
  if (!std::isfinite(top)) return top;
  double sum = 0;
  for (double x : v) sum += std::exp(x - top);
  return top + std::log(sum);
}

// L(x), the privacy loss of P against Q at x.
double loss(const Mixture& m, double x) {
  std::vector<double> t(m.k.size());
  const double s2 = m.s * m.s;
  for (std::size_t i = 0; i < t.size(); ++i)
    t[i] = m.log_w[i] + (m.k[i] * x - 0.5 * m.k[i] * m.k[i]) / s2;
  return log_sum_exp(t);
}

// The x with L(x) = level, by bisection on a bracket grown until it holds the root.
double root(const Mixture& m, double level) {
  double lo = -m.s, hi = m.k.back() + m.s;
  while (loss(m, lo) > level) lo = 2 * lo - hi;
  while (loss(m, hi) < level) hi = 2 * hi - lo;
  for (int i = 0; i < 200 && hi - lo > 1e-15 * std::max(1.0, std::fabs(lo) + std::fabs(hi)); ++i) {
    const double mid = 0.5 * (lo + hi);
    (loss(m, mid) < level ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// P(X > x) (upper) or P(X < x) under the mixture; Q's is the k = 0, weight 1 case.
double mixture_tail(const Mixture& m, double x, bool upper) {
  double sum = 0;
  for (std::size_t i = 0; i < m.k.size(); ++i) {
    const double u = (x - m.k[i]) / m.s;
    sum += std::exp(m.log_w[i]) * 0.5 * std::erfc((upper ? u : -u) / std::sqrt(2.0));
  }
  return sum;
}

double normal_tail(double u, bool upper) {
  return 0.5 * std::erfc((upper ? u : -u) / std::sqrt(2.0));
}

}  // namespace

double hockey_stick(long T, double q, double z, double eps, bool forward) {
  if (!(eps >= 0) || !std::isfinite(eps))
    throw InternalError(fmt::format("last-iterate heuristic: eps = {}", eps));
  const Mixture m = mixture(T, q, z);
  const double e = std::exp(eps);
  if (forward) {
    // {p > e^eps q} = {x > x*}, L(x*) = eps
    const double x = root(m, eps);
    return std::max(0.0, mixture_tail(m, x, true) - e * normal_tail(x / m.s, true));
  }
  // {q > e^eps p} = {L < -eps}: empty where L's infimum, log w_0 (-inf without a k = 0
  // component, e.g. q = 1), is not below -eps
  if (m.k.front() == 0.0 && !(m.log_w.front() < -eps)) return 0.0;
  const double x = root(m, -eps);
  return std::max(0.0, normal_tail(x / m.s, false) - e * mixture_tail(m, x, false));
}

double delta(long T, double q, double z, double eps) {
  return std::max(hockey_stick(T, q, z, eps, true), hockey_stick(T, q, z, eps, false));
}

double epsilon(long T, double q, double z, double target) {
  if (!(target > 0 && target < 1))
    throw InternalError(fmt::format("last-iterate heuristic: delta = {}", target));
  if (delta(T, q, z, 0.0) <= target) return 0.0;
  double lo = 0.0, hi = 1.0;
  while (delta(T, q, z, hi) > target) {
    lo = hi;
    hi *= 2;
    if (hi > 1e6) return INFINITY;
  }
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (delta(T, q, z, mid) > target ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace rdpaudit::bounds::heuristic
