// The adversary search (search/): the grid-then-compass method on functions with a known
// maximum, the [search] table's checks, the point documents, and the exact evaluation of a
// point against a closed form.
#include <catch2/catch.hpp>
#include <cmath>

#include "rdpaudit/bounds/experiment.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/search/evaluate.hpp"
#include "rdpaudit/search/method.hpp"
#include "rdpaudit/search/spec.hpp"
#include "rdpaudit/sim/simulate.hpp"
#include "with_threads.hpp"

using namespace rdpaudit;
using search::Axis;

namespace {

Axis range(double lo, double hi, int points, bool integer = false) {
  Axis a;
  a.min = lo;
  a.max = hi;
  a.points = points;
  a.integer = integer;
  return a;
}

toml::table parse(const std::string& text) {
  return toml::parse(text, std::string("t.toml"));
}

// Full-batch noisy GD on the linear loss with a crafted record: theta_T ~ N(-eta T g / n,
// T s^2) in D against N(0, T s^2) in D', so R_alpha = alpha (eta T g / n)^2 / (2 T s^2).
const std::string kCrafted = R"(
[experiment]
seed = 3
trajectories = 1000
[model]
loss = "linear"
dim = 1
[data]
preset = "crafted_gradient"
n = 10
gradient = [1.0]
[training]
scheme = "full_batch"
eta = 1.0
steps = 4
[noise]
step_std = 0.5
)";

}  // namespace

TEST_CASE("search: the grid then the compass search find a smooth maximum inside the box",
          "[search]") {
  const auto f = [](const std::vector<double>& x) {
    return -(x[0] - 0.3) * (x[0] - 0.3) - 2 * (x[1] + 1.7) * (x[1] + 1.7);
  };
  const auto out = search::maximise({range(-3, 3, 5), range(-3, 3, 5)}, 200, f, 1e-4);
  REQUIRE(out.best >= 0);
  const auto& x = out.trace[out.best].x;
  CHECK(x[0] == Approx(0.3).margin(1e-3));
  CHECK(x[1] == Approx(-1.7).margin(1e-3));
  CHECK(out.stopped == "converged");
  CHECK(static_cast<long>(out.trace.size()) <= 200);
  // The grid comes first, in product order (the last axis fastest), then the refinement.
  for (std::size_t i = 0; i < 25; ++i) CHECK(out.trace[i].phase == "grid");
  CHECK(out.trace[1].x == std::vector<double>{-3, -1.5});
  CHECK(out.trace[25].phase == "refine");
}

TEST_CASE("search: integer axes move in whole steps and find the maximiser exactly", "[search]") {
  const auto f = [](const std::vector<double>& x) { return -std::fabs(x[0] - 17); };
  const auto out = search::maximise({range(0, 24, 4, true)}, 30, f);
  REQUIRE(out.best >= 0);
  CHECK(out.trace[out.best].x[0] == 17);
  for (const auto& t : out.trace) CHECK(t.x[0] == std::round(t.x[0]));
  // No point is evaluated twice.
  for (std::size_t i = 0; i < out.trace.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) CHECK(out.trace[i].x != out.trace[j].x);
}

TEST_CASE("search: the budget caps the evaluations, ties keep the first point", "[search]") {
  long calls = 0;
  const auto f = [&](const std::vector<double>& x) {
    ++calls;
    return -std::fabs(x[0] - 0.123456);
  };
  const auto out = search::maximise({range(0, 1, 3)}, 5, f, 1e-9);
  CHECK(calls == 5);
  CHECK(out.trace.size() == 5);
  CHECK(out.stopped == "budget");
  const auto flat =
      search::maximise({range(0, 1, 3)}, 100, [](const std::vector<double>&) { return 1.0; });
  CHECK(flat.best == 0);
  CHECK(flat.stopped == "converged");
}

TEST_CASE("search: the refinement moves only on gains wider than the bracket", "[search]") {
  // A peak at 0.3 of height 1e-9 over a plateau: with brackets 1e-6 wide the compass never
  // leaves the grid's best point 0 (two probes per halving of the step, 0.5 down to 1/256,
  // below 1e-3 of the range 2); with exact values it climbs to the peak.
  const auto peak = [](double width) {
    return [width](const std::vector<double>& x) {
      return search::Score(1 - 1e-9 * std::fabs(x[0] - 0.3), width);
    };
  };
  const auto blurred = search::maximise({range(-1, 1, 3)}, 100, peak(1e-6));
  CHECK(blurred.trace.size() == 3 + 2 * 8);
  for (std::size_t i = 3; i < blurred.trace.size(); i += 2)
    CHECK(blurred.trace[i].x[0] == -blurred.trace[i + 1].x[0]);
  const auto sharp = search::maximise({range(-1, 1, 3)}, 100, peak(0));
  CHECK(sharp.trace[sharp.best].x[0] == Approx(0.3).margin(2e-3));
}

TEST_CASE("search: the grid decides between separated peaks, uncovered points are skipped",
          "[search]") {
  // A narrow low peak at 0.1 and a broad high one at 0.8; NaN (not covered) below 0.
  const auto f = [](const std::vector<double>& x) {
    if (x[0] < 0) return std::nan("");
    return std::max(1.0 - 50 * std::fabs(x[0] - 0.1), 2.0 - 4 * std::fabs(x[0] - 0.8));
  };
  const auto out = search::maximise({range(-1, 1, 9)}, 60, f, 1e-5);
  REQUIRE(out.best >= 0);
  CHECK(out.trace[out.best].x[0] == Approx(0.8).margin(1e-4));
  CHECK(out.trace[out.best].value == Approx(2.0).margin(1e-3));
  bool nan_seen = false;
  for (const auto& t : out.trace) nan_seen = nan_seen || std::isnan(t.value);
  CHECK(nan_seen);
  // Nothing covered: no best, no refinement.
  const auto none = search::maximise({range(-1, -0.5, 3)}, 10, f);
  CHECK(none.best == -1);
  CHECK(none.trace.size() == 3);
  // A list axis is the grid only.
  Axis list;
  list.list = {0.8, 0.1, 0.5};
  const auto listed = search::maximise({list}, 10, f);
  CHECK(listed.trace.size() == 3);
  CHECK(listed.trace[listed.best].x[0] == 0.8);
}

TEST_CASE("search: the [search] table's bad input names the key", "[search]") {
  const std::string head = kCrafted + "[search]\n";
  const auto fails = [&](const std::string& table, const std::string& message) {
    INFO(table);
    try {
      search::read_spec(parse(head + table));
      FAIL("no InputError");
    } catch (const InputError& e) {
      CHECK_THAT(e.what(), Catch::Contains(message));
    }
  };
  const std::string ok_param = "params = [{key = \"training.steps\", min = 1, max = 8}]\n";
  fails("objective = \"renyi\"\nalpha = 2\nbudget = 0\n" + ok_param,
        "search.budget = 0 (the number of evaluations");
  fails("objective = \"renyi\"\nalpha = 2\nbudget = 3\n" + ok_param,
        "search.budget = 3 (the grid of search.params has 5 points");
  fails(
      "objective = \"renyi\"\nalpha = 2\nbudget = 9\nparams = [{key = \"training.steps\", min "
      "= 8, max = 1}]\n",
      "search.params[0].max = 1 (empty range: must be >= search.params[0].min = 8)");
  fails(
      "objective = \"renyi\"\nalpha = 2\nbudget = 9\nparams = [{key = \"training.steps\", "
      "values = []}]\n",
      "search.params[0].values = [] (must be a non-empty list");
  fails(
      "objective = \"renyi\"\nalpha = 2\nbudget = 9\nparams = [{key = \"training.steps\", min "
      "= 1.5, max = 4}]\n",
      "search.params[0].min = 1.5 (training.steps takes whole numbers");
  fails("objective = \"ratio\"\nalpha = 2\nbudget = 9\n" + ok_param, "search.bound = <missing>");
  fails("objective = \"best\"\nbudget = 9\n" + ok_param, "search.objective = \"best\"");
  fails("objective = \"renyi\"\nalpha = 1\nbudget = 9\n" + ok_param,
        "search.alpha = 1 (orders must be in (1, 10^4])");
  fails("objective = \"renyi\"\nalpha = 2\nbudget = 9\nparams = []\n", "search.params = []");
  fails("objective = \"renyi\"\nalpha = 2\nbudget = 9\nsize = 3\n" + ok_param,
        "search.size = 3 (unknown key");
  fails(
      "objective = \"renyi\"\nalpha = 2\nbudget = 9\nparams = [{key = \"experiment.seed\", "
      "min = 1, max = 2}]\n",
      "search.params[0].key = \"experiment.seed\"");
  try {
    search::read_spec(parse(kCrafted));
    FAIL("no InputError");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("search = <missing>"));
  }
}

TEST_CASE("search: integer bounds beyond 2^53 are read as numbers, not an empty range",
          "[search]") {
  // toml++ gives no double for an integer it cannot hold exactly: max = 2^53 + 1 was read as
  // missing and reported as an empty range (issue 37).
  const auto spec = search::read_spec(parse(
      kCrafted +
      "[search]\nobjective = \"renyi\"\nalpha = 2\nbudget = 9\nparams = [{key = "
      "\"data.gradient_formula\", formula = \"t < {}\", min = 1, max = 9007199254740993, points "
      "= 3, integer = true}]\n"));
  REQUIRE(spec.params.size() == 1);
  CHECK(spec.params[0].axis.min == 1);
  CHECK(spec.params[0].axis.max == Approx(9007199254740992.0));
  CHECK(spec.params[0].axis.grid().size() == 3);
}

TEST_CASE("search: a point's document sets the keys, drops [search] and reads as one scenario",
          "[search]") {
  const auto doc = parse(kCrafted +
                         "[search]\nobjective = \"renyi\"\nalpha = [2, 4]\nbudget = 20\n"
                         "params = [{key = \"training.steps\", min = 1, max = 9, points = 3}, "
                         "{key = \"init.std\", values = [0.0, 0.5]}, {key = "
                         "\"data.gradient_formula\", formula = \"t < {}\", min = 1, max = 3, "
                         "integer = true}]\n");
  const auto spec = search::read_spec(doc);
  REQUIRE(spec.params.size() == 3);
  CHECK(spec.params[0].axis.integer);
  CHECK(spec.params[0].axis.grid() == std::vector<double>{1, 5, 9});
  CHECK(search::value_text(spec.params[2], 2) == "t < 2");
  auto point = search::point_document(doc, spec, {5, 0.5, 2});
  point["data"].as_table()->erase("gradient");
  CHECK(!point.contains("search"));
  CHECK(point.at_path("training.steps").value<std::int64_t>() == 5);
  CHECK(point.at_path("training.steps").is_integer());
  CHECK(point.at_path("init.std").value<double>() == 0.5);
  CHECK(point.at_path("data.gradient_formula").value<std::string>() == "t < 2");
  const auto exp = bounds::parse_experiment(search::to_text(point), "t.toml");
  REQUIRE(exp.scenarios.size() == 1);
  CHECK(exp.scenarios.front().steps == 5);
  // An element of a list: init.mean[0].
  const auto listed = parse(kCrafted +
                            "[init]\nmean = [0.0]\n[search]\nobjective = \"renyi\"\n"
                            "alpha = 2\nbudget = 5\nparams = [{key = \"init.mean[0]\", "
                            "min = -1, max = 1}]\n");
  const auto lspec = search::read_spec(listed);
  const auto lpoint = search::point_document(listed, lspec, {0.25});
  CHECK(lpoint.at_path("init.mean[0]").value<double>() == 0.25);
  CHECK(bounds::parse_experiment(search::to_text(lpoint), "t.toml").scenarios.size() == 1);
  CHECK_THROWS_WITH(
      search::read_spec(parse(kCrafted + "[search]\nobjective = \"renyi\"\nalpha = 2\n"
                                         "budget = 5\nparams = [{key = \"init.mean[0]\", "
                                         "min = -1, max = 1}]\n")),
      Catch::Contains("search.params[0].key = \"init.mean[0]\" (an element"));
}

TEST_CASE("search: a point's value is the exact R_alpha's certified lower end", "[search]") {
  const auto doc = parse(kCrafted +
                         "[search]\nobjective = \"renyi\"\nalpha = [2, 8]\nbudget = 4\n"
                         "params = [{key = \"training.steps\", values = [4]}]\n");
  auto spec = search::read_spec(doc);
  const auto exp =
      bounds::parse_experiment(search::to_text(search::point_document(doc, spec, {4})), "t.toml");
  const auto e = search::evaluate(exp.scenarios.front(), spec, exp.seed);
  REQUIRE(e.covered);
  // alpha (eta T g / n)^2 / (2 T s^2) at the largest order, 8: 8 * 0.16 / 2 = 0.64.
  const double truth = 8 * (0.4 * 0.4) / (2 * 4 * 0.25);
  CHECK(e.alpha == 8);
  CHECK(e.value == e.lower);
  CHECK(e.lower <= truth * (1 + 1e-9));
  CHECK(e.upper >= truth * (1 - 1e-9));
  CHECK(e.value == Approx(truth).epsilon(1e-6));

  // The ratio to the Gaussian composition (sensitivity eta g / n = 0.1 over noise 0.5, T = 4
  // steps): alpha 4 0.04 / 2 = 8 * 0.08 = 0.64 as well, a ratio of 1.
  auto ratio = spec;
  ratio.objective = search::ObjectiveKind::kRatio;
  ratio.bound = "gaussian_composition";
  const auto r = search::evaluate(exp.scenarios.front(), ratio, exp.seed);
  REQUIRE(r.covered);
  CHECK(r.value == Approx(1.0).epsilon(1e-6));
  CHECK(r.bound == Approx(truth).epsilon(1e-9));
  // delta(eps) of the Gaussian pair, mu = 0.4 / (0.5 * 2) = 0.4 (Balle & Wang 2018, Theorem 8):
  // Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2).
  auto delta = spec;
  delta.objective = search::ObjectiveKind::kDelta;
  delta.epsilon = 0.5;
  const auto phi = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  const double mu = 0.4, eps = 0.5;
  const double want = phi(-eps / mu + mu / 2) - std::exp(eps) * phi(-eps / mu - mu / 2);
  const auto d = search::evaluate(exp.scenarios.front(), delta, exp.seed);
  REQUIRE(d.covered);
  CHECK(d.value == Approx(want).epsilon(1e-6));

  // A projected chain has no enumerated mixture: delta comes from the exact chain's privacy
  // profile, ranked by its certified lower end. The ball of radius 5 holds the iterates (sd 1)
  // all but 1e-6 of the time, so delta is the unprojected one to well within 1 %.
  std::string projected = kCrafted;
  projected.replace(projected.find("steps = 4"), 9, "steps = 4\nprojection_diameter = 10.0");
  const auto pexp = bounds::parse_experiment(projected, "t.toml");
  const auto pd = search::evaluate(pexp.scenarios.front(), delta, pexp.seed);
  REQUIRE(pd.covered);
  CHECK_THAT(pd.how, Catch::Contains("exact chain"));
  CHECK(pd.value == pd.lower);
  CHECK(pd.lower <= pd.upper);
  CHECK(pd.lower == Approx(want).epsilon(1e-2));
  CHECK(pd.upper == Approx(want).epsilon(1e-2));
  CHECK(search::exact_gap(pexp.scenarios.front(), delta, pexp.seed).empty());

  ratio.bound = "no_such_bound";
  CHECK_THROWS_WITH(search::evaluate(exp.scenarios.front(), ratio, exp.seed),
                    Catch::Contains("search.bound = \"no_such_bound\""));
}

namespace {

// Full-batch noisy GD in 2-D on the loss given by its gradient tanh(x) per coordinate (no
// projection): the exact engines cover no point of it (a gradient formula needs a projection's
// interval, and the pair differs along both axes). The last iterate is Gaussian: the mean
// shift is T (eta / n) tanh(x_i0) against the zero record, the covariance T s^2 I.
const std::string kTanh2d = R"toml(
[experiment]
seed = 5
trajectories = 1000
[model]
loss = "gradient_formula"
dim = 2
gradient = "tanh(x)"
[data]
points = [[2.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]
differing_index = 0
replacement = [0.0, 0.0]
[training]
scheme = "full_batch"
eta = 0.2
steps = 4
[noise]
step_std = 0.2
[bounds]
S_g = 2.0
)toml";

double tanh_renyi(double alpha, double degrees) {
  const double r = 2.0, a = degrees * 3.14159265358979323846 / 180.0;
  const double shift = 4 * 0.2 / 4;  // T eta / n
  const double x = shift * std::tanh(r * std::cos(a)), y = shift * std::tanh(r * std::sin(a));
  return alpha * (x * x + y * y) / (2 * 4 * 0.04);
}

config::ExperimentSpec point_of(const toml::table& doc, const search::Spec& spec,
                                const std::vector<double>& x) {
  return bounds::parse_experiment(search::to_text(search::point_document(doc, spec, x)), "t.toml");
}

}  // namespace

TEST_CASE("search: a point the exact engines do not cover is evaluated by sampling", "[search]") {
  const auto doc = parse(kTanh2d +
                         "[search]\nobjective = \"renyi\"\nalpha = 2\nbudget = 4\n"
                         "pilot_trajectories = 20000\nparams = [{key = \"data.points[0]\", "
                         "radius = 2.0, values = [0.0, 45.0]}]\n");
  const auto spec = search::read_spec(doc);
  CHECK(spec.evaluator == search::Evaluator::kAuto);
  CHECK(spec.pilot_trajectories == 20000);
  for (double angle : {0.0, 45.0}) {
    INFO(angle);
    const auto exp = point_of(doc, spec, {angle});
    const auto& s = exp.scenarios.front();
    // Not covered: the exact evaluator says why, exact_gap says so before any evaluation.
    const std::string gap = search::exact_gap(s, spec, exp.seed);
    CHECK_THAT(gap, Catch::Contains("exact chain"));
    const auto exact = search::evaluate(s, spec, exp.seed);
    CHECK_FALSE(exact.covered);
    // Sampled: the plug-in within 5 standard errors (plus its small upward bias) of the
    // closed form, on the logistic score (2-D).
    const auto e = search::evaluate_sampled(s, spec, exp.seed);
    REQUIRE(e.covered);
    CHECK(e.evaluator == search::Evaluator::kSampled);
    CHECK_THAT(e.how, Catch::Contains("logistic-ratio") && Catch::Contains("10000 + 10000"));
    CHECK(e.resolution > 0);
    CHECK(e.lower <= e.value);
    CHECK(e.value <= e.upper);
    const double truth = tanh_renyi(2, angle);
    CHECK(std::abs(e.value - truth) < 5 * e.resolution + 0.03 * truth);
  }
  // The diagonal leaks more than the axis (tanh saturates: 2 tanh(sqrt 2)^2 > tanh(2)^2).
  CHECK(tanh_renyi(2, 45) > 1.6 * tanh_renyi(2, 0));

  // A covered scenario: exact_gap is empty, and the sampled value agrees with the exact one.
  const auto cdoc = parse(kCrafted +
                          "[search]\nobjective = \"renyi\"\nalpha = 2\nbudget = 4\n"
                          "pilot_trajectories = 20000\n"
                          "params = [{key = \"training.steps\", values = [4]}]\n");
  const auto cspec = search::read_spec(cdoc);
  const auto cexp = point_of(cdoc, cspec, {4});
  CHECK(search::exact_gap(cexp.scenarios.front(), cspec, cexp.seed).empty());
  const auto exact = search::evaluate(cexp.scenarios.front(), cspec, cexp.seed);
  const auto sampled = search::evaluate_sampled(cexp.scenarios.front(), cspec, cexp.seed);
  REQUIRE(exact.covered);
  REQUIRE(sampled.covered);
  CHECK(std::abs(sampled.value - exact.value) < 5 * sampled.resolution + 0.03 * exact.value);
}

TEST_CASE(
    "search: sampled evaluations draw from streams run never draws, the same for any "
    "thread count",
    "[search]") {
  const auto exp = bounds::parse_experiment(kCrafted, "t.toml");
  const auto& s = exp.scenarios.front();
  // The evaluator simulates the search's datasets, D then D' (the run's are 0 - 3).
  CHECK(search::kSampledDatasets[0] == rng::kSearchD);
  CHECK(search::kSampledDatasets[1] == rng::kSearchDPrime);
  for (rng::Dataset run : {rng::kD, rng::kDPrime, rng::kPilotD, rng::kPilotDPrime}) {
    CHECK(search::kSampledDatasets[0] != run);
    CHECK(search::kSampledDatasets[1] != run);
  }
  CHECK_FALSE(rng::is_dprime(rng::kSearchD));
  CHECK(rng::is_dprime(rng::kSearchDPrime));
  CHECK(rng::is_dprime(rng::kDPrime));
  CHECK(rng::is_dprime(rng::kPilotDPrime));
  // The search's trajectory j is not the counted or the pilot trajectory j of the same seed;
  // its D' trains on D' (mean 0), its D on D (mean -eta T g / n = -0.4).
  const int n = 4000;
  const Eigen::MatrixXd search_d = sim::simulate_last_iterates(s, exp.seed, rng::kSearchD, 0, n);
  const Eigen::MatrixXd search_q =
      sim::simulate_last_iterates(s, exp.seed, rng::kSearchDPrime, 0, n);
  for (rng::Dataset other : {rng::kD, rng::kDPrime, rng::kPilotD, rng::kPilotDPrime}) {
    const Eigen::MatrixXd x = sim::simulate_last_iterates(s, exp.seed, other, 0, n);
    int equal = 0;
    for (int j = 0; j < n; ++j) equal += x(j, 0) == search_d(j, 0) || x(j, 0) == search_q(j, 0);
    CHECK(equal == 0);
  }
  CHECK(search_d.col(0).mean() == Approx(-0.4).margin(0.05));
  CHECK(search_q.col(0).mean() == Approx(0.0).margin(0.05));

  const auto doc = parse(kCrafted +
                         "[search]\nobjective = \"renyi\"\nalpha = [2, 4]\nbudget = 4\n"
                         "pilot_trajectories = 4000\n"
                         "params = [{key = \"training.steps\", values = [4]}]\n");
  const auto spec = search::read_spec(doc);
  const auto one = test::with_threads(1, [&] { return search::evaluate_sampled(s, spec, 3); });
  const auto two = test::with_threads(2, [&] { return search::evaluate_sampled(s, spec, 3); });
  REQUIRE(one.covered);
  CHECK(one.value == two.value);
  CHECK(one.lower == two.lower);
  CHECK(one.upper == two.upper);
  // Another seed, other streams: another value.
  const auto other = search::evaluate_sampled(s, spec, 4);
  CHECK(other.value != one.value);
}

TEST_CASE("search: a direction parameter sets a 2-vector, its bad input names the key",
          "[search]") {
  const auto doc = parse(kTanh2d +
                         "[search]\nobjective = \"renyi\"\nalpha = 2\nbudget = 9\n"
                         "params = [{key = \"data.points[0]\", radius = 2.0, min = 0, max = 90, "
                         "points = 3}, {key = \"data.replacement\", values = [[0.0, 0.0], "
                         "[0.0, 1.0]]}]\n");
  const auto spec = search::read_spec(doc);
  REQUIRE(spec.params.size() == 2);
  CHECK(spec.params[0].axis.grid() == std::vector<double>{0, 45, 90});
  CHECK(spec.params[0].axis.refined());
  CHECK_FALSE(spec.params[1].axis.refined());
  // Whole multiples of 90 degrees lie exactly on an axis.
  CHECK(spec.params[0].vector_at(90) == std::vector<double>{0.0, 2.0});
  CHECK(spec.params[0].vector_at(180) == std::vector<double>{-2.0, 0.0});
  CHECK(spec.params[0].vector_at(45)[0] == Approx(std::sqrt(2.0)));
  CHECK(search::value_text(spec.params[0], 90) == "90 deg: [0, 2]");
  CHECK(search::value_text(spec.params[1], 1) == "[0, 1]");
  const auto point = search::point_document(doc, spec, {90, 1});
  CHECK(point.at_path("data.points[0][0]").value<double>() == 0.0);
  CHECK(point.at_path("data.points[0][1]").value<double>() == 2.0);
  CHECK(point.at_path("data.points[1][0]").value<double>() == 0.0);
  CHECK(point.at_path("data.replacement[1]").value<double>() == 1.0);
  const auto exp = bounds::parse_experiment(search::to_text(point), "t.toml");
  REQUIRE(exp.scenarios.size() == 1);
  CHECK(exp.scenarios.front().data.points(0, 1) == 2.0);
  CHECK(exp.scenarios.front().data.replacement(1) == 1.0);

  const auto fails = [&](const std::string& base, const std::string& table,
                         const std::string& message) {
    INFO(table);
    try {
      search::read_spec(
          parse(base + "[search]\nobjective = \"renyi\"\nalpha = 2\nbudget = 9\n" + table));
      FAIL("no InputError");
    } catch (const InputError& e) {
      CHECK_THAT(e.what(), Catch::Contains(message));
    }
  };
  fails(kTanh2d, "params = [{key = \"data.points[0]\", radius = 0.0, min = 0, max = 90}]\n",
        "search.params[0].radius = 0.0 (must be a number in (0, 1e100]");
  fails(kTanh2d, "params = [{key = \"data.points[0]\", radius = \"big\", min = 0, max = 90}]\n",
        "search.params[0].radius = \"big\"");
  fails(kCrafted, "params = [{key = \"data.gradient\", radius = 1.0, min = 0, max = 90}]\n",
        "search.params[0].key = \"data.gradient\" (a direction (radius) sets a 2-vector");
  fails(kTanh2d,
        "params = [{key = \"data.points[0]\", radius = 1.0, formula = \"{}\", min = 0, "
        "max = 90}]\n",
        "search.params[0].formula = \"{}\" (a direction (radius) takes an angle");
  fails(kTanh2d, "params = [{key = \"data.replacement\", values = [[1.0, 0.0], [1.0]]}]\n",
        "search.params[0].values[1] = [ 1.0 ] (must have 2 numbers");
  fails(kTanh2d, "params = [{key = \"data.replacement\", values = [[1.0, \"a\"]]}]\n",
        "search.params[0].values[0][1] = \"a\" (must be a finite number");
  fails(kTanh2d, "params = [{key = \"data.points[0]\", radius = 1.0, values = [[1.0, 0.0]]}]\n",
        "search.params[0].values = ");
  fails(kTanh2d,
        "evaluator = \"mc\"\nparams = [{key = \"data.points[0]\", radius = 1.0, min = 0, "
        "max = 90}]\n",
        "search.evaluator = \"mc\" (must be \"auto\"");
  fails(kTanh2d,
        "pilot_trajectories = 10\nparams = [{key = \"data.points[0]\", radius = 1.0, min = 0, "
        "max = 90}]\n",
        "search.pilot_trajectories = 10 (trajectories per dataset");
}
