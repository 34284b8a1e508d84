// The exact (quadrature) estimator against closed forms and against independent mpmath
// values, and the quadratic-loss mixture against a step-by-step run of the affine recursion.
#include <catch2/catch.hpp>
#include <cmath>

#include "rdpaudit/config/load.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/exact/gaussian_mixture.hpp"
#include "rdpaudit/exact/known_truth.hpp"
#include "rdpaudit/rng/stream.hpp"
#include "rdpaudit/sim/mixture.hpp"

using namespace rdpaudit::estimate;
using namespace rdpaudit::exact;

namespace {

// The brief asks for 0.1 %; the trapezoidal rule on these analytic integrands is accurate to
// ~1e-12, so a regression that costs more than 1e-7 relative is caught long before it matters.
constexpr double kRel = 1e-7;

const Estimate& find(const std::vector<Estimate>& v, double alpha, int direction) {
  for (const Estimate& e : v) {
    if (std::abs(e.alpha - alpha) < 1e-12 && e.direction == direction) return e;
  }
  FAIL("no estimate for alpha " << alpha);
  return v.front();
}

GaussianMixture sgm_1d(double rate, double mu, double s) {
  GaussianMixture g;
  g.weights = {1.0 - rate, rate};
  g.means = {0.0, mu};
  g.covariance = {s * s};
  return g;
}

// One Poisson step of the quadratic loss on the worst-case pair (x_i = 0, x'_0 = x').
rdpaudit::config::Scenario poisson_one_step(int n, int b, double eta, double xprime, double s,
                                            double m0, double s0) {
  const auto spec = rdpaudit::config::parse_experiment(
      "[experiment]\nseed = 1\ntrajectories = 1000\n[model]\nloss = \"quadratic\"\nlambda = "
      "1.0\n[data]\npreset = \"quadratic_worst_case\"\nn = " +
          std::to_string(n) + "\nsensitivity = " + std::to_string(xprime) +
          "\n[training]\nscheme = \"poisson\"\neta = " + std::to_string(eta) + "\nbatch_size = " +
          std::to_string(b) + "\nsteps = 1\n[noise]\nstep_std = " + std::to_string(s) +
          "\n[init]\nmean = [" + std::to_string(m0) + "]\nstd = " + std::to_string(s0) + "\n",
      "poisson.toml");
  return spec.scenarios.at(0);
}

}  // namespace

TEST_CASE("exact: Gaussian pair in 1-D equals alpha mu^2 / (2 s^2) on the whole grid",
          "[estimate][exact]") {
  const auto alphas = default_alpha_grid();
  for (double mu : {0.01, 0.3, 2.0, 6.0}) {
    const auto est = exact_renyi(gaussian({mu}, {4.0}), gaussian({0.0}, {4.0}), alphas);
    for (const Estimate& e : est) {
      INFO("mu = " << mu << ", alpha = " << e.alpha << ", direction " << e.direction);
      REQUIRE(e.informative);
      const double truth = gaussian_pair_renyi(mu * mu / 4.0, e.alpha);
      CHECK(e.value == Approx(truth).epsilon(kRel));
      CHECK(e.lower <= truth);
      CHECK(e.upper >= truth);
      CHECK(e.upper - e.lower < 1e-8 * (1.0 + truth));
    }
  }
}

TEST_CASE("exact: correlated 2-D Gaussian pair equals alpha d^T S^-1 d / 2", "[estimate][exact]") {
  const std::vector<double> cov = {2.0, 0.9, 0.9, 1.0};  // column-major = row-major (symmetric)
  const double d0 = 0.4, d1 = -0.3;
  const double det = 2.0 * 1.0 - 0.81;
  const double maha = (1.0 * d0 * d0 - 2 * 0.9 * d0 * d1 + 2.0 * d1 * d1) / det;
  const auto est = exact_renyi(gaussian({1.0 + d0, 2.0 + d1}, cov), gaussian({1.0, 2.0}, cov),
                               {1.1, 2.0, 7.5, 16.0, 64.0});
  for (const Estimate& e : est) {
    INFO("alpha = " << e.alpha);
    CHECK(e.value == Approx(gaussian_pair_renyi(maha, e.alpha)).epsilon(kRel));
  }
}

TEST_CASE("exact: sampled Gaussian mechanism equals the binomial expansion", "[estimate][exact]") {
  std::vector<double> ints;
  for (int a = 2; a <= 64; ++a) ints.push_back(a);
  for (auto [rate, shift] : {std::pair{0.5, 0.25}, {0.1, 1.0}, {0.01, 2.0}}) {
    const auto est = exact_renyi(sgm_1d(rate, 2.0 * shift, 2.0), gaussian({0.0}, {4.0}), ints);
    for (int a = 2; a <= 64; ++a) {
      INFO("rate " << rate << ", shift " << shift << ", alpha " << a);
      CHECK(find(est, a, kForward).value ==
            Approx(sampled_gaussian_renyi(rate, shift, a)).epsilon(kRel));
    }
  }
  // 2-D, correlated covariance, shift along an oblique direction: the same numbers with the
  // Mahalanobis norm of the shift.
  const std::vector<double> cov = {1.0, -0.6, -0.6, 2.0};
  const double m0 = 0.7, m1 = 0.5;
  const double maha = std::sqrt((2.0 * m0 * m0 + 2 * 0.6 * m0 * m1 + 1.0 * m1 * m1) / (2.0 - 0.36));
  GaussianMixture p;
  p.dim = 2;
  p.weights = {0.8, 0.2};
  p.means = {0.0, 0.0, m0, m1};
  p.covariance = cov;
  const auto est2 = exact_renyi(p, gaussian({0.0, 0.0}, cov), {2.0, 8.0, 32.0, 64.0});
  for (int a : {2, 8, 32, 64}) {
    INFO("2-D alpha " << a);
    CHECK(find(est2, a, kForward).value ==
          Approx(sampled_gaussian_renyi(0.2, maha, a)).epsilon(kRel));
  }
}

TEST_CASE("exact: both directions against independent mpmath quadrature", "[estimate][exact]") {
  // docs/studies/estimate_reference.md, from python/studies/estimate_reference.py (mpmath, 40
  // digits).
  struct Row {
    double alpha, forward, backward;
  };
  const std::vector<Row> sgm = {{1.1, 0.00867371861151715, 0.00851422911641082},
                                {3.5, 0.0286712239485865, 0.0261296661146493},
                                {16.0, 0.163461382728507, 0.100906421190473},
                                {64.0, 1.31628559550231, 0.256840698836275}};
  const auto est =
      exact_renyi(sgm_1d(0.5, 0.5, 2.0), gaussian({0.0}, {4.0}), {1.1, 3.5, 16.0, 64.0});
  for (const Row& r : sgm) {
    INFO("SGM alpha " << r.alpha);
    CHECK(find(est, r.alpha, kForward).value == Approx(r.forward).epsilon(kRel));
    CHECK(find(est, r.alpha, kBackward).value == Approx(r.backward).epsilon(kRel));
  }
  const std::vector<std::pair<int, std::vector<Row>>> fig2 = {
      {1,
       {{1.1, 0.000215444970772741, 0.000215447110999529},
        {8.0, 0.0015667830227103, 0.00156697758878015},
        {64.0, 0.0125284579218254, 0.0125416365215893}}},
      {10,
       {{1.5, 0.00117282085001551, 0.00117289837127679},
        {16.0, 0.0125040986647938, 0.0125169155052136},
        {64.0, 0.0499373037940784, 0.0501473324912706}}},
      {50,
       {{2.0, 0.00158389452120992, 0.00158405358720361},
        {32.0, 0.0253169011666028, 0.0253703471968718},
        {64.0, 0.0505797502728096, 0.0507952293151882}}}};
  for (const auto& [epochs, rows] : fig2) {
    QuadraticLossSetting s;
    s.epochs = epochs;
    const MixturePair m = quadratic_loss_last_iterate(s);
    std::vector<double> alphas;
    for (const Row& r : rows) alphas.push_back(r.alpha);
    const auto e = exact_renyi(m.p, m.q, alphas);
    for (const Row& r : rows) {
      INFO("Figure 2, K = " << epochs << ", alpha " << r.alpha);
      CHECK(find(e, r.alpha, kForward).value == Approx(r.forward).epsilon(kRel));
      CHECK(find(e, r.alpha, kBackward).value == Approx(r.backward).epsilon(kRel));
    }
  }
}

TEST_CASE("quadratic-loss mixture matches a step-by-step run of the affine recursion",
          "[estimate][exact]") {
  for (int epochs : {1, 3, 10}) {
    QuadraticLossSetting s;
    s.epochs = epochs;
    s.theta0 = 0.7;
    const MixturePair m = quadratic_loss_last_iterate(s);
    const int batches = s.n / s.batch;
    const double a = 1.0 - s.eta * s.lambda, xprime = s.sensitivity / s.lambda;
    std::vector<double> mean(static_cast<std::size_t>(batches), s.theta0);
    double mean_d = s.theta0, var = 0.0;
    for (int t = 0; t < epochs * batches; ++t) {
      for (int j = 0; j < batches; ++j) {
        // batch t mod m holds i0 when i0 sits in batch j
        mean[static_cast<std::size_t>(j)] =
            a * mean[static_cast<std::size_t>(j)] +
            (t % batches == j ? s.eta * s.lambda * xprime / s.batch : 0.0);
      }
      mean_d = a * mean_d;
      var = a * a * var + 2.0 * s.eta * s.sigma2;
    }
    REQUIRE(m.q.components() == static_cast<std::size_t>(batches));
    CHECK(m.p.means[0] == Approx(mean_d).epsilon(1e-12));
    CHECK(m.p.covariance[0] == Approx(var).epsilon(1e-12));
    CHECK(m.q.covariance[0] == Approx(var).epsilon(1e-12));
    for (int j = 0; j < batches; ++j) {
      CHECK(m.q.means[static_cast<std::size_t>(j)] ==
            Approx(mean[static_cast<std::size_t>(j)]).epsilon(1e-12));
      CHECK(m.q.weights[static_cast<std::size_t>(j)] == Approx(1.0 / batches));
    }
  }
  QuadraticLossSetting bad;
  bad.batch = 3;  // 50 / 3 is not an integer
  CHECK_THROWS_AS(quadratic_loss_last_iterate(bad), rdpaudit::InternalError);
}

TEST_CASE("exact: thousands of components, 2-D matrix-product path", "[estimate][exact]") {
  // 3000 components spread along x, identical in y: R_alpha must equal the 1-D computation on
  // x alone (y is an independent, identical coordinate), and the GEMM path must agree with it.
  rdpaudit::rng::Stream s(rdpaudit::rng::StreamId{5, 0, 0, 0, rdpaudit::rng::Purpose::kTest});
  GaussianMixture p1, p2;
  p2.dim = 2;
  for (int j = 0; j < 3000; ++j) {
    const double x = 0.8 * s.uniform();
    p1.weights.push_back(1.0 + s.uniform());
    p1.means.push_back(x);
    p2.weights.push_back(p1.weights.back());
    p2.means.insert(p2.means.end(), {x, 0.3});
  }
  p1.covariance = {1.0};
  p2.covariance = {1.0, 0.0, 0.0, 1.0};
  const std::vector<double> alphas = {1.1, 4.0, 16.0, 64.0};
  const auto e1 = exact_renyi(p1, gaussian({0.0}, {1.0}), alphas);
  const auto e2 = exact_renyi(p2, gaussian({0.0, 0.3}, p2.covariance), alphas);
  for (std::size_t i = 0; i < e1.size(); ++i) {
    INFO("alpha " << e1[i].alpha << " direction " << e1[i].direction);
    CHECK(e2[i].value == Approx(e1[i].value).epsilon(kRel));
  }
  // A mixture whose components all coincide is a Gaussian.
  GaussianMixture same = p2;
  for (std::size_t j = 0; j < same.components(); ++j) {
    same.means[2 * j] = 0.5;
    same.means[2 * j + 1] = -0.2;
  }
  const auto e3 = exact_renyi(same, gaussian({0.0, 0.0}, p2.covariance), {2.0, 30.0});
  CHECK(e3[0].value == Approx(gaussian_pair_renyi(0.29, 2.0)).epsilon(kRel));
  CHECK(e3[2].value == Approx(gaussian_pair_renyi(0.29, 30.0)).epsilon(kRel));
}

TEST_CASE("exact: invalid input is refused with the key named", "[estimate][exact]") {
  using rdpaudit::InternalError;
  CHECK_THROWS_AS(exact_renyi(gaussian({0.0}, {1.0}), gaussian({0.0}, {2.0}), {2.0}),
                  InternalError);
  CHECK_THROWS_AS(exact_renyi(gaussian({0, 0, 0}, {1, 0, 0, 0, 1, 0, 0, 0, 1}),
                              gaussian({0, 0, 0}, {1, 0, 0, 0, 1, 0, 0, 0, 1}), {2.0}),
                  InternalError);
  CHECK_THROWS_AS(exact_renyi(gaussian({0.0}, {-1.0}), gaussian({0.0}, {-1.0}), {2.0}),
                  InternalError);
  CHECK_THROWS_AS(exact_renyi(gaussian({0.0}, {1.0}), gaussian({1.0}, {1.0}), {0.5}),
                  InternalError);
  try {
    exact_renyi(gaussian({0.0}, {1.0}), gaussian({0.0}, {1.0}), {2.0, 0.9});
  } catch (const InternalError& e) {
    CHECK(std::string(e.what()).find("exact.alphas[1]") != std::string::npos);
  }
  // A grid too large for max_points is reported, not silently coarsened.
  ExactOptions tiny;
  tiny.max_points = 10;
  for (const Estimate& e :
       exact_renyi(gaussian({1.0}, {1.0}), gaussian({0.0}, {1.0}), {2.0}, tiny)) {
    CHECK_FALSE(e.informative);
    CHECK(e.reason.find("max_points") != std::string::npos);
  }
}

TEST_CASE("exact: Gaussians of different variances (component scales) equal the closed form",
          "[estimate][exact]") {
  // R_alpha(N(m1, v1) || N(m2, v2)) = log(s2/s1) + log(v2 / v_a) / (2(alpha-1))
  //   + alpha (m1 - m2)^2 / (2 v_a),  v_a = alpha v2 + (1 - alpha) v1 > 0  (Gil et al. 2013)
  const auto closed = [](double m1, double v1, double m2, double v2, double a) {
    const double va = a * v2 + (1.0 - a) * v1;
    return 0.5 * std::log(v2 / v1) + std::log(v2 / va) / (2.0 * (a - 1.0)) +
           a * (m1 - m2) * (m1 - m2) / (2.0 * va);
  };
  GaussianMixture p = gaussian({0.3}, {2.0}), q = gaussian({-0.2}, {2.0});
  p.scales = {0.8};  // variance 1.6
  q.scales = {1.0};  // variance 2.0
  // v_a > 0 forward for alpha < 10, backward for alpha < 5: R(P'||P) is infinite at 9.
  const std::vector<double> alphas = {1.1, 2.0, 4.5, 9.0};
  const auto est = exact_renyi(p, q, alphas);
  for (double a : alphas) {
    INFO("alpha " << a);
    CHECK(find(est, a, kForward).value == Approx(closed(0.3, 1.6, -0.2, 2.0, a)).epsilon(kRel));
    if (a < 5.0) {
      CHECK(find(est, a, kBackward).value == Approx(closed(-0.2, 2.0, 0.3, 1.6, a)).epsilon(kRel));
    } else {
      CHECK(!find(est, a, kBackward).informative);  // never a finite number for +infinity
    }
  }
  GaussianMixture bad = p;
  bad.scales = {0.0};
  CHECK_THROWS_WITH(exact_renyi(bad, q, alphas), Catch::Contains("exact.p.scales[0]"));
  bad.scales = {1.0, 2.0};
  CHECK_THROWS_WITH(exact_renyi(bad, q, alphas), Catch::Contains("exact.p.scales"));
}

TEST_CASE("exact: Poisson at T = 1 with a random start against independent mpmath values",
          "[estimate][exact][poisson]") {
  // docs/studies/estimate_reference.md (python/studies/estimate_reference.py): n = 8,
  // q = 2/8, eta = 0.3, lambda = 1, x' = 4, s = 0.5, theta_0 ~ N(0.5, 0.3^2). The batch size
  // scales the start, so the components' variances differ; the script sums over all 2^8
  // inclusion patterns, sim/mixture.cpp over (k others, i0 in or out).
  struct Row {
    double alpha, forward, backward;
  };
  const std::vector<Row> rows = {{1.1, 0.0394249577536895, 0.0471412994381907},
                                 {2.0, 0.0638500433915758, 0.100120802636296},
                                 {8.0, 0.150076185509336, 0.971821020700362},
                                 {64.0, 0.272764214334148, 3.50714112475989}};
  std::string why;
  const auto mix = rdpaudit::sim::quadratic_last_iterate_mixture(
      poisson_one_step(8, 2, 0.3, 4.0, 0.5, 0.5, 0.3), 1, 16, why);
  REQUIRE(mix.has_value());
  REQUIRE(mix->d.exact);
  REQUIRE(mix->dprime.exact);
  CHECK(mix->d.weights.size() == 9);        // batch sizes 0 .. 8 (every x = 0 under D)
  CHECK(mix->dprime.weights.size() == 16);  // (k, I), k = 0 .. 7
  CHECK(!mix->dprime.scales.empty());
  std::vector<double> alphas;
  for (const Row& r : rows) alphas.push_back(r.alpha);
  const auto est =
      exact_renyi(to_gaussian_mixture(mix->d), to_gaussian_mixture(mix->dprime), alphas);
  for (const Row& r : rows) {
    INFO("alpha " << r.alpha);
    const Estimate& f = find(est, r.alpha, kForward);
    const Estimate& b = find(est, r.alpha, kBackward);
    CHECK(f.value == Approx(r.forward).epsilon(kRel));
    CHECK(b.value == Approx(r.backward).epsilon(kRel));
    CHECK(f.method == "exact-quadrature");
    CHECK(f.upper - f.lower < 1e-9 * (1.0 + f.value));
  }
}

TEST_CASE("exact: Poisson at T = 1 from a fixed start is the sampled Gaussian mechanism",
          "[estimate][exact][poisson]") {
  // Mironov, Talwar & Zhang (2019), Sec. 3.3: with theta_0 = 0 and x_i = 0 the start and the
  // other records drop out, theta_1 = c x' I + s z with c = eta lambda / (q n), so
  // P' = (1-q) N(0, s^2) + q N(c x', s^2) and P = N(0, s^2): R_alpha(P'||P) is the
  // sampled Gaussian mechanism's at rate q and shift c x' / s.
  struct Case {
    int n, b;
    double eta, xprime, s;
  };
  for (const Case& c :
       {Case{10, 1, 0.5, 4.0, 2.0}, Case{50, 2, 0.02, 4.0, 0.4}, Case{20, 10, 0.4, 1.0, 0.1}}) {
    std::string why;
    const auto mix = rdpaudit::sim::quadratic_last_iterate_mixture(
        poisson_one_step(c.n, c.b, c.eta, c.xprime, c.s, 0.0, 0.0), 1, 16, why);
    REQUIRE(mix.has_value());
    REQUIRE(mix->dprime.exact);
    CHECK(mix->d.weights.size() == 1);       // merged: every pattern gives N(0, s^2)
    CHECK(mix->dprime.weights.size() == 2);  // i0 out or in
    const double q = double(c.b) / c.n, shift = c.eta * c.xprime / (q * c.n) / c.s;
    const std::vector<double> alphas = {2.0, 3.0, 8.0, 16.0, 32.0, 64.0};
    const auto est =
        exact_renyi(to_gaussian_mixture(mix->d), to_gaussian_mixture(mix->dprime), alphas);
    for (double a : alphas) {
      INFO("n " << c.n << ", q " << q << ", shift " << shift << ", alpha " << a);
      const double truth = sampled_gaussian_renyi(q, shift, static_cast<int>(a));
      CHECK(find(est, a, kBackward).value == Approx(truth).epsilon(kRel));
    }
  }
}

namespace {

// The crafted-gradient preset (d = 1, others at x_i = 0 / g_i = 0, theta_0 = 0) with
// `training` and `data` lines of the caller's.
rdpaudit::config::Scenario crafted(const std::string& model, const std::string& data,
                                   const std::string& training) {
  return rdpaudit::config::parse_experiment(
             "[experiment]\nseed = 1\ntrajectories = 1000\n[model]\n" + model +
                 "\n[data]\npreset = \"crafted_gradient\"\n" + data + "\n[training]\n" + training +
                 "\n[noise]\nstep_std = 0.5\n",
             "crafted.toml")
      .scenarios.at(0);
}

std::vector<Estimate> exact_of(const rdpaudit::config::Scenario& s,
                               const std::vector<double>& alphas) {
  std::string why;
  const auto mix = rdpaudit::sim::quadratic_last_iterate_mixture(s, 1, 16, why);
  INFO(why);
  REQUIRE(mix.has_value());
  REQUIRE(mix->d.exact);
  REQUIRE(mix->dprime.exact);
  return exact_renyi(to_gaussian_mixture(mix->d), to_gaussian_mixture(mix->dprime), alphas);
}

}  // namespace

TEST_CASE("exact: a crafted gradient in full batch is a Gaussian pair whose shift sums up",
          "[estimate][exact][crafted]") {
  // Full batch, n = 4, eta = 0.5, s = 0.5, T = 4: the record is in every batch, so
  // theta_T = -sum_t a^(T-1-t) eta g_t / n + N(0, s^2 sum_t a^(2t)) in D and the same
  // without the shift in D', with a = 1 - eta lambda (n - 1) / n (the crafted slot counts no
  // quadratic record). R_alpha = alpha shift^2 / (2 var) in both directions.
  const std::vector<double> alphas = {1.5, 2.0, 8.0, 64.0};
  const double eta = 0.5, s = 0.5, n = 4;
  const std::string full = "scheme = \"full_batch\"\neta = 0.5\nsteps = 4";
  struct Case {
    const char* name;
    std::string model, data;
    double lambda;
    double g[4];  // g_t
  };
  const Case cases[] = {
      // lambda = 0: the shift is T eta g / n = 0.5, the variance T s^2 = 1.
      {"linear, every step", "loss = \"linear\"", "n = 4\ngradient = [1.0]", 0.0, {1, 1, 1, 1}},
      // one step only: eta g / n = 0.125 against the same variance: a 16th of R_alpha.
      {"linear, first step",
       "loss = \"linear\"",
       "n = 4\ngradient_formula = \"t == 0\"",
       0.0,
       {1, 0, 0, 0}},
      {"quadratic, every step",
       "loss = \"quadratic\"\nlambda = 0.5",
       "n = 4\ngradient = [1.0]",
       0.5,
       {1, 1, 1, 1}},
      {"quadratic, growing",
       "loss = \"quadratic\"\nlambda = 0.5",
       "n = 4\ngradient_formula = \"1 + t\"",
       0.5,
       {1, 2, 3, 4}},
  };
  for (const Case& c : cases) {
    const double a = 1.0 - eta * c.lambda * (n - 1) / n;
    double shift = 0, var = 0;
    for (int t = 0; t < 4; ++t) {
      shift += std::pow(a, 3 - t) * eta * c.g[t] / n;
      var += s * s * std::pow(a, 2 * t);
    }
    const auto est = exact_of(crafted(c.model, c.data, full), alphas);
    for (double alpha : alphas) {
      INFO(c.name << ", alpha " << alpha);
      const double truth = alpha * shift * shift / (2 * var);
      CHECK(find(est, alpha, kForward).value == Approx(truth).epsilon(kRel));
      CHECK(find(est, alpha, kBackward).value == Approx(truth).epsilon(kRel));
    }
  }
  // The hand-computed case itself: alpha = 2, every step, lambda = 0 gives 2 0.5^2 / 2.
  const auto est = exact_of(crafted(cases[0].model, cases[0].data, full), {2.0});
  CHECK(find(est, 2.0, kForward).value == Approx(0.25).epsilon(kRel));
}

TEST_CASE("exact: a crafted gradient at one Poisson step is the sampled Gaussian mechanism",
          "[estimate][exact][crafted][poisson]") {
  // T = 1, rate q = b/n: D's last iterate is (1-q) N(0, s^2) + q N(-eta g/(q n), s^2), D''s
  // N(0, s^2), so R_alpha(P || P') is the sampled Gaussian mechanism's at shift eta g/(q n s).
  for (const char* loss : {"loss = \"linear\"", "loss = \"quadratic\"\nlambda = 2.0"}) {
    const auto s = crafted(loss, "n = 10\ngradient = [3.0]",
                           "scheme = \"poisson\"\neta = 0.4\nbatch_size = 2\nsteps = 1");
    const double q = 0.2, shift = 0.4 * 3.0 / (q * 10) / 0.5;
    const std::vector<double> alphas = {2.0, 3.0, 8.0, 32.0};
    const auto est = exact_of(s, alphas);
    for (double a : alphas) {
      INFO(loss << ", alpha " << a);
      CHECK(find(est, a, kForward).value ==
            Approx(sampled_gaussian_renyi(q, shift, static_cast<int>(a))).epsilon(kRel));
    }
  }
}

TEST_CASE("exact: a crafted gradient under independent inclusions against the moment sum",
          "[estimate][exact][crafted][poisson]") {
  // Linear loss (the others' gradients zero), T = 3 steps, the record in each step with
  // probability q = 0.3: theta_T ~ sum_j w_j N(-j mu, sigma^2) in D, w_j = Binomial(j; 3, q),
  // mu = eta g / N, sigma^2 = T s^2, against N(0, sigma^2) in D'. For integer alpha,
  // E_P'[(p/p')^alpha] = sum over alpha-tuples (j_1 .. j_alpha) of prod w * exp(mu^2 / sigma^2
  // sum_{r < r'} j_r j_r'): alpha = 2 and 3 written out.
  const double q = 0.3, mu = 0.4 * 2.0 / 3.0, var = 3 * 0.25, c = mu * mu / var;
  const double w[4] = {0.343, 0.441, 0.189, 0.027};
  double m2 = 0, m3 = 0;
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      m2 += w[i] * w[j] * std::exp(c * i * j);
      for (int k = 0; k < 4; ++k) m3 += w[i] * w[j] * w[k] * std::exp(c * (i * j + j * k + i * k));
    }
  }
  for (const char* scheme : {"poisson", "sample_without_replacement"}) {
    const auto s =
        crafted("loss = \"linear\"", "n = 10\ngradient = [2.0]",
                std::string("scheme = \"") + scheme + "\"\neta = 0.4\nbatch_size = 3\nsteps = 3");
    std::string why;
    const auto mix = rdpaudit::sim::quadratic_last_iterate_mixture(s, 1, 16, why);
    REQUIRE(mix.has_value());
    CHECK(mix->d.weights.size() == 4);  // |S| = 0 .. 3
    CHECK(mix->d.weights[0] + mix->d.weights[3] == Approx(w[0] + w[3]));
    const auto est = exact_of(s, {2.0, 3.0});
    INFO(scheme << ", q " << q);
    CHECK(find(est, 2.0, kForward).value == Approx(std::log(m2)).epsilon(kRel));
    CHECK(find(est, 3.0, kForward).value == Approx(std::log(m3) / 2).epsilon(kRel));
  }
}
