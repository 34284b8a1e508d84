// The built-in privacy-profile bounds (bounds/profile_bounds.hpp): Feldman & Shenfeld's
// Theorem 4.1 minimised over its grid against the mpmath evaluation
// (python/reference/literature_reference.py, tests/data/literature_reference.csv), its
// preconditions, and its audit as an (eps, delta) row against the exact profile of the last
// iterate, both ways.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "rdpaudit/audit/auditor.hpp"
#include "rdpaudit/audit/table.hpp"
#include "rdpaudit/bounds/allocation.hpp"
#include "rdpaudit/bounds/experiment.hpp"
#include "rdpaudit/bounds/gdp.hpp"
#include "rdpaudit/bounds/profile_bounds.hpp"
#include "rdpaudit/bounds/scenario.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/estimate/scenario.hpp"
#include "reference_csv.hpp"

using namespace rdpaudit::bounds;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;

namespace {

const std::vector<double>& integer_orders() {
  static const std::vector<double> v = [] {
    std::vector<double> a;
    for (int i = 2; i <= 64; ++i) a.push_back(i);
    return a;
  }();
  return v;
}

constexpr const char* kName = "fs25_thm4.1_random_allocation";

// One allocation of t = 100 steps of DP-SGD's worst-case record for a clip C = 1 (a linear
// loss, the record present in D, absent from D'), z = 10: the exact engine evolves its last
// iterate, so the exact profile is known.
std::string allocation_file(const std::string& tail = "") {
  return std::string(R"(
[experiment]
seed = 5
trajectories = 2000
[model]
loss = "linear"
dim = 1
clip_norm = 1.0
[data]
preset = "crafted_gradient"
n = 100
gradient = [1.0]
adjacency = "add_remove"
[training]
scheme = "random_allocation"
batch_size = 1
eta = 1.0
steps = 100
[noise]
noise_multiplier = 10.0
[estimate]
methods = ["exact"]
alphas = [2]
[bounds]
alphas = [2]
[profile]
epsilons = [0.5]
deltas = [1e-5, 1e-3]
)") + tail;
}

}  // namespace

TEST_CASE("Feldman & Shenfeld Theorem 4.1 over its grid against the mpmath evaluation",
          "[bounds][literature][allocation][profile]") {
  // The whole minimum over the splits of delta (and over eps0 and the tail for delta(eps)),
  // at integer orders 2 ... 64, evaluated independently in mpmath.
  reference_csv::check(
      "literature_reference.csv", "allocation_epsilon", 1e-10, [](const std::vector<double>& a) {
        return allocation::gaussian_epsilon(a[0], static_cast<long>(a[1]), a[2], integer_orders())
            .value;
      });
  reference_csv::check(
      "literature_reference.csv", "allocation_delta_min", 1e-10, [](const std::vector<double>& a) {
        return allocation::gaussian_delta_min(a[0], static_cast<long>(a[1]), a[2], integer_orders())
            .value;
      });
}

TEST_CASE("Theorem 4.1's eps(delta) and delta(eps) are one bound, each split valid",
          "[bounds][allocation][profile]") {
  const auto& orders = integer_orders();
  for (const auto& [z, t] : {std::pair{10.0, 100L}, {5.0, 1000L}, {2.0, 10000L}}) {
    const auto e = allocation::gaussian_epsilon(z, t, 1e-5, orders);
    INFO("z " << z << " t " << t << ": eps " << e.value << " eps0 " << e.eps0 << " rate*t "
              << e.rate * static_cast<double>(t));
    REQUIRE(std::isfinite(e.value));
    // The chosen split, evaluated by gaussian_delta at the eps it gives: delta <= the target
    // (the Poisson term was given what the split left, delta - t delta0 - tail).
    const auto d = allocation::gaussian_delta(z, t, e.value, e.eps0, e.tail, orders);
    CHECK(d.delta <= 1e-5 * (1 + 1e-9));
    CHECK(d.rate == e.rate);
    CHECK_THAT(d.local, WithinRel(e.local, 1e-15));
    // A larger target delta can only lower eps.
    CHECK(allocation::gaussian_epsilon(z, t, 1e-3, orders).value <= e.value);
  }
  // The record moves nothing (z = +inf): the randomizer is 0-DP, the bound 0.
  CHECK(allocation::gaussian_epsilon(INFINITY, 100, 1e-5, orders).value == 0.0);
  CHECK(allocation::gaussian_delta_min(INFINITY, 100, 0.1, orders).value == 0.0);
  // Little noise: eps0 grows until gamma reaches its cap 1 - 1/t, eta = 1, and the bound is
  // the t-fold Gaussian composition's RDP conversion (no amplification left).
  const auto capped = allocation::gaussian_epsilon(0.2, 1000, 1e-9, orders);
  CHECK_THAT(capped.rate, WithinRel(1.0, 1e-12));
  CHECK(capped.value > 100.0);
  CHECK_THROWS(allocation::gaussian_epsilon(1.0, 100, 0.0, orders));
  CHECK_THROWS(allocation::gaussian_epsilon(1.0, 100, 1.0, orders));
  CHECK_THROWS(allocation::gaussian_epsilon(1.0, 100, 1e-5, {}));
}

TEST_CASE("the profile bound's preconditions and its n/a reasons",
          "[bounds][allocation][profile]") {
  const auto spec = parse_experiment(allocation_file(), "t.toml");
  const ScenarioBounds sb = bounds_of(spec.scenarios.at(0));
  const auto values = epsilon_bounds_of(sb, {1e-5});
  REQUIRE(values.size() == profile_catalogue().size());
  REQUIRE(values[0].name == kName);
  REQUIRE(values[0].applicable());
  // z = s / (eta S_g / b) = 10: the same number as gaussian_epsilon with t = n/b = 100.
  CHECK(*values[0].value == allocation::gaussian_epsilon(10.0, 100, 1e-5, profile_orders()).value);
  CHECK(*delta_bounds_of(sb, {0.5})[0].value ==
        allocation::gaussian_delta_min(10.0, 100, 0.5, profile_orders()).value);

  const auto reason = [&](Params p) { return epsilon_bounds(p, {1e-5}).at(0).not_applicable; };
  Params p = sb.params;
  p.T = 150;  // a second (partial) allocation: composition, which the theorem does not bound
  p.K = 1;
  CHECK_THAT(reason(p), Contains("T = 150 steps span more than one allocation of t = n/b = 100") &&
                            Contains("2 epochs"));
  p = sb.params;
  p.T = 40;  // a partial allocation is post-processing of a whole one
  CHECK(reason(p).empty());
  p = sb.params;
  p.adjacency = Adjacency::kReplaceOne;
  CHECK_THAT(reason(p), Contains("the pair is replace_one") && Contains("add/remove"));
  p = sb.params;
  p.scheme = BatchScheme::kShuffleEachEpoch;
  CHECK_THAT(reason(p), Contains("scheme shuffle_each_epoch is not covered"));
  // A scenario outside every bound: that reason.
  ScenarioBounds outside = sb;
  outside.not_applicable = "the scenario's reason";
  CHECK(epsilon_bounds_of(outside, {1e-5}).at(0).not_applicable == "the scenario's reason");
  // Bad input names the value.
  CHECK_THROWS_WITH(epsilon_bounds(sb.params, {1.5}), Contains("bounds.delta = 1.5"));
  CHECK_THROWS_WITH(delta_bounds(sb.params, {-1.0}), Contains("bounds.epsilon = -1"));
}

TEST_CASE("experiment files name the profile bound like any built-in bound",
          "[bounds][allocation][profile][config]") {
  // bounds.audit and the expectations accept it; a custom bound or a claim may not take its
  // name (they would share its row of /audit/bounds).
  std::string text = allocation_file();
  const std::string table = "[bounds]\nalphas = [2]\n";
  text.insert(
      text.find(table) + table.size(),
      "audit = [\"" + std::string(kName) + "\"]\nexpect_valid_exact = [\"" + kName + "\"]\n");
  const auto spec = parse_experiment(text, "t.toml");
  const auto& s = spec.scenarios.at(0);
  const auto claims = rdpaudit::audit::audited_claims(s, rdpaudit::audit::audited_bounds(s));
  REQUIRE(claims.names.size() == 1);  // bounds.audit: no Renyi bound, so no conversion
  CHECK(claims.names[0] == kName);
  CHECK(claims.expect[0] == rdpaudit::config::Expectation::kValidExact);
  CHECK_THROWS_WITH(
      parse_experiment(allocation_file("[[profile.claims]]\nname = \"" + std::string(kName) +
                                       "\"\nepsilon = [1.0, 1.0]\n"),
                       "t.toml"),
      Contains("profile.claims[0].name") && Contains("built-in bound"));
  CHECK_THROWS_WITH(parse_experiment(allocation_file("[[bounds.custom]]\nname = \"" +
                                                     std::string(kName) + "\"\nformula = \"1\"\n"),
                                     "t.toml"),
                    Contains("taken by a built-in bound"));
}

TEST_CASE("a profile bound is audited as an (eps, delta) row, decided by the exact profile",
          "[bounds][allocation][profile][audit]") {
  using rdpaudit::audit::Verdict;
  const auto spec = parse_experiment(allocation_file(), "t.toml");
  const auto& s = spec.scenarios.at(0);
  auto est = rdpaudit::estimate::estimate_scenario(s, {}, {}, spec.seed);
  const auto renyi = rdpaudit::audit::audited_bounds(s);
  auto claims = rdpaudit::audit::audited_claims(s, renyi);
  std::size_t row = claims.names.size();
  for (std::size_t b = 0; b < claims.names.size(); ++b)
    if (claims.names[b] == kName) row = b;
  REQUIRE(row < claims.names.size());
  CHECK(claims.kinds[row] == "profile theorem");
  // The synthetic copy scaled below the exact eps(delta): the same machinery must call it
  // violated (exact), while the theorem itself is valid (exact).
  const std::size_t nd = claims.orders.size();
  claims.names.push_back("scaled_copy");
  claims.kinds.push_back(claims.kinds[row]);
  claims.sources.push_back("the theorem times 0.1");
  claims.expect.push_back(rdpaudit::config::Expectation::kViolated);
  claims.reasons.emplace_back();
  claims.mu.push_back(NAN);
  for (std::size_t d = 0; d < nd; ++d) claims.values.push_back(0.1 * claims.value(row, d));
  rdpaudit::audit::Auditor a(0.05);
  a.add(s, renyi, est, "-", 2000);
  a.add_claims(s, claims, est);
  const auto r = a.finish();
  int seen = 0;
  for (const auto& c : r.cells) {
    const std::string& name = r.bounds[c.bound].name;
    if (!c.is_claim() || (name != kName && name != "scaled_copy")) continue;
    ++seen;
    // The last iterate of one whole allocation is the Gaussian pair N(-eta C / b, t s^2)
    // against N(0, t s^2): mu = 1 / (z sqrt(t)) = 0.01, whose exact eps(delta) the engine
    // brackets.
    const double exact = gdp::epsilon(0.01, c.delta);
    INFO(name << " delta " << c.delta << " direction " << c.direction << ": bound " << c.bound_value
              << ", exact " << c.exact << " [" << c.exact_lower << ", " << c.exact_upper
              << "], Gaussian pair " << exact << "; " << c.note);
    CHECK(c.exact_method == "exact-chain-profile");
    CHECK(c.exact_lower <= exact * (1 + 1e-6));
    CHECK(c.exact_upper >= exact * (1 - 1e-6));
    CHECK(c.verdict == (name == kName ? Verdict::kValidExact : Verdict::kViolatedExact));
    if (name == kName) CHECK(c.bound_value / exact > 1.0);
  }
  CHECK(seen == 8);  // 2 rows x 2 deltas x 2 directions
  for (const auto& b : r.bounds) {
    if (b.name == kName) CHECK(b.kind == "profile theorem");
    if (b.name == kName || b.name == "scaled_copy") CHECK(b.as_expected);
  }
}
