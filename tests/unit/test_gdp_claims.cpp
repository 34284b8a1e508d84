// Gaussian-DP claims wired into the audit (audit/gdp_mu.hpp, audit/table.hpp, the Auditor): a
// GDP claim's (eps, delta) row, the scenario's mu rows (estimates/gdp), the mu p-value, and the
// mu cells' verdicts from the samples and from the exact law.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "experiment_support.hpp"
#include "gaussian_family.hpp"
#include "rdpaudit/audit/auditor.hpp"
#include "rdpaudit/audit/gdp_mu.hpp"
#include "rdpaudit/audit/table.hpp"
#include "rdpaudit/bounds/experiment.hpp"
#include "rdpaudit/bounds/gdp.hpp"
#include "rdpaudit/exact/known_truth.hpp"

using namespace rdpaudit;
namespace gdp = rdpaudit::bounds::gdp;
using rdpaudit::test::gaussian_family;

namespace {

// One full-batch step of the quadratic loss: a Gaussian pair, gap / sd = 1.
std::string pair_with(const std::string& claims, bool exact_verdicts) {
  return test::quadratic_worst_case(1, 1000, 10, 10.0,
                                    std::string(R"(
[training]
scheme = "full_batch"
eta = 0.1
batch_size = 10
steps = 1
[noise]
step_std = 0.1
[bounds]
alphas = [2]
audit = ["gaussian_composition"]
exact_verdicts = )") + (exact_verdicts ? "true" : "false") +
                                        R"(
[profile]
deltas = [1e-5, 1e-3]
)" + claims);
}

// N(mu, 1) as two equal halves: the same law, but not recognised as a single Gaussian, so
// its mu comes from the eps grid.
exact::GaussianMixture split_gaussian(double mean) {
  exact::GaussianMixture m;
  m.weights = {0.5, 0.5};
  m.means = {mean, mean};
  m.covariance = {1.0};
  return m;
}

const audit::GdpEstimate* row(const std::vector<audit::GdpEstimate>& rows,
                              const std::string& method, int direction) {
  for (const auto& r : rows)
    if (r.method == method && r.direction == direction) return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("a GDP claim's (eps, delta) row is the exact profile of mu-GDP, its mu row",
          "[gdp][audit][profile]") {
  const auto spec = bounds::parse_experiment(
      pair_with("[[profile.claims]]\nname = \"g\"\nmu = 0.75\n[[profile.claims]]\nname = "
                "\"e\"\nepsilon = [3.0, 2.0]\n",
                true),
      "t.toml");
  const auto& s = spec.scenarios.at(0);
  const audit::ClaimTable t = audit::audited_claims(s, audit::audited_bounds(s));
  REQUIRE(t.names == std::vector<std::string>{"gaussian_composition (eps, delta)", "g", "e"});
  CHECK(t.kinds == std::vector<std::string>{"conversion", "gdp claim", "claim"});
  REQUIRE(t.mu.size() == 3);
  CHECK(std::isnan(t.mu[0]));
  CHECK(t.mu[1] == 0.75);
  CHECK(std::isnan(t.mu[2]));
  for (std::size_t k = 0; k < 2; ++k) {
    // The claimed eps is where mu-GDP's profile reaches delta: delta(0.75, eps) = delta.
    CHECK(gdp::delta(0.75, t.value(1, k)) == Approx(t.orders[k]).epsilon(1e-10));
  }
  const audit::AuditTable g = audit::gdp_claims(t);
  CHECK(g.quantity == audit::Quantity::kGdp);
  CHECK(g.names == std::vector<std::string>{"g"});
  CHECK(g.values == std::vector<double>{0.75});
  CHECK(g.orders.size() == 1);
}

TEST_CASE(
    "exact mu rows: the closed form of a Gaussian pair, on the eps grid within its tolerance "
    "and below the truth, the subsampled pair's supremum far out on the grid",
    "[gdp][gdp-mu][profile]") {
  const auto spec = bounds::parse_experiment(pair_with("", true), "t.toml");
  const auto& s = spec.scenarios.at(0);
  estimate::ScenarioEstimates est;
  // Single Gaussians: the closed form, both directions, a point bracket.
  for (double mu : {0.1, 0.5, 1.0, 3.0, 8.0}) {
    est.exact_law = {exact::gaussian({mu}, {1.0}), exact::gaussian({0.0}, {1.0})};
    const auto rows = audit::gdp_estimates(s, est);
    REQUIRE(rows.size() == 2);
    for (int d : {0, 1}) {
      const auto* r = row(rows, "exact-profile", d);
      REQUIRE(r);
      CHECK(r->value == Approx(mu).epsilon(1e-15));
      CHECK(r->lower == r->value);
      CHECK(r->upper == r->value);
      CHECK(std::isnan(r->epsilon_at));
    }
    // The same law split in two components: the grid, each of whose eps gives mu back up to
    // the numerical error the tolerance allows, the supremum never above mu beyond it.
    est.exact_law = {split_gaussian(mu), split_gaussian(0.0)};
    for (const auto& r : audit::gdp_estimates(s, est)) {
      INFO("mu " << mu << ", direction " << r.direction << ": grid " << r.value << " at eps "
                 << r.epsilon_at << ", grid usable to eps " << r.epsilon_max);
      CHECK(std::fabs(r.value - mu) <= audit::kExactMuTolerance * mu);
      CHECK(r.lower <= mu);
      CHECK(r.upper == INFINITY);
      CHECK(r.epsilon_max > 0.0);
      CHECK(gdp::delta(mu, r.epsilon_max) > 0.1 * audit::kMuDeltaFloor);
    }
  }
  // Poisson subsampling at q = 1/2 of N(1, 1) against N(0, 1): 1-GDP in the limit eps -> inf,
  // far below at eps = 0; the grid reaches far, and says where its supremum was attained.
  exact::GaussianMixture mix;
  mix.weights = {0.5, 0.5};
  mix.means = {1.0, 0.0};
  mix.covariance = {1.0};
  est.exact_law = {mix, exact::gaussian({0.0}, {1.0})};
  const auto rows = audit::gdp_estimates(s, est);
  const auto* fwd = row(rows, "exact-profile", 0);
  const auto* bwd = row(rows, "exact-profile", 1);
  REQUIRE((fwd && bwd));
  INFO("forward " << fwd->value << " at eps " << fwd->epsilon_at << " (usable to "
                  << fwd->epsilon_max << "); backward " << bwd->value << " at eps "
                  << bwd->epsilon_at);
  // python/reference/gdp_subsampled_mu.py (mpmath, 50 digits): 0.979298550361464 at eps =
  // 33.25, the last eps of the grid with delta(eps) >= 1e-250.
  CHECK(fwd->value == Approx(0.979298550361464).epsilon(audit::kExactMuTolerance));
  CHECK(fwd->epsilon_at == 33.25);
  CHECK(fwd->epsilon_at == fwd->epsilon_max);  // still growing where delta runs out
  CHECK(bwd->value < fwd->value);
  // The profile's own grid (0 .. 1) would have said much less.
  const exact::ExactProfile f(mix, exact::gaussian({0.0}, {1.0}));
  CHECK(gdp::mu_from_delta(1.0, f.delta(1.0)) < 0.7);
}

TEST_CASE("mu p-value agrees with the certified mu at every level", "[gdp][gdp-mu][audit]") {
  const auto family = gaussian_family(1.0, 1'000'000);
  for (double level : {0.05, 1e-3}) {
    const double lower = audit::certified_mu_lower(family, level);
    REQUIRE(lower > 0.9);
    CHECK(audit::mu_p_value(family, 0.99 * lower) <= level);
    CHECK(audit::mu_p_value(family, 1.01 * lower) > level);
  }
  CHECK(audit::mu_p_value(family, 2.0) == 1.0);
  CHECK(audit::mu_p_value(family, 0.1) == 1e-20);
  // 10^4 per side: the outer cuts hold no trajectory of P'; the plug-in skips them (each
  // would give +infinity) and stays near the truth, above the certified value.
  const auto small = gaussian_family(1.0, 10'000);
  REQUIRE(small.n_q - small.q.back() == 0);  // F = {score >= c} at the last cut
  const double plugin = audit::plugin_mu(small);
  CHECK(std::isfinite(plugin));
  CHECK(plugin > 0.9);
  CHECK(plugin < 1.2);
  CHECK(plugin > audit::certified_mu_lower(small, 0.05));
}

TEST_CASE(
    "mu cells: violated from the samples, violated (exact) and valid (exact) from the exact "
    "law, one row with the claim's (eps, delta) cells",
    "[gdp][audit][profile]") {
  const std::string claims =
      "[[profile.claims]]\nname = \"tight\"\nmu = 1.0\n[[profile.claims]]\nname = "
      "\"below\"\nmu = 0.9\nexpect = \"violated\"\n[[profile.claims]]\nname = \"half\"\nmu = "
      "0.5\nexpect = \"violated\"\n";
  for (bool exact : {false, true}) {
    INFO("exact verdicts " << exact);
    const auto spec = bounds::parse_experiment(pair_with(claims, exact), "t.toml");
    const auto& s = spec.scenarios.at(0);
    const audit::BoundTable renyi = audit::audited_bounds(s);
    const audit::ClaimTable t = audit::audited_claims(s, renyi);
    estimate::ScenarioEstimates est;
    est.profiles = {gaussian_family(1.0, 1'000'000)};
    est.exact_law = {exact::gaussian({1.0}, {1.0}), exact::gaussian({0.0}, {1.0})};
    audit::Auditor auditor(0.05);
    auditor.add(s, renyi, est, "-", 1'000'000);
    auditor.add_claims(s, t, est);
    const audit::AuditResult a = auditor.finish();
    const auto verdict = [&](const std::string& name) {
      std::vector<audit::Verdict> out;
      for (const auto& c : a.cells) {
        if (c.gdp && a.bounds[c.bound].name == name) out.push_back(c.verdict);
      }
      return out;
    };
    using V = audit::Verdict;
    std::size_t mu_cells = 0;
    for (const auto& c : a.cells) {
      if (!c.gdp) continue;
      ++mu_cells;
      CHECK(std::isnan(c.alpha));
      CHECK(std::isnan(c.delta));
      CHECK(c.exact == Approx(1.0).epsilon(1e-15));
      CHECK(c.lower > 0.9);  // the certified mu at the run's simultaneous level
      CHECK(c.lower < 1.0);
    }
    CHECK(mu_cells == 6);  // three claims, two directions
    if (exact) {
      CHECK(verdict("tight") == std::vector<V>{V::kValidExact, V::kValidExact});
      CHECK(verdict("below") == std::vector<V>{V::kViolatedExact, V::kViolatedExact});
      CHECK(verdict("half") == std::vector<V>{V::kViolatedExact, V::kViolatedExact});
    } else {
      CHECK(verdict("tight") == std::vector<V>{V::kNotRejected, V::kNotRejected});
      CHECK(verdict("half") == std::vector<V>{V::kViolated, V::kViolated});
    }
    // One /audit/bounds row per claim, holding its mu cells and its (eps, delta) cells; the
    // tight claim's (eps, delta) cells are not violated either.
    for (const auto& b : a.bounds) {
      if (b.name != "tight") continue;
      std::int64_t cells = 0;
      for (std::int64_t n : b.counts) cells += n;
      CHECK(cells == 2 + 2 * 2);
      CHECK(!audit::is_violation(b.outcome));
      CHECK(b.as_expected);
    }
    for (const auto& b : a.bounds) {
      if (b.name == "half" || b.name == "below") CHECK(b.as_expected);
    }
  }
}
