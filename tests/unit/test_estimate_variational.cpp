// Exact checks of the Hoelder + Bernstein lower bound (variational.hpp): inequality (C) against
// a brute-force minimum, the Gaussian pair where the bound is exact in the large-sample
// limit, its direction in every argument, and the bookkeeping the audit relies on.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "rdpaudit/core/error.hpp"
#include "rdpaudit/estimate/rigorous.hpp"
#include "rdpaudit/estimate/variational.hpp"

using namespace rdpaudit::estimate;
using rdpaudit::InternalError;

namespace {

// The certificate of g(x) = c x for P = N(rho, 1), Q = N(0, 1) with population moments (the
// lognormal means and variances), no clipping (range 0) and n samples per side.
ContrastCertificate gaussian_certificate(double rho, double c, double alpha, double n,
                                         double k_factor = 1.0) {
  ContrastCertificate cert;
  cert.alpha = alpha;
  const double a = (alpha - 1.0) * c;  // X = exp(a x), x ~ N(rho, 1)
  const double b = alpha * c;          // Y = exp(b x), x ~ N(0, 1)
  cert.mean_x = std::exp(a * rho + a * a / 2.0);
  cert.var_x = cert.mean_x * cert.mean_x * std::expm1(a * a);
  cert.mean_y = std::exp(b * b / 2.0);
  cert.var_y = cert.mean_y * cert.mean_y * std::expm1(b * b);
  cert.k = k_factor * (alpha - 1.0) * cert.mean_x / (alpha * cert.mean_y);
  cert.n_x = cert.n_y = n;
  return cert;
}

}  // namespace

TEST_CASE("(C) is the minimum over m of beta log(k m + l) - log m", "[estimate]") {
  for (double alpha : {1.1, 2.0, 7.5, 64.0}) {
    for (double k : {0.01, 0.7, 3.0}) {
      for (double l : {1e-6, 0.2, 5.0}) {
        const double beta = alpha / (alpha - 1.0);
        double brute = INFINITY;
        for (double lm = -30.0; lm <= 30.0; lm += 1e-3) {
          const double m = std::exp(lm);
          brute = std::min(brute, beta * std::log(k * m + l) - std::log(m));
        }
        const double closed = std::log(l) / (alpha - 1.0) +
                              alpha * std::log(alpha) / (alpha - 1.0) - std::log(alpha - 1.0) +
                              std::log(k);
        INFO("alpha " << alpha << " k " << k << " l " << l);
        CHECK(closed <= brute + 1e-12);
        CHECK(closed == Approx(brute).margin(1e-6));
      }
    }
  }
}

TEST_CASE("Gaussian pair: the bound tends to alpha rho^2 / 2 and stays below it", "[estimate]") {
  const double rho = 0.1;
  for (double alpha : {1.1, 2.0, 16.0, 64.0}) {
    const double truth = alpha * rho * rho / 2.0;
    // g = rho x is log(p/q) up to a constant: (H) is an equality and, with k optimal, so is (C).
    const double limit = contrast_lower_bound(gaussian_certificate(rho, rho, alpha, 1e40), 0.05);
    CHECK(limit == Approx(truth).epsilon(1e-6));
    double previous = 0.0;
    for (double n : {1e4, 1e6, 1e8, 1e10}) {
      const double lb = contrast_lower_bound(gaussian_certificate(rho, rho, alpha, n), 0.05);
      INFO("alpha " << alpha << " n " << n);
      CHECK(lb < truth);
      CHECK(lb >= previous);  // more samples, narrower interval
      previous = lb;
    }
    // Any other scale or contrast weight gives less, in the limit too.
    for (double c : {0.5 * rho, 1.5 * rho}) {
      CHECK(contrast_lower_bound(gaussian_certificate(rho, c, alpha, 1e40), 0.05) < limit);
    }
    for (double f : {0.8, 1.25}) {
      CHECK(contrast_lower_bound(gaussian_certificate(rho, rho, alpha, 1e40, f), 0.05) < limit);
    }
  }
}

TEST_CASE("contrast bound: monotone in the miss probability, 0 when nothing separates",
          "[estimate]") {
  const ContrastCertificate c = gaussian_certificate(0.1, 0.1, 4.0, 1e6);
  double previous = 0.0;
  for (double miss : {1e-12, 1e-6, 1e-3, 0.05, 0.5}) {
    const double lb = contrast_lower_bound(c, miss);
    CHECK(lb >= previous);
    previous = lb;
  }
  CHECK(previous > 0.0);
  // Equal laws (rho = 0): the bound is 0, never negative, at any level.
  for (double miss : {1e-6, 0.05, 0.9}) {
    CHECK(contrast_lower_bound(gaussian_certificate(0.0, 0.1, 4.0, 1e8), miss) == 0.0);
  }
  CHECK_THROWS_AS(contrast_lower_bound(c, 0.0), InternalError);
  CHECK_THROWS_AS(contrast_lower_bound(c, 1.5), InternalError);
}

TEST_CASE("variational bound: identical counts give nothing, a shift gives a valid bound",
          "[estimate]") {
  // Fine cells with exactly binomial-like counts; P shifted against Q by one cell.
  OrderedCells same, shifted;
  const std::vector<std::uint64_t> base = {10, 200, 5000, 40000, 100000, 40000, 5000, 200, 10};
  for (std::size_t i = 0; i < base.size(); ++i) {
    same.position.push_back(static_cast<double>(i));
    shifted.position.push_back(static_cast<double>(i));
  }
  same.selection = {base, base};
  same.evaluation = {base, base};
  const std::vector<double> alphas = {1.5, 2.0, 8.0};
  const RigorousResult r0 = variational_lower_bound(same, alphas);
  REQUIRE(r0.estimates.size() == 2 * alphas.size());
  for (const Estimate& e : r0.estimates) {
    CHECK_FALSE(e.informative);
    CHECK(e.lower == 0.0);
    CHECK_FALSE(e.reason.empty());
  }
  std::vector<std::uint64_t> moved(base.size(), 0);
  for (std::size_t i = 0; i + 1 < base.size(); ++i) moved[i + 1] = base[i];
  moved[0] = 1;
  shifted.selection = {moved, base};
  shifted.evaluation = {moved, base};
  const RigorousResult r = variational_lower_bound(shifted, alphas);
  REQUIRE(r.contrasts.size() == 2 * alphas.size());
  CHECK(r.family_cells == 2 * alphas.size());
  std::vector<double> p(moved.begin(), moved.end()), q(base.begin(), base.end());
  for (const Estimate& e : r.estimates) {
    INFO("alpha " << e.alpha << " direction " << e.direction);
    // The laws here are these discrete laws: R_alpha of the counts themselves is the truth.
    const double truth =
        e.direction == kForward ? discrete_renyi(p, q, e.alpha) : discrete_renyi(q, p, e.alpha);
    CHECK(e.informative);
    CHECK(e.lower > 0.0);
    CHECK(e.lower <= truth);
    CHECK(e.value <= truth + 1e-12);  // the plug-in of (H) at exact frequencies is <= R_alpha
    CHECK(std::isinf(e.upper));
  }
}

TEST_CASE("variational bound: family bookkeeping, per-order level and p-values", "[estimate]") {
  OrderedCells cells;
  const std::vector<std::uint64_t> q = {50, 900, 9000, 30000, 30000, 9000, 900, 50};
  const std::vector<std::uint64_t> p = {30, 700, 8000, 29000, 31000, 10000, 1100, 70};
  for (std::size_t i = 0; i < q.size(); ++i) cells.position.push_back(static_cast<double>(i));
  cells.selection = {p, q};
  cells.evaluation = {p, q};
  const std::vector<double> alphas = {2.0, 4.0};
  const RigorousResult r = variational_lower_bound(cells, alphas, {}, "test-bernstein");
  REQUIRE(r.contrasts.size() == 4);
  for (const Estimate& e : r.estimates) {
    REQUIRE(e.informative);
    CHECK(e.method == "test-bernstein");
    // The table's bound spends 0.05 / 4 on each order and direction.
    CHECK(rigorous_lower_at(r, e.alpha, e.direction, 0.05) == Approx(e.lower).epsilon(1e-12));
    CHECK(rigorous_lower_for_order(r, e.alpha, e.direction, 0.05 / 4.0) ==
          Approx(e.lower).epsilon(1e-12));
    // One hypothesis alone may spend the whole level.
    CHECK(rigorous_lower_for_order(r, e.alpha, e.direction, 0.05) > e.lower);
    const double threshold = 0.5 * e.lower;
    const double pv = rigorous_p_value(r, e.alpha, e.direction, threshold);
    CHECK(pv < 0.05 / 4.0);
    CHECK(rigorous_lower_for_order(r, e.alpha, e.direction, pv) > threshold);
    CHECK(rigorous_lower_for_order(r, e.alpha, e.direction, pv / 1.01) <= threshold);
  }
  CHECK(rigorous_lower_for_order(r, 3.0, kForward, 0.05) == 0.0);  // not bounded there
  CHECK(rigorous_p_value(r, 2.0, kForward, 1e9) == 1.0);
}

TEST_CASE("variational bound: bad options and cells name the key", "[estimate]") {
  OrderedCells cells;
  cells.position = {0.0, 1.0};
  cells.selection = {{5, 5}, {5, 5}};
  cells.evaluation = {{5, 5}, {5, 5}};
  const auto message = [&](const VariationalOptions& o) {
    try {
      variational_lower_bound(cells, {2.0}, o);
    } catch (const InternalError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  VariationalOptions o;
  o.confidence = 1.0;
  CHECK_THAT(message(o), Catch::Contains("variational.confidence"));
  o = {};
  o.scale_factors = {1.0, -2.0};
  CHECK_THAT(message(o), Catch::Contains("variational.scale_factors"));
  o = {};
  o.clip_counts = {};
  CHECK_THAT(message(o), Catch::Contains("variational.clip_counts"));
  cells.position = {1.0, 0.0};
  CHECK_THAT(message({}), Catch::Contains("variational.position[1]"));
  cells.position = {0.0};
  CHECK_THAT(message({}), Catch::Contains("variational.cells"));
}
