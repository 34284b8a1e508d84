// The estimates `run` stores for a scenario: under a fixed order the last iterates of D and
// D' are two Gaussians with one variance, so R_alpha = alpha (mu' - mu)^2 / (2 v) exactly.
#include <catch2/catch.hpp>
#include <cmath>

#include "rdpaudit/config/load.hpp"
#include "rdpaudit/estimate/scenario.hpp"

using namespace rdpaudit;

TEST_CASE("a fixed-order quadratic scenario's estimates: exact value and a valid lower bound",
          "[estimate][scenario]") {
  const auto spec = config::parse_experiment(R"(
[experiment]
seed = 9
trajectories = 200000
[model]
loss = "quadratic"
lambda = 1.0
[data]
preset = "quadratic_worst_case"
n = 10
sensitivity = 4.0
[training]
scheme = "fixed_order"
eta = 0.1
batch_size = 2
differing_batch = 4
epochs = 3
[noise]
sigma2 = 1.0
[estimate]
bootstrap = 0
)",
                                             "t.toml");
  const auto& s = spec.scenarios.at(0);
  const auto t = sim::simulate_scenario(s, {spec.seed, spec.trajectories, 0, nullptr});
  const auto e = estimate::estimate_scenario(s, t, spec.seed);

  // Closed form: the differing record enters at the last step of every epoch (batch 4 of 5).
  const double a = 1 - 0.1, c = 0.1 * 4.0 / 2;  // eta lambda x' / b
  double shift = 0, v = 0;
  for (int k = 0; k < 3; ++k) shift += c * std::pow(a, (2 - k) * 5);
  for (int t2 = 0; t2 < 15; ++t2) v += 2 * 0.1 * 1.0 * std::pow(a, 2 * t2);
  CHECK(e.mixture == "deterministic schedule");

  int exact_rows = 0, rigorous_rows = 0;
  for (const auto& x : e.estimates) {
    const double truth = x.alpha * shift * shift / (2 * v);  // symmetric: both directions
    if (x.method == "exact-quadrature") {
      ++exact_rows;
      CHECK(x.informative);
      CHECK(x.value == Approx(truth).epsilon(1e-6));
    }
    if (x.method == "rigorous-cp" && x.informative) {
      ++rigorous_rows;
      // 95 % family-wise over all orders and both directions: one seeded run.
      CHECK(x.lower <= truth);
    }
  }
  CHECK(exact_rows == 2 * static_cast<int>(e.alphas.size()));
  CHECK(rigorous_rows > 0);
}
