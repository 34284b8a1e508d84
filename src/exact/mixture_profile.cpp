#include "rdpaudit/exact/mixture_profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "rdpaudit/core/error.hpp"

namespace rdpaudit::exact {

namespace {

struct Component {
  double log_w, mean, sd, log_sd;
};

std::vector<Component> components(const GaussianMixture& m, const std::string& key) {
  m.check(key);
  if (m.dim != 1) throw InternalError(key, fmt::format("dimension {}", m.dim), "1-D mixtures only");
  double total = 0.0;
  for (double w : m.weights) total += w;
  std::vector<Component> out;
  for (std::size_t j = 0; j < m.components(); ++j) {
    if (m.weights[j] <= 0.0) continue;
    const double scale = m.scales.empty() ? 1.0 : m.scales[j];
    const double sd = std::sqrt(m.covariance[0] * scale);
    out.push_back({std::log(m.weights[j] / total), m.means[j], sd, std::log(sd)});
  }
  return out;
}

// log density (the normal constant 1/sqrt(2 pi) dropped: common to p and q).
// Two passes (the largest term, then the sum), no allocation: it is called for every point of
// the scan and of the root refinements.
double log_density(const std::vector<Component>& c, double x) {
  const auto term = [&](const Component& k) {
    const double z = (x - k.mean) / k.sd;
    return k.log_w - k.log_sd - 0.5 * z * z;
  };
  double top = -std::numeric_limits<double>::infinity();
  for (const Component& k : c) top = std::max(top, term(k));
  double s = 0.0;
  for (const Component& k : c) s += std::exp(term(k) - top);
  return top + std::log(s);
}

// Mass of the mixture on [a, b] (ends may be infinite), accurate in both tails.
double mass(const std::vector<Component>& c, double a, double b) {
  const auto upper = [](double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); };
  double total = 0.0;
  for (const Component& k : c) {
    const double za = (a - k.mean) / k.sd, zb = (b - k.mean) / k.sd;
    double m;
    if (za >= 0.0)
      m = upper(za) - upper(zb);
    else if (zb <= 0.0)
      m = upper(-zb) - upper(-za);
    else
      m = 1.0 - upper(-za) - upper(zb);
    total += std::exp(k.log_w) * std::max(0.0, m);
  }
  return total;
}

struct Pair {
  std::vector<Component> p, q;
  double lo, hi;  ///< scan range
  double step;    ///< scan step
  /// log p - log q at the scan points lo + step i: computed once, it serves every epsilon of
  /// the bisection over epsilon (the scan dominated the cost when redone per epsilon).
  std::vector<double> log_ratio;

  double log_ratio_at(double x) const { return log_density(p, x) - log_density(q, x); }
};

Pair make_pair_of(const GaussianMixture& p, const GaussianMixture& q,
                  const ExactProfileOptions& o) {
  Pair out{components(p, "exact profile P"), components(q, "exact profile P'"), 0.0, 0.0, 0.0, {}};
  if (p.covariance[0] != q.covariance[0])
    throw InternalError("exact profile", "two base variances", "one base variance for P and P'");
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, sd = 0.0;
  for (const auto* side : {&out.p, &out.q}) {
    for (const Component& k : *side) {
      lo = std::min(lo, k.mean);
      hi = std::max(hi, k.mean);
      sd = std::max(sd, k.sd);
    }
  }
  out.lo = lo - 40.0 * sd;
  out.hi = hi + 40.0 * sd;
  const std::size_t n = std::max<std::size_t>(o.scan_points, 3);
  out.step = (out.hi - out.lo) / static_cast<double>(n - 1);
  out.log_ratio.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    out.log_ratio[i] = out.log_ratio_at(out.lo + out.step * static_cast<double>(i));
  }
  return out;
}

double delta_of(const Pair& w, double epsilon) {
  const auto f = [&](double x) { return w.log_ratio_at(x) - epsilon; };
  const std::size_t n = w.log_ratio.size();
  const double step = w.step;
  // Segments between sign changes; the first and last extend to -inf and +inf.
  double start = -std::numeric_limits<double>::infinity();
  double x_prev = w.lo;
  bool positive = w.log_ratio[0] - epsilon > 0.0;
  double total = 0.0;
  const double scale = std::exp(epsilon);
  const auto close = [&](double end) {
    if (positive) total += mass(w.p, start, end) - scale * mass(w.q, start, end);
  };
  for (std::size_t i = 1; i < n; ++i) {
    const double x = w.lo + step * static_cast<double>(i);
    const bool pos = w.log_ratio[i] - epsilon > 0.0;
    if (pos != positive) {
      double a = x_prev, b = x;  // f(a) > 0 <=> positive
      for (int it = 0; it < 100 && b - a > 0.0; ++it) {
        const double mid = 0.5 * (a + b);
        if (mid <= a || mid >= b) break;
        ((f(mid) > 0.0) == positive ? a : b) = mid;
      }
      const double root = 0.5 * (a + b);
      close(root);
      start = root;
      positive = pos;
    }
    x_prev = x;
  }
  close(std::numeric_limits<double>::infinity());
  return std::max(0.0, total);
}

}  // namespace

struct ExactProfile::Scan {
  Pair pair;
};

ExactProfile::ExactProfile(const GaussianMixture& p, const GaussianMixture& q,
                           const ExactProfileOptions& options)
    : scan_(std::make_unique<Scan>(Scan{make_pair_of(p, q, options)})) {}
ExactProfile::~ExactProfile() = default;
ExactProfile::ExactProfile(ExactProfile&&) noexcept = default;
ExactProfile& ExactProfile::operator=(ExactProfile&&) noexcept = default;

double ExactProfile::delta(double epsilon) const {
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon))
    throw InternalError("epsilon", fmt::format("{}", epsilon), "must be >= 0 and finite");
  return delta_of(scan_->pair, epsilon);
}

EpsilonBracket ExactProfile::epsilon(double delta) const {
  if (!(delta > 0.0 && delta < 1.0))
    throw InternalError("delta", fmt::format("{}", delta), "must be in (0, 1)");
  const Pair& w = scan_->pair;
  EpsilonBracket out;
  if (delta_of(w, 0.0) <= delta) return out;  // eps(delta) = 0
  double lo = 0.0, hi = 1.0;                  // invariant: delta(lo) > delta >= delta(hi)
  while (delta_of(w, hi) > delta) {
    lo = hi;
    hi *= 2.0;
    if (hi > 1e6) {
      out.value = out.lower = out.upper = std::numeric_limits<double>::infinity();
      return out;
    }
  }
  for (int it = 0; it < 200 && hi - lo > 1e-13 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    (delta_of(w, mid) > delta ? lo : hi) = mid;
  }
  out.value = 0.5 * (lo + hi);
  out.lower = lo * (1.0 - 1e-12);
  out.upper = hi * (1.0 + 1e-12);
  return out;
}

double exact_delta(const GaussianMixture& p, const GaussianMixture& q, double epsilon,
                   const ExactProfileOptions& options) {
  return ExactProfile(p, q, options).delta(epsilon);
}

EpsilonBracket exact_epsilon(const GaussianMixture& p, const GaussianMixture& q, double delta,
                             const ExactProfileOptions& options) {
  return ExactProfile(p, q, options).epsilon(delta);
}

}  // namespace rdpaudit::exact
