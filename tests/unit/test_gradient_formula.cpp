// model.loss = "gradient_formula": validation of model.gradient, the bounds' constants as the
// user states them, the simulator against the quadratic loss it can spell, and the exact
// engine's enclosures of a map that is not affine (against the quadratic's engine and a Monte
// Carlo run of a sin-shaped landscape).
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "mc_size.hpp"
#include "rdpaudit/bounds/experiment.hpp"
#include "rdpaudit/bounds/scenario.hpp"
#include "rdpaudit/config/load.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/exact/chain.hpp"
#include "rdpaudit/exact/formula.hpp"
#include "rdpaudit/sim/simulate.hpp"

using namespace rdpaudit;

namespace {

// n = 10 records: 0 except record 0 = 1 in D, -1 in D'; projected onto [-1, 1].
std::string experiment(const std::string& model, const std::string& extra = "") {
  return R"(
[experiment]
seed = 11
trajectories = 1000
[model]
)" + model +
         R"(
[data]
points = [[1.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0]]
differing_index = 0
replacement = [-1.0]
[training]
scheme = "sample_without_replacement"
eta = 0.2
batch_size = 2
steps = 6
projection_diameter = 2.0
[noise]
step_std = 0.15
)" + extra;
}

const std::string kFormula = "loss = \"gradient_formula\"\ngradient = \"theta - x\"";
const std::string kQuadratic = "loss = \"quadratic\"\nlambda = 1.0";

std::string error_of(const std::string& text) {
  try {
    bounds::parse_experiment(text, "t.toml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string formula_error(const std::string& formula) {
  return error_of(experiment("loss = \"gradient_formula\"\ngradient = \"" + formula + "\""));
}

config::Scenario scenario(const std::string& text) {
  return config::parse_experiment(text, "t.toml").scenarios.at(0);
}

// The sin-shaped landscape g(theta, x) = 2 sin(3 theta) + x on the experiment's chain.
exact::ChainSpec landscape_chain() {
  const std::string model = "loss = \"gradient_formula\"\ngradient = \"2 * sin(3 * theta) + x\"";
  std::string why;
  const auto c = exact::chain_from_scenario(scenario(experiment(model)), why);
  INFO(why);
  REQUIRE(c);
  return *c;
}

}  // namespace

TEST_CASE("model.gradient: a formula of theta and x, checked at validate", "[config][formula]") {
  const config::Scenario s = scenario(experiment(kFormula));
  CHECK(s.loss == config::LossKind::kGradientFormula);
  CHECK(s.gradient_formula == "theta - x");
  CHECK(std::isnan(s.sensitivity));  // nothing derived from the formula

  CHECK_THAT(formula_error("theta + t"),
             Catch::Contains("model.gradient = \"theta + t\" (unknown name \"t\" at position 8"));
  CHECK_THAT(formula_error("theta = 1"),
             Catch::Contains("model.gradient = \"theta = 1\" (assignment is not allowed"));
  CHECK_THAT(formula_error("theta, x"), Catch::Contains("not a comma-separated list"));
  CHECK_THAT(formula_error("sin(theta"), Catch::Contains("syntax error"));
  // theta = 0 is one of the 1001 points over the projection's interval [-1, 1]
  CHECK_THAT(formula_error("1 / theta"),
             Catch::Contains("model.gradient = \"1 / theta\" (gives inf at theta = 0, x = -1"));
  CHECK_THAT(formula_error("sqrt(x)"), Catch::Contains("nan at theta = -1, x = -1"));
  CHECK_THAT(error_of(experiment("loss = \"gradient_formula\"")),
             Catch::Contains("model.gradient"));
  std::string paper_noise = experiment(kFormula);
  paper_noise.replace(paper_noise.find("step_std = 0.15"), 15, "paper_noise_multiplier = 1.0");
  CHECK_THAT(error_of(paper_noise), Catch::Contains("gradient_formula: none is derived"));
  // a crafted record needs the other records' loss to be quadratic or linear
  std::string crafted = experiment(kFormula);
  crafted.replace(crafted.find("points ="), crafted.find("[training]") - crafted.find("points ="),
                  "preset = \"crafted_gradient\"\nn = 10\ngradient = [1.0]\n");
  CHECK_THAT(error_of(crafted), Catch::Contains("but model.loss = \"gradient_formula\""));
}

TEST_CASE("gradient formula: the bounds apply only with the constants the user states",
          "[bounds][formula]") {
  const auto values = [](const std::string& extra) {
    const config::Scenario s = scenario(experiment(kFormula, "[bounds]\nalphas = [2]\n" + extra));
    const bounds::ScenarioBounds sb = bounds::bounds_of(s);
    return std::make_pair(sb, bounds::evaluate_scenario(sb, {2.0}));
  };
  {
    const auto [sb, v] = values("");
    CHECK_THAT(sb.not_applicable, Catch::Contains("state it as bounds.S_g"));
  }
  {
    const auto [sb, v] = values("S_g = 2.0\n");
    CHECK(sb.not_applicable.empty());
    bool composition = false, blog = false;
    for (const auto& b : v) {
      if (b.name == "wbk19_thm27_swor_gaussian") composition = b.applicable();
      if (b.name == "blog_thm1_saturation") {
        blog = b.applicable();
        CHECK_THAT(b.not_applicable, Catch::Contains("nothing says the loss is convex"));
      }
    }
    CHECK(composition);
    CHECK_FALSE(blog);
  }
  {
    const auto [sb, v] = values("S_g = 2.0\nlambda = 0.0\nbeta = 1.0\nL = 2.0\n");
    bool blog = false;
    for (const auto& b : v) {
      if (b.name == "blog_thm1_saturation") blog = b.applicable();
    }
    CHECK(blog);
    CHECK_THAT(sb.derivation, Catch::Contains("user's claims"));
  }
}

TEST_CASE("gradient formula: theta - x simulates the quadratic loss with lambda = 1 in law",
          "[sim][formula]") {
  // the formula's runs draw their batches by the general path and the quadratic's by sums,
  // so the draws differ; the laws agree: mean and variance within 5 standard errors, under
  // every scheme
  for (const char* scheme : {"sample_without_replacement", "shuffle_partition", "fixed_order",
                             "shuffle_each_epoch", "poisson"}) {
    std::string f = experiment(kFormula), q = experiment(kQuadratic);
    for (std::string* t : {&f, &q}) {
      t->replace(t->find("sample_without_replacement"), 26, scheme);
      if (std::string(scheme) == "poisson")
        t->replace(t->find("batch_size = 2"), 14, "sampling_rate = 0.2");
    }
    const long N = 100000;
    for (auto dataset : {rng::Dataset::kD, rng::Dataset::kDPrime}) {
      const Eigen::MatrixXd a = sim::simulate_last_iterates(scenario(f), 3, dataset, 0, N);
      const Eigen::MatrixXd b = sim::simulate_last_iterates(scenario(q), 4, dataset, 0, N);
      const double ma = a.mean(), mb = b.mean();
      const double va = (a.array() - ma).square().mean(), vb = (b.array() - mb).square().mean();
      INFO(scheme << ": means " << ma << " " << mb << ", variances " << va << " " << vb);
      CHECK(std::fabs(ma - mb) <= 5 * std::sqrt((va + vb) / N));
      CHECK(std::fabs(va - vb) <= 5 * std::sqrt(2.0 * (va * va + vb * vb) / N) * 1.5);
    }
  }
}

TEST_CASE("gradient formula: per coordinate at d = 2, theta - x is the quadratic loss in law",
          "[sim][formula]") {
  // the formula applies to each coordinate (theta_k, x_k); the ball of diameter 2 couples them
  std::string f = experiment(kFormula + "\ndim = 2"), q = experiment(kQuadratic + "\ndim = 2");
  for (std::string* t : {&f, &q}) {
    t->replace(t->find("points = "), t->find("differing_index") - t->find("points = "),
               "points = [[1.0, 0.5], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], "
               "[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]\n");
    t->replace(t->find("replacement = [-1.0]"), 20, "replacement = [-1.0, 0.5]");
  }
  const long N = 100000;
  const Eigen::MatrixXd a = sim::simulate_last_iterates(scenario(f), 3, rng::Dataset::kD, 0, N);
  const Eigen::MatrixXd b = sim::simulate_last_iterates(scenario(q), 4, rng::Dataset::kD, 0, N);
  REQUIRE(a.cols() == 2);
  for (int k = 0; k < 2; ++k) {
    const double ma = a.col(k).mean(), mb = b.col(k).mean();
    const double va = (a.col(k).array() - ma).square().mean();
    const double vb = (b.col(k).array() - mb).square().mean();
    INFO("coordinate " << k << ": means " << ma << " " << mb << ", variances " << va << " " << vb);
    CHECK(std::fabs(ma - mb) <= 5 * std::sqrt((va + vb) / N));
    CHECK(std::fabs(va - vb) <= 5 * std::sqrt(2.0 * (va * va + vb * vb) / N) * 1.5);
  }
}

TEST_CASE("exact engine: the interval enclosure of a formula and its derivative",
          "[exact][formula]") {
  std::string why;
  const auto f = exact::GradientFormula::parse("sin(3 * theta) + x^2 - abs(theta) / 2", why);
  REQUIRE(f);
  exact::Interval v, d;
  f->enclose(-0.3, 0.4, 0.5, v, d);
  // sampled values and derivatives lie inside
  for (int i = 0; i <= 1000; ++i) {
    const double t = -0.3 + 0.7 * i / 1000.0;
    const double g = std::sin(3 * t) + 0.25 - std::fabs(t) / 2;
    const double dg = 3 * std::cos(3 * t) - (t > 0 ? 0.5 : -0.5);
    CHECK(g >= v.lo);
    CHECK(g <= v.hi);
    CHECK(dg >= d.lo);
    CHECK(dg <= d.hi);
  }
  CHECK(d.hi == Approx(3.5));  // cos(0) = 1 is inside, and the kink's -(-1/2)
  CHECK(f->value(0.2, 0.5) == Approx(std::sin(0.6) + 0.25 - 0.1));
  CHECK_FALSE(exact::GradientFormula::parse("theta > 0 ? 1 : -1", why));
  CHECK_THAT(why, Catch::Contains("comparisons"));
  CHECK_FALSE(exact::GradientFormula::parse("rint(theta)", why));
  CHECK_THAT(why, Catch::Contains("\"rint\""));
  const auto g = exact::GradientFormula::parse("log(theta)", why);
  REQUIRE(g);
  g->enclose(-1, 1, 0, v, d);
  CHECK_FALSE(v.finite());
  CHECK(exact::GradientFormula::parse("-theta^2", why)->value(3, 0) == -9.0);
  CHECK(exact::GradientFormula::parse("2^3^2", why)->value(0, 0) == Approx(512.0));
}

TEST_CASE("exact engine: the formula theta - x brackets the quadratic loss's R_alpha",
          "[exact][formula]") {
  std::string why;
  const auto cf = exact::chain_from_scenario(scenario(experiment(kFormula)), why);
  INFO(why);
  REQUIRE(cf);
  REQUIRE(cf->formula);
  const auto cq = exact::chain_from_scenario(scenario(experiment(kQuadratic)), why);
  REQUIRE(cq);
  exact::EngineOptions o;
  o.cells_per_sd = 20;
  const auto lf = exact::evolve_pair(*cf, o), lq = exact::evolve_pair(*cq, o);
  const auto rf = exact::renyi_brackets(lf.d, lf.dprime, {2, 8}, o.renyi);
  const auto rq = exact::renyi_brackets(lq.d, lq.dprime, {2, 8}, o.renyi);
  for (std::size_t i = 0; i < rf.size(); ++i) {
    for (bool fwd : {true, false}) {
      const exact::Bracket a = fwd ? rf[i].forward : rf[i].backward;
      const exact::Bracket b = fwd ? rq[i].forward : rq[i].backward;
      INFO("alpha " << rf[i].alpha << (fwd ? " forward" : " backward") << ": formula [" << a.lo
                    << ", " << a.hi << "], quadratic [" << b.lo << ", " << b.hi << "]");
      CHECK(a.lo <= b.hi);
      CHECK(b.lo <= a.hi);
      CHECK(a.lo > 0);
      CHECK(a.hi - a.lo <= 2e-3 * a.lo);
    }
  }
}

TEST_CASE("exact engine: a sin-shaped landscape's law brackets a Monte Carlo run of it",
          "[exact][formula]") {
  // g(theta, x) = 2 sin(3 theta) + x: a non-convex landscape whose update map is not even
  // monotone (m' = 1 - (eta / b) 2 * 6 cos(3 theta) = 1 - 1.2 cos(3 theta) < 0 for |theta| <
  // 0.2), projected onto [-1, 1]; the differing record x = 1 in D, -1 in D', the others 0;
  // b = 2 of n = 10 without replacement, eta = 0.2, s = 0.15, T = 5; the default grid
  exact::ChainSpec spec = landscape_chain();
  spec.steps = 5;
  const exact::CellLaw law = exact::evolve_pair(spec, {}).d.last;
  const int per = 40, bins = law.cells / per;
  std::vector<double> lo(bins + 2, 0.0), hi(bins + 2, 0.0);
  for (int k = 0; k < law.cells; ++k) {
    lo[std::min(bins - 1, k / per)] += law.mass_lo[k];
    hi[std::min(bins - 1, k / per)] += law.mass_hi[k];
  }
  lo[bins] = law.points[0].mass.lo;
  hi[bins] = law.points[0].mass.hi;
  lo[bins + 1] = law.points[1].mass.lo;
  hi[bins + 1] = law.points[1].mass.hi;
  std::mt19937_64 gen(20261202);
  std::normal_distribution<double> z(0.0, 1.0);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const long N = rdpaudit::test::exact_mc_trajectories(1'000'000);
  std::vector<long> count(bins + 2, 0);
  const double h = law.width(), eta = spec.eta, b = spec.batch;
  const auto g = [](double t, double x) { return 2 * std::sin(3 * t) + x; };
  for (long i = 0; i < N; ++i) {
    double th = 0;
    for (long t = 0; t < spec.steps; ++t) {
      const bool in = u(gen) < 0.2;  // b / n: the record's chance; the others are 0
      const double sum = in ? g(th, 1.0) + g(th, 0.0) : 2 * g(th, 0.0);
      th = std::clamp(th - eta / b * sum + spec.step_std * z(gen), -1.0, 1.0);
    }
    int k;
    if (th == -1.0)
      k = bins;
    else if (th == 1.0)
      k = bins + 1;
    else
      k = std::min(bins - 1, static_cast<int>((th + 1.0) / h) / per);
    ++count[k];
  }
  double worst = 0;
  for (int k = 0; k < bins + 2; ++k) {
    const double f = static_cast<double>(count[k]) / N, se = std::sqrt(std::max(f, 1e-7) / N);
    INFO("bin " << k << ": Monte Carlo " << f << " bracket [" << lo[k] << ", " << hi[k] << "]");
    CHECK(f >= lo[k] - 5 * se);
    CHECK(f <= hi[k] + 5 * se);
    CHECK(hi[k] - lo[k] <= 1e-3 * hi[k] + 1e-6);  // the engine's target widths
    worst = std::max(worst, std::max(lo[k] - f, f - hi[k]) / se);
  }
  INFO(N << " trajectories; largest excess over the bracket: " << worst << " standard errors");
  CHECK(worst < 5);
}

TEST_CASE("exact engine: the enclosure of a formula's second derivative", "[exact][formula]") {
  std::string why;
  const std::string text =
      "sin(3 * theta) * exp(theta / 2) + log(theta + 2) - sqrt(theta + 1.5) / (1 + theta^2) + "
      "tanh(2 * theta) * x + atan(theta) * cosh(theta) - sinh(theta)^3 + (theta + 2)^1.5 + "
      "log10(theta + 3) * cos(x * theta) + abs(theta + 2)";
  const auto f = exact::GradientFormula::parse(text, why);
  INFO(why);
  REQUIRE(f);
  const double x = 0.7;
  // central second differences (error ~1e-8 here) lie inside the enclosure over an interval
  // holding the point; over a short interval the enclosure is tight
  const auto fd2 = [&](double t) {
    const double d = 1e-4;
    return (f->value(t + d, x) - 2 * f->value(t, x) + f->value(t - d, x)) / (d * d);
  };
  for (const double lo : {-0.9, -0.4, 0.0, 0.35}) {
    const double hi = lo + 0.3;
    exact::Interval v, s, c;
    f->enclose(lo, hi, x, v, s, c);
    REQUIRE(c.finite());
    for (int i = 0; i <= 200; ++i) {
      const double t = lo + (hi - lo) * i / 200.0;
      CHECK(fd2(t) >= c.lo - 1e-5);
      CHECK(fd2(t) <= c.hi + 1e-5);
    }
    f->enclose(lo, lo + 1e-7, x, v, s, c);
    CHECK(c.hi - c.lo < 1e-4);
    CHECK(fd2(lo) == Approx(0.5 * (c.lo + c.hi)).margin(1e-5));
  }
  // a kink inside the interval: the second derivative is not bounded there; outside, it is
  exact::Interval v, s, c;
  exact::GradientFormula::parse("abs(theta) * x", why)->enclose(-0.1, 0.1, 1.0, v, s, c);
  CHECK(s.finite());
  CHECK_FALSE(c.finite());
  exact::GradientFormula::parse("abs(theta) * x", why)->enclose(0.1, 0.2, 1.0, v, s, c);
  CHECK(c.lo == 0.0);
  CHECK(c.hi == 0.0);
  exact::GradientFormula::parse("min(theta, x)", why)->enclose(-0.1, 0.1, 0.0, v, s, c);
  CHECK_FALSE(c.finite());
  exact::GradientFormula::parse("max(theta^2, x)", why)->enclose(-0.1, 0.1, 1.0, v, s, c);
  CHECK(c.lo == 0.0);  // the branch x is above theta^2 throughout
}

TEST_CASE("exact engine: a formula's local maps hold the update over every cell",
          "[exact][formula]") {
  // the update m over a source cell: first order, |m - image - slope d| <= error; second
  // order, m - image - slope d = c(x) d^2 / 2 + e with c(x) within curvature_radius of
  // curvature and |e| <= error; m(x) itself is the image of the point x
  const exact::ChainSpec c = landscape_chain();
  for (bool dp : {false, true}) {
    const exact::Step step = exact::step_sampled(c, dp);
    REQUIRE(step.maps.size() == 2);
    for (const exact::MapCase& m : step.maps) {
      REQUIRE(m.quadratic);
      for (const double h : {0.00375, 0.05, 0.4}) {
        double worst_first = 0, worst_second = 0;
        for (double lo = -1.0; lo + h <= 1.0 + 1e-12; lo += h) {
          const exact::LocalAffine a = m.enclose(lo, lo + h);
          const exact::LocalQuadratic q = m.quadratic(lo, lo + h);
          for (int i = 0; i <= 20; ++i) {
            const double x = lo + h * i / 20.0, d = x - (lo + 0.5 * h);
            const double mx = m.enclose(x, x).image;
            const double first = std::fabs(mx - a.image - a.slope * d) / (a.error + 1e-15);
            const double rest = mx - q.image - q.slope * d;
            const double excess = std::max(0.0, std::fabs(rest - 0.5 * q.curvature * d * d) -
                                                    0.5 * q.curvature_radius * d * d);
            worst_first = std::max(worst_first, first);
            worst_second = std::max(worst_second, excess - q.error);
          }
          CHECK(q.error <= 1e-12);  // the slope at the centre is a point's: no error but rounding
        }
        INFO("cell width " << h);
        CHECK(worst_first <= 1.0 + 1e-9);
        CHECK(worst_second <= 1e-12);
      }
    }
  }
}

TEST_CASE("exact engine: a sin-shaped landscape's R_alpha to the engine's target width",
          "[exact][formula]") {
  // experiments/gradient_formula.toml's chain (bench_exact formula "2 * sin(3 * theta) + x"
  // 10): eta = 0.1, s = 0.2, T = 10, the default grid; both directions at alpha = 2 (R_2 ~
  // 0.035) and 16 bracketed to 1e-3 relative (docs/exact-laws.md)
  exact::ChainSpec c = landscape_chain();
  c.eta = 0.1;
  c.step_std = 0.2;
  c.steps = 10;
  const exact::EngineOptions o;
  const auto laws = exact::evolve_pair(c, o);
  const auto rows = exact::renyi_brackets(laws.d, laws.dprime, {2, 16}, o.renyi);
  for (const auto& r : rows) {
    for (const exact::Bracket& b : {r.forward, r.backward}) {
      INFO("alpha " << r.alpha << ": [" << b.lo << ", " << b.hi << "]");
      CHECK(b.lo > 0.01);
      CHECK(b.hi - b.lo <= 1e-3 * b.lo);
    }
  }
}
