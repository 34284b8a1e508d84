#include "rdpaudit/estimate/confidence.hpp"

#include <algorithm>
#include <boost/math/special_functions/beta.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "rdpaudit/core/error.hpp"

namespace rdpaudit::estimate {

Interval clopper_pearson(double successes, double trials, double miss) {
  if (!(trials > 0.0) || !(successes >= 0.0) || !(successes <= trials)) {
    throw InternalError("clopper_pearson",
                        std::to_string(successes) + " of " + std::to_string(trials),
                        "need 0 <= successes <= trials and trials > 0");
  }
  if (!(miss > 0.0 && miss < 1.0)) {
    throw InternalError("clopper_pearson.miss", std::to_string(miss), "must lie in (0, 1)");
  }
  const double k = successes, n = trials, tail = miss / 2.0;
  Interval ci;
  ci.lower = k <= 0.0 ? 0.0 : boost::math::ibeta_inv(k, n - k + 1.0, tail);
  ci.upper = k >= n ? 1.0 : boost::math::ibetac_inv(k + 1.0, n - k, tail);
  constexpr double kWiden = 1e-12;
  ci.lower = std::max(0.0, ci.lower * (1.0 - kWiden));
  ci.upper = std::min(1.0, ci.upper * (1.0 + kWiden));
  return ci;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Exact minimiser of sum_i exp(c_i) x_i^gamma over {lower <= x <= upper, sum x = 1}, for
// gamma > 1 (cost increasing in x) or gamma < 0 (decreasing). c_i = -inf: the cell costs
// nothing; c_i = +inf: the cell must stay at its lower end. The KKT point is
// x_i = clamp(E * K_i, lower_i, upper_i) with K_i = exp(k_i / |gamma - 1|) and one scalar E > 0
// chosen so that the sum is 1 (bisection on log E; the sum is non-decreasing in E).
std::vector<double> water_fill(const std::vector<double>& c, double gamma,
                               const std::vector<Interval>& box) {
  const std::size_t n = c.size();
  const double g = std::abs(gamma - 1.0);
  std::vector<double> log_k(n);  // log K_i
  for (std::size_t i = 0; i < n; ++i) {
    if (gamma > 1.0) {
      log_k[i] = c[i] == -kInf ? kInf : (c[i] == kInf ? -kInf : (-std::log(gamma) - c[i]) / g);
    } else {
      log_k[i] = c[i] == -kInf ? -kInf : (c[i] == kInf ? kInf : (std::log(-gamma) + c[i]) / g);
    }
  }
  // Work relative to a reference so that E * K_i never overflows: K_i = exp(log_k_i - ref).
  double ref = -kInf;
  for (double v : log_k) {
    if (std::isfinite(v)) ref = std::max(ref, v);
  }
  if (!std::isfinite(ref)) ref = 0.0;
  std::vector<double> kk(n);
  for (std::size_t i = 0; i < n; ++i) kk[i] = log_k[i] == kInf ? kInf : std::exp(log_k[i] - ref);
  std::vector<double> x(n);
  auto x_at = [&](double log_e) {
    const double e = std::exp(log_e);
    long double s = 0.0L;
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = std::clamp(kk[i] == kInf ? kInf : e * kk[i], box[i].lower, box[i].upper);
      s += x[i];
    }
    return static_cast<double>(s);
  };
  // Bracket log E: below every lower breakpoint all cells sit at their lower ends (or within
  // e^-50 of 0), above every upper breakpoint at their upper ends.
  double lo = kInf, hi = -kInf;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(log_k[i])) continue;
    const double at_upper = std::log(box[i].upper) - (log_k[i] - ref);
    lo = std::min(lo, at_upper - 50.0);
    hi = std::max(hi, at_upper + 1.0);
    if (box[i].lower > 0.0) lo = std::min(lo, std::log(box[i].lower) - (log_k[i] - ref) - 1.0);
  }
  if (!std::isfinite(lo)) lo = hi = 0.0;  // every cell free or fixed
  if (x_at(hi) < 1.0) {
    // Even at the upper ends the mass falls short: the rest goes to the cells held at their
    // lower ends (free or blocked cells), in order, up to their upper ends.
    double rest = 1.0 - std::accumulate(x.begin(), x.end(), 0.0);
    for (std::size_t i = 0; i < n && rest > 0.0; ++i) {
      const double add = std::min(box[i].upper - x[i], rest);
      x[i] += add;
      rest -= add;
    }
    return x;
  }
  if (x_at(lo) >= 1.0) return x;
  for (int it = 0; it < 200 && hi - lo > 1e-14 * std::max(1.0, std::abs(hi)); ++it) {
    const double mid = 0.5 * (lo + hi);
    if (x_at(mid) < 1.0) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  x_at(hi);
  return x;
}

// min of the linear function grad . y over {lower <= y <= upper, sum y = 1}: start at the
// lower ends, then fill the remaining mass in order of increasing gradient.
double linear_min(const std::vector<double>& grad, const std::vector<Interval>& box) {
  const std::size_t n = grad.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return grad[a] < grad[b]; });
  long double value = 0.0L, rest = 1.0L;
  for (std::size_t i = 0; i < n; ++i) {
    value += static_cast<long double>(grad[i]) * box[i].lower;
    rest -= box[i].lower;
  }
  for (std::size_t i : order) {
    if (rest <= 0.0L) break;
    const long double add = std::min<long double>(box[i].upper - box[i].lower, rest);
    value += static_cast<long double>(grad[i]) * add;
    rest -= add;
  }
  return static_cast<double>(value);
}

struct Objective {
  double log_scale = 0.0;  // F = exp(log_scale) * scaled
  double scaled = 0.0;
  double certified = 0.0;  // lower bound on min F, same scale
};

// F at (p, q), and the certified lower bound min_y grad F(p, q) . y over the feasible set.
Objective evaluate(const std::vector<double>& p, const std::vector<double>& q, double alpha,
                   const std::vector<Interval>& p_box, const std::vector<Interval>& q_box) {
  const std::size_t n = p.size();
  std::vector<double> lr(n, -kInf);  // log(p_i / q_i), -inf where p_i = 0
  double s = -kInf;
  for (std::size_t i = 0; i < n; ++i) {
    if (p[i] <= 0.0) continue;
    const double lq = std::log(std::max(q[i], 1e-300));
    lr[i] = std::log(p[i]) - lq;
    s = std::max(s, alpha * lr[i] + lq);
  }
  Objective o;
  o.log_scale = s;
  std::vector<double> gp(n, 0.0), gq(n, 0.0);
  long double f = 0.0L;
  for (std::size_t i = 0; i < n; ++i) {
    if (lr[i] == -kInf) continue;
    const double lq = std::log(std::max(q[i], 1e-300));
    f += std::exp(static_cast<long double>(alpha * lr[i] + lq - s));
    gp[i] = alpha * std::exp((alpha - 1.0) * lr[i] - s);
    gq[i] = (1.0 - alpha) * std::exp(alpha * lr[i] - s);
  }
  o.scaled = static_cast<double>(f);
  o.certified = linear_min(gp, p_box) + linear_min(gq, q_box);
  return o;
}

void check_box(const std::vector<Interval>& box, const char* name) {
  double lo = 0.0, hi = 0.0;
  for (const Interval& b : box) {
    if (!(b.lower >= 0.0 && b.lower <= b.upper && b.upper <= 1.0)) {
      throw InternalError(name,
                          "[" + std::to_string(b.lower) + ", " + std::to_string(b.upper) + "]",
                          "each cell needs 0 <= lower <= upper <= 1");
    }
    lo += b.lower;
    hi += b.upper;
  }
  if (lo > 1.0 + 1e-9 || hi < 1.0 - 1e-9) {
    throw InternalError(name,
                        "sum lower " + std::to_string(lo) + ", sum upper " + std::to_string(hi),
                        "the box must contain a probability vector");
  }
}

}  // namespace

BoxBound min_renyi_over_boxes(const std::vector<Interval>& p_box,
                              const std::vector<Interval>& q_box, double alpha) {
  if (p_box.size() != q_box.size() || p_box.empty()) {
    throw InternalError(
        "min_renyi_over_boxes",
        std::to_string(p_box.size()) + " and " + std::to_string(q_box.size()) + " cells",
        "need equal, non-zero sizes");
  }
  if (!(alpha > 1.0 && std::isfinite(alpha))) {
    throw InternalError("min_renyi_over_boxes.alpha", std::to_string(alpha),
                        "must be finite and > 1");
  }
  check_box(p_box, "min_renyi_over_boxes.p_box");
  check_box(q_box, "min_renyi_over_boxes.q_box");
  const std::size_t n = p_box.size();
  std::vector<double> p(n), q(n), c(n);
  for (std::size_t i = 0; i < n; ++i) p[i] = 0.5 * (p_box[i].lower + p_box[i].upper);

  BoxBound out;
  double best_certified_log = -kInf;
  double best_point_log = kInf;
  for (int sweep = 1; sweep <= 200; ++sweep) {
    // q-block: minimise sum p_i^alpha q_i^(1-alpha) in q.
    for (std::size_t i = 0; i < n; ++i) c[i] = p[i] > 0.0 ? alpha * std::log(p[i]) : -kInf;
    q = water_fill(c, 1.0 - alpha, q_box);
    // p-block: minimise sum q_i^(1-alpha) p_i^alpha in p.
    for (std::size_t i = 0; i < n; ++i) c[i] = q[i] > 0.0 ? (1.0 - alpha) * std::log(q[i]) : kInf;
    p = water_fill(c, alpha, p_box);

    const Objective o = evaluate(p, q, alpha, p_box, q_box);
    const double point_log = o.log_scale + std::log(o.scaled);
    // The certificate is a sum of k terms of size up to alpha * F: allow for its rounding.
    const double rounding = 1e-13 * alpha * static_cast<double>(n + 1);
    const double cert_log =
        o.certified > 0.0 ? o.log_scale + std::log(o.certified) - rounding : -kInf;
    best_point_log = std::min(best_point_log, point_log);
    best_certified_log = std::max(best_certified_log, cert_log);
    out.iterations = sweep;
    // Stop once the certified bound is within 1e-7 (relative, in log F = (alpha-1) R) of the
    // best point: further sweeps could only move the bound by that much.
    if (best_point_log - best_certified_log <=
        std::max(1e-7 * std::abs(best_point_log), 4.0 * rounding)) {
      break;
    }
  }
  out.lower =
      std::isfinite(best_certified_log) ? std::max(0.0, best_certified_log / (alpha - 1.0)) : 0.0;
  out.at_point = std::max(0.0, best_point_log / (alpha - 1.0));
  return out;
}

}  // namespace rdpaudit::estimate
