// The sample-based estimators against the exact engine's values on laws that are not Gaussian
// mixtures (exact/chain.hpp):
//   * the histogram plug-in on a projected chain, whose boundary atoms it must resolve as
//     cells of their own (estimate/cells.hpp, point cells) rather than take for an unreached
//     tail;
//   * the coverage of the rigorous lower bounds (partition + Clopper-Pearson, Hoelder +
//     Bernstein), each valid simultaneously over every order and both directions at 95 %,
//     over seeded replications of three such laws: a projected linear chain sampled without
//     replacement (atoms at both ends), the quadratic loss under Poisson sampling over
//     several steps (the contraction depends on the random batch size), and a projected
//     quadratic chain reshuffled each epoch.
// A replication is covered when every certified lower bound (every order, both directions)
// is at most the engine's certified upper value of R_alpha (at the next order the engine was
// asked for, which bounds R_alpha from above too: R_alpha grows with alpha).
//
// Environment (optional): RDPAUDIT_COVERAGE_REPS replications (default 200);
// RDPAUDIT_COVERAGE_GRID=full bounds the audit's 155 orders instead of the 13 reported ones.
// A hidden driver prints the engine's values for an experiment file:
//   RDPAUDIT_EXACT_TOML=<file> [RDPAUDIT_EXACT_CELLS=<cells per sd>] test_statistical "[.driver]"
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../unit/exact_support.hpp"
#include "rdpaudit/config/load.hpp"
#include "rdpaudit/estimate/cells.hpp"
#include "rdpaudit/estimate/histogram.hpp"
#include "rdpaudit/estimate/selection.hpp"
#include "rdpaudit/exact/chain.hpp"
#include "rdpaudit/sim/simulate.hpp"

using namespace rdpaudit;

namespace {

const std::string kProjectedLinear = test::linear_worst_case_toml(1, 20000, R"(
[training]
scheme = "sample_without_replacement"
eta = 0.04
batch_size = 2
steps = 30
projection_diameter = 0.6
[noise]
blog_sigma = 1.0
)");

const char* kPoissonQuadratic = R"(
[experiment]
seed = 1
trajectories = 20000
[model]
loss = "quadratic"
dim = 1
lambda = 1.0
[data]
preset = "quadratic_worst_case"
n = 5
sensitivity = 4.0
[training]
scheme = "poisson"
sampling_rate = 0.4
eta = 0.15
steps = 8
[noise]
step_std = 0.3
)";

const char* kProjectedReshuffled = R"(
[experiment]
seed = 1
trajectories = 20000
[model]
loss = "quadratic"
dim = 1
lambda = 1.0
[data]
preset = "quadratic_worst_case"
n = 6
sensitivity = 2.0
[training]
scheme = "shuffle_each_epoch"
batch_size = 2
eta = 0.2
epochs = 3
projection_diameter = 1.0
[noise]
step_std = 0.2
)";

config::Scenario scenario_of(const std::string& toml) {
  const auto spec = config::parse_experiment(toml, "coverage.toml");
  REQUIRE(spec.scenarios.size() == 1);
  return spec.scenarios.front();
}

/// The engine's brackets; `cells_per_sd` below the default widens them (still certified) and
/// saves time where many cases per step meet a wide unclamped grid (Poisson sampling).
std::vector<exact::RenyiBracketRow> exact_rows(
    const config::Scenario& s, const std::vector<double>& alphas,
    int cells_per_sd = exact::EngineOptions{}.cells_per_sd) {
  std::string why;
  const auto chain = exact::chain_from_scenario(s, why);
  INFO(why);
  REQUIRE(chain.has_value());
  exact::EngineOptions options;
  options.cells_per_sd = cells_per_sd;
  const exact::ChainLaws laws = exact::evolve_pair(*chain, options);
  return exact::renyi_brackets(laws.d, laws.dprime, alphas);
}

/// The engine's bracket at the smallest of its orders >= alpha (rows sorted by order). R_alpha
/// is non-decreasing in alpha, so its upper end is an upper bound on R_alpha as well: a valid
/// lower bound at any order up to the largest one lies below it.
const exact::Bracket& bracket_of(const std::vector<exact::RenyiBracketRow>& rows, double alpha,
                                 int direction) {
  for (const auto& r : rows) {
    if (r.alpha >= alpha) return direction == estimate::kForward ? r.forward : r.backward;
  }
  FAIL("no exact row at or above alpha " << alpha);
  return rows.front().forward;
}

std::vector<double> column(const Eigen::MatrixXd& m) {
  return std::vector<double>(m.data(), m.data() + m.rows());
}

/// One replication as the audit runs it: a pilot of its own streams chooses the cells, then
/// `n` trajectories per dataset are counted.
struct Replication {
  estimate::ScoreSelection selection;
  std::vector<std::uint64_t> counts_p, counts_q;
};

Replication replicate(const config::Scenario& s, std::uint64_t seed, std::int64_t n,
                      std::int64_t n_pilot) {
  const auto pp = column(sim::simulate_last_iterates(s, seed, sim::kPilotD, 0, n_pilot));
  const auto pq = column(sim::simulate_last_iterates(s, seed, sim::kPilotDPrime, 0, n_pilot));
  const auto xp = column(sim::simulate_last_iterates(s, seed, sim::kD, 0, n));
  const auto xq = column(sim::simulate_last_iterates(s, seed, sim::kDPrime, 0, n));
  const estimate::Selection sel = estimate::select_on_pilot(
      estimate::view_of(pp), estimate::view_of(pq), static_cast<std::uint64_t>(n), {});
  Replication r{sel.scores.front(), {}, {}};
  tally::ScoreCells cp = r.selection.counting_cells(), cq = r.selection.counting_cells();
  for (double x : xp) cp.add(&x);
  for (double x : xq) cq.add(&x);
  r.counts_p = std::move(cp.counts);
  r.counts_q = std::move(cq.counts);
  return r;
}

int replications() {
  const char* v = std::getenv("RDPAUDIT_COVERAGE_REPS");
  return v ? std::atoi(v) : 200;
}

/// The orders of the replications: the audit's whole grid (155 orders) when
/// RDPAUDIT_COVERAGE_GRID=full, else the 13 orders the study tables report (the bounds are
/// valid simultaneously over whichever set is asked for; the smaller one keeps the test
/// within a minute).
std::vector<double> coverage_alphas() {
  const char* v = std::getenv("RDPAUDIT_COVERAGE_GRID");
  if (v && std::string(v) == "full") return estimate::default_alpha_grid();
  return {1.1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64};
}

/// The orders at which the engine's brackets are computed: every bracket_of lookup finds the
/// next one up.
const std::vector<double> kExactAlphas = {1.1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64};

struct CoverageCount {
  int covered = 0;      // replications in which every bound of the method holds
  int informative = 0;  // replications with at least one informative bound
  double worst = 0;     // largest lower bound / exact upper value seen
};

}  // namespace

TEST_CASE("plug-in: a projected chain's boundary atom is a cell, not an unreached tail",
          "[estimate][exact][statistical]") {
  // The blog's chain (linear loss, sampling without replacement, b = 2, n = 10, eta = 0.04,
  // noise 0.04 per step, domain [-1, 1]) at T = 100, 2 x 10^5 trajectories per dataset as in
  // experiments/blog_saturation.toml: 2.5 % of D's trajectories end on -1, 2.5 % of D''s on
  // +1, and about 10^-4 of the other dataset's on each; those atoms carry R_alpha at alpha >= 4.
  config::Scenario s = scenario_of(test::linear_worst_case_toml(7, 200000, R"(
[training]
scheme = "sample_without_replacement"
eta = 0.04
batch_size = 2
steps = 100
projection_diameter = 2.0
[noise]
blog_sigma = 1.0
)"));
  const std::vector<double> alphas = {1.5, 2, 4, 8, 16};
  const auto exact = exact_rows(s, alphas);
  const Replication r = replicate(s, 7, 200000, 50000);
  const auto points = estimate::point_cells_of(r.selection.plugin_edges);
  REQUIRE(points.size() == 2);  // -1 and +1
  estimate::CountOptions o;
  o.skipped = {config::Method::kRigorousCp, config::Method::kRigorousBernstein};
  o.plugin.bootstrap_replicates = 0;
  const auto rows = estimate::estimate_from_counts(r.selection, r.counts_p, r.counts_q, alphas, o,
                                                   nullptr, nullptr);
  for (const auto& e : rows) {
    const exact::Bracket b = bracket_of(exact, e.alpha, e.direction);
    INFO("alpha " << e.alpha << " direction " << e.direction << ": plug-in " << e.value
                  << " exact [" << b.lo << ", " << b.hi << "] " << e.reason);
    REQUIRE(e.informative);
    // Up to alpha 2 the density carries most of R_alpha and the plug-in is within a few per
    // cent; above, the atom's rarer side (about 20 samples) sets the noise: sd ~ sqrt(1/20)
    // ~ 0.22 of R ~ 4.5-5.3, so 15 % is about three sd (measured on blog_saturation's seed:
    // within 4.2 % for b = 2, 10 % for b = 10).
    const double tolerance = e.alpha <= 2 ? 0.05 : 0.15;
    CHECK(std::fabs(e.value - 0.5 * (b.lo + b.hi)) <= tolerance * b.hi);
  }
  {
    // The same counts without point cells: the atom is taken for an unreached tail.
    estimate::CellCounts merged_cells;
    // the plug-in's own cells: the counting cells coarsened to the plug-in's edges
    const auto& edges = r.selection.edges;
    const tally::CellIndex coarse(r.selection.plugin_edges);
    merged_cells.p.assign(coarse.cells(), 0);
    merged_cells.q.assign(coarse.cells(), 0);
    merged_cells.p[0] += r.counts_p[0];
    merged_cells.q[0] += r.counts_q[0];
    for (std::size_t i = 1; i < r.counts_p.size(); ++i) {
      const std::size_t c = coarse.cell(edges[i - 1]);
      merged_cells.p[c] += r.counts_p[i];
      merged_cells.q[c] += r.counts_q[i];
    }
    const auto with = estimate::histogram_plugin(merged_cells, {4.0}, o.plugin, nullptr, {},
                                                 "histogram-plugin", points);
    const auto without = estimate::histogram_plugin(merged_cells, {4.0}, o.plugin, nullptr, {});
    for (int d : {0, 1}) {
      CHECK(with[d].informative);
      CHECK(with[d].value == rows[2 * 2 + d].value);  // alpha 4: what estimate_from_counts gave
      CHECK_FALSE(without[d].informative);
      CHECK(without[d].reason.find("outermost merged cell") != std::string::npos);
    }
  }
}

TEST_CASE("rigorous lower bounds cover the exact values of three non-Gaussian laws",
          "[estimate][exact][statistical]") {
  // 200 replications of 2 x 10^4 counted trajectories per dataset (pilot 2 x 10^4). Each
  // method is valid at 95 % simultaneously over its orders and directions: fewer than 180
  // of 200 covered has probability ~1e-3 for a method that holds its level exactly (a
  // conservative one covers more).
  const int reps = replications();
  const std::vector<double> alphas = coverage_alphas();
  const struct {
    const char* name;
    std::string toml;
    int cells_per_sd;  // the engine's grid: 10 keeps the Poisson law's 12 cases a step cheap
  } laws[] = {{"projected linear, sampled without replacement", kProjectedLinear, 40},
              {"quadratic, Poisson sampling, T = 8", kPoissonQuadratic, 10},
              {"projected quadratic, reshuffled each epoch", kProjectedReshuffled, 40}};
  for (const auto& law : laws) {
    const config::Scenario s = scenario_of(law.toml);
    const auto exact = exact_rows(s, kExactAlphas, law.cells_per_sd);
    CoverageCount cp, bernstein;
    for (int rep = 0; rep < reps; ++rep) {
      const Replication r = replicate(s, 1000 + static_cast<std::uint64_t>(rep), 20000, 20000);
      estimate::CountOptions o;
      o.skipped = {config::Method::kHistogramPlugin};
      const auto rows = estimate::estimate_from_counts(r.selection, r.counts_p, r.counts_q, alphas,
                                                       o, nullptr, nullptr);
      bool cp_ok = true, b_ok = true, cp_inf = false, b_inf = false;
      for (const auto& e : rows) {
        const exact::Bracket b = bracket_of(exact, e.alpha, e.direction);
        const bool is_cp = e.method.find("cp") != std::string::npos;
        CoverageCount& c = is_cp ? cp : bernstein;
        c.worst = std::max(c.worst, e.lower / b.hi);
        (is_cp ? cp_ok : b_ok) &= e.lower <= b.hi;
        (is_cp ? cp_inf : b_inf) |= e.informative;
      }
      cp.covered += cp_ok;
      bernstein.covered += b_ok;
      cp.informative += cp_inf;
      bernstein.informative += b_inf;
    }
    INFO(law.name << ": rigorous-cp covers " << cp.covered << " of " << reps << " (informative "
                  << cp.informative << ", worst lower / exact " << cp.worst
                  << "); rigorous-bernstein " << bernstein.covered << " (informative "
                  << bernstein.informative << ", worst " << bernstein.worst << ")");
    WARN(law.name << ": rigorous-cp " << cp.covered << "/" << reps << " worst " << cp.worst
                  << ", rigorous-bernstein " << bernstein.covered << "/" << reps << " worst "
                  << bernstein.worst);
    CHECK(cp.covered >= 0.9 * reps);
    CHECK(bernstein.covered >= 0.9 * reps);
    // the bounds say something: a test of coverage alone would pass with bounds of 0
    CHECK(cp.informative >= 0.9 * reps);
    CHECK(bernstein.informative >= 0.9 * reps);
  }
}

TEST_CASE("exact values of an experiment file's scenarios (a driver, not a test)", "[.driver]") {
  // RDPAUDIT_EXACT_TOML=<file> test_statistical "[.driver]": one CSV line per scenario, order
  // and direction: E,scenario,alpha,direction,lower,upper (or E,scenario,why).
  const char* path = std::getenv("RDPAUDIT_EXACT_TOML");
  if (!path) return;
  const auto spec = config::load_experiment(path);
  const std::vector<double> alphas = {1.5, 2, 4, 8, 16};
  for (std::size_t i = 0; i < spec.scenarios.size(); ++i) {
    std::string why;
    const auto chain = exact::chain_from_scenario(spec.scenarios[i], why);
    if (!chain) {
      std::printf("E,%zu,%s\n", i, why.c_str());
      continue;
    }
    exact::EngineOptions options;
    if (const char* cells = std::getenv("RDPAUDIT_EXACT_CELLS"))
      options.cells_per_sd = std::atoi(cells);
    const exact::ChainLaws laws = exact::evolve_pair(*chain, options);
    for (const auto& r : exact::renyi_brackets(laws.d, laws.dprime, alphas)) {
      std::printf("E,%zu,%g,0,%.9g,%.9g\n", i, r.alpha, r.forward.lo, r.forward.hi);
      std::printf("E,%zu,%g,1,%.9g,%.9g\n", i, r.alpha, r.backward.lo, r.backward.hi);
    }
  }
}
