// The certified upper ends of the exact engine's brackets (docs/exact-laws.md, section 4):
// the Gaussian integrals and the log-convex interpolation between the density points
// (src/exact/log_convex.hpp), then R_alpha's and delta(eps)'s upper ends against closed forms
// (a Gaussian pair, a clamped pair with atoms, the sampled Gaussian mechanism, a location
// mixture): each upper end at or above the truth and the lower end, and the widths reached.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "../../src/exact/log_convex.hpp"
#include "exact_support.hpp"
#include "rdpaudit/audit/cell.hpp"
#include "rdpaudit/audit/verdict.hpp"
#include "rdpaudit/exact/chain.hpp"
#include "rdpaudit/exact/gaussian_mixture.hpp"
#include "rdpaudit/exact/mixture_profile.hpp"
#include "rdpaudit/exact/profile.hpp"

using rdpaudit::exact::GaussianMixture;
using namespace rdpaudit::exact;
using rdpaudit::test::check_rows;
using rdpaudit::test::mixture;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double normal_cdf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

/// log of the integral of exp(f) over [a, b] by the composite Simpson rule on n (even) steps
/// in the log domain: accurate to ~1e-12 relative for the smooth integrands below.
double log_simpson(const std::function<double(double)>& f, double a, double b, int n = 200000) {
  const double h = (b - a) / n;
  double top = -kInf;
  std::vector<double> v(static_cast<std::size_t>(n) + 1);
  for (int i = 0; i <= n; ++i) {
    v[static_cast<std::size_t>(i)] = f(a + h * i);
    top = std::max(top, v[static_cast<std::size_t>(i)]);
  }
  double sum = 0;
  for (int i = 0; i <= n; ++i) {
    const double w = (i == 0 || i == n) ? 1.0 : (i % 2 == 1 ? 4.0 : 2.0);
    sum += w * std::exp(v[static_cast<std::size_t>(i)] - top);
  }
  return top + std::log(sum * h / 3.0);
}

double mixture_renyi(const GaussianMixture& p, const GaussianMixture& q, double alpha,
                     bool forward) {
  for (const auto& e : rdpaudit::exact::exact_renyi(p, q, {alpha})) {
    if (e.direction == (forward ? rdpaudit::estimate::kForward : rdpaudit::estimate::kBackward))
      return e.value;
  }
  return NAN;
}

/// P(a < Z <= b) without cancellation in either tail.
double interval_prob(double a, double b) {
  if (a >= 0) return 0.5 * (std::erfc(a / std::sqrt(2.0)) - std::erfc(b / std::sqrt(2.0)));
  if (b <= 0) return 0.5 * (std::erfc(-b / std::sqrt(2.0)) - std::erfc(-a / std::sqrt(2.0)));
  return normal_cdf(b) - normal_cdf(a);
}

/// delta(eps) brackets of the engine's laws against a truth, both directions; returns the
/// widest bracket relative to the truth where it is above 1e-6.
double check_profile(const ChainLaws& laws, const std::function<double(double, bool)>& truth) {
  const ProfileBrackets b(laws.d, laws.dprime);
  double widest = 0;
  for (bool fwd : {true, false}) {
    for (double eps : {0.0, 0.25, 0.5, 1.0, 2.0, 4.0}) {
      const double t = truth(eps, fwd);
      const Bracket x = b.delta(eps, fwd);
      INFO((fwd ? "forward" : "backward")
           << " eps " << eps << ": [" << x.lo << ", " << x.hi << "] truth " << t);
      CHECK(x.lo <= t * (1 + 1e-9) + 1e-300);
      CHECK(t * (1 - 1e-9) <= x.hi);
      if (t > 1e-6) widest = std::max(widest, (x.hi - x.lo) / t);
    }
  }
  return widest;
}

}  // namespace

TEST_CASE("certified upper ends: the Gaussian integrals in closed form", "[exact][upper]") {
  // exp(a + b t - t^2 / (2 s^2)) over [t0, t1]: the peak inside, left, right, far out in both
  // tails, and an interval far narrower than s
  const double s = 0.7;
  struct Case {
    double a, b, t0, t1;
  };
  for (const Case& c : std::vector<Case>{{0.3, 0.5, 0.0, 2.0},
                                         {-2.0, 40.0, 0.0, 1.0},
                                         {1.0, -30.0, 0.0, 1.5},
                                         {0.0, -300.0, 0.0, 3.0},
                                         {0.0, 300.0, 0.0, 3.0},
                                         {-700.0, 2.0, 0.5, 0.5001},
                                         {5.0, 0.1, -1.0, 4.0}}) {
    const auto f = [&](double t) { return c.a + c.b * t - t * t / (2 * s * s); };
    const double got = detail::log_gauss_integral({c.a, c.b}, c.t0, c.t1, s);
    const double ref = log_simpson(f, c.t0, c.t1);
    INFO("a " << c.a << " b " << c.b << " [" << c.t0 << ", " << c.t1 << "]: " << got << " vs "
              << ref);
    CHECK(got == Approx(ref).epsilon(1e-10).margin(1e-10));
  }
  // to +infinity: the whole Gaussian when the peak is far inside
  const double whole = detail::log_gauss_integral({0.0, 40.0 / (s * s)}, 0.0, kInf, s);
  CHECK(whole == Approx(0.5 * 40.0 * 40.0 / (s * s) + std::log(s * std::sqrt(2 * M_PI))));
  CHECK(detail::log_gauss_integral({0.0, -3.0}, 0.0, kInf, s) ==
        Approx(log_simpson([&](double t) { return -3.0 * t - t * t / (2 * s * s); }, 0.0, 12.0))
            .epsilon(1e-10));
  CHECK(detail::log_gauss_integral({-kInf, 1.0}, 0.0, 1.0, s) == -kInf);
  CHECK(detail::log_gauss_integral({0.0, 1.0}, 1.0, 1.0, s) == -kInf);
}

TEST_CASE("certified upper ends: a Gaussian convolution lies between the interpolations",
          "[exact][upper]") {
  // p = phi_s * nu for a three-atom nu; the bounds at the points are p (1 -+ 1e-4): between
  // the points the chord bound is above p and the secants' extensions below it
  const double s = 0.5, w = s / 20;
  const std::vector<double> wt = {0.5, 0.3, 0.2}, at = {-0.4, 0.1, 1.3};
  const auto p = [&](double y) {
    double v = 0;
    for (std::size_t k = 0; k < wt.size(); ++k)
      v += wt[k] * std::exp(-0.5 * (y - at[k]) * (y - at[k]) / (s * s)) / (s * std::sqrt(2 * M_PI));
    return v;
  };
  const double y0 = -3.0;
  const int m = 240;
  std::vector<double> lo(m + 1), hi(m + 1);
  for (int i = 0; i <= m; ++i) {
    lo[static_cast<std::size_t>(i)] = p(y0 + i * w) * (1 - 1e-4);
    hi[static_cast<std::size_t>(i)] = p(y0 + i * w) * (1 + 1e-4);
  }
  double worst_up = 0, worst_low = 0;
  int checked = 0;
  for (std::size_t i = 0; i + 1 < hi.size(); ++i) {
    const detail::LogConvexPiece piece = detail::log_convex_piece(lo, hi, i, w, s);
    const detail::SplitLower split = detail::split_lower(piece, w);
    for (int k = 0; k <= 20; ++k) {
      const double t = w * k / 20.0, truth = std::log(p(y0 + static_cast<double>(i) * w + t));
      const double q2 = t * t / (2 * s * s);
      const double up = piece.upper.at(t) - q2;
      const double low = (t <= split.t_split ? split.first : split.second).at(t) - q2;
      INFO("interval " << i << " t " << t << ": " << low << " <= " << truth << " <= " << up);
      CHECK(truth <= up);
      CHECK(low <= truth);
      worst_up = std::max(worst_up, up - truth);
      if (std::isfinite(low)) worst_low = std::max(worst_low, truth - low);
      ++checked;
    }
  }
  CHECK(checked == 21 * m);
  // the slack is the brackets' (1e-4) plus second order in w / s
  INFO("largest slack above " << worst_up << ", below " << worst_low);
  CHECK(worst_up < 1e-3);
  CHECK(worst_low < 3e-3);
  // beyond the last point, the extrapolation stays below (the far tail of the last atom)
  const detail::Affine tail = detail::tail_lower(lo, hi, static_cast<std::size_t>(m), w, s, true);
  for (double t : {0.0, 0.1, 1.0, 5.0}) {
    CHECK(tail.at(t) - t * t / (2 * s * s) <= std::log(p(y0 + m * w + t)));
  }
  const detail::Affine head = detail::tail_lower(lo, hi, 0, w, s, false);
  for (double t : {0.0, 0.1, 1.0, 5.0}) {
    CHECK(head.at(t) - t * t / (2 * s * s) <= std::log(p(y0 - t)));
  }
  // a density that is not a convolution with N(0, s^2) (a narrower Gaussian): the chord claim
  // fails between the points, so the bounds do rest on the shape
  const auto narrow = [&](double y) { return std::exp(-0.5 * y * y / (0.1 * s * 0.1 * s)); };
  std::vector<double> nl(3), nh(3);
  for (int i = 0; i < 3; ++i)
    nl[static_cast<std::size_t>(i)] = nh[static_cast<std::size_t>(i)] = narrow(-0.05 + 0.05 * i);
  const detail::LogConvexPiece bad = detail::log_convex_piece(nl, nh, 0, 0.05, s);
  CHECK(bad.upper.at(0.025) - 0.025 * 0.025 / (2 * s * s) < std::log(narrow(-0.025)));
}

TEST_CASE("certified upper ends: a Gaussian pair, step by step and as a location mixture",
          "[exact][upper]") {
  for (bool location : {false, true}) {
    for (long T : {1L, 3L}) {
      const ChainSpec c = rdpaudit::test::gaussian_pair_chain(T);
      EngineOptions o;
      o.location_mixture = location;
      const ChainLaws laws = evolve_pair(c, o);
      const double delta = T * c.eta * 2.0, var = T * c.step_std * c.step_std;
      const auto rows = renyi_brackets(laws.d, laws.dprime, {2, 4, 8, 16, 32});
      const double width = check_rows(
          rows, [&](double a, bool) { return a * delta * delta / (2 * var); }, 16);
      INFO((location ? "location mixture" : "step by step") << " T = " << T << ": width " << width);
      CHECK(width < 1e-3);
      const GaussianMixture p = mixture({1.0}, {-delta / 2}, var),
                            q = mixture({1.0}, {delta / 2}, var);
      const double pw = check_profile(laws, [&](double eps, bool fwd) {
        return rdpaudit::exact::exact_delta(fwd ? p : q, fwd ? q : p, eps);
      });
      CHECK(pw < 2e-3);
      if (location) {
        // the tails beyond the points are bounded from the clusters' images: certified
        CHECK(upper_uncertified(laws.d, laws.dprime, density_grid(laws.d, laws.dprime, {}, 32)) ==
              "");
      }
    }
  }
}

TEST_CASE("certified upper ends: a clamped pair with atoms against its closed form",
          "[exact][upper]") {
  // one projected step onto [-R, R]: N(mp, s^2) and N(mq, s^2) clamped
  const ChainLaws laws = evolve_pair(rdpaudit::test::clamped_pair_chain(), {});
  const double s = 0.04, R = 0.05;
  const double mean[2] = {-0.02, 0.02};
  // atoms of law k at -R and R
  const auto atom = [&](int k, int side) {
    return side == 0 ? normal_cdf((-R - mean[k]) / s) : normal_cdf((mean[k] - R) / s);
  };
  // integral over (-R, R) of phi(y - m1)^a phi(y - m2)^(1 - a): a Gaussian of mean
  // a m1 + (1 - a) m2 times exp(a (a - 1) (m1 - m2)^2 / (2 s^2))
  const auto renyi = [&](double a, bool fwd) {
    const double m1 = mean[fwd ? 0 : 1], m2 = mean[fwd ? 1 : 0], mc = a * m1 + (1 - a) * m2;
    std::vector<double> terms = {a * (a - 1) * (m1 - m2) * (m1 - m2) / (2 * s * s) +
                                 std::log(interval_prob((-R - mc) / s, (R - mc) / s))};
    for (int side : {0, 1}) {
      terms.push_back(a * std::log(atom(fwd ? 0 : 1, side)) +
                      (1 - a) * std::log(atom(fwd ? 1 : 0, side)));
    }
    const double top = std::max({terms[0], terms[1], terms[2]});
    double sum = 0;
    for (double t : terms) sum += std::exp(t - top);
    return (top + std::log(sum)) / (a - 1);
  };
  const auto rows = renyi_brackets(laws.d, laws.dprime, {2, 4, 8, 16, 64});
  const double width = check_rows(rows, renyi, 16);
  INFO("widest relative bracket " << width);
  CHECK(width < 2e-4);
  // delta(eps): p > e^eps q on one side of the point where the log ratio crosses eps, plus the
  // atoms' (P - e^eps Q)_+
  const double pw = check_profile(laws, [&](double eps, bool fwd) {
    const double m1 = mean[fwd ? 0 : 1], m2 = mean[fwd ? 1 : 0], e = std::exp(eps);
    // log p/q = ((m1 - m2) y - (m1^2 - m2^2)/2) / s^2 > eps
    const double y = (eps * s * s + 0.5 * (m1 * m1 - m2 * m2)) / (m1 - m2);
    double d = 0;
    const bool above = m1 > m2;  // where the set lies
    const double a = above ? std::max(y, -R) : -R, b = above ? R : std::min(y, R);
    if (b > a) {
      d +=
          interval_prob((a - m1) / s, (b - m1) / s) - e * interval_prob((a - m2) / s, (b - m2) / s);
    }
    for (int side : {0, 1})
      d += std::max(0.0, atom(fwd ? 0 : 1, side) - e * atom(fwd ? 1 : 0, side));
    return d;
  });
  INFO("widest delta bracket " << pw);
  CHECK(pw < 1e-3);
  CHECK(upper_uncertified(laws.d, laws.dprime, density_grid(laws.d, laws.dprime, {}, 64)) == "");
}

TEST_CASE("certified upper ends: the sampled Gaussian mechanism, now finite at large orders",
          "[exact][upper]") {
  // sampling without replacement, n = 4, b = 1: D's record moves the mean by 2 w.p. 1/4; the
  // tilted law of order alpha sits near -2 alpha, beyond where the density bounds are in
  // double's range from alpha ~ 16: the tails beyond the points are bounded in closed form
  const ChainSpec c = rdpaudit::test::sampled_gaussian_chain();
  for (bool location : {false, true}) {
    EngineOptions o;
    o.location_mixture = location;
    const ChainLaws laws = evolve_pair(c, o);
    const auto rows = renyi_brackets(laws.d, laws.dprime, {2, 4, 8, 16, 32});
    const GaussianMixture p = mixture({0.75, 0.25}, {0.0, -2.0}, 1.0),
                          q = mixture({1.0}, {0.0}, 1.0);
    // the tilted law of order 32 spans about [-80, 10]: the quadrature over [-120, 40]
    const auto truth = [&](double a, bool fwd) {
      const auto lp = [&](double y) {
        const double u = std::log(0.75) - 0.5 * y * y, v = std::log(0.25) - 0.5 * (y + 2) * (y + 2);
        return std::max(u, v) + std::log1p(std::exp(-std::fabs(u - v)));
      };
      const auto lq = [&](double y) { return -0.5 * y * y; };
      const auto f = [&](double y) {
        return (fwd ? a * lp(y) + (1 - a) * lq(y) : a * lq(y) + (1 - a) * lp(y)) -
               0.5 * std::log(2 * M_PI);
      };
      return log_simpson(f, -120.0, 40.0, 400000) / (a - 1);
    };
    const double width = check_rows(rows, truth, 16);
    INFO((location ? "location mixture" : "step by step") << ": width " << width);
    CHECK(width < 1e-3);
    for (const RenyiBracketRow& r : rows) {
      CHECK(std::isfinite(r.forward.hi));
      CHECK(std::isfinite(r.backward.hi));
    }
    const double pw = check_profile(laws, [&](double eps, bool fwd) {
      return rdpaudit::exact::exact_delta(fwd ? p : q, fwd ? q : p, eps);
    });
    CHECK(pw < 3e-3);
  }
}

TEST_CASE("certified upper ends: a location mixture (sampling without replacement, T = 3)",
          "[exact][upper]") {
  // linear loss, n = 4, b = 1, gradients 1 and 0: theta_3 under D is N(-k, 3) with k ~
  // Binomial(3, 1/4), under D' N(0, 3)
  ChainSpec c = rdpaudit::test::sampled_gaussian_chain();
  c.record_d = 1.0;
  c.steps = 3;
  const ChainLaws laws = evolve_pair(c, {});
  REQUIRE(laws.d.parts.size() >= 1);
  const GaussianMixture p = mixture({27.0 / 64, 27.0 / 64, 9.0 / 64, 1.0 / 64},
                                    {0.0, -1.0, -2.0, -3.0}, 3.0),
                        q = mixture({1.0}, {0.0}, 3.0);
  const auto rows = renyi_brackets(laws.d, laws.dprime, {2, 4, 8, 16});
  const double width = check_rows(
      rows, [&](double a, bool fwd) { return mixture_renyi(p, q, a, fwd); }, 16);
  INFO("widest relative bracket " << width);
  CHECK(width < 1e-3);
  CHECK(upper_uncertified(laws.d, laws.dprime, density_grid(laws.d, laws.dprime, {}, 16)) == "");
  const double pw = check_profile(laws, [&](double eps, bool fwd) {
    return rdpaudit::exact::exact_delta(fwd ? p : q, fwd ? q : p, eps);
  });
  CHECK(pw < 2e-3);
}

TEST_CASE("certified upper ends: the valid (exact) note says whether the chain's is certified",
          "[exact][upper][audit]") {
  using rdpaudit::audit::Cell;
  using rdpaudit::audit::Verdict;
  // bracket [0.9, 1.1] of the exact chain, the bound above it: valid (exact)
  for (bool certified : {true, false}) {
    Cell c;
    c.tested = true;
    c.verdict = Verdict::kNotRejected;
    c.bound_value = 1.2;
    c.lower = 0.5;
    c.estimate = c.exact = 1.0;
    c.exact_method = "exact-chain";
    c.exact_lower = 0.9;
    c.exact_upper = 1.1;
    c.exact_upper_certified = certified;
    c.p_holm = 0.5;
    rdpaudit::audit::decide(c, 0.05);
    CHECK(c.verdict == Verdict::kValidExact);
    INFO(c.note);
    CHECK_THAT(c.note, Catch::Contains("exact chain"));
    CHECK((c.note.find("not certified") == std::string::npos) == certified);
    CHECK((c.note.find("(certified)") != std::string::npos) == certified);
  }
}
