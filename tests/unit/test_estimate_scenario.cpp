// The estimates `run` stores for a scenario: under a fixed order the last iterates of D and
// D' are two Gaussians with one variance, so R_alpha = alpha (mu' - mu)^2 / (2 v) exactly.
#include <catch2/catch.hpp>
#include <cmath>

#include "experiment_support.hpp"
#include "rdpaudit/config/load.hpp"
#include "rdpaudit/estimate/scenario.hpp"
#include "rdpaudit/exact/gaussian_mixture.hpp"
#include "rdpaudit/sim/mixture.hpp"
#include "rdpaudit/sim/simulate.hpp"
#include "with_threads.hpp"

using namespace rdpaudit;

namespace {

// The scenario pass of one process (src/app/scenario_pass.hpp), steps 1-4.
struct Run {
  estimate::Selection selection;
  sim::ScenarioTallies tallies;
  estimate::ScenarioEstimates estimates;
};

Run run_scenario(const config::Scenario& s, std::uint64_t seed, std::int64_t trajectories) {
  const std::int64_t pilot = sim::pilot_trajectories(s);
  const Eigen::MatrixXd pilot_d = sim::simulate_last_iterates(s, seed, sim::kPilotD, 0, pilot);
  const Eigen::MatrixXd pilot_dprime =
      sim::simulate_last_iterates(s, seed, sim::kPilotDPrime, 0, pilot);
  tally::Binning binning = sim::plot_binning(s, pilot_d, pilot_dprime);
  Run run;
  run.selection = estimate::select_scenario(s, pilot_d, pilot_dprime, trajectories, binning);
  run.tallies.d = sim::count_dataset(s, binning, seed, sim::kD, {0, trajectories});
  run.tallies.dprime = sim::count_dataset(s, binning, seed, sim::kDPrime, {0, trajectories});
  run.estimates = estimate::estimate_scenario(s, run.selection, run.tallies, seed);
  return run;
}

}  // namespace

TEST_CASE("a fixed-order quadratic scenario's estimates: exact value and a valid lower bound",
          "[estimate][scenario]") {
  const auto spec =
      config::parse_experiment(test::quadratic_worst_case(9, 200000, 10, 4.0, R"([training]
scheme = "fixed_order"
eta = 0.1
batch_size = 2
differing_batch = 4
epochs = 3
[noise]
sigma2 = 1.0
[estimate]
bootstrap = 0
)"),
                               "t.toml");
  const auto& s = spec.scenarios.at(0);
  const auto run = run_scenario(s, spec.seed, spec.trajectories);
  const auto& e = run.estimates;

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
    if ((x.method == "rigorous-cp" || x.method == "rigorous-bernstein") && x.informative) {
      ++rigorous_rows;
      // 95 % family-wise over all orders and both directions: one seeded run.
      CHECK(x.lower <= truth);
    }
  }
  CHECK(exact_rows == 2 * static_cast<int>(e.alphas.size()));
  CHECK(rigorous_rows > 2 * static_cast<int>(e.alphas.size()));  // both methods informative
  CHECK(e.rigorous.size() == 2);                                 // one certificate each

  // estimate.methods runs only the methods named.
  auto only = s;
  only.estimate.methods = {config::Method::kRigorousBernstein};
  const auto b = estimate::estimate_scenario(only, run.selection, run.tallies, spec.seed);
  REQUIRE(b.rigorous.size() == 1);
  CHECK(b.rigorous[0].method == "rigorous-bernstein");
  CHECK(b.mixture == "none: not among estimate.methods");
  for (const auto& x : b.estimates) CHECK(x.method == "rigorous-bernstein");
  CHECK(b.estimates.size() == 2 * b.alphas.size());
}

TEST_CASE("the simulator's mixture of the Figure 2 setting gives the mpmath reference values",
          "[estimate][scenario]") {
  // docs/studies/estimate_reference.md (python/studies/estimate_reference.py, mpmath, 40
  // digits): shuffle and partition, lambda = 1, S_g = 4, n = 50, eta = 0.02, sigma^2 = 4,
  // b = 2. sim/mixture.cpp builds the mixture independently of that script.
  struct Case {
    int epochs;
    double alpha, forward, backward;
  };
  for (const Case& c : {Case{1, 2.0, 0.00039171521025758, 0.00039172493856116},
                        Case{10, 16.0, 0.0125040986647938, 0.0125169155052136},
                        Case{10, 64.0, 0.0499373037940784, 0.0501473324912706}}) {
    const auto spec = config::parse_experiment(test::figure2(1, 1000, c.epochs), "fig2.toml");
    std::string why;
    const auto mix = sim::quadratic_last_iterate_mixture(spec.scenarios.at(0), 1, 1, why);
    REQUIRE(mix.has_value());
    REQUIRE(mix->dprime.exact);
    const auto to = [](const sim::LastIterateMixture& m) {
      exact::GaussianMixture g;
      g.weights = m.weights;
      g.means = m.means;
      g.covariance = {m.variance};
      return g;
    };
    const auto values = exact::exact_renyi(to(mix->d), to(mix->dprime), {c.alpha});
    for (const auto& v : values) {
      INFO("K = " << c.epochs << ", alpha = " << c.alpha << ", direction " << v.direction);
      CHECK(v.value == Approx(v.direction == 0 ? c.forward : c.backward).epsilon(1e-9));
    }
  }
}

TEST_CASE("two phases: every trajectory counted, the same estimates for any thread count",
          "[estimate][scenario][determinism]") {
  // A 2-D scenario: the learned scores (logistic, KDE) are fitted on the pilot and applied to
  // every counted trajectory inside the simulation loop, from every thread.
  const auto spec =
      config::parse_experiment(test::quadratic_worst_case(4, 30000, 10, 2.0, R"([training]
scheme = "shuffle_partition"
eta = 0.1
batch_size = 2
epochs = 2
[noise]
sigma2 = 1.0
[estimate]
bootstrap = 0
pilot = 5000
)",
                                                          2),
                               "t.toml");
  const auto& s = spec.scenarios.at(0);
  const auto one =
      test::with_threads(1, [&] { return run_scenario(s, spec.seed, spec.trajectories); });
  const auto two =
      test::with_threads(2, [&] { return run_scenario(s, spec.seed, spec.trajectories); });
  REQUIRE(one.selection.scores.size() == 2);  // logistic and KDE ratios in 2-D
  for (std::size_t k = 0; k < one.tallies.d.scores.size(); ++k) {
    CHECK(one.tallies.d.scores[k].total() == 30000);  // every trajectory, not a sample of them
    CHECK(one.tallies.dprime.scores[k].counts == two.tallies.dprime.scores[k].counts);
    CHECK(one.tallies.d.scores[k].counts == two.tallies.d.scores[k].counts);
  }
  CHECK(one.tallies.d.raw.empty());  // no raw last iterates kept (tally.raw_samples = 0)
  REQUIRE(one.estimates.estimates.size() == two.estimates.estimates.size());
  for (std::size_t i = 0; i < one.estimates.estimates.size(); ++i) {
    const auto& a = one.estimates.estimates[i];
    const auto& b = two.estimates.estimates[i];
    INFO(a.method << " alpha " << a.alpha << " direction " << a.direction);
    CHECK(a.method == b.method);
    CHECK(((a.value == b.value) || (std::isnan(a.value) && std::isnan(b.value))));
    CHECK(a.lower == b.lower);
  }
}
