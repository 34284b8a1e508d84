// Custom bounds: muparser formulas over the scenario's parameters, applicability conditions,
// and error messages that name the bound and the position.
#include <catch2/catch.hpp>
#include <cmath>

#include "rdpaudit/bounds/bounds.hpp"
#include "rdpaudit/bounds/custom.hpp"
#include "rdpaudit/bounds/ye_shokri.hpp"

using namespace rdpaudit::bounds;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;

namespace bounds_test {
Params figure_params(BatchScheme scheme, long K, long j0);  // test_bounds_known_answers.cpp
}
using bounds_test::figure_params;

namespace {

FormulaError formula_error(const CustomBoundSpec& spec) {
  try {
    CustomBound bound(spec);
  } catch (const FormulaError& e) {
    return e;
  }
  FAIL("no FormulaError for formula \"" << spec.formula << "\"");
  throw;  // unreachable
}

}  // namespace

TEST_CASE("a custom formula reproduces a built-in one", "[bounds][custom]") {
  const Params p = figure_params(BatchScheme::kShufflePartition, 10, 0);
  const CustomBound step({"one_step", "alpha*eta*S_g^2/(4*sigma2*b^2)", {}, "Lemma 3.2"});
  const BoundValue v = step.evaluate(p, 15.0);
  REQUIRE(v.applicable());
  CHECK(v.kind == Kind::kCustom);
  CHECK(v.source == "Lemma 3.2");
  CHECK_THAT(*v.value, WithinRel(ye_shokri::gaussian_step_term(p, 15.0), 1e-14));
  // the naive bound of Theorem 2.1, written with muparser's natural exponential
  const CustomBound naive({"naive", "alpha*S_g^2/(lambda*sigma2*b^2)*(1-exp(-lambda*eta*K/2))"});
  CHECK_THAT(*naive.evaluate(p, 15.0).value,
             WithinRel(*evaluate_bound("ys_thm2.1_naive", p, 15.0).value, 1e-14));
}

TEST_CASE("every documented name is bound to the scenario", "[bounds][custom]") {
  Params p = figure_params(BatchScheme::kFixedOrder, 3, 2);
  p.L = 1.5;
  p.D = 7.0;
  p.clip_norm = 0.5;
  const std::vector<std::string>& names = CustomBound::variable_names();
  REQUIRE(names.size() == 19);
  const std::vector<double> expected{2.5,
                                     p.eta,
                                     alg1_sigma2(p),
                                     p.lambda,
                                     p.beta,
                                     p.S_g,
                                     1.5,
                                     7.0,
                                     50.0,
                                     2.0,
                                     3.0,
                                     75.0,
                                     2.0,
                                     0.04,
                                     alg2_sigma_mul(p),
                                     blog_sigma(p),
                                     p.step_std,
                                     0.5,
                                     p.step_std * 2.0 / (p.eta * 0.5)};
  for (std::size_t i = 0; i < names.size(); ++i) {
    INFO(names[i]);
    const CustomBound b({"echo", names[i]});
    CHECK_THAT(*b.evaluate(p, 2.5).value, WithinRel(expected[i], 1e-15));
  }
}

TEST_CASE("conditions decide applicability and are named in the reason", "[bounds][custom]") {
  const CustomBound b({"strongly_convex_only", "alpha/lambda", {"lambda > 0", "alpha >= 2"}});
  Params p = figure_params(BatchScheme::kFixedOrder, 3, 2);
  CHECK(b.evaluate(p, 2.0).applicable());
  const BoundValue low = b.evaluate(p, 1.5);
  CHECK_FALSE(low.applicable());
  CHECK(low.not_applicable == "condition 2 \"alpha >= 2\" is false");
  p.lambda = 0.0;
  CHECK_THAT(b.evaluate(p, 1.5).not_applicable,
             Contains("condition 1 \"lambda > 0\" is false; condition 2"));
  const CustomBound nan({"nan", "sqrt(-alpha)"});
  CHECK_THAT(nan.evaluate(p, 2.0).not_applicable, Contains("evaluates to NaN"));
  // A condition that evaluates to NaN is not true: not applicable, with the reason.
  for (const char* condition : {"ln(-1)", "0/0", "sqrt(-alpha) > 0 ? 1 : sqrt(-1)"}) {
    const CustomBound c({"nan_condition", "alpha", {condition}});
    const BoundValue v = c.evaluate(p, 2.0);
    CHECK_FALSE(v.applicable());
    CHECK(v.not_applicable == "condition 1 \"" + std::string(condition) + "\" evaluates to NaN");
  }
}

TEST_CASE("unknown names and syntax errors name the bound and the position", "[bounds][custom]") {
  const FormulaError unknown = formula_error({"mine", "alpha*foo+1"});
  CHECK(unknown.bound() == "mine");
  CHECK(unknown.where() == "formula");
  CHECK(unknown.position() == 6);
  CHECK(unknown.token() == "foo");
  // The message lists the names (d, the dimension of the gradient formulas, is not one).
  CHECK(std::string(unknown.what()) ==
        "custom bound \"mine\": unknown name \"foo\" at position 6 in formula \"alpha*foo+1\"; "
        "the names a formula may use are alpha, eta, sigma2, lambda, beta, S_g, L, D, n, b, K, T, "
        "j0, q, sigma_mul, blog_sigma, step_std, C, z, and muparser's functions");

  const FormulaError syntax = formula_error({"broken", "alpha**2"});
  CHECK(syntax.position() == 6);
  CHECK_THAT(syntax.what(), Contains("custom bound \"broken\": syntax error"));
  CHECK_THAT(syntax.what(), Contains("at position 6 in formula \"alpha**2\""));

  const FormulaError unclosed = formula_error({"open", "alpha*(eta+"});
  CHECK(unclosed.position() == 11);  // clamped to the end of the formula
  CHECK_THAT(unclosed.what(), Contains("custom bound \"open\""));

  const FormulaError in_condition = formula_error({"cond", "alpha", {"lambda > 0", "gamma < 1"}});
  CHECK(in_condition.where() == "condition 2");
  CHECK_THAT(in_condition.what(),
             Catch::StartsWith("custom bound \"cond\": unknown name \"gamma\" at position 0 in "
                               "condition 2 \"gamma < 1\"; the names a formula may use are "));

  CHECK_THROWS_AS(CustomBound({"empty", ""}), FormulaError);
  CHECK_THROWS_WITH(CustomBound({"", "alpha"}), Contains("name is empty"));
  CHECK_THROWS_WITH(CustomBound({"gaussian_composition", "alpha"}),
                    Contains("taken by a built-in bound"));
}

TEST_CASE("evaluate_all lists the custom bounds after the built-in ones", "[bounds][custom]") {
  const Params p = figure_params(BatchScheme::kShufflePartition, 10, 0);
  const std::vector<double> alphas{2.0, 10.0};
  const auto all = evaluate_all(p, alphas, {CustomBound({"c1", "alpha"})});
  REQUIRE(all.size() == (bound_catalogue().size() + 1) * alphas.size());
  CHECK(all[all.size() - 2].name == "c1");
  CHECK(all.back().value == 10.0);
  CHECK(all.front().name == bound_catalogue().front().name);
}

// The scheme enum of Params, whatever its name (a parallel branch renames it).
using AnyScheme = decltype(Params::scheme);

TEST_CASE("assignment is rejected in formulas and conditions (issue 13, item 2)",
          "[bounds][custom]") {
  // muparser's `=` assigns: `step_std = 1` as a condition used to overwrite step_std for the
  // formula evaluated after it, changing the audited bound silently.
  const FormulaError in_condition = formula_error({"c", "alpha/step_std^2", {"step_std = 1"}});
  CHECK(in_condition.where() == "condition 1");
  CHECK(in_condition.position() == 9);
  CHECK(std::string(in_condition.what()) ==
        "custom bound \"c\": assignment is not allowed (a formula is an expression of the "
        "names; compare with ==) at position 9 in condition 1 \"step_std = 1\"");

  const FormulaError in_formula = formula_error({"f", "alpha = 3"});
  CHECK(in_formula.where() == "formula");
  CHECK(in_formula.position() == 6);
  CHECK_THAT(in_formula.what(), Contains("assignment is not allowed"));
  for (const char* f : {"alpha += 1", "(eta = 2) * alpha", "alpha > 2 ? step_std = 1 : 2",
                        "alpha -= 1", "alpha *= 2", "alpha /= 2"}) {
    INFO(f);
    CHECK_THAT(formula_error({"f", f}).what(), Contains("assignment is not allowed"));
  }
  // Comparisons still work, and a comparison in a condition decides applicability.
  const Params p = figure_params(AnyScheme::kShufflePartition, 10, 0);
  const CustomBound cmp({"cmp", "alpha", {"alpha == 2", "alpha <= 2", "alpha >= 2", "alpha != 3"}});
  CHECK(cmp.evaluate(p, 2.0).applicable());
  CHECK_FALSE(cmp.evaluate(p, 3.0).applicable());
}

TEST_CASE("a comma-separated list is not one expression", "[bounds][custom]") {
  // muparser evaluates "a, b" to b: the bound would be the last item only.
  const FormulaError list = formula_error({"l", "sum(alpha, 1), eta"});
  CHECK(list.position() == 13);
  CHECK_THAT(list.what(), Contains("a comma-separated list is not one expression"));
  CHECK_THAT(formula_error({"l", "alpha", {"1, 0"}}).what(), Contains("condition 1"));
  const Params p = figure_params(AnyScheme::kShufflePartition, 10, 0);
  CHECK(*CustomBound({"s", "sum(alpha, 1)"}).evaluate(p, 2.0).value == 3.0);
}
