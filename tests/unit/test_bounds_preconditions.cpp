// Preconditions: a bound whose assumptions the scenario does not meet is "not applicable"
// with a reason, never a number; invalid input throws InputError naming the field.
#include <catch2/catch.hpp>
#include <string>

#include "rdpaudit/bounds/bounds.hpp"
#include "rdpaudit/core/error.hpp"

using namespace rdpaudit::bounds;
using Catch::Matchers::Contains;

namespace bounds_test {
Params figure_params(BatchScheme scheme, long K, long j0);  // test_bounds_known_answers.cpp
}
using bounds_test::figure_params;

namespace {

std::string reason(std::string_view bound, const Params& p, double alpha = 10.0) {
  const BoundValue v = evaluate_bound(bound, p, alpha);
  INFO(bound << " = " << v.value.value_or(-1.0));
  REQUIRE_FALSE(v.applicable());
  REQUIRE_FALSE(v.not_applicable.empty());
  return v.not_applicable;
}

bool applies(std::string_view bound, const Params& p) {
  return evaluate_bound(bound, p, 10.0).applicable();
}

}  // namespace

TEST_CASE("step size at or above 2/(lambda+beta): the strongly convex theorems do not apply",
          "[bounds][preconditions]") {
  Params p = figure_params(BatchScheme::kShufflePartition, 10, 0);
  p.eta = 0.4;  // = 2/(1+4): the conditions are strict
  for (const char* b : {"ys_thm2.1_naive", "ys_thm3.3_worst_batch", "ys_thm4.2_shuffle_partition",
                        "ys_thm4.2_footnote4_as_printed"}) {
    CHECK_THAT(reason(b, p), Contains("step size eta = 0.4 is not < 2/(lambda+beta) = 0.4"));
  }
  Params s = figure_params(BatchScheme::kSampleWithoutReplacement, 10, 0);
  s.eta = 0.5;
  CHECK_THAT(reason("ys_thm4.3_sample_wor", s), Contains("2/(lambda+beta)"));
  // Theorem D.5 has a non-strict condition: eta = 2/(beta+lambda) is allowed.
  Params f = figure_params(BatchScheme::kFixedOrder, 10, 0);
  f.eta = 0.4;
  CHECK(applies("ys_thmD.5_balle_composed", f));
  f.eta = 0.41;
  CHECK_THAT(reason("ys_thmD.5_balle_composed", f), Contains("is not <= 2/(beta+lambda)"));
  // The composition baselines have no step-size condition.
  CHECK(applies("gaussian_composition", p));
}

TEST_CASE("n/b < 2 and the batch position", "[bounds][preconditions]") {
  Params p = figure_params(BatchScheme::kShufflePartition, 10, 0);
  p.b = 30;  // floor(50/30) = 1
  p.T = 10;
  CHECK_THAT(reason("ys_thm4.2_shuffle_partition", p), Contains("assumes n/b >= 2"));
  CHECK(applies("ys_thm2.1_naive", p));  // Theorem 2.1 has no such assumption
  Params f = figure_params(BatchScheme::kFixedOrder, 10, 7);
  CHECK_THAT(reason("ys_thmD.5_balle_composed", f),
             Contains("only for the first (j0 = 0) and the last (j0 = 24) batch"));
  CHECK(applies("ys_thm3.3_fixed_order", f));
}

TEST_CASE("not strongly convex, or beta < lambda", "[bounds][preconditions]") {
  Params p = figure_params(BatchScheme::kFixedOrder, 5, 3);
  p.lambda = 0.0;
  CHECK_THAT(reason("ys_thm3.3_fixed_order", p), Contains("not strongly convex"));
  CHECK(applies("ys_thmD.4_convex", p));  // Theorem D.4 needs convexity only
  p.lambda = 5.0;                         // beta = 4 < lambda
  CHECK_THAT(reason("ys_thm3.3_fixed_order", p), Contains("beta = 4 < lambda = 5"));
}

TEST_CASE(
    "projected iterates: the paper's bounds need the unconstrained Algorithm 1, the blog "
    "needs the projection",
    "[bounds][preconditions]") {
  Params p = figure_params(BatchScheme::kSampleWithoutReplacement, 5, 0);
  CHECK_THAT(reason("blog_thm1_saturation", p), Contains("unbounded"));
  CHECK_THAT(reason("blog_thm1_saturation", p), Contains("L = inf"));
  p.D = 3.0;
  p.L = 4.0;
  CHECK(applies("blog_thm1_saturation", p));
  CHECK_THAT(reason("ys_thm4.3_sample_wor", p), Contains("Algorithm 1 is unconstrained"));
  CHECK(applies("wbk19_swor_composition", p));  // composition is blind to the projection
  p.eta = 0.6;                                  // > 2/M = 0.5
  CHECK_THAT(reason("blog_thm1_saturation", p), Contains("is not <= 2/M = 0.5"));
}

TEST_CASE("batch schemes: each bound only for the schemes its source analyses",
          "[bounds][preconditions]") {
  const Params e = figure_params(BatchScheme::kShuffleEachEpoch, 5, 0);
  for (const BoundInfo& b : bound_catalogue()) {
    INFO(b.name);
    CHECK(applies(b.name, e) == (b.name == "gaussian_composition"));
  }
  CHECK_THAT(reason("ys_thm4.2_shuffle_partition", e),
             Contains("one partition kept for all epochs"));
  const Params s = figure_params(BatchScheme::kShufflePartition, 5, 0);
  CHECK_THAT(reason("ys_thm3.3_fixed_order", s), Contains("scheme shuffle_partition"));
  CHECK_THAT(reason("mtz19_poisson_composition", s), Contains("Poisson"));
  const Params poisson = figure_params(BatchScheme::kPoisson, 5, 0);
  CHECK(applies("mtz19_poisson_composition", poisson));
  CHECK_FALSE(applies("wbk19_swor_composition", poisson));
}

TEST_CASE("initialisation, loss family, missing constants, whole epochs",
          "[bounds][preconditions]") {
  Params full = figure_params(BatchScheme::kFullBatch, 20, 0);
  CHECK_THAT(reason("ys_thmD.7_chourasia", full), Contains("initialisation fixed"));
  full.init = Init::kGaussianChourasia;
  CHECK(applies("ys_thmD.7_chourasia", full));
  full.eta = 0.25;  // = 1/beta, strict
  CHECK_THAT(reason("ys_thmD.6_full_batch", full), Contains("is not < 1/beta = 0.25"));

  Params p = figure_params(BatchScheme::kShufflePartition, 5, 0);
  CHECK_THAT(reason("ys_cor5.3_logreg", p), Contains("loss quadratic"));
  p.loss = LossKind::kLogistic;
  CHECK_THAT(reason("ys_cor5.3_logreg", p), Contains("feature_clip"));
  p.feature_clip = 1.0;
  CHECK(applies("ys_cor5.3_logreg", p));

  Params s = figure_params(BatchScheme::kSampleWithoutReplacement, 5, 0);
  s.T = 101;  // not a whole number of epochs
  CHECK_THAT(reason("ys_thm4.3_sample_wor", s), Contains("T = 101 is not K floor(n/b) = 125"));
  CHECK(applies("wbk19_swor_composition", s));
}

TEST_CASE("every failing precondition is reported", "[bounds][preconditions]") {
  Params p = figure_params(BatchScheme::kShufflePartition, 5, 0);
  p.lambda = 0.0;
  p.D = 2.0;
  const std::string r = reason("ys_thm4.2_shuffle_partition", p);
  CHECK_THAT(r, Contains("not strongly convex"));
  CHECK_THAT(r, Contains("unconstrained"));
}

TEST_CASE("invalid input throws InputError naming the field", "[bounds][preconditions]") {
  const Params ok = figure_params(BatchScheme::kFixedOrder, 3, 0);
  auto throws_with = [&](Params p, const char* text) {
    CHECK_THROWS_WITH(evaluate_all(p, {2.0}), Contains(text));
    CHECK_THROWS_AS(evaluate_all(p, {2.0}), rdpaudit::InputError);
  };
  Params p = ok;
  p.eta = -0.1;
  throws_with(p, "bounds.eta = -0.10000000000000001 (must be > 0 and finite)");
  p = ok;
  p.step_std = kNaN;
  throws_with(p, "bounds.step_std");
  p = ok;
  p.b = 51;
  throws_with(p, "bounds.b = 51 (must be in 1..n = 50)");
  p = ok;
  p.T = 76;
  throws_with(p, "must equal K * floor(n/b) = 3 * 25 = 75");
  p = ok;
  p.j0 = 25;
  throws_with(p, "bounds.j0 = 25 (must be in 0..floor(n/b)-1 = 24)");
  p = figure_params(BatchScheme::kFullBatch, 3, 0);
  p.b = 10;
  p.T = 15;
  throws_with(p, "must equal n = 50 for scheme full_batch");
  CHECK_THROWS_WITH(evaluate_all(ok, {10.0, 1.0}), Contains("bounds.alpha = 1 (must be > 1"));
  CHECK_THROWS_WITH(evaluate_bound("no_such_bound", ok, 2.0), Contains("not a built-in bound"));
  CHECK_THROWS_WITH(rdpaudit::config::parse_scheme("shuffle", "bounds.scheme"),
                    Contains("must be one of: fixed_order"));
}

TEST_CASE("reasons name the scheme as the user writes it (one vocabulary with config)",
          "[bounds][preconditions]") {
  // Issue 13 item 18: bounds used to call this scheme "sample_wor", a name no file contains.
  const Params p = figure_params(BatchScheme::kSampleWithoutReplacement, 10, 0);
  CHECK_THAT(reason("ys_thm4.2_shuffle_partition", p),
             Contains("scheme sample_without_replacement is not covered"));
  for (const auto& [name, scheme] : rdpaudit::config::scheme_names()) {
    CHECK(rdpaudit::config::to_string(scheme) == name);
    CHECK(rdpaudit::config::parse_scheme(name, "training.scheme") == scheme);
  }
  // Poisson with a fractional expected batch: q must fit, and b is q n or 0.
  Params q = figure_params(BatchScheme::kPoisson, 1, 0);
  q.q = 0.03;
  q.b = 0;
  q.T = 33;
  CHECK_NOTHROW(evaluate_all(q, {2.0}));
  q.b = 2;  // q n = 1.5: no whole batch
  CHECK_THROWS_WITH(evaluate_all(q, {2.0}), Contains("bounds.b = 2 (must be q*n = 1.5"));
  Params not_poisson = figure_params(BatchScheme::kShufflePartition, 1, 0);
  not_poisson.q = 0.04;
  CHECK_THROWS_WITH(evaluate_all(not_poisson, {2.0}),
                    Contains("bounds.q = 0.04") && Contains("scheme poisson only"));
}
