// Default expectations: the tool's own comparisons (an approximation, a baseline for another
// neighbouring relation) never fail a user's check unless the file asks about them; theorems
// are expected to hold; what the file states wins.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "experiment_support.hpp"
#include "rdpaudit/audit/table.hpp"

namespace rdpaudit {
namespace {

using config::Adjacency;
using config::Expectation;

// The linear worst case under Poisson sampling (the setting where the paper's Figure-2
// composition approximation is violated (exact) at alpha = 32), on a pair of `adjacency`.
std::string linear_poisson(const std::string& adjacency, const std::string& bounds = "") {
  return R"(
[experiment]
seed = 3
trajectories = 1000
[model]
loss = "linear"
dim = 1
[data]
preset = "linear_worst_case"
n = 10
lipschitz = 1.0
adjacency = ")" +
         adjacency + R"("
[training]
scheme = "poisson"
eta = 0.1
batch_size = 2
steps = 100
[noise]
sigma = 1.0
)" + bounds;
}

Expectation expect_of(const audit::BoundTable& t, const std::string& name) {
  const auto at = std::find(t.names.begin(), t.names.end(), name);
  REQUIRE(at != t.names.end());
  return t.expect[static_cast<std::size_t>(at - t.names.begin())];
}

TEST_CASE("an approximation and a baseline of another relation are informative by default",
          "[audit][expectations]") {
  using B = bounds::Kind;
  CHECK(audit::default_expectation(B::kApproximation, Adjacency::kReplaceOne,
                                   Adjacency::kReplaceOne) == Expectation::kInformative);
  CHECK(audit::default_expectation(B::kBaseline, Adjacency::kAddRemove, Adjacency::kReplaceOne) ==
        Expectation::kInformative);
  CHECK(audit::default_expectation(B::kBaseline, Adjacency::kAddRemove, Adjacency::kAddRemove) ==
        Expectation::kHolds);
  CHECK(audit::default_expectation(B::kTheorem, Adjacency::kAddRemove, Adjacency::kReplaceOne) ==
        Expectation::kHolds);
  CHECK(audit::default_expectation(B::kCustom, Adjacency::kReplaceOne, Adjacency::kReplaceOne) ==
        Expectation::kHolds);
  CHECK(audit::meets(Expectation::kInformative, audit::Verdict::kViolatedExact));
  CHECK(audit::meets(Expectation::kInformative, audit::Verdict::kNotRejected));
}

TEST_CASE("the audited table applies the defaults and the file's statements",
          "[audit][expectations]") {
  const auto replace = test::scenario_from_toml(linear_poisson("replace_one"));
  const audit::BoundTable t = audit::audited_bounds(replace);
  CHECK(expect_of(t, "ys_fig2_composition_approx") == Expectation::kInformative);
  CHECK(expect_of(t, "mtz19_poisson_composition") == Expectation::kInformative);
  CHECK(expect_of(t, "gaussian_composition") == Expectation::kHolds);
  // On its own relation the baseline is a claim about the pair: expected to hold.
  const auto add = test::scenario_from_toml(linear_poisson("add_remove"));
  CHECK(expect_of(audit::audited_bounds(add), "mtz19_poisson_composition") == Expectation::kHolds);
  // The file asks: expect_holds makes the approximation a claim again (check would fail).
  const auto asked = test::scenario_from_toml(
      linear_poisson("replace_one", "[bounds]\nexpect_holds = [\"ys_fig2_composition_approx\"]\n"));
  CHECK(expect_of(audit::audited_bounds(asked), "ys_fig2_composition_approx") ==
        Expectation::kHolds);
  // Said twice, differently: refused naming both keys.
  CHECK_THAT(
      test::input_error_of(linear_poisson("replace_one",
                                          "[bounds]\nexpect_holds = [\"gaussian_composition\"]\n"
                                          "expect_violated = [\"gaussian_composition\"]\n")),
      Catch::Matchers::Contains("bounds.expect_violated[0]") &&
          Catch::Matchers::Contains("bounds.expect_holds[0]"));
}

}  // namespace
}  // namespace rdpaudit
