// Known answers: closed forms the sources give, identities between bounds, and limits.
#include <catch2/catch.hpp>
#include <cmath>

#include "rdpaudit/bounds/blog.hpp"
#include "rdpaudit/bounds/bounds.hpp"
#include "rdpaudit/bounds/conversion.hpp"
#include "rdpaudit/bounds/mechanisms.hpp"
#include "rdpaudit/bounds/ye_shokri.hpp"
#include "rdpaudit/config/noise.hpp"
#include "rdpaudit/core/error.hpp"

using namespace rdpaudit::bounds;
using Catch::Matchers::WithinRel;

namespace bounds_test {

/// The setting of the paper's Figures 1 and 2: lambda = 1, beta = 4, S_g = 4, n = 50,
/// eta = 0.02, sigma^2 = 4, b = 2 (quadratic loss, unconstrained).
Params figure_params(BatchScheme scheme, long K, long j0) {
  Params p;
  p.loss = LossKind::kQuadratic;
  p.scheme = scheme;
  p.eta = 0.02;
  p.step_std = rdpaudit::config::step_std_from_sigma2(4.0, 0.02);
  p.lambda = 1.0;
  p.beta = 4.0;
  p.S_g = 4.0;
  p.n = 50;
  p.b = scheme == BatchScheme::kFullBatch ? 50 : 2;
  p.K = K;
  p.T = K * (p.n / p.b);
  p.j0 = j0;
  return p;
}

double value(std::string_view bound, const Params& p, double alpha) {
  const BoundValue v = evaluate_bound(bound, p, alpha);
  INFO(bound << " not applicable: " << v.not_applicable);
  REQUIRE(v.applicable());
  return *v.value;
}

}  // namespace bounds_test

using bounds_test::figure_params;
using bounds_test::value;

namespace {

/// eps_0^j summed literally as Theorem 3.3 writes it.
double eps0_literal(double A, double eta, double lambda, long j) {
  const double r = (1 - eta * lambda) * (1 - eta * lambda);
  double sum = 0.0;
  for (long s = 0; s < j; ++s) sum += std::pow(r, static_cast<double>(s));
  return A * std::pow(r, static_cast<double>(j - 1)) / sum;
}

}  // namespace

TEST_CASE("Figure setting: sigma^2 = 4 gives step_std 0.4 and A(alpha) = alpha / 200",
          "[bounds][known]") {
  const Params p = figure_params(BatchScheme::kFixedOrder, 1, 0);
  CHECK_THAT(p.step_std, WithinRel(0.4, 1e-15));
  CHECK_THAT(alg1_sigma2(p), WithinRel(4.0, 1e-14));
  // alpha eta S_g^2 / (4 sigma^2 b^2) = alpha * 0.02 * 16 / 64
  CHECK_THAT(ye_shokri::gaussian_step_term(p, 10.0), WithinRel(0.05, 1e-14));
  // the same number as the Gaussian mechanism with sensitivity eta S_g/b and noise s
  CHECK_THAT(gaussian_rdp(p.step_std / step_sensitivity(p), 10.0), WithinRel(0.05, 1e-14));
}

TEST_CASE("eps_0^j equals the literal sum of Theorem 3.3", "[bounds][known]") {
  for (double lambda : {0.0, 0.3, 1.0, 49.0}) {
    for (long j : {1L, 2L, 3L, 12L, 25L, 400L}) {
      INFO("lambda = " << lambda << ", j = " << j);
      CHECK_THAT(ye_shokri::eps0(0.7, 0.02, lambda, j),
                 WithinRel(eps0_literal(0.7, 0.02, lambda, j), 1e-12));
    }
  }
  // eta lambda = 1: (1 - eta lambda)^{2(j-1)} = 0 for j >= 2
  CHECK(ye_shokri::eps0(0.7, 0.5, 2.0, 1) == 0.7);
  CHECK(ye_shokri::eps0(0.7, 0.5, 2.0, 2) == 0.0);
}

TEST_CASE("Theorem 3.3 at K = 1 is eps_0^{n/b - j0}, the last batch gets one full step",
          "[bounds][known]") {
  for (long j0 : {0L, 7L, 24L}) {
    const Params p = figure_params(BatchScheme::kFixedOrder, 1, j0);
    const double A = ye_shokri::gaussian_step_term(p, 15.0);
    CHECK_THAT(value("ys_thm3.3_fixed_order", p, 15.0),
               WithinRel(eps0_literal(A, 0.02, 1.0, 25 - j0), 1e-12));
  }
  const Params last = figure_params(BatchScheme::kFixedOrder, 1, 24);
  CHECK_THAT(value("ys_thm3.3_fixed_order", last, 10.0), WithinRel(0.05, 1e-14));
}

TEST_CASE("Theorem 3.3 grows with K and converges to its K -> infinity limit", "[bounds][known]") {
  const double alpha = 10.0;
  double previous = 0.0;
  for (long K : {1L, 2L, 10L, 100L, 1000L, 100000L}) {
    const double v =
        value("ys_thm3.3_fixed_order", figure_params(BatchScheme::kFixedOrder, K, 0), alpha);
    CHECK(v >= previous);
    previous = v;
  }
  // limit: eps_0^h / (1 - r^{N-h}) + eps_0^{N - j0},  h = 12, N - h = 13
  const double A = alpha / 200.0;
  const double r = 0.98 * 0.98;
  const double limit =
      eps0_literal(A, 0.02, 1.0, 12) / (1.0 - std::pow(r, 13.0)) + eps0_literal(A, 0.02, 1.0, 25);
  CHECK_THAT(previous, WithinRel(limit, 1e-12));
}

TEST_CASE("Theorem 2.1 closed form and limit, equals Theorem D.7's formula at b = n",
          "[bounds][known]") {
  const Params p = figure_params(BatchScheme::kShufflePartition, 200, 0);
  // alpha S_g^2 / (lambda sigma^2 b^2) (1 - e^{-lambda eta K/2}) = 10 * 16/16 * (1 - e^{-2})
  CHECK_THAT(value("ys_thm2.1_naive", p, 10.0), WithinRel(10.0 * (1.0 - std::exp(-2.0)), 1e-14));
  const Params far = figure_params(BatchScheme::kShufflePartition, 100000, 0);
  CHECK_THAT(value("ys_thm2.1_naive", far, 10.0), WithinRel(10.0, 1e-14));
  Params full = figure_params(BatchScheme::kFullBatch, 30, 0);
  full.init = Init::kGaussianChourasia;
  CHECK_THAT(value("ys_thm2.1_naive", full, 7.0),
             WithinRel(value("ys_thmD.7_chourasia", full, 7.0), 1e-14));
}

TEST_CASE("Theorem 4.2 lies between the first- and last-batch Theorem 3.3 values",
          "[bounds][known]") {
  // Section 4.1: Theorem 4.2 is always smaller than Theorem 3.3 for the worst batch; being a
  // log-average it is at least the best batch's value.
  for (long K : {1L, 5L, 200L}) {
    for (double alpha : {1.5, 10.0, 15.0, 200.0}) {
      INFO("K = " << K << ", alpha = " << alpha);
      const double shuffled = value("ys_thm4.2_shuffle_partition",
                                    figure_params(BatchScheme::kShufflePartition, K, 0), alpha);
      CHECK(shuffled <=
            value("ys_thm3.3_fixed_order", figure_params(BatchScheme::kFixedOrder, K, 24), alpha));
      CHECK(shuffled >=
            value("ys_thm3.3_fixed_order", figure_params(BatchScheme::kFixedOrder, K, 0), alpha));
    }
  }
}

TEST_CASE("Footnote 4 with the 1/(alpha-1) of Eq. (5) is Eq. (5), as printed it is not",
          "[bounds][known]") {
  const Params p = figure_params(BatchScheme::kShufflePartition, 200, 0);
  const double alpha = 10.0;
  const double A = ye_shokri::gaussian_step_term(p, alpha);
  const double e1 = A;
  double avg_shifted = 0.0;
  for (long j = 1; j <= 25; ++j) {
    avg_shifted += std::exp((alpha - 1) * (eps0_literal(A, 0.02, 1.0, j) - e1)) / 25.0;
  }
  const double first = ye_shokri::epoch_term(A, 0.02, 1.0, 25, 200);
  const double eq5 = value("ys_thm4.2_shuffle_partition", p, alpha);
  CHECK_THAT(first + e1 + std::log(avg_shifted) / (alpha - 1), WithinRel(eq5, 1e-12));
  const double printed = value("ys_thm4.2_footnote4_as_printed", p, alpha);
  CHECK_THAT(printed, WithinRel(first + e1 + std::log(avg_shifted), 1e-12));
  CHECK(printed < 0.0);  // not an RDP bound at all in the paper's own Figure 2 setting
}

TEST_CASE("Theorem 4.3: closed form for two steps, composition at b = n, fixed point",
          "[bounds][known]") {
  Params p = figure_params(BatchScheme::kSampleWithoutReplacement, 1, 0);
  p.b = 25;  // two steps per epoch, q = 1/2
  p.T = 2;
  const double alpha = 3.0;
  const double A = ye_shokri::gaussian_step_term(p, alpha);
  const double r = 0.98 * 0.98;
  const double S1 = 0.5 * std::exp((alpha - 1) * A) + 0.5;
  const double S2 = 0.5 * std::exp((alpha - 1) * A) * S1 + 0.5 * std::pow(S1, r);
  // (the naive log(S2) of a number near 1 is itself only good to ~1e-12)
  CHECK_THAT(value("ys_thm4.3_sample_wor", p, alpha), WithinRel(std::log(S2) / (alpha - 1), 1e-10));

  // b = n: every step holds the record; the recursion is plain composition T A(alpha).
  const Params full = figure_params(BatchScheme::kFullBatch, 300, 0);
  CHECK_THAT(value("ys_thm4.3_sample_wor", full, 12.0),
             WithinRel(300.0 * ye_shokri::gaussian_step_term(full, 12.0), 1e-12));

  // q e^{(alpha-1)A} < 1: the recursion settles; more epochs change nothing.
  const double settled = value(
      "ys_thm4.3_sample_wor", figure_params(BatchScheme::kSampleWithoutReplacement, 2000, 0), 10.0);
  CHECK(value("ys_thm4.3_sample_wor",
              figure_params(BatchScheme::kSampleWithoutReplacement, 100000, 0), 10.0) == settled);
  // q e^{(alpha-1)A} > 1: it grows by log(q) + (alpha-1)A per step, i.e. linearly in K.
  const double a = 1024.0;
  const double grow = std::log(0.04) + (a - 1) * a / 200.0;
  const double v1 = value("ys_thm4.3_sample_wor",
                          figure_params(BatchScheme::kSampleWithoutReplacement, 1000, 0), a);
  const double v2 = value("ys_thm4.3_sample_wor",
                          figure_params(BatchScheme::kSampleWithoutReplacement, 2000, 0), a);
  CHECK_THAT(v2 - v1, WithinRel(1000.0 * 25.0 * grow / (a - 1), 1e-12));
}

TEST_CASE("Theorem D.4 and the Balle et al. composition at K = 1", "[bounds][known]") {
  const Params p = figure_params(BatchScheme::kFixedOrder, 1, 5);
  const double A = 10.0 / 200.0;
  CHECK_THAT(value("ys_thmD.4_convex", p, 10.0), WithinRel(A / 20.0, 1e-14));
  const Params p7 = figure_params(BatchScheme::kFixedOrder, 7, 5);
  CHECK_THAT(value("ys_thmD.4_convex", p7, 10.0), WithinRel(A * 6.0 / 25.0 + A / 20.0, 1e-14));
  // Section D.6: last batch at K = 1 is one full Gaussian step; first batch grows like K.
  CHECK_THAT(
      value("ys_thmD.5_balle_composed", figure_params(BatchScheme::kFixedOrder, 1, 24), 10.0),
      WithinRel(A, 1e-14));
  const double g = 1.0 - 2.0 * 0.02 * 4.0 * 1.0 / 5.0;
  CHECK_THAT(value("ys_thmD.5_balle_composed", figure_params(BatchScheme::kFixedOrder, 9, 0), 10.0),
             WithinRel(9.0 * A / 24.0 * std::pow(g, 12.5), 1e-13));
}

TEST_CASE("Theorem D.6 equals its sum and is tighter than Theorem D.7", "[bounds][known]") {
  for (long K : {1L, 3L, 50L, 1000L}) {
    Params p = figure_params(BatchScheme::kFullBatch, K, 0);
    p.init = Init::kGaussianChourasia;
    double sum = 0.0;
    for (long k = 1; k <= K; ++k) sum += std::pow(1.0 - 0.02 / 2.0, static_cast<double>(k));
    const double pre = 10.0 * 0.02 * 16.0 / (2.0 * 4.0 * 2500.0);
    INFO("K = " << K);
    CHECK_THAT(value("ys_thmD.6_full_batch", p, 10.0), WithinRel(pre * sum, 1e-12));
    CHECK(value("ys_thmD.6_full_batch", p, 10.0) < value("ys_thmD.7_chourasia", p, 10.0));
  }
}

TEST_CASE("Corollary 5.3 is Theorem 4.2 under the Algorithm 2 noise conversion",
          "[bounds][known]") {
  Params p;
  p.loss = LossKind::kLogistic;
  p.scheme = BatchScheme::kShufflePartition;
  p.eta = 0.5;
  p.lambda = 0.01;
  p.feature_clip = 1.0;
  p.beta = (1.0 + 1.0) / 2.0 + 0.01;
  p.S_g = 2.0;
  p.n = 1000;
  p.b = 50;
  p.K = 100;
  p.T = 100 * 20;
  p.step_std = rdpaudit::config::step_std_from_paper_noise_multiplier(2.0, p.eta, p.S_g, p.b);
  CHECK_THAT(alg2_sigma_mul(p), WithinRel(2.0, 1e-15));
  for (double alpha : {2.0, 8.0, 32.0}) {
    const double thm = value("ys_thm4.2_shuffle_partition", p, alpha);
    CHECK_THAT(value("ys_cor5.3_logreg", p, alpha), WithinRel(thm, 1e-12));
    Params with_norm = p;
    with_norm.eps_norm = 0.25;
    CHECK_THAT(value("ys_cor5.3_logreg", with_norm, alpha), WithinRel(thm + 0.25, 1e-12));
  }
}

TEST_CASE("Figure 2's composition approximation and plain Gaussian composition",
          "[bounds][known]") {
  const Params p = figure_params(BatchScheme::kShufflePartition, 200, 0);
  CHECK_THAT(value("ys_fig2_composition_approx", p, 15.0),
             WithinRel(0.04 * 15.0 / 200.0 * 200.0, 1e-14));
  CHECK_THAT(value("gaussian_composition", p, 15.0), WithinRel(200.0 * 15.0 / 200.0, 1e-14));
  const Params s = figure_params(BatchScheme::kSampleWithoutReplacement, 200, 0);
  CHECK_THAT(value("gaussian_composition", s, 15.0), WithinRel(5000.0 * 15.0 / 200.0, 1e-14));
  // Random allocation: one step of each epoch begun touches the record, a partial one too.
  Params r = figure_params(BatchScheme::kRandomAllocation, 200, 0);
  CHECK_THAT(value("gaussian_composition", r, 15.0), WithinRel(200.0 * 15.0 / 200.0, 1e-14));
  r.T += 1;
  CHECK_THAT(value("gaussian_composition", r, 15.0), WithinRel(201.0 * 15.0 / 200.0, 1e-14));
}

TEST_CASE("Blog Theorem 1: linear before the burn-in, flat after, Step 5 is 3x at saturation",
          "[bounds][known]") {
  Params p;
  p.loss = LossKind::kLinear;
  p.scheme = BatchScheme::kSampleWithoutReplacement;
  p.eta = 0.125;
  p.step_std = 0.0625;  // sigma_blog = 0.5
  p.lambda = 0.0;
  p.beta = 0.0;
  p.S_g = 2.0;
  p.L = 1.0;
  p.D = 2.0;
  p.n = 100;
  p.b = 10;
  p.K = 1;
  CHECK(blog::burn_in(p) == 1600.0);  // D n / (L eta) = 200 / 0.125, an exact integer
  const double per_step = 3.0 * 1.0 / (100.0 * 100.0 * 0.25);  // alpha L^2 / (n^2 sigma^2)
  for (long T : {1L, 10L, 1600L, 1601L, 100000L}) {
    p.T = T;
    INFO("T = " << T);
    const double expected = per_step * static_cast<double>(std::min(T, 1600L));
    CHECK_THAT(value("blog_thm1_saturation", p, 3.0), WithinRel(expected, 1e-14));
    const double step5 = value("blog_step5_as_derived", p, 3.0);
    CHECK_THAT(step5, WithinRel(T <= 1600 ? expected : 3.0 * expected, 1e-14));
  }
}

TEST_CASE(
    "MTZ: q = 1 is the Gaussian, integer orders match the plain binomial sum, and the "
    "fractional series joins the integer formula",
    "[bounds][known]") {
  CHECK_THAT(mtz_poisson_rdp(1.0, 2.0, 7.0), WithinRel(7.0 / 8.0, 1e-15));
  CHECK(mtz_poisson_rdp(0.0, 2.0, 7.0) == 0.0);
  // A_3 = sum_k C(3,k) (1-q)^{3-k} q^k e^{(k^2-k)/(2 z^2)}
  const double q = 0.2, z = 1.3;
  double A = 0.0;
  const double C[] = {1, 3, 3, 1};
  for (int k = 0; k <= 3; ++k) {
    A += C[k] * std::pow(1 - q, 3 - k) * std::pow(q, k) * std::exp((k * k - k) / (2 * z * z));
  }
  CHECK_THAT(mtz_poisson_rdp(q, z, 3.0), WithinRel(std::log(A) / 2.0, 1e-14));
  for (double alpha : {2.0, 10.0, 64.0}) {
    INFO("alpha = " << alpha);
    const double at = mtz_poisson_rdp(0.04, 10.0, alpha);
    CHECK_THAT(mtz_poisson_rdp(0.04, 10.0, alpha + 1e-9), WithinRel(at, 1e-7));
    CHECK_THAT(mtz_poisson_rdp(0.04, 10.0, alpha - 1e-9), WithinRel(at, 1e-7));
  }
}

TEST_CASE("WBK Theorem 9 at alpha = 2 and its interpolation", "[bounds][known]") {
  const double q = 0.1, z = 0.8;
  const double e2 = 1.0 / (z * z);
  const double cgf2 = std::log1p(q * q * std::min(4.0 * std::expm1(e2), 2.0 * std::exp(e2)));
  CHECK_THAT(wbk_swor_rdp(q, z, 2.0), WithinRel(cgf2, 1e-14));
  // Corollary 10 between 1 and 2: (alpha-1) R_alpha = (alpha-1) cgf(2) -> R_alpha = cgf(2)
  CHECK_THAT(wbk_swor_rdp(q, z, 1.25), WithinRel(cgf2, 1e-14));
  CHECK_THAT(wbk_swor_rdp(1.0, z, 5.0), WithinRel(5.0 / (2 * z * z), 1e-15));
}

TEST_CASE("RDP -> (epsilon, delta) conversions", "[bounds][known]") {
  const std::vector<double> alphas{2.0, 4.0, 8.0};
  const std::vector<double> rdp{0.1, 0.3, 1.5};
  const auto m = epsilon_mironov(alphas, rdp, 1e-3);
  // 2: 0.1 + 6.91/1 = 7.01;  4: 0.3 + 6.91/3 = 2.60;  8: 1.5 + 6.91/7 = 2.49
  CHECK_THAT(m.epsilon, WithinRel(1.5 + std::log(1e3) / 7.0, 1e-15));
  CHECK(m.alpha == 8.0);
  const auto i = epsilon_improved(alphas, rdp, 1e-3);
  CHECK(i.epsilon < m.epsilon);  // log(1 - 1/alpha) - log(alpha)/(alpha-1) < 0
  // a tiny RDP curve: the improved formula goes negative and is clamped at 0
  CHECK(epsilon_improved({2.0}, {0.0}, 0.9).epsilon == 0.0);
  CHECK(std::isinf(epsilon_mironov({2.0}, {std::numeric_limits<double>::infinity()}, 0.5).epsilon));
}

TEST_CASE("delta(epsilon) inverts epsilon(delta) at every order, for both conversions",
          "[bounds][conversion]") {
  // One order: the conversion is a bijection between epsilon and delta.
  for (double alpha : {1.5, 2.0, 10.0, 64.0}) {
    for (double r : {0.0, 0.01, 0.7}) {
      for (double delta : {1e-3, 1e-5, 1e-9}) {
        INFO("alpha " << alpha << " r " << r << " delta " << delta);
        const double em = epsilon_mironov({alpha}, {r}, delta).epsilon;
        CHECK_THAT(delta_mironov({alpha}, {r}, em).delta, WithinRel(delta, 1e-10));
        const double ei = epsilon_improved({alpha}, {r}, delta).epsilon;
        if (ei > 0) CHECK_THAT(delta_improved({alpha}, {r}, ei).delta, WithinRel(delta, 1e-10));
      }
    }
  }
  // Over a grid: Gaussian R = alpha/80; delta at epsilon = 1 is min exp((alpha-1)(alpha/80-1)),
  // attained at alpha = 40.5 -> on the integers 40 or 41 (equal), the first wins: 40.
  std::vector<double> grid, rdp;
  for (int a = 2; a <= 64; ++a) grid.push_back(a), rdp.push_back(a / 80.0);
  const DeltaEpsilon d = delta_mironov(grid, rdp, 1.0);
  CHECK(d.alpha == 40);
  CHECK_THAT(d.delta, WithinRel(std::exp(-19.5), 1e-12));
  CHECK(delta_improved(grid, rdp, 1.0).delta < d.delta);  // CKS 2020 is never worse
  CHECK(delta_mironov({2.0}, {5.0}, 1.0).delta == 1.0);   // capped at 1
  CHECK_THROWS_AS(delta_mironov({2.0}, {0.1}, -1.0), rdpaudit::InputError);
}
