// The Gaussian-DP parameter of a pair (bounds/gdp.hpp: normal_quantile, mu_of_set,
// mu_from_delta; audit/gdp_mu.hpp: the certified lower bound from a profile family and the
// exact value from an exact profile). Against the independent mpmath evaluation
// python/reference/gdp_mu_reference.py (tests/data/gdp_mu_reference.csv) and against Gaussian
// pairs, whose mu is known in closed form.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gaussian_family.hpp"
#include "rdpaudit/audit/gdp_mu.hpp"
#include "rdpaudit/bounds/gdp.hpp"
#include "rdpaudit/config/load.hpp"
#include "rdpaudit/estimate/profile.hpp"
#include "rdpaudit/exact/known_truth.hpp"
#include "rdpaudit/exact/mixture_profile.hpp"
#include "rdpaudit/sim/mixture.hpp"
#include "reference_csv.hpp"

using namespace rdpaudit;
namespace gdp = rdpaudit::bounds::gdp;
using rdpaudit::test::gaussian_family;

namespace {

template <typename F>
void check_against_reference(const std::string& quantity, double tol, F&& f) {
  reference_csv::check("gdp_mu_reference.csv", quantity, tol, std::forward<F>(f));
}

}  // namespace

TEST_CASE("normal quantile, mu of a set, mu from delta against mpmath to 1e-10 relative",
          "[gdp][gdp-mu]") {
  check_against_reference("normal_quantile", 1e-13,
                          [](const std::vector<double>& a) { return gdp::normal_quantile(a[0]); });
  check_against_reference("mu_of_set", 1e-10,
                          [](const std::vector<double>& a) { return gdp::mu_of_set(a[0], a[1]); });
  check_against_reference("mu_from_delta", 1e-10, [](const std::vector<double>& a) {
    return gdp::mu_from_delta(a[0], a[1]);
  });
  CHECK(std::fabs(gdp::normal_quantile(0.5)) < 1e-17);
  CHECK(gdp::normal_quantile(0.0) == -INFINITY);
  CHECK(gdp::normal_quantile(1.0) == INFINITY);
  CHECK_THROWS(gdp::normal_quantile(1.5));
  CHECK(gdp::mu_of_set(0.3, 0.3) == 0.0);
  CHECK(gdp::mu_of_set(0.5, 0.0) == INFINITY);
  CHECK(gdp::mu_from_delta(1.0, 0.0) == 0.0);
  CHECK(gdp::mu_from_delta(1.0, 1.0) == INFINITY);
  CHECK_THROWS(gdp::mu_from_delta(-1.0, 0.1));
}

TEST_CASE("mu from delta inverts the GDP profile, a Gaussian test set gives back its mu",
          "[gdp][gdp-mu]") {
  for (double mu : {0.05, 0.5, 1.0, 3.0, 8.0}) {
    for (double eps : {0.0, 0.3, 1.0, 4.0}) {
      const double d = gdp::delta(mu, eps);
      if (d < 1e-300) continue;
      INFO("mu " << mu << ", eps " << eps);
      CHECK_THAT(gdp::mu_from_delta(eps, d), Catch::Matchers::WithinRel(mu, 1e-12));
    }
    // Any half-line of N(mu, 1) against N(0, 1) sits on the trade-off curve G_mu: {x >= c}
    // rejecting N(0, 1) for c >= mu, {x < c} rejecting N(mu, 1) for c <= 0 (both tail masses
    // below 1/2, where a double keeps them to full relative precision).
    for (double c : {0.0, 1.0, 5.0}) {
      INFO("mu " << mu << ", cut mu + " << c);
      const double p = 0.5 * std::erfc(c / std::sqrt(2.0));         // N(mu, 1) above mu + c
      const double q = 0.5 * std::erfc((c + mu) / std::sqrt(2.0));  // N(0, 1) above mu + c
      CHECK_THAT(gdp::mu_of_set(p, q), Catch::Matchers::WithinRel(mu, 1e-12));
    }
  }
}

TEST_CASE(
    "certified mu of a profile family: below the truth, close to it, and the largest mu "
    "its privacy profile excludes",
    "[gdp][gdp-mu][profile]") {
  for (double mu : {0.5, 1.0, 2.0}) {
    const auto family = gaussian_family(mu, 10'000'000);
    const double lower = audit::certified_mu_lower(family, 0.05);
    const double plugin = audit::plugin_mu(family);
    INFO("mu " << mu << ": certified " << lower << ", plug-in " << plugin);
    CHECK(lower < mu);
    CHECK(lower > 0.98 * mu);
    CHECK(lower <= plugin);
    CHECK(std::isfinite(plugin));  // sets without a P' trajectory are skipped
    // The same sets summarised by their certified profile delta_lo(eps) at the same family
    // miss, both directions: each eps excludes mu_from_delta(eps, delta_lo(eps)), never more
    // than the sets themselves, and the supremum over eps reaches the sets' value.
    std::vector<double> grid;
    for (int i = 0; i <= 1200; ++i) grid.push_back(0.01 * i);
    double best = 0.0;
    for (const auto& e : estimate::profile_estimates(family, grid, {}, 0.95)) {
      for (std::size_t i = 0; i < grid.size(); ++i)
        best = std::max(best, gdp::mu_from_delta(grid[i], e.delta_lower[i]));
    }
    CHECK(best <= lower * (1.0 + 1e-12));
    CHECK(best >= lower * (1.0 - 1e-4));
    // A smaller family miss (more confidence) certifies less.
    CHECK(audit::certified_mu_lower(family, 1e-6) < lower);
  }
}

TEST_CASE(
    "exact mu from an exact profile: a Gaussian pair's mu at every eps, a mixture below "
    "the Gaussian that dominates it",
    "[gdp][gdp-mu][profile]") {
  using exact::ExactProfile;
  using exact::gaussian;
  const std::vector<double> grid{0.0, 0.25, 0.5, 1.0, 2.0, 4.0};
  for (double mu : {0.3, 1.0, 3.0}) {
    // N(mu/2, 1/4) against N(0, 1/4): shift mu/2 over sd 1/2.
    const auto p = gaussian({mu * 0.5}, {0.25}), q = gaussian({0.0}, {0.25});
    const ExactProfile fwd(p, q), bwd(q, p);
    for (double eps : grid) {
      INFO("mu " << mu << ", eps " << eps);
      CHECK(audit::exact_mu_on_grid(fwd, bwd, {eps}) == Approx(mu).epsilon(1e-7));
    }
  }
  // Poisson subsampling at rate 1/2 of N(1, 1) against N(0, 1): P' = N(0, 1) is the same
  // post-processing of N(0, 1) (replace the draw by a fresh N(0, 1) with probability 1/2), so
  // the pair is 1-GDP, and less distinguishable than the Gaussian.
  exact::GaussianMixture mix;
  mix.weights = {0.5, 0.5};
  mix.means = {1.0, 0.0};
  mix.covariance = {1.0};
  const auto base = gaussian({0.0}, {1.0});
  const ExactProfile fwd(mix, base), bwd(base, mix);
  const double mu_mix = audit::exact_mu_on_grid(fwd, bwd, {0.0, 0.1, 0.2, 0.5, 1.0, 2.0, 4.0, 8.0});
  INFO("subsampled Gaussian: mu on the grid " << mu_mix);
  // The largest value comes from the far tail (eps = 8 here): there the mixture is N(1, 1)
  // thinned by 1/2, and Phi^{-1}(P(S)) - Phi^{-1}(P'(S)) tends to the Gaussian's mu = 1.
  CHECK(mu_mix > 0.9);
  CHECK(mu_mix < 1.0);
  CHECK(audit::exact_mu_on_grid(fwd, bwd, {0.0}) < audit::exact_mu_on_grid(fwd, bwd, {4.0}));
}

TEST_CASE(
    "exact mu of the quadratic full batch (experiments/full_batch.toml's setting) from the "
    "simulator's exact law: the Gaussian AR(1) pair's closed form",
    "[gdp][gdp-mu][profile][exact]") {
  // lambda/2 (theta - x)^2, n = 10, x'_0 = S_g / lambda = 4, eta = 0.02, sigma^2 = 4 (s = 0.4),
  // full batch: theta_T = c theta_{T-1} + eta lambda xbar + s z, c = 1 - eta lambda. The pair
  // differs in mean by (eta S_g / n)(1 - c^T)/(1 - c) and shares the variance
  // s^2 (1 - c^2T)/(1 - c^2) + c^2T v0 (v0 the start's variance), so
  //   mu_T = gap / sd  (= (eta S_g/(n s)) sqrt((1 + c)/(1 - c) (1 - c^T)/(1 + c^T)) at v0 = 0).
  for (const char* init_std : {"0.0", "2.8284271247461903"}) {
    const double v0 = std::stod(init_std) * std::stod(init_std);
    for (int T : {1, 10, 100, 1000}) {
      const auto spec = rdpaudit::config::parse_experiment(
          "[experiment]\nseed = 3\ntrajectories = 1000\n[model]\nloss = \"quadratic\"\ndim = 1\n"
          "lambda = 1.0\n[data]\npreset = \"quadratic_worst_case\"\nn = 10\nsensitivity = 4.0\n"
          "[training]\nscheme = \"full_batch\"\neta = 0.02\nbatch_size = 10\nsteps = " +
              std::to_string(T) + "\n[noise]\nsigma2 = 4.0\n[init]\nstd = " + init_std + "\n",
          "full_batch.toml");
      std::string why;
      const auto mix =
          rdpaudit::sim::quadratic_last_iterate_mixture(spec.scenarios.at(0), 1, 16, why);
      INFO(why);
      REQUIRE(mix.has_value());
      const auto p = exact::to_gaussian_mixture(mix->d);
      const auto q = exact::to_gaussian_mixture(mix->dprime);
      const double c = 1.0 - 0.02, s = 0.4, cT = std::pow(c, T);
      const double gap = 0.02 * 4.0 / 10.0 * (1.0 - cT) / (1.0 - c);
      const double sd = std::sqrt(s * s * (1.0 - cT * cT) / (1.0 - c * c) + cT * cT * v0);
      const double mu =
          audit::exact_mu_on_grid(exact::ExactProfile(p, q), exact::ExactProfile(q, p), {0.0, 1.0});
      INFO("T " << T << ", v0 " << v0 << ": exact mu " << mu);
      CHECK(mu == Approx(gap / sd).epsilon(1e-7));
      if (v0 == 0.0) {
        const double closed =
            0.02 * 4.0 / (10.0 * s) * std::sqrt((1.0 + c) / (1.0 - c) * (1.0 - cT) / (1.0 + cT));
        CHECK(gap / sd == Approx(closed).epsilon(1e-12));
      }
    }
  }
}
