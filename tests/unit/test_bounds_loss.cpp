// Loss constants (lambda, beta, S_g, L) and the noise/sensitivity conversions between the
// sources' conventions.
#include <catch2/catch.hpp>
#include <cmath>

#include "rdpaudit/bounds/loss.hpp"
#include "rdpaudit/bounds/params.hpp"
#include "rdpaudit/bounds/ye_shokri.hpp"
#include "rdpaudit/config/noise.hpp"
#include "rdpaudit/core/error.hpp"

using namespace rdpaudit::bounds;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;

TEST_CASE("quadratic loss: lambda-strongly convex, beta = lambda, S_g = 2 lambda R",
          "[bounds][loss]") {
  LossDescription d;
  d.family = LossKind::kQuadratic;
  d.lambda = 1.5;
  d.data_radius = 2.0;
  LossConstants c = derive_loss_constants(d);
  CHECK(c.lambda == 1.5);
  CHECK(c.beta == 1.5);
  CHECK(c.S_g == 6.0);
  CHECK(std::isinf(c.L));  // unconstrained: the gradient is unbounded
  d.domain_diameter = 3.0;
  c = derive_loss_constants(d);
  CHECK(c.L == 1.5 * (1.5 + 2.0));  // ||lambda (theta - x)|| <= lambda (D/2 + R)
  CHECK_THAT(c.derivation, Contains("Hessian = lambda I"));
  d.data_radius = kInf;
  CHECK_THROWS_WITH(derive_loss_constants(d), Contains("loss.data_radius = inf"));
}

TEST_CASE("logistic loss: Propositions 5.1 and 5.2", "[bounds][loss]") {
  LossDescription d;
  d.family = LossKind::kLogistic;
  d.lambda = 0.01;
  d.feature_clip = 1.0;
  d.grad_clip = 1.0;  // = S_g / 2
  LossConstants c = derive_loss_constants(d);
  CHECK(c.lambda == 0.01);
  CHECK_THAT(c.beta, WithinRel((1.0 + 1.0) / 2.0 + 0.01, 1e-15));  // Eq. (10) + lambda
  CHECK(c.S_g == 2.0);
  CHECK(std::isinf(c.L));  // lambda theta is unbounded without a projection
  d.domain_diameter = 4.0;
  CHECK_THAT(derive_loss_constants(d).L, WithinRel(1.0 + 0.01 * 2.0, 1e-15));
  d.grad_clip = kInf;  // no clipping: S_g = 2 sqrt(2 (L^2 + 1)) (Section F.4)
  CHECK_THAT(derive_loss_constants(d).S_g, WithinRel(2.0 * std::sqrt(4.0), 1e-15));
  d.feature_clip = kInf;
  CHECK_THROWS_WITH(derive_loss_constants(d), Contains("model.feature_clip is not set"));
}

TEST_CASE("linear loss: convex, beta = 0, not strongly convex", "[bounds][loss]") {
  LossDescription d;
  d.family = LossKind::kLinear;
  d.data_radius = 0.75;
  const LossConstants c = derive_loss_constants(d);
  CHECK(c.lambda == 0.0);
  CHECK(c.beta == 0.0);
  CHECK(c.S_g == 1.5);
  CHECK(c.L == 0.75);
  // blog: replacing one record moves the mean gradient by at most 2L/b = S_g/b here
  Params p;
  p.eta = 0.1;
  p.S_g = c.S_g;
  p.b = 5;
  CHECK_THAT(step_sensitivity(p) / p.eta, WithinRel(2.0 * c.L / 5.0, 1e-15));
  d.lambda = 0.1;
  CHECK_THROWS_WITH(derive_loss_constants(d), Contains("must be 0 for the linear loss"));
}

TEST_CASE("noise conventions: Algorithm 1, Algorithm 2 (Section F.1) and the blog",
          "[bounds][loss]") {
  Params p;
  p.eta = 0.02;
  p.S_g = 4.0;
  p.b = 2;
  // Algorithm 1: s = sqrt(2 eta sigma^2)
  p.step_std = rdpaudit::config::step_std_from_sigma2(4.0, p.eta);
  CHECK_THAT(p.step_std, WithinRel(0.4, 1e-15));
  CHECK_THAT(alg1_sigma2(p), WithinRel(4.0, 1e-14));
  // Section F.1: sigma = sqrt(eta/2) sigma_mul S_g / (2b)  <=>  s = eta sigma_mul S_g / (2b)
  const double sigma_mul = alg2_sigma_mul(p);
  CHECK_THAT(std::sqrt(p.eta / 2.0) * sigma_mul * p.S_g / (2.0 * p.b),
             WithinRel(std::sqrt(alg1_sigma2(p)), 1e-14));
  CHECK_THAT(rdpaudit::config::step_std_from_paper_noise_multiplier(sigma_mul, p.eta, p.S_g, p.b),
             WithinRel(p.step_std, 1e-15));
  // Blog: the iterate receives N(0, eta^2 sigma_blog^2): sqrt(2 eta sigma^2) = eta sigma_blog
  CHECK_THAT(p.eta * blog_sigma(p), WithinRel(std::sqrt(2.0 * p.eta * alg1_sigma2(p)), 1e-15));
  CHECK_THAT(rdpaudit::config::step_std_from_blog_sigma(blog_sigma(p), p.eta),
             WithinRel(p.step_std, 1e-15));
  // Corollary 5.3's 2 alpha / sigma_mul^2 is Theorem 4.2's alpha eta S_g^2 / (4 sigma^2 b^2)
  for (double alpha : {1.5, 10.0, 300.0}) {
    CHECK_THAT(2.0 * alpha / (sigma_mul * sigma_mul),
               WithinRel(ye_shokri::gaussian_step_term(p, alpha), 1e-14));
  }
}
