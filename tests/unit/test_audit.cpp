// The audit's pieces: Holm's adjustment, the rigorous p-value as the inverse of the rigorous
// bound's level, per-bound outcomes against expectations, and the experiment-file keys.
#include <catch2/catch.hpp>
#include <cmath>

#include "rdpaudit/audit/verdict.hpp"
#include "rdpaudit/config/load.hpp"
#include "rdpaudit/estimate/rigorous.hpp"

using namespace rdpaudit;
using audit::Cell;
using audit::Verdict;

TEST_CASE("Holm's step-down adjustment", "[audit]") {
  std::vector<Cell> cells(6);
  const double p[] = {0.01, 0.04, 0.03, 0.005, 0.5};
  for (int i = 0; i < 5; ++i) {
    cells[static_cast<std::size_t>(i)].tested = true;
    cells[static_cast<std::size_t>(i)].p_value = p[i];
  }
  cells[5].p_value = 1e-9;  // untested (not applicable): not in the family, never adjusted down
  audit::holm_adjust(cells);
  // Sorted 0.005, 0.01, 0.03, 0.04, 0.5 with m = 5: 0.025, 0.04, 0.09, max(0.09, 0.08), 0.5.
  CHECK(cells[3].p_holm == Approx(0.025));
  CHECK(cells[0].p_holm == Approx(0.04));
  CHECK(cells[2].p_holm == Approx(0.09));
  CHECK(cells[1].p_holm == Approx(0.09));
  CHECK(cells[4].p_holm == Approx(0.5));
  CHECK(cells[5].p_holm == 1.0);
}

TEST_CASE("rigorous p-value inverts the level of the rigorous lower bound", "[audit]") {
  using namespace rdpaudit::estimate;
  OrderedCells oc;
  for (int i = 0; i < 40; ++i) {
    const double x = -4.0 + 0.2 * i;
    oc.position.push_back(i);
    for (CellCounts* c : {&oc.selection, &oc.evaluation}) {
      c->p.push_back(static_cast<std::uint64_t>(2e5 * std::exp(-0.5 * (x - 0.5) * (x - 0.5))));
      c->q.push_back(static_cast<std::uint64_t>(2e5 * std::exp(-0.5 * x * x)));
    }
  }
  const auto r = rigorous_lower_bound(oc, {2.0, 8.0});
  REQUIRE(r.method == "rigorous-cp");
  for (const Estimate& e : r.estimates) {
    REQUIRE(e.informative);
    // The stored bound is the bound at the estimator's own level, 1 - 0.95.
    CHECK(rigorous_lower_at(r, e.alpha, e.direction, 0.05) == Approx(e.lower).epsilon(1e-12));
    // Monotone in the level: a smaller miss probability gives a smaller bound.
    const double strict = rigorous_lower_at(r, e.alpha, e.direction, 1e-6);
    CHECK(strict < e.lower);
    CHECK(strict > 0.0);
    // p <= u exactly when the bound at level u exceeds the threshold.
    for (double u : {0.05, 1e-3, 1e-6}) {
      const double lb = rigorous_lower_at(r, e.alpha, e.direction, u);
      CHECK(rigorous_p_value(r, e.alpha, e.direction, 0.999 * lb) <= u);
      CHECK(rigorous_p_value(r, e.alpha, e.direction, 1.001 * lb) > u);
    }
    // Far above anything the data support: p = 1; at or below 0 with separated laws: tiny.
    CHECK(rigorous_p_value(r, e.alpha, e.direction, 100.0) == 1.0);
    CHECK(rigorous_p_value(r, e.alpha, e.direction, -1.0) == Approx(1e-20));
  }
}

TEST_CASE("a bound's outcome and whether it is as expected", "[audit]") {
  std::vector<Cell> cells(4);
  for (auto& c : cells) c.bound = 0;
  cells[0].verdict = Verdict::kNotApplicable;
  cells[1].verdict = Verdict::kInconclusive;
  cells[2].verdict = Verdict::kNotRejected;
  cells[2].tightness_lower = 3.0;
  cells[3].verdict = Verdict::kNotRejected;
  cells[3].tightness_lower = 1.1;
  cells[3].close = true;
  audit::BoundRow row;
  audit::summarise(row, 0, cells);
  CHECK(row.outcome == Verdict::kNotRejected);
  CHECK(row.as_expected);
  CHECK(row.counts[static_cast<int>(Verdict::kNotRejected)] == 2);
  CHECK(row.close_cells == 1);
  CHECK(row.min_margin == 1.1);
  row.expect = config::Expectation::kViolated;
  audit::summarise(row, 0, cells);
  CHECK_FALSE(row.as_expected);  // an expected violation that is not found fails
  cells[3].verdict = Verdict::kViolated;
  audit::summarise(row, 0, cells);
  CHECK(row.outcome == Verdict::kViolated);
  CHECK(row.as_expected);
  cells[2].verdict = Verdict::kViolatedExact;  // a certain violation outranks a statistical one
  audit::summarise(row, 0, cells);
  CHECK(row.outcome == Verdict::kViolatedExact);
  CHECK(row.as_expected);
  row.expect = config::Expectation::kHolds;
  audit::summarise(row, 0, cells);
  CHECK_FALSE(row.as_expected);
  // Valid (exact) only if every applicable cell is; one not-rejected cell makes it not rejected.
  for (auto& c : cells) c.verdict = Verdict::kValidExact;
  cells[0].verdict = Verdict::kNotApplicable;
  audit::summarise(row, 0, cells);
  CHECK(row.outcome == Verdict::kValidExact);
  CHECK(row.as_expected);
  cells[1].verdict = Verdict::kNotRejected;
  audit::summarise(row, 0, cells);
  CHECK(row.outcome == Verdict::kNotRejected);
  cells[1].verdict = Verdict::kInconclusive;  // untested cells are not shown valid either
  audit::summarise(row, 0, cells);
  CHECK(row.outcome == Verdict::kNotRejected);
  // Only inconclusive / not applicable cells: "holds" is not contradicted.
  std::vector<Cell> quiet(2);
  quiet[0].verdict = Verdict::kInconclusive;
  quiet[1].verdict = Verdict::kNotApplicable;
  audit::summarise(row, 0, quiet);
  CHECK(row.outcome == Verdict::kInconclusive);
  CHECK(row.as_expected);
}

namespace {

const std::string kFile = R"(
[experiment]
seed = 1
trajectories = 1000
[model]
loss = "quadratic"
lambda = 1.0
[data]
preset = "quadratic_worst_case"
n = 10
sensitivity = 1.0
[training]
scheme = "full_batch"
eta = 0.1
batch_size = 10
steps = 1
[noise]
step_std = 0.1
)";

}  // namespace

TEST_CASE("audit keys of the experiment file", "[audit][config]") {
  const auto spec = config::parse_experiment(
      kFile +
          "[bounds]\naudit = [\"gaussian_composition\", \"mine\"]\n"
          "expect_violated = [\"gaussian_composition\"]\n"
          "[[bounds.custom]]\nname = \"mine\"\nformula = \"alpha\"\nexpect = \"violated\"\n",
      "t.toml");
  const auto& s = spec.scenarios.front();
  const audit::BoundTable t = audit::audited_bounds(s);
  REQUIRE(t.names == std::vector<std::string>{"gaussian_composition", "mine"});
  CHECK(t.expect[0] == config::Expectation::kViolated);
  CHECK(t.expect[1] == config::Expectation::kViolated);
  CHECK(t.orders.size() == 8);  // the default table orders
  CHECK(t.value(1, 0) == Approx(t.orders[0]));
  // Bad audit keys: test_config.cpp, "bad input names the key, ...".
}

TEST_CASE("the scale option multiplies trajectories and the default pilot", "[audit][config]") {
  config::Overrides o;
  o.scale = 1000;
  auto spec = config::parse_experiment(kFile, "t.toml", o);
  CHECK(spec.trajectories == 1000000);
  CHECK(spec.scenarios.front().estimate.pilot == 250000);  // a quarter of the counted
  spec = config::parse_experiment(kFile + "[estimate]\npilot = 5000\n", "t.toml", o);
  CHECK(spec.scenarios.front().estimate.pilot == 5000);  // a pilot of its own size: unscaled
  CHECK_THROWS_WITH(config::parse_experiment(kFile + "[estimate]\nsamples = 500\n", "t.toml"),
                    Catch::Contains("estimate.samples") && Catch::Contains("estimate.pilot"));
  o.scale = 0;
  CHECK_THROWS_WITH(config::parse_experiment(kFile, "t.toml", o), Catch::Contains("--scale"));
}

TEST_CASE("certain violations: a negative bound, a bound below the exact value", "[audit]") {
  const auto spec = config::parse_experiment(
      kFile +
          "[bounds]\nalphas = [2, 8]\naudit = [\"negative\", \"half_exact\", \"exact\"]\n"
          "[[bounds.custom]]\nname = \"negative\"\nformula = \"-1\"\n"
          "[[bounds.custom]]\nname = \"half_exact\"\nformula = \"0.5 * alpha * (eta * S_g / b)^2 / "
          "(2 * step_std^2)\"\n"
          "[[bounds.custom]]\nname = \"exact\"\nformula = \"alpha * (eta * S_g / b)^2 / (2 * "
          "step_std^2)\"\n",
      "t.toml");
  const auto& s = spec.scenarios.front();
  const audit::BoundTable table = audit::audited_bounds(s);
  // No samples (no rigorous certificates): only the exact value can decide.
  estimate::ScenarioEstimates est;
  for (double a : table.orders) {
    for (int d : {estimate::kForward, estimate::kBackward}) {
      estimate::Estimate e;
      e.alpha = a;
      e.direction = d;
      e.method = "exact-quadrature";
      e.value = a * std::pow(0.1 * 1.0 / 10.0, 2) / (2 * 0.01);  // mu = eta S_g / n, s = 0.1
      e.lower = e.value * (1 - 1e-12);
      e.upper = e.value * (1 + 1e-12);
      e.informative = true;
      est.estimates.push_back(e);
    }
  }
  audit::Auditor auditor(0.05);
  auditor.add(s, table, est, "-", 1000);
  const audit::AuditResult r = auditor.finish();
  REQUIRE(r.bounds.size() == 3);
  CHECK(r.hypotheses == 0);  // nothing to test from samples
  for (const auto& c : r.cells) {
    const std::string& name = r.bounds[c.bound].name;
    INFO(name << " at alpha " << c.alpha);
    if (name == "exact") {
      // Equal to the truth within rounding: never a violation, and shown valid by the exact
      // value (not by the samples, which cannot show validity).
      CHECK(c.verdict == Verdict::kValidExact);
    } else {
      CHECK(c.verdict == Verdict::kViolatedExact);
      CHECK_FALSE(c.note.empty());
    }
  }
  CHECK(r.bounds[0].outcome == Verdict::kViolatedExact);
  CHECK(r.bounds[1].outcome == Verdict::kViolatedExact);
  CHECK(r.bounds[2].outcome == Verdict::kValidExact);
}

TEST_CASE("a cell's verdict keeps certain and statistical evidence apart", "[audit]") {
  // A tested, informative cell: bound 1.0, certified lower bound 0.9, estimate 0.95.
  const auto cell = [] {
    Cell c;
    c.tested = true;
    c.verdict = Verdict::kNotRejected;
    c.bound_value = 1.0;
    c.lower = 0.9;
    c.estimate = 0.95;
    c.p_holm = 0.5;
    return c;
  };
  Cell c = cell();
  audit::decide(c, 0.05);
  CHECK(c.verdict == Verdict::kNotRejected);
  CHECK(c.tightness_lower == Approx(1.0 / 0.9));
  CHECK(c.close);  // margin 1.11 < 1.2: more trajectories could change the answer
  c = cell();
  c.lower = 0.5;
  audit::decide(c, 0.05);
  CHECK(c.verdict == Verdict::kNotRejected);
  CHECK_FALSE(c.close);  // margin 2
  c = cell();
  c.lower = 0.5;
  c.estimate = 1.1;  // the point estimate above the bound: close, whatever the margin
  audit::decide(c, 0.05);
  CHECK(c.close);
  c = cell();
  c.p_holm = 0.01;  // rejected by the samples
  audit::decide(c, 0.05);
  CHECK(c.verdict == Verdict::kViolated);
  CHECK_FALSE(c.close);
  c = cell();
  c.exact_lower = 1.05;  // the exact value above the bound: certain, whatever the samples say
  c.exact_upper = 1.06;
  audit::decide(c, 0.05);
  CHECK(c.verdict == Verdict::kViolatedExact);
  c = cell();
  c.exact_lower = 0.97;  // the exact value below the bound: shown valid
  c.exact_upper = 0.98;
  audit::decide(c, 0.05);
  CHECK(c.verdict == Verdict::kValidExact);
  CHECK_FALSE(c.close);
  c.p_holm = 0.01;  // a (false) rejection by the samples is overruled, and said so
  c.verdict = Verdict::kNotRejected;
  audit::decide(c, 0.05);
  CHECK(c.verdict == Verdict::kValidExact);
  CHECK_THAT(c.note, Catch::Contains("false rejection"));
  c = cell();
  c.exact_lower = 0.99;  // a bracket straddling the bound decides nothing
  c.exact_upper = 1.01;
  audit::decide(c, 0.05);
  CHECK(c.verdict == Verdict::kNotRejected);
  c = cell();
  c.bound_value = -0.1;
  audit::decide(c, 0.05);
  CHECK(c.verdict == Verdict::kViolatedExact);
  for (int v = 0; v < audit::kVerdictCount; ++v) {  // every word reads back as itself
    const auto verdict = static_cast<Verdict>(v);
    CHECK(audit::parse_verdict(audit::to_string(verdict), "k") == verdict);
  }
  CHECK_THROWS_WITH(audit::parse_verdict("holds", "/audit/cells/verdict"),
                    Catch::Contains("/audit/cells/verdict"));
}

TEST_CASE("a cell's lower_method names the method that gave its lower bound", "[audit]") {
  // Two rigorous certificates of the same laws, a weak one (few samples) first and a strong
  // one (many samples) second: the cell's lower bound is the strong one's, and so is its name.
  using namespace rdpaudit::estimate;
  const auto certificate = [](double scale, const std::string& method) {
    OrderedCells oc;
    for (int i = 0; i < 40; ++i) {
      const double x = -4.0 + 0.2 * i;
      oc.position.push_back(i);
      for (CellCounts* c : {&oc.selection, &oc.evaluation}) {
        c->p.push_back(static_cast<std::uint64_t>(scale * std::exp(-0.5 * (x - 0.5) * (x - 0.5))));
        c->q.push_back(static_cast<std::uint64_t>(scale * std::exp(-0.5 * x * x)));
      }
    }
    return rigorous_lower_bound(oc, {2.0, 8.0}, {}, method);
  };
  const auto spec =
      config::parse_experiment(kFile +
                                   "[bounds]\nalphas = [2, 8]\naudit = [\"loose\"]\n"
                                   "[[bounds.custom]]\nname = \"loose\"\nformula = \"100\"\n",
                               "t.toml");
  const auto& s = spec.scenarios.front();
  const audit::BoundTable table = audit::audited_bounds(s);
  ScenarioEstimates est;
  est.rigorous.push_back(certificate(2e3, "rigorous-weak"));
  est.rigorous.push_back(certificate(2e6, "rigorous-strong"));
  audit::Auditor auditor(0.05);
  auditor.add(s, table, est, "-", 1000);
  const audit::AuditResult r = auditor.finish();
  REQUIRE(r.hypotheses == 4);
  const auto strong = certificate(2e6, "rigorous-strong");
  const auto weak = certificate(2e6 / 1e3, "rigorous-weak");
  for (const auto& c : r.cells) {
    INFO("alpha " << c.alpha << ", direction " << c.direction);
    const double per = 0.05 / (4.0 * 2.0);  // Bonferroni over 4 cells and 2 methods
    const double expected = rigorous_lower_for_order(strong, c.alpha, c.direction, per);
    REQUIRE(rigorous_lower_for_order(weak, c.alpha, c.direction, per) > 0.0);  // both certify
    CHECK(expected > rigorous_lower_for_order(weak, c.alpha, c.direction, per));
    CHECK(c.lower == Approx(expected).epsilon(1e-12));
    CHECK(c.lower_method == "rigorous-strong");
    CHECK(c.verdict == Verdict::kNotRejected);
  }
}
