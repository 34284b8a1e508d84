// The bounds' view of a simulated scenario (bounds/scenario.hpp): every bound is evaluated at
// the parameters the simulator used.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "experiment_support.hpp"
#include "rdpaudit/bounds/conversion.hpp"
#include "rdpaudit/bounds/scenario.hpp"
#include "rdpaudit/config/load.hpp"

using namespace rdpaudit;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;

namespace {

// The start of the crafted-gradient files below: a quadratic loss whose lambda follows.
constexpr const char* kHeader = R"(
[experiment]
seed = 1
trajectories = 100
[model]
loss = "quadratic"
)";

// A quadratic worst-case pair (S_g = 1) under Poisson sampling at rate q.
config::Scenario poisson_scenario(int n, const std::string& q, int epochs, double step_std) {
  return test::scenario_from_toml(
      test::quadratic_worst_case(1, 100, n, 1.0,
                                 "[training]\nscheme = \"poisson\"\neta = 0.1\nsampling_rate = " +
                                     q + "\nepochs = " + std::to_string(epochs) +
                                     "\n[noise]\nstep_std = " + std::to_string(step_std) + "\n"),
      "poisson.toml");
}

using test::bound_value;

}  // namespace

TEST_CASE("Poisson bounds use the simulated q and the normaliser q n, whole or not",
          "[bounds][scenario]") {
  // n = 20, q = 0.03: q n = 0.6 records per batch on average. The simulator draws every record
  // with probability 0.03 and divides the batch sum by 0.6; the old mapping used b = round(0.6)
  // = 1 and q = b/n = 0.05 instead. Reference: python/reference/bounds_reference.py, point
  // poisson_qn_0.6 (mpmath, 50 digits; K = 2 epochs of floor(1/q) = 33 steps).
  const auto s = poisson_scenario(20, "0.03", 2, 0.1);
  const auto sb = bounds::bounds_of(s);
  CHECK(sb.params.q == 0.03);
  CHECK(sb.params.b == 0);
  CHECK(sb.params.T == 66);
  const auto values = bounds::evaluate_scenario(sb, {2.0, 4.0, 8.0, 2.5});
  const char* mtz = "mtz19_poisson_composition";
  CHECK_THAT(*bound_value(values, mtz, 2.0).value, WithinRel(0.8899177901090146, 1e-9));
  CHECK_THAT(*bound_value(values, mtz, 4.0).value, WithinRel(60.34337299089174, 1e-9));
  CHECK_THAT(*bound_value(values, mtz, 8.0).value, WithinRel(468.8386892683233, 1e-9));
  CHECK_THAT(*bound_value(values, mtz, 2.5).value, WithinRel(1.7578118892293988, 1e-9));
  // Figure 2's (b/n) A K needs a batch of b records: not applicable, with the reason.
  const auto& fig2 = bound_value(values, "ys_fig2_composition_approx", 4.0);
  CHECK_FALSE(fig2.applicable());
  CHECK_THAT(fig2.not_applicable, Contains("q*n = 0.6 is not a whole number"));

  // n = 1000, q = 0.0015: q n = 1.5 (the old mapping rounded to b = 2, q = 0.002).
  // Reference point poisson_qn_1.5 (K = 1 epoch of floor(1/q) = 666 steps).
  const auto big = bounds::bounds_of(poisson_scenario(1000, "0.0015", 1, 0.05));
  const auto big_values = bounds::evaluate_scenario(big, {2.0, 4.0, 10.0});
  CHECK_THAT(*bound_value(big_values, mtz, 2.0).value, WithinRel(0.007367624593288942, 1e-9));
  CHECK_THAT(*bound_value(big_values, mtz, 4.0).value, WithinRel(0.015355678508359717, 1e-9));
  CHECK_THAT(*bound_value(big_values, mtz, 10.0).value, WithinRel(1108.3608213125042, 1e-9));
}

TEST_CASE("a Poisson rate with q n < 0.5 gets bounds, not an error about b = 0",
          "[bounds][scenario]") {
  const auto sb = bounds::bounds_of(poisson_scenario(20, "0.02", 1, 0.1));  // q n = 0.4
  CHECK(sb.params.b == 0);
  std::vector<bounds::BoundValue> values;
  REQUIRE_NOTHROW(values = bounds::evaluate_scenario(sb, {2.0}));
  CHECK(bound_value(values, "mtz19_poisson_composition", 2.0).applicable());
  CHECK(bound_value(values, "gaussian_composition", 2.0).applicable());
}

TEST_CASE("every bound states its neighbouring relation, and a mismatch is explained",
          "[bounds][adjacency]") {
  using bounds::Adjacency;
  // MTZ 2019 and its leading term (Figure 2's approximation) are add/remove accountants.
  for (const auto& info : bounds::bound_catalogue()) {
    INFO(info.name);
    const bool add_remove =
        info.name == "mtz19_poisson_composition" || info.name == "ys_fig2_composition_approx";
    CHECK(info.adjacency == (add_remove ? Adjacency::kAddRemove : Adjacency::kReplaceOne));
  }
  const auto sb = bounds::bounds_of(poisson_scenario(50, "0.04", 1, 0.4));
  CHECK(sb.params.adjacency == Adjacency::kReplaceOne);  // the quadratic worst-case pair
  const auto values = bounds::evaluate_scenario(sb, {2.0});
  CHECK(bound_value(values, "mtz19_poisson_composition", 2.0).adjacency == Adjacency::kAddRemove);
  CHECK(bound_value(values, "gaussian_composition", 2.0).adjacency == Adjacency::kReplaceOne);
  // A custom formula is written for the scenario: it takes the pair's relation.
  CHECK(bounds::bound_adjacency("my_formula", Adjacency::kAddRemove) == Adjacency::kAddRemove);
  CHECK(bounds::bound_adjacency("mtz19_poisson_composition", Adjacency::kReplaceOne) ==
        Adjacency::kAddRemove);
  // check/report print this line where the relations differ, nothing where they agree.
  CHECK(bounds::adjacency_mismatch("gaussian_composition", Adjacency::kReplaceOne,
                                   Adjacency::kReplaceOne)
            .empty());
  CHECK_THAT(bounds::adjacency_mismatch("mtz19_poisson_composition", Adjacency::kAddRemove,
                                        Adjacency::kReplaceOne),
             Contains("assumes add_remove neighbours, the audited pair is replace_one") &&
                 Contains("may exceed it"));
  CHECK_THAT(bounds::adjacency_mismatch("gaussian_composition", Adjacency::kReplaceOne,
                                        Adjacency::kAddRemove),
             Contains("also a replace-one pair"));
}

namespace {

// The crafted-gradient preset, quadratic others (lambda = 0.5), 2-D, fixed order with n/b = 4,
// projected (`projected`) so that the blog's preconditions other than the loss's can hold.
config::Scenario crafted_scenario(const std::string& gradient, const std::string& scheme,
                                  bool projected = false) {
  const std::string text = std::string(kHeader) + R"(lambda = 0.5
dim = 2
[data]
preset = "crafted_gradient"
n = 8
)" + gradient + R"(
[training]
scheme = ")" + scheme + R"("
eta = 0.1
batch_size = 2
epochs = 3
)" + (projected ? "projection_diameter = 4.0\n" : "") +
                           R"(
[noise]
step_std = 0.2
)";
  return test::scenario_from_toml(text, "crafted.toml");
}

}  // namespace

TEST_CASE("a crafted record: a constant g is a convex 0-smooth loss, a varying one no loss",
          "[bounds][scenario][crafted]") {
  SECTION("constant: convex bounds apply, strongly convex ones do not") {
    const auto sb = bounds::bounds_of(crafted_scenario("gradient = [3.0, 4.0]", "fixed_order"));
    CHECK(sb.params.lambda == 0.0);  // <g, theta> is not strongly convex
    CHECK(sb.params.beta == 0.5);    // the others' smoothness
    CHECK(sb.params.S_g == 5.0);     // ||g|| against its absence
    CHECK(std::isinf(sb.params.L));  // the quadratic others are not Lipschitz on R^d
    CHECK(sb.params.adjacency == config::Adjacency::kAddRemove);
    const auto values = bounds::evaluate_scenario(sb, {2.0});
    CHECK(bound_value(values, "ys_thmD.4_convex", 2.0).applicable());
    CHECK(bound_value(values, "gaussian_composition", 2.0).applicable());
    CHECK_THAT(bound_value(values, "ys_thm3.3_fixed_order", 2.0).not_applicable,
               Contains("not strongly convex"));
  }
  SECTION("changing with t: only composition bounds") {
    const auto sb = bounds::bounds_of(
        crafted_scenario("gradient_formula = \"(t == 0) * (k == 0)\"", "fixed_order"));
    CHECK(sb.params.S_g == 1.0);  // max_t ||g_t||: g_0 = (1, 0), then 0
    const auto values = bounds::evaluate_scenario(sb, {2.0});
    for (const char* name :
         {"ys_thmD.4_convex", "ys_thm3.3_fixed_order", "ys_thmD.5_balle_composed"})
      CHECK_THAT(bound_value(values, name, 2.0).not_applicable,
                 Contains("changes with the step t"));
    CHECK(bound_value(values, "gaussian_composition", 2.0).applicable());
  }
  SECTION("changing with t under sampling without replacement: the blog's theorem is out") {
    const auto sb = bounds::bounds_of(
        crafted_scenario("gradient_formula = \"t < 5\"", "sample_without_replacement", true));
    const auto values = bounds::evaluate_scenario(sb, {2.0});
    CHECK_THAT(bound_value(values, "blog_thm1_saturation", 2.0).not_applicable,
               Contains("changes with the step t"));
    CHECK(bound_value(values, "wbk19_swor_composition", 2.0).applicable());
    const auto projected = bounds::bounds_of(
        crafted_scenario("gradient = [3.0, 4.0]", "sample_without_replacement", true));
    CHECK(projected.params.L == 5.0);  // max(lambda D/2 = 1, ||g|| = 5)
    const auto constant = bounds::evaluate_scenario(projected, {2.0});
    CHECK(bound_value(constant, "blog_thm1_saturation", 2.0).applicable());
  }
}

namespace {

// The typical Opacus run on MNIST in its users' numbers (experiments/opacus_mnist.toml):
// Poisson q = 256/60000, z = 1.1, C = 1, T = 3516, add/remove, the record at the clip.
constexpr const char* kOpacus = R"(
[experiment]
seed = 1
trajectories = 100
[model]
loss = "linear"
dim = 1
clip_norm = 1.0
[data]
preset = "crafted_gradient"
n = 60000
gradient = [1.0]
adjacency = "add_remove"
[training]
scheme = "poisson"
batch_size = 256
eta = 0.1
steps = 3516
[noise]
noise_multiplier = 1.1
)";

// Logistic regression with the per-example clip C = 0.5 and no model.feature_clip.
config::Scenario logistic_without_feature_clip(const std::string& model_extra) {
  return test::scenario_from_toml(
      test::logistic_dpsgd(model_extra, 2, "step_std = 0.05") + R"([[bounds.custom]]
name = "uses_beta"
formula = "alpha * beta"
)",
      "logistic.toml");
}

}  // namespace

TEST_CASE("Opacus' numbers in, Opacus' epsilon out: z with C, add/remove, eps(1e-5) = 1.2813",
          "[bounds][scenario][opacus]") {
  const auto s = test::scenario_from_toml(kOpacus, "opacus.toml");
  const auto sb = bounds::bounds_of(s);
  CHECK(sb.params.S_g == 1.0);  // add/remove: one record's clipped gradient, C
  CHECK(sb.params.adjacency == config::Adjacency::kAddRemove);
  CHECK_THAT(bounds::step_noise_ratio(sb.params), WithinRel(1.1, 1e-12));  // z itself
  // T * RDP of the Poisson-subsampled Gaussian at alpha = 12: mpmath at 50 digits,
  // sum_k C(12,k) (1-q)^(12-k) q^k e^((k^2-k)/(2 z^2)) (Mironov-Talwar-Zhang 2019, integer alpha).
  const auto at12 = bounds::evaluate_scenario(sb, {12.0});
  CHECK_THAT(*bound_value(at12, "mtz19_poisson_composition", 12.0).value,
             WithinRel(0.54758240991688461, 1e-9));
  // Opacus (>= 1.0) and dp_accounting convert with Balle et al. 2020, Theorem 21:
  // eps = rdp - (log delta + log alpha)/(alpha - 1) + log((alpha - 1)/alpha), over their
  // orders 1.1 ... 10.9, 12 ... 63; both report 1.28130 at alpha = 12 (mpmath:
  // 1.2813000161256392). Mironov 2017's conversion would say 1.5942.
  std::vector<double> alphas, rdp;
  for (int i = 11; i <= 109; ++i) alphas.push_back(i / 10.0);
  for (int i = 12; i <= 63; ++i) alphas.push_back(i);
  for (const auto& v : bounds::evaluate_scenario(sb, alphas)) {
    if (v.name == "mtz19_poisson_composition") rdp.push_back(*v.value);
  }
  REQUIRE(rdp.size() == alphas.size());
  const auto eps = bounds::epsilon_improved(alphas, rdp, 1e-5);
  CHECK(eps.alpha == 12.0);
  CHECK_THAT(eps.epsilon, WithinRel(1.2813000161256392, 1e-9));
  CHECK_THAT(bounds::epsilon_mironov(alphas, rdp, 1e-5).epsilon, WithinRel(1.594211998, 1e-8));
}

TEST_CASE("the logistic loss with add/remove: Opacus' epsilon, replace-one theorems n/a",
          "[bounds][scenario][opacus][adjacency]") {
  // kOpacus with the logistic loss: record i0 against its absence from D'.
  std::string text = kOpacus;
  const auto swap = [&](const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
  };
  swap("loss = \"linear\"\ndim = 1\n", "loss = \"logistic\"\nfeatures = 1\nlambda = 0.0\n");
  swap("preset = \"crafted_gradient\"\nn = 60000\ngradient = [1.0]\n",
       "preset = \"logistic_synthetic\"\nn = 60000\n");
  const auto linear = bounds::bounds_of(config::parse_experiment(kOpacus, "o.toml").scenarios[0]);
  for (const char* extra : {"", "feature_clip = 1.0\n"}) {
    std::string file = text;
    file.insert(file.find("[data]"), extra);
    const auto s = test::scenario_from_toml(file, "logistic.toml");
    REQUIRE(s.data.absent);
    const auto sb = bounds::bounds_of(s);
    INFO(extra);
    CHECK(sb.params.S_g == 1.0);  // one clipped gradient against none: C, not 2C
    CHECK_THAT(bounds::step_noise_ratio(sb.params), WithinRel(1.1, 1e-12));  // z itself
    const std::vector<double> alphas = {2.0, 12.0};
    const auto values = bounds::evaluate_scenario(sb, alphas);
    const auto want = bounds::evaluate_scenario(linear, alphas);
    for (double a : alphas) {
      CHECK(*bound_value(values, "mtz19_poisson_composition", a).value ==
            *bound_value(want, "mtz19_poisson_composition", a).value);
    }
    CHECK_THAT(*bound_value(values, "mtz19_poisson_composition", 12.0).value,
               WithinRel(0.54758240991688461, 1e-9));
    // A bound stated for replace-one neighbours does not cover a record left out of D'.
    const auto& gauss = bound_value(values, "gaussian_composition", 2.0);
    CHECK_FALSE(gauss.applicable());
    CHECK_THAT(gauss.not_applicable,
               Contains("left out of D'") && Contains("stated for replace_one neighbours"));
    CHECK_THAT(bounds::adjacency_mismatch("gaussian_composition", config::Adjacency::kReplaceOne,
                                          config::Adjacency::kAddRemove, true),
               Contains("does not apply"));
  }
  // Replace-one (the default) keeps S_g = 2C.
  swap("adjacency = \"add_remove\"\n", "");
  const auto r = test::scenario_from_toml(text, "logistic.toml");
  CHECK_FALSE(r.data.absent);
  CHECK(bounds::bounds_of(r).params.S_g == 2.0);
}

TEST_CASE("the logistic loss without model.feature_clip: the composition bounds from S_g = 2C",
          "[bounds][scenario][opacus]") {
  const auto sb = bounds::bounds_of(logistic_without_feature_clip("clip_norm = 0.5"));
  CHECK(sb.not_applicable.empty());
  CHECK(sb.params.S_g == 1.0);  // replace-one: 2C (Proposition 5.2)
  const auto values = bounds::evaluate_scenario(sb, {2.0});
  // K = 2 uses of a Gaussian step with z = s / (eta S_g / b) = 0.05 / 0.025 = 2.
  CHECK_THAT(*bound_value(values, "gaussian_composition", 2.0).value,
             WithinRel(2 * 2.0 / 8.0, 1e-12));
  // Every bound that assumes the loss's smoothness says which key would give it.
  for (const char* name : {"ys_thm4.2_shuffle_partition", "ys_thm2.1_naive", "ys_cor5.3_logreg"}) {
    const auto& v = bound_value(values, name, 2.0);
    CHECK_FALSE(v.applicable());
    CHECK_THAT(v.not_applicable, Contains("model.feature_clip is not set"));
    CHECK_THAT(v.not_applicable, !Contains("loss.feature_clip") && !Contains("step size"));
  }
  // A custom formula naming beta gets no stand-in value.
  CHECK_THAT(bound_value(values, "uses_beta", 2.0).not_applicable,
             Contains("evaluates to NaN") && Contains("beta and L are not defined") &&
                 Contains("model.feature_clip"));
  // Neither clip: no sensitivity, no bound at all, and the reason names both keys.
  const auto none = bounds::bounds_of(logistic_without_feature_clip(""));
  CHECK_THAT(none.not_applicable,
             Contains("model.feature_clip is not set") && Contains("model.clip_norm"));
  // With the feature clip every constant is known (the committed logistic_cor53 setting).
  const auto both =
      bounds::bounds_of(logistic_without_feature_clip("clip_norm = 0.5\nfeature_clip = 1.0"));
  CHECK(both.params.missing_constants.empty());
  CHECK(bound_value(bounds::evaluate_scenario(both, {2.0}), "ys_thm4.2_shuffle_partition", 2.0)
            .applicable());
}
