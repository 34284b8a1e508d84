// Learned density ratios: seeded fits on Gaussian pairs, whose true log-ratio is linear.
#include <catch2/catch.hpp>
#include <cmath>

#include "../statistical/test_estimate_support.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/estimate/density_ratio.hpp"
#include "rdpaudit/estimate/exact.hpp"

using namespace rdpaudit::estimate;

namespace {

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

TEST_CASE("spline and KDE ratios are increasing on a 1-D Gaussian pair", "[estimate][ratio]") {
  const std::size_t n = 200000;
  const auto xp = testing::draw(gaussian({0.5}, {1.0}), n, 22, 0, 0);
  const auto xq = testing::draw(gaussian({0.0}, {1.0}), n, 22, 0, 1);
  const auto spline = fit_logistic_ratio(view_of(xp), view_of(xq));
  const auto kde = fit_kde_ratio(view_of(xp), view_of(xq));
  // The true log-ratio 0.5 x - 0.125 rises by 0.25 per 0.5 step; sampling noise in either fit
  // over [-2.5, 2.5] is far smaller, so a decrease means a broken fit.
  for (double x = -2.5; x < 2.5; x += 0.5) {
    const double y = x + 0.5;
    INFO("x = " << x);
    CHECK(spline->score(&y) > spline->score(&x));
    CHECK(kde->score(&y) > kde->score(&x));
    CHECK(std::abs(kde->score(&x) - (0.5 * x - 0.125)) < 0.1);
  }
  // Outside the grid the KDE score is held constant, never infinite.
  const double far = 1e6;
  CHECK(std::isfinite(kde->score(&far)));
  CHECK_THROWS_AS(kde->scores(SampleView{xp.data(), 2, 2}), rdpaudit::InputError);
  CHECK_THROWS_AS(fit_kde_ratio(SampleView{xp.data(), 10, 3}, SampleView{xq.data(), 10, 3}),
                  rdpaudit::InputError);
}
