// Custom bounds from an accountant: `values` per order, C and z as formula variables, the JSON a
// command reads and writes, and the checks `validate` makes of each (the command's and the
// CSV's runs are in tests/python/test_accountant.py).
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "experiment_support.hpp"
#include "rdpaudit/bounds/accountant.hpp"
#include "rdpaudit/bounds/experiment.hpp"
#include "rdpaudit/bounds/scenario.hpp"
#include "rdpaudit/core/error.hpp"

using namespace rdpaudit;
using Catch::Matchers::Contains;

namespace {

// DP-SGD on logistic regression: per-example clip C = 0.5, z = 1.1 (Opacus' terms).
const std::string kLogistic =
    test::logistic_dpsgd("feature_clip = 1.0\nclip_norm = 0.5", 1, "noise_multiplier = 1.1") +
    "[bounds]\nalphas = [2, 3.5, 8]\n";

// The same pair without a clip: the quadratic loss of the paper.
const std::string kQuadratic = test::figure2(1, 100, 1) + "[bounds]\nalphas = [2, 3.5, 8]\n";

using test::input_error_of;

using test::bound_value;

}  // namespace

TEST_CASE("C and z are formula variables where the scenario clips, NaN with the reason otherwise",
          "[bounds][custom][accountant]") {
  const auto spec = bounds::parse_experiment(kLogistic + R"toml(
[[bounds.custom]]
name = "opacus_terms"
formula = "z * C"
)toml",
                                             "t.toml");
  const auto sb = bounds::bounds_of(spec.scenarios[0]);
  const auto all = bounds::evaluate_scenario(sb, {2.0});
  CHECK(*bound_value(all, "opacus_terms", 2.0).value == Approx(1.1 * 0.5).epsilon(1e-14));

  const auto none = bounds::parse_experiment(kQuadratic + R"toml(
[[bounds.custom]]
name = "opacus_terms"
formula = "alpha / (2 * z^2)"
[[bounds.custom]]
name = "clipped_only"
formula = "alpha"
conditions = ["C > 0"]
)toml",
                                             "t.toml");
  const auto q = bounds::evaluate_scenario(bounds::bounds_of(none.scenarios[0]), {2.0});
  const auto& v = bound_value(q, "opacus_terms", 2.0);
  CHECK_FALSE(v.applicable());
  CHECK_THAT(v.not_applicable, Contains("evaluates to NaN") &&
                                   Contains("C and z are not defined") &&
                                   Contains("model.clip_norm"));
  CHECK_THAT(bound_value(q, "clipped_only", 2.0).not_applicable,
             Contains("condition 1 \"C > 0\" is false (C and z are not defined"));
}

TEST_CASE("values: one per order of bounds.alphas, at those orders only",
          "[bounds][custom][accountant]") {
  const auto spec = bounds::parse_experiment(kQuadratic + R"toml(
[[bounds.custom]]
name = "pasted"
values = [0.5, inf, 3]
conditions = ["alpha < 8"]
)toml",
                                             "t.toml");
  const auto sb = bounds::bounds_of(spec.scenarios[0]);
  const auto all = bounds::evaluate_scenario(sb, {2.0, 3.5, 8.0});
  CHECK(*bound_value(all, "pasted", 2.0).value == 0.5);
  CHECK(std::isinf(*bound_value(all, "pasted", 3.5).value));
  CHECK_THAT(bound_value(all, "pasted", 8.0).not_applicable, Contains("\"alpha < 8\" is false"));
  CHECK(bound_value(all, "pasted", 2.0).source == "accountant values");
  // `rdpaudit bounds --alpha 5`: no value there.
  const auto other = bounds::evaluate_scenario(sb, {5.0});
  CHECK_THAT(bound_value(other, "pasted", 5.0).not_applicable,
             Contains("at the orders of bounds.alphas only, not at alpha = 5"));
}

TEST_CASE("a custom bound's keys are checked when the file is read",
          "[bounds][custom][accountant]") {
  const auto custom = [](const std::string& body) {
    return kQuadratic + "[[bounds.custom]]\nname = \"mine\"\n" + body + "\n";
  };
  CHECK_THAT(input_error_of(custom("values = [1, 2]")),
             Contains("bounds.custom[0].values = ") &&
                 Contains("has 2 values; one per bounds.alphas order (3) is needed"));
  CHECK_THAT(input_error_of(custom("values = [1, \"x\", 2]")),
             Contains("bounds.custom[0].values[1]") && Contains("must be a number"));
  CHECK_THAT(input_error_of(custom("values = [1, nan, 2]")), Contains("must be a number"));
  CHECK_THAT(input_error_of(custom("formula = \"alpha\"\nvalues = [1, 2, 3]")),
             Contains("give exactly one of formula, values, values_file, command"));
  CHECK_THAT(input_error_of(custom("conditions = []")),
             Contains("bounds.custom[0].formula = <missing>") &&
                 Contains("exactly one of formula, values, values_file, command"));
  CHECK_THAT(input_error_of(custom("formula = \"alpha\"\ntimeout_s = 5")),
             Contains("bounds.custom[0].timeout_s = 5 (applies to a command only)"));
  CHECK_THAT(
      input_error_of(custom("command = [\"/bin/true\"]\ntimeout_s = 0")),
      Contains("bounds.custom[0].timeout_s = 0 (must be a number of seconds in (0, 86400])"));
  CHECK_THAT(input_error_of(custom("command = []")),
             Contains("bounds.custom[0].command") && Contains("non-empty array of strings"));
  CHECK_THAT(input_error_of(custom("values_file = \"no_such_table.csv\"")),
             Contains("bounds.custom[0].values_file = \"no_such_table.csv\" (cannot be opened"));
}

TEST_CASE("an accountant's output: one value or null per scenario and order",
          "[bounds][accountant]") {
  const auto v = bounds::parse_accountant_output(
      "{\"note\": \"x\", \"values\": [[1, null, 2.5e-1], [NaN, Infinity, 0]]}\n", 2, 3);
  REQUIRE(v.size() == 2);
  CHECK(v[0][0] == 1.0);
  CHECK(std::isnan(v[0][1]));
  CHECK(v[0][2] == 0.25);
  CHECK(std::isnan(v[1][0]));
  CHECK(std::isinf(v[1][1]));
  const auto error = [](const std::string& text) -> std::string {
    try {
      bounds::parse_accountant_output(text, 2, 3);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK(error("") == "no output");
  CHECK_THAT(error("{\"values\": [[1, 2, 3], [1, 2, 3]]} x"), Contains("text after the JSON"));
  CHECK_THAT(error("[1, 2]"), Contains("the document is an array, not an object"));
  CHECK_THAT(error("{\"value\": []}"), Contains("no key \"values\""));
  CHECK_THAT(error("{\"values\": [[1, 2, 3]]}"),
             Contains("\"values\" is an array of 1; one array per scenario (2) is needed"));
  CHECK_THAT(error("{\"values\": [[1, 2, 3], [1, 2]]}"),
             Contains("values[1] is an array of 2; one value per order"));
  CHECK_THAT(error("{\"values\": [[1, 2, 3], [1, \"2\", 3]]}"),
             Contains("values[1][1] is a string, not a number or null"));
  CHECK_THAT(error("{\"values\": [[1, 2, 3], [1, 2, 3]"),
             Contains("not JSON: expected ',' or ']' at line 1, column 33"));
}

TEST_CASE("the JSON a command reads: every scenario's parameters in every convention",
          "[bounds][accountant]") {
  const auto spec = bounds::parse_experiment(kLogistic, "t.toml");
  const std::string json = bounds::accountant_input_json(
      [&] {
        auto s = spec;
        s.scenarios[0].bounds.custom.push_back({"mine", "", {}, {}, "", {"x"}, 60, {}});
        return s;
      }(),
      0);
  for (const char* field :
       {"\"bound\": \"mine\"", "\"orders\": [2, 3.5, 8]", "\"scheme\": \"shuffle_partition\"",
        "\"adjacency\": \"replace_one\"", "\"n\": 20", "\"b\": 4", "\"T\": 5", "\"K\": 1",
        "\"z\": 1.1", "\"C\": 0.5", "\"key\": \"noise_multiplier\"", "\"value\": 1.1",
        "\"D\": null"}) {
    INFO(field);
    CHECK_THAT(json, Contains(field));
  }
}
