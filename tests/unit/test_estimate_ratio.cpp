// Learned density ratios: seeded fits on Gaussian pairs, whose true log-ratio is linear.
#include <catch2/catch.hpp>
#include <cmath>

#include "../statistical/test_estimate_support.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/estimate/density_ratio.hpp"
#include "rdpaudit/exact/gaussian_mixture.hpp"

using namespace rdpaudit::estimate;
using namespace rdpaudit::exact;

namespace {

constexpr double kPi = 3.14159265358979323846;

// True log p/p' of N(m, S) vs N(0, S) at x: m^T S^-1 x - m^T S^-1 m / 2 (2-D, S given row-major).
double true_log_ratio_2d(const double* x, double m0, double m1, const std::vector<double>& s) {
  const double det = s[0] * s[3] - s[1] * s[2];
  const double a0 = (s[3] * m0 - s[1] * m1) / det, a1 = (-s[2] * m0 + s[0] * m1) / det;
  return a0 * x[0] + a1 * x[1] - 0.5 * (a0 * m0 + a1 * m1);
}

}  // namespace

TEST_CASE("logistic ratio recovers the linear log-ratio of a 2-D Gaussian pair",
          "[estimate][ratio]") {
  const std::vector<double> cov = {2.0, 0.9, 0.9, 1.0};
  const double m0 = 0.5, m1 = -0.3;
  const std::size_t n = 200000;
  const auto xp = testing::draw(gaussian({m0, m1}, cov), n, 21, 0, 0);
  const auto xq = testing::draw(gaussian({0.0, 0.0}, cov), n, 21, 0, 1);
  const SampleView vp{xp.data(), n, 2}, vq{xq.data(), n, 2};
  // Threshold: at 2e5 samples per side the coefficients have standard errors of about
  // 0.005 (inverse Fisher information of the logistic model), so the fitted log-ratio at
  // points within 2 sd of the origin is within ~0.03 of the truth; 0.08 is a failure only if
  // the fit is wrong (a sign, a missing prior correction, a non-converged Newton iteration).
  for (auto features :
       {LogisticOptions::Features::kPolynomial, LogisticOptions::Features::kSpline}) {
    LogisticOptions o;
    o.features = features;
    o.degree = 2;
    const auto model = fit_logistic_ratio(vp, vq, o);
    REQUIRE(model->dim() == 2);
    for (double x0 : {-2.0, 0.0, 2.0}) {
      for (double x1 : {-1.0, 0.0, 1.0}) {
        const double x[2] = {x0, x1};
        INFO(model->name() << " at (" << x0 << ", " << x1 << ")");
        CHECK(std::abs(model->score(x) - true_log_ratio_2d(x, m0, m1, cov)) < 0.08);
      }
    }
  }
}

TEST_CASE("spline ratio is increasing and KDE ratio within its noise on a 1-D Gaussian pair",
          "[estimate][ratio]") {
  const std::size_t n = 200000;
  const auto xp = testing::draw(gaussian({0.5}, {1.0}), n, 22, 0, 0);
  const auto xq = testing::draw(gaussian({0.0}, {1.0}), n, 22, 0, 1);
  const auto spline = fit_logistic_ratio(view_of(xp), view_of(xq));
  const auto kde = fit_kde_ratio(view_of(xp), view_of(xq));
  // The spline fit is parametric (8 knots from 4e5 samples): its noise over [-2.5, 2.5] is
  // far below the true rise of 0.25 per 0.5 step, so a decrease means a broken fit.
  for (double x = -2.5; x < 2.5; x += 0.5) {
    const double y = x + 0.5;
    INFO("x = " << x);
    CHECK(spline->score(&y) > spline->score(&x));
  }
  // The KDE score is nonparametric: its noise grows in the tails. For a Gaussian kernel of
  // bandwidth h, Var log f^(x) ~ R(K) / (n h f(x)) with R(K) = 1 / (2 sqrt(pi)), per side; its
  // bias is the smoothing shrinkage |0.5 x - 0.125| h^2 / (1 + h^2) (the KDE of N(m, 1) is
  // N(m, 1 + h^2)) plus at most 1 % from the floor. Tolerance: that bias + 5 sd, e.g. 0.05 at
  // x = 0 and 0.35 at x = -2.5 (where P has 900 samples within a bandwidth). A constant or
  // sign-flipped score misses by >= 0.125 at x = 0.
  double mean = 0.0, m2 = 0.0;
  for (const auto* v : {&xp, &xq}) {
    for (double x : *v) {
      mean += x;
      m2 += x * x;
    }
  }
  mean /= 2.0 * n;
  const double sd = std::sqrt(m2 / (2.0 * n) - mean * mean);
  const double h = sd * std::pow(static_cast<double>(n), -0.2);  // Scott's rule as fit_kde_ratio
  const double rk = 1.0 / (2.0 * std::sqrt(kPi));
  auto phi = [](double z) { return std::exp(-0.5 * z * z) / std::sqrt(2.0 * kPi); };
  for (double x = -2.5; x <= 2.5; x += 0.5) {
    const double truth = 0.5 * x - 0.125;
    const double noise = std::sqrt(rk / (n * h) * (1.0 / phi(x - 0.5) + 1.0 / phi(x)));
    const double tol = std::abs(truth) * h * h / (1.0 + h * h) + 0.01 + 5.0 * noise;
    INFO("x = " << x << ", tolerance " << tol);
    CHECK(std::abs(kde->score(&x) - truth) < tol);
  }
  // Outside the grid the KDE score is held constant, never infinite.
  const double far = 1e6;
  CHECK(std::isfinite(kde->score(&far)));
  CHECK_THROWS_AS(kde->scores(SampleView{xp.data(), 2, 2}), rdpaudit::InternalError);
  CHECK_THROWS_AS(fit_kde_ratio(SampleView{xp.data(), 10, 3}, SampleView{xq.data(), 10, 3}),
                  rdpaudit::InternalError);
}
