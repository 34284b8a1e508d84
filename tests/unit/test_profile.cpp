// Privacy profiles (estimate/profile.hpp, exact/mixture_profile.hpp), the [profile] table
// and the (eps, delta) claims of the audit.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "rdpaudit/audit/verdict.hpp"
#include "rdpaudit/bounds/experiment.hpp"
#include "rdpaudit/config/load.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/estimate/profile.hpp"
#include "rdpaudit/exact/mixture_profile.hpp"

using namespace rdpaudit;
using namespace rdpaudit::estimate;
using namespace rdpaudit::exact;

namespace {

double phi(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

// Balle & Wang 2018, Theorem 8: the Gaussian pair's profile, mu = shift / sd.
double gaussian_delta(double mu, double eps) {
  return phi(-eps / mu + mu / 2) - std::exp(eps) * phi(-eps / mu - mu / 2);
}

// A selection with fine cells at -3 .. 3 (unit steps) and the given counted cells.
ScoreSelection toy_selection() {
  ScoreSelection s;
  s.fine_edges = {-3, -2, -1, 0, 1, 2, 3};
  s.edges = {-4, -3, -2, -1, 0, 1, 2, 3, 4};  // the fine edges plus two plug-in edges
  s.fine_position = cell_positions(s.fine_edges);
  s.selection.p = {10, 20, 40, 80, 80, 40, 20, 10};
  s.selection.q = {10, 20, 40, 80, 80, 40, 20, 10};
  return s;
}

// One full-batch step of the quadratic loss: a Gaussian pair, mu = eta S_g / (n step_std) = 1.
const std::string kPair = R"(
[experiment]
seed = 1
trajectories = 1000
[model]
loss = "quadratic"
dim = 1
lambda = 1.0
[data]
preset = "quadratic_worst_case"
n = 10
sensitivity = 10.0
[training]
scheme = "full_batch"
eta = 0.1
batch_size = 10
steps = 1
[noise]
step_std = 0.1
)";

std::string error_of(const std::string& extra) {
  const std::string& base = kPair;
  try {
    bounds::parse_experiment(base + extra, "t.toml");  // as the commands read it
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("exact profile of a Gaussian pair: Balle & Wang's closed form", "[profile]") {
  for (double mu : {0.3, 1.0, 3.0}) {
    const GaussianMixture p = gaussian({mu * 0.5}, {0.25}), q = gaussian({0.0}, {0.25});
    for (double eps : {0.0, 0.1, 0.5, 1.0, 2.0, 4.0}) {
      const double truth = gaussian_delta(mu, eps);
      INFO("mu " << mu << ", eps " << eps);
      CHECK(exact_delta(p, q, eps) == Approx(truth).epsilon(1e-9).margin(1e-300));
    }
    for (double delta : {1e-8, 1e-5, 1e-2}) {
      const EpsilonBracket e = exact_epsilon(p, q, delta);
      INFO("mu " << mu << ", delta " << delta);
      CHECK(e.lower <= e.value);
      CHECK(e.value <= e.upper);
      CHECK(gaussian_delta(mu, e.value) == Approx(delta).epsilon(1e-8));
    }
  }
  CHECK_THROWS_AS(exact_epsilon(gaussian({0.0}, {1.0}), gaussian({1.0}, {1.0}), 1.0),
                  InternalError);
}

TEST_CASE("exact profile of a two-component mixture against a fine Riemann sum", "[profile]") {
  // The T = 1 Poisson-subsampled Gaussian: (1 - q) N(0, 1) + q N(2, 1) against N(0, 1); its
  // log-ratio is monotone, but the reverse direction's positive region is a lower tail.
  GaussianMixture p = gaussian({0.0}, {1.0});
  p.weights = {0.8, 0.2};
  p.means = {0.0, 2.0};
  const GaussianMixture q = gaussian({0.0}, {1.0});
  for (double eps : {0.0, 0.2, 0.7, 1.5}) {
    for (int d = 0; d < 2; ++d) {
      const GaussianMixture& a = d == 0 ? p : q;
      const GaussianMixture& b = d == 0 ? q : p;
      const auto dens = [](const GaussianMixture& m, double x) {
        double s = 0;
        for (std::size_t j = 0; j < m.components(); ++j)
          s += m.weights[j] * std::exp(-0.5 * (x - m.means[j]) * (x - m.means[j]));
        double w = 0;
        for (double x2 : m.weights) w += x2;
        return s / w / std::sqrt(2 * M_PI);
      };
      double sum = 0, h = 1e-4;
      for (double x = -20; x < 22; x += h)
        sum += std::max(0.0, dens(a, x) - std::exp(eps) * dens(b, x)) * h;
      INFO("eps " << eps << ", direction " << d);
      CHECK(exact_delta(a, b, eps) == Approx(sum).epsilon(1e-6));
    }
  }
}

TEST_CASE("profile family: cuts from the pilot, counts of tail sets, bounds below the plug-in",
          "[profile]") {
  const ScoreSelection s = toy_selection();
  // Pooled pilot tails 20, 60, 140 from each side (total 600): ladder 0 -> keep, then x sqrt 2.
  const std::vector<std::size_t> cuts = profile_cut_edges(s);
  CHECK(cuts == std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6});
  // Counted: P concentrated low, P' high.
  const std::vector<std::uint64_t> cp = {100, 200, 300, 200, 100, 50, 30, 15, 4, 1};
  const std::vector<std::uint64_t> cq = {1, 4, 15, 30, 50, 100, 200, 300, 200, 100};
  const ProfileCounts c = profile_counts(s, cp, cq);
  REQUIRE(c.cuts.size() == 7);
  CHECK(c.n_p == 1000);
  CHECK(c.p[0] == 300);  // score < -3: cells (-inf, -4), [-4, -3)
  CHECK(c.q[0] == 5);
  CHECK(c.p[6] == 995);  // score < 3
  // The plug-in at eps = 0 is the total variation over the family's sets: the cut at 0 gives
  // P(score < 0) - P'(score < 0) = 0.9 - 0.1.
  CHECK(profile_delta_plugin(c, 0.0, kForward) == Approx(0.9 - 0.1));
  for (double eps : {0.0, 0.5, 2.0}) {
    for (int d : {kForward, kBackward}) {
      const double lo = profile_delta_lower(c, eps, d, 0.05);
      CHECK(lo <= profile_delta_plugin(c, eps, d));
      CHECK(lo >= 0.0);
      CHECK(profile_delta_lower(c, eps, d, 0.5) >= lo);  // a larger miss, a larger bound
    }
  }
  // p-value and bound agree: p <= u exactly when eps_lo(delta) at miss u exceeds the claim.
  const double eps_lo = profile_epsilon_lower(c, 0.01, kForward, 0.05);
  REQUIRE(eps_lo > 0.0);
  CHECK(profile_p_value(c, 0.01, kForward, 0.99 * eps_lo) <= 0.05);
  CHECK(profile_p_value(c, 0.01, kForward, 1.01 * eps_lo) > 0.05);
  CHECK(profile_p_value(c, 0.01, kForward, 100.0) == 1.0);
  // The same in the other direction and at another delta (p skips cuts whose plug-in cannot
  // exceed delta, but splits the level over all of them).
  const double back_lo = profile_epsilon_lower(c, 0.05, kBackward, 0.01);
  REQUIRE(back_lo > 0.0);
  CHECK(profile_p_value(c, 0.05, kBackward, 0.999 * back_lo) <= 0.01);
  CHECK(profile_p_value(c, 0.05, kBackward, 1.001 * back_lo) > 0.01);
  CHECK_THROWS_AS(profile_counts(s, {1, 2}, cq), InternalError);
}

TEST_CASE("[profile] bad input names the key and the value", "[profile][config]") {
  CHECK_THAT(error_of("[profile]\ndeltas = [0.5, 1.0]\n"),
             Catch::Contains("profile.deltas[1] = 1 (delta in (0, 1))"));
  CHECK_THAT(error_of("[profile]\ndeltas = [0.0]\n"),
             Catch::Contains("profile.deltas[0] = 0 (delta in (0, 1))"));
  CHECK_THAT(error_of("[profile]\nepsilons = [0, 1, 1]\n"),
             Catch::Contains("profile.epsilons[2] = 1 (strictly increasing"));
  CHECK_THAT(error_of("[profile]\nepsilons = [0, inf]\n"), Catch::Contains("profile.epsilons[1]"));
  CHECK_THAT(
      error_of("[profile]\n[[profile.claims]]\nname = \"a\"\nformula = \"1/(delta-delta)\"\n"),
      Catch::Contains("profile.claims[0].formula = \"1/(delta-delta)\"") &&
          Catch::Contains("finite eps at every delta"));
  CHECK_THAT(error_of("[profile]\n[[profile.claims]]\nname = \"a\"\nformula = \"alpha\"\n"),
             Catch::Contains("profile.claims[0].formula") && Catch::Contains("unknown name"));
  CHECK_THAT(error_of("[profile]\ndeltas = [1e-5, 1e-3]\n[[profile.claims]]\nname = \"a\"\n"
                      "epsilon = [1.0]\n"),
             Catch::Contains("profile.claims[0].epsilon = [ 1.0 ]") &&
                 Catch::Contains("one claimed eps per profile.deltas (2 values)"));
  CHECK_THAT(
      error_of("[profile]\n[[profile.claims]]\nname = \"a\"\nepsilon = 1.0\nformula = \"1\"\n"),
      Catch::Contains("exactly one of epsilon"));
  CHECK_THAT(error_of("[profile]\n[[profile.claims]]\nname = \"a\"\nepsilon = nan\n"),
             Catch::Contains("profile.claims[0].epsilon = nan"));
  CHECK_THAT(error_of("[profile]\nexpect_violated = [\"nope\"]\n"),
             Catch::Contains("profile.expect_violated[0] = \"nope\""));
  CHECK_THAT(error_of("[profile]\n[[profile.claims]]\nname = \"a\"\nepsilons = [1.0]\n"),
             Catch::Contains("profile.claims[0].epsilons = [ 1.0 ] (unknown key"));
  CHECK_THAT(error_of("[profile]\n[[profile.claims]]\nname = \"g\"\nmu = -1.0\n"),
             Catch::Contains("profile.claims[0].mu = -1.0 (must be a finite number > 0"));
  CHECK_THAT(error_of("[profile]\n[[profile.claims]]\nname = \"g\"\nmu = nan\n"),
             Catch::Contains("profile.claims[0].mu = nan (must be a finite number > 0"));
  CHECK_THAT(error_of("[profile]\n[[profile.claims]]\nname = \"g\"\nmu = \"big\"\n"),
             Catch::Contains("profile.claims[0].mu = \"big\""));
  CHECK_THAT(error_of("[profile]\n[[profile.claims]]\nname = \"g\"\nmu = 1.0\nformula = \"1\"\n"),
             Catch::Contains("profile.claims[0].mu = 1.0 (give exactly one of epsilon"));
  CHECK(error_of("[profile]\n[[profile.claims]]\nname = \"g\"\nmu = 0.5\n") == "no error");
  CHECK(error_of("[profile]\ndeltas = [1e-5]\n") == "no error");
}

TEST_CASE("claims table: conversions of the Renyi bounds, listed and formula claims",
          "[profile][audit]") {
  const auto spec = config::parse_experiment(kPair + R"(
[bounds]
alphas = [2, 4, 8]
audit = ["gaussian_composition"]
[profile]
deltas = [1e-5, 1e-3]
[[profile.claims]]
name = "listed"
epsilon = [3.0, -1.0]
[[profile.claims]]
name = "classic"
formula = "sqrt(2*ln(1.25/delta)) * 1.0"
expect = "violated"
)",
                                             "t.toml");
  const auto& s = spec.scenarios.at(0);
  const audit::BoundTable renyi = audit::audited_bounds(s);
  const audit::ClaimTable t = audit::audited_claims(s, renyi);
  REQUIRE(t.names ==
          std::vector<std::string>{"gaussian_composition (eps, delta)", "listed", "classic"});
  CHECK(t.kinds == std::vector<std::string>{"conversion", "claim", "claim"});
  CHECK(t.expect == std::vector<config::Expectation>{config::Expectation::kHolds,
                                                     config::Expectation::kHolds,
                                                     config::Expectation::kViolated});
  // gaussian_composition is alpha mu^2 / 2 with mu = 1: the conversion at the orders 2, 4, 8.
  const double log_delta = std::log(1e-5);
  double best = INFINITY;
  for (double a : {2.0, 4.0, 8.0})
    best = std::min(best, a / 2 + std::log1p(-1 / a) - (log_delta + std::log(a)) / (a - 1));
  CHECK(t.value(0, 0) == Approx(best));
  CHECK(t.value(1, 1) == -1.0);
  CHECK(t.value(2, 0) == Approx(std::sqrt(2 * std::log(1.25 / 1e-5))));
}
