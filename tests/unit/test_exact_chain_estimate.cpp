// The exact chain in the estimate stage and the audit: "exact-chain" rows where no quadrature
// value exists, their work limit and keys, and the verdict ladder on their bracket.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "exact_support.hpp"
#include "rdpaudit/audit/verdict.hpp"
#include "rdpaudit/bounds/experiment.hpp"
#include "rdpaudit/config/load.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/estimate/exact_chain.hpp"
#include "rdpaudit/estimate/scenario.hpp"

using namespace rdpaudit;
using audit::Cell;
using audit::Verdict;

namespace {

// Noisy GD on the linear loss, unprojected: theta_T ~ N(-T eta g / n, T s^2) with g = +L in D
// and -L in D', so R_alpha = alpha T (2 eta L / n)^2 / (2 s^2) in both directions.
const std::string kLinear = test::linear_worst_case_toml(3, 1000, R"(
[training]
scheme = "full_batch"
eta = 0.5
steps = 4
[noise]
step_std = 0.1
[estimate]
methods = ["exact"]
alphas = [2, 8]
)");
// The same on a coarser grid (a quarter of the work; tests/python/test_exact_chain.py runs
// the default one).
const std::string kLinearCoarse = kLinear + "exact_cells_per_sd = 20\n";

double linear_truth(double alpha) {
  const double shift = 4 * 2 * 0.5 * 1.0 / 10;  // T eta (L - (-L)) / n
  return alpha * shift * shift / (2 * 0.1 * 0.1 * 4);
}

std::string error_of(const std::string& text) {
  try {
    bounds::parse_experiment(text, "t.toml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("exact-chain rows where no quadrature exists, their bracket holding the closed form",
          "[estimate][exact]") {
  const auto spec = config::parse_experiment(kLinearCoarse, "t.toml");
  const auto& s = spec.scenarios.at(0);
  const auto e = estimate::estimate_scenario(s, {}, {}, spec.seed);
  // Unclamped, one slope per step: the engine evolves a location mixture.
  CHECK_THAT(e.mixture, Catch::StartsWith("exact chain (location mixture, h = sd_T/20"));
  int rows = 0;
  for (const auto& x : e.estimates) {
    REQUIRE(x.method == "exact-chain");
    ++rows;
    const double truth = linear_truth(x.alpha);
    INFO("alpha " << x.alpha << " direction " << x.direction);
    CHECK(x.informative);
    CHECK(x.lower <= truth);
    CHECK(truth <= x.upper);
    if (std::isfinite(x.upper)) {
      CHECK(x.value == Approx(0.5 * (x.lower + x.upper)));
    } else {
      CHECK(x.value == x.lower);
    }
    if (x.alpha <= 6) CHECK(x.upper - x.lower < 1e-3 * truth);
  }
  CHECK(rows == 2 * static_cast<int>(e.alphas.size()));
}

TEST_CASE("the exact chain's work limit: no value, the reason recorded", "[estimate][exact]") {
  const auto spec = config::parse_experiment(kLinear + "exact_max_work = 1000\n", "t.toml");
  const auto& s = spec.scenarios.at(0);
  CHECK(s.estimate.exact_max_work == 1000);
  const auto e = estimate::estimate_scenario(s, {}, {}, spec.seed);
  CHECK(e.estimates.empty());
  CHECK_THAT(e.mixture,
             Catch::Contains("work limit") && Catch::Contains("estimate.exact_max_work = 1000"));
  std::string why;
  const auto chain = exact::chain_from_scenario(s, why);
  REQUIRE(chain);
  // The engine's default path here is the location mixture: steps x clusters x cases, plus
  // one grid step and the density pass.
  exact::EngineOptions o;
  REQUIRE(exact::uses_location_mixture(*chain, o));
  const estimate::ChainWork loc = estimate::chain_work(*chain, o);
  CHECK(loc.location);
  const double clusters = std::ceil(static_cast<double>(loc.cells) / o.cluster_cells);
  CHECK(loc.work == Approx(4.0 * clusters * 2 +
                           2.0 * static_cast<double>(loc.cells) * static_cast<double>(loc.width)));
  // Step by step, the estimate is the cost in steps x cells x width x cases: 5 x cells^2 x 2.
  o.location_mixture = false;
  REQUIRE_FALSE(exact::uses_location_mixture(*chain, o));
  const estimate::ChainWork w = estimate::chain_work(*chain, o);
  CHECK_FALSE(w.location);
  CHECK(w.width == std::min(w.cells, 76L * 40));
  CHECK(w.propagations == 2);
  CHECK(w.work == Approx(5.0 * static_cast<double>(w.cells) * static_cast<double>(w.width) * 2));
  CHECK_FALSE(w.at_least);
  // Over a small limit the grid's hull is not even computed: a lower bound says enough.
  const estimate::ChainWork quick = estimate::chain_work(*chain, o, 1000);
  CHECK(quick.at_least);
  CHECK(quick.work > 1000);
  CHECK(quick.work <= w.work);
}

TEST_CASE("estimate.exact_cells_per_sd and estimate.exact_max_work are validated",
          "[estimate][exact][config]") {
  const auto spec = config::parse_experiment(kLinear + "exact_cells_per_sd = 10\n", "t.toml");
  CHECK(spec.scenarios.at(0).estimate.exact_cells_per_sd == 10);
  CHECK_THAT(error_of(kLinear + "exact_cells_per_sd = 2\n"),
             Catch::Contains("estimate.exact_cells_per_sd = 2 (must be in [4, 1000])"));
  CHECK_THAT(error_of(kLinear + "exact_cells_per_sd = 40.5\n"),
             Catch::Contains("estimate.exact_cells_per_sd = 40.5"));
  CHECK_THAT(error_of(kLinear + "exact_max_work = -1\n"),
             Catch::Contains("estimate.exact_max_work = -1 (must be in [0, 10^16]"));
  CHECK_THAT(error_of(kLinear + "exact_max_work = \"big\"\n"),
             Catch::Contains("estimate.exact_max_work = \"big\" (must be a number)"));
}

TEST_CASE("the verdict ladder on an exact-chain bracket: below, inside, above", "[audit][exact]") {
  // Bracket [0.9, 1.1] of the exact chain; the samples' certified lower bound 0.5.
  const auto cell = [](double bound, double p_holm) {
    Cell c;
    c.tested = true;
    c.verdict = Verdict::kNotRejected;
    c.bound_value = bound;
    c.lower = 0.5;
    c.estimate = 1.0;
    c.exact = 1.0;
    c.exact_method = "exact-chain";
    c.exact_lower = 0.9;
    c.exact_upper = 1.1;
    c.p_holm = p_holm;
    return c;
  };
  Cell c = cell(0.8, 0.5);  // below the certified lower end: violated, certainly
  audit::decide(c, 0.05);
  CHECK(c.verdict == Verdict::kViolatedExact);
  CHECK_FALSE(c.within_exact_bracket);
  CHECK_THAT(c.note, Catch::Contains("(exact chain)"));
  c = cell(1.2, 0.5);  // at or above the certified upper end: valid (exact)
  audit::decide(c, 0.05);
  CHECK(c.verdict == Verdict::kValidExact);
  CHECK_FALSE(c.within_exact_bracket);
  CHECK_THAT(c.note, Catch::Contains("exact chain") && Catch::Contains("(certified)"));
  c = cell(1.1, 0.5);  // exactly at the upper end: valid too
  audit::decide(c, 0.05);
  CHECK(c.verdict == Verdict::kValidExact);
  c = cell(1.0, 0.5);  // inside: the samples decide (not rejected), flagged
  audit::decide(c, 0.05);
  CHECK(c.verdict == Verdict::kNotRejected);
  CHECK(c.within_exact_bracket);
  CHECK_THAT(c.note, Catch::Contains("within the exact bracket [0.9, 1.1] (exact chain)"));
  CHECK(c.tightness_estimate == Approx(1.0));
  c = cell(1.0, 0.01);  // inside, and the samples reject it: violated (statistical), flagged
  audit::decide(c, 0.05);
  CHECK(c.verdict == Verdict::kViolated);
  CHECK(c.within_exact_bracket);
  c = cell(0.9, 0.5);  // at the lower end: not below it, so inside
  audit::decide(c, 0.05);
  CHECK(c.verdict == Verdict::kNotRejected);
  CHECK(c.within_exact_bracket);
  c = cell(1.0, 0.5);  // an infinite upper end: never valid (exact)
  c.exact_upper = std::numeric_limits<double>::infinity();
  c.bound_value = 100;
  audit::decide(c, 0.05);
  CHECK(c.verdict == Verdict::kNotRejected);
  CHECK(c.within_exact_bracket);
  c = cell(0.8, 0.5);  // bounds.exact_verdicts = false leaves no bracket: the samples alone
  c.exact_lower = c.exact_upper = audit::kNaN;
  audit::decide(c, 0.05);
  CHECK(c.verdict == Verdict::kNotRejected);
  CHECK_FALSE(c.within_exact_bracket);
}

TEST_CASE("the audit takes the exact point from the quadrature, else from the exact chain",
          "[audit][exact]") {
  const auto spec =
      config::parse_experiment(kLinear +
                                   "[bounds]\nalphas = [2]\naudit = [\"low\", \"high\"]\n"
                                   "[[bounds.custom]]\nname = \"low\"\nformula = \"0.5 * alpha\"\n"
                                   "[[bounds.custom]]\nname = \"high\"\nformula = \"2 * alpha\"\n",
                               "t.toml");
  const auto& s = spec.scenarios.front();
  const audit::BoundTable table = audit::audited_bounds(s);
  const auto row = [](const std::string& method, double lo, double hi) {
    std::vector<estimate::Estimate> rows;
    for (int d : {estimate::kForward, estimate::kBackward}) {
      estimate::Estimate e;
      e.alpha = 2;
      e.direction = d;
      e.method = method;
      e.lower = lo;
      e.upper = hi;
      e.value = 0.5 * (lo + hi);
      e.informative = true;
      rows.push_back(e);
    }
    return rows;
  };
  // The exact chain alone: [1.5, 1.7] at alpha 2 puts "low" (1) below and "high" (4) above.
  estimate::ScenarioEstimates est;
  est.estimates = row("exact-chain", 1.5, 1.7);
  audit::Auditor chain_only(0.05);
  chain_only.add(s, table, est, "-", 1000);
  const audit::AuditResult r = chain_only.finish();
  for (const Cell& c : r.cells) {
    CHECK(c.exact == Approx(1.6));
    CHECK(c.exact_method == "exact-chain");
    CHECK(c.estimate_method == "exact-chain");  // the preferred point estimate
    CHECK(c.verdict ==
          (r.bounds[c.bound].name == "low" ? Verdict::kViolatedExact : Verdict::kValidExact));
  }
  CHECK_THAT(r.bounds[0].evidence, Catch::Contains("R_alpha (exact chain)"));
  // With a quadrature row too, the quadrature's value is the exact point.
  estimate::ScenarioEstimates both;
  both.estimates = row("exact-chain", 1.5, 1.7);
  for (const auto& e : row("exact-quadrature", 1.59, 1.61)) both.estimates.push_back(e);
  audit::Auditor quad(0.05);
  quad.add(s, table, both, "-", 1000);
  for (const Cell& c : quad.finish().cells) {
    CHECK(c.exact_method == "exact-quadrature");
    CHECK(c.exact_lower == 1.59);
  }
}

TEST_CASE("the exact chain's work for a gradient formula: its first step, then kept coefficients",
          "[estimate][exact]") {
  // experiments/gradient_formula.toml's chain: every step's batch law is a mixture of maps
  const auto spec = config::parse_experiment(R"(
[experiment]
seed = 23
trajectories = 1000
[model]
loss = "gradient_formula"
dim = 1
gradient = ["x", "2 * sin(3 * theta) + x"]
[data]
points = [[1.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0]]
differing_index = 0
replacement = [-1.0]
[training]
scheme = "sample_without_replacement"
eta = 0.1
batch_size = 2
steps = 10
projection_diameter = 2.0
[noise]
step_std = 0.2
)",
                                             "t.toml");
  std::string why;
  auto chain = exact::chain_from_scenario(spec.scenarios.at(0), why);
  REQUIRE(chain);
  // the affine cases and map cases of one step of each dataset
  std::vector<double> cases, maps;
  for (bool dp : {false, true}) {
    const exact::Step step = exact::step_sampled(*chain, dp);
    cases.push_back(static_cast<double>(step.cases.size()));
    maps.push_back(static_cast<double>(step.maps.size()));
  }
  REQUIRE(maps[0] + maps[1] > 0);
  const auto fits = [&](const estimate::ChainWork& w) {
    const double pairs = static_cast<double>(w.cells) * static_cast<double>(w.width);
    return std::max(maps[0], maps[1]) * pairs <= static_cast<double>(exact::kMapCoefficientsKept);
  };
  exact::EngineOptions o;
  for (long T : {10L, 100L}) {
    chain->steps = T;
    const estimate::ChainWork w = estimate::chain_work(*chain, o);
    REQUIRE(fits(w));
    // each map case's coefficients computed once (1600 affine cases' work a source and
    // target), then read from the kept ones at each later step and the density pass (50)
    const double steps = static_cast<double>(T) + 1;
    const double per_step = cases[0] + cases[1] + (maps[0] + maps[1]) * (50 + 1600 / steps);
    CHECK(w.propagations == Approx(per_step));
    CHECK(w.work ==
          Approx(steps * static_cast<double>(w.cells) * static_cast<double>(w.width) * per_step));
  }
  // a grid whose coefficients exceed what is kept: every step computes them again
  o.cells_per_sd = 400;
  chain->steps = 10;
  const estimate::ChainWork big = estimate::chain_work(*chain, o);
  REQUIRE_FALSE(fits(big));
  CHECK(big.propagations == Approx(cases[0] + cases[1] + (maps[0] + maps[1]) * 1600));
}

TEST_CASE("the exact chain's memory: predicted, held to its limit, bounded by the grid",
          "[estimate][exact]") {
  // Over estimate.exact_max_memory: no value, the reason names the key.
  const auto spec = config::parse_experiment(kLinear + "exact_max_memory = 1000\n", "t.toml");
  const auto& s = spec.scenarios.at(0);
  CHECK(s.estimate.exact_max_memory == 1000);
  const auto e = estimate::estimate_scenario(s, {}, {}, spec.seed);
  CHECK(e.estimates.empty());
  CHECK_THAT(e.mixture, Catch::Contains("memory limit") &&
                            Catch::Contains("estimate.exact_max_memory = 1000"));
  CHECK_THAT(error_of(kLinear + "exact_max_memory = -1\n"),
             Catch::Contains("estimate.exact_max_memory = -1 (must be in [0, 10^15]"));
  // The estimate covers at least the laws it holds (6 doubles a cell, 4 laws of D').
  std::string why;
  const auto chain = exact::chain_from_scenario(s, why);
  REQUIRE(chain);
  exact::EngineOptions o;
  o.location_mixture = false;
  const estimate::ChainWork w = estimate::chain_work(*chain, o);
  CHECK(w.memory >= 4.0 * 48.0 * static_cast<double>(w.cells));
  CHECK(w.memory <= 1e9);

  // A projected step whose noise is 10^12 times the interval: the noise's reach spans 10^13
  // grids of one cell. The kernel, the lattice and density tables follow the grid (a few
  // cells), not the reach: the estimate is small, the chain runs and its bracket holds the
  // truth, R_alpha <= alpha (2 eta L / b)^2 / (2 s^2) ~ 1e-25. Rounding (1e-16 of masses near
  // 1/2) leaves the upper end near 4e-11; the lower end once carried it too (3.6e-11, above
  // the truth: a false "violated (exact)"), now the masses are scaled to their totals first.
  const auto wide = config::parse_experiment(test::linear_worst_case_toml(3, 1000, R"(
[training]
scheme = "sample_without_replacement"
eta = 0.04
batch_size = 10
steps = 1
projection_diameter = 2.0
[noise]
blog_sigma = 1e12
[estimate]
methods = ["exact"]
alphas = [2, 8]
)"),
                                             "t.toml");
  const auto& sw = wide.scenarios.at(0);
  const auto wide_chain = exact::chain_from_scenario(sw, why);
  REQUIRE(wide_chain);
  const estimate::ChainWork ww = estimate::chain_work(*wide_chain, exact::EngineOptions{});
  CHECK(ww.cells <= 4);
  CHECK(ww.memory < 1e6);
  const auto rows = estimate::exact_chain_renyi(sw, {2.0, 8.0});
  REQUIRE(rows.rows.size() == 4);
  for (const auto& r : rows.rows) {
    CHECK(r.lower >= 0);
    CHECK(r.lower <= 1e-24);
    CHECK(r.upper >= r.lower);
    CHECK(r.upper < 1e-9);
  }
}
