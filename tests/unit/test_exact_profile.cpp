// Privacy-profile brackets from the exact engine's laws (exact/profile.hpp): against the exact
// profile of listed Gaussian mixtures (exact/mixture_profile.hpp) where both apply, and
// against a Monte Carlo run of a projected chain with boundary atoms; the wiring into the
// estimate stage and the claim cells.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "exact_support.hpp"
#include "rdpaudit/audit/auditor.hpp"
#include "rdpaudit/audit/table.hpp"
#include "rdpaudit/config/load.hpp"
#include "rdpaudit/estimate/scenario.hpp"
#include "rdpaudit/exact/chain.hpp"
#include "rdpaudit/exact/mixture_profile.hpp"
#include "rdpaudit/exact/profile.hpp"

using rdpaudit::config::BatchScheme;
using rdpaudit::config::LossKind;
using namespace rdpaudit::exact;
using rdpaudit::test::blog_chain;
using rdpaudit::test::gaussian_pair_chain;
using rdpaudit::test::mixture;
using rdpaudit::test::sampled_gaussian_chain;
using rdpaudit::test::small_quadratic;

namespace {

/// Checks the engine's delta and eps brackets of (laws) against the mixtures' exact profile in
/// both directions; returns the widest delta bracket relative to the truth (truths above 1e-6)
/// and the widest eps bracket (absolute).
std::pair<double, double> check_against(const ChainLaws& laws, const GaussianMixture& p,
                                        const GaussianMixture& q) {
  const ProfileBrackets b(laws.d, laws.dprime);
  double widest_delta = 0, widest_eps = 0;
  for (bool fwd : {true, false}) {
    const GaussianMixture& a = fwd ? p : q;
    const GaussianMixture& c = fwd ? q : p;
    for (double eps : {0.0, 0.25, 0.5, 1.0, 2.0, 4.0}) {
      const double truth = rdpaudit::exact::exact_delta(a, c, eps);
      const Bracket x = b.delta(eps, fwd);
      INFO((fwd ? "forward" : "backward")
           << " eps " << eps << ": [" << x.lo << ", " << x.hi << "] truth " << truth);
      // the root scan is accurate to ~1e-12 relative
      CHECK(x.lo <= truth * (1 + 1e-9) + 1e-300);
      CHECK(truth * (1 - 1e-9) <= x.hi);
      if (truth > 1e-6) widest_delta = std::max(widest_delta, (x.hi - x.lo) / truth);
      INFO("relative gaps below and above the truth: " << (truth - x.lo) / truth << ", "
                                                       << (x.hi - truth) / truth);
    }
    for (double delta : {1e-2, 1e-5}) {
      const double truth = rdpaudit::exact::exact_epsilon(a, c, delta).value;
      const Bracket x = b.epsilon(delta, fwd);
      INFO((fwd ? "forward" : "backward")
           << " delta " << delta << ": eps in [" << x.lo << ", " << x.hi << "] truth " << truth);
      CHECK(x.lo <= truth + 1e-12 * truth);
      CHECK(truth <= x.hi + 1e-12 * x.hi);
      widest_eps = std::max(widest_eps, x.hi - x.lo);
    }
  }
  return {widest_delta, widest_eps};
}

}  // namespace

TEST_CASE("exact profile brackets hold the Gaussian pair's and mixtures' exact profiles",
          "[exact][profile]") {
  SECTION("a Gaussian pair (full batch, linear loss, T = 1 and 3)") {
    for (long T : {1L, 3L}) {
      const ChainSpec c = gaussian_pair_chain(T);
      EngineOptions o;
      o.location_mixture = false;  // step by step
      const ChainLaws laws = evolve_pair(c, o);
      const double var = static_cast<double>(T);
      const double shift = c.eta * static_cast<double>(T);
      const auto [wd, we] =
          check_against(laws, mixture({1.0}, {-shift}, var), mixture({1.0}, {shift}, var));
      INFO("T = " << T << ": widest delta bracket " << wd << " relative, eps bracket " << we);
      CHECK(wd < 1e-3);
      CHECK(we < 1e-3);
      WARN("Gaussian pair T = " << T << ": delta width " << wd << ", eps width " << we);
    }
  }
  SECTION("the sampled Gaussian mechanism (sampling without replacement, T = 1)") {
    const ChainLaws laws = evolve_pair(sampled_gaussian_chain(), {});
    const auto [wd, we] =
        check_against(laws, mixture({0.75, 0.25}, {0.0, -2.0}, 1.0), mixture({1.0}, {0.0}, 1.0));
    // reached: 1.08e-3 at eps = 4 (delta = 0.0053; the boundary cell's binning below, the
    // trapezoidal estimate above, each ~5e-4 of delta), eps width 3.0e-4
    CHECK(wd < 2e-3);
    CHECK(we < 1e-3);
    WARN("sampled Gaussian mechanism: delta width " << wd << ", eps width " << we);
  }
  SECTION("sampling without replacement, quadratic loss, T = 4: every pattern") {
    for (bool location : {false, true}) {
      const ChainSpec c = small_quadratic(BatchScheme::kSampleWithoutReplacement, 4);
      EngineOptions o;
      o.location_mixture = location;
      const ChainLaws laws = evolve_pair(c, o);
      std::vector<double> w, mp, mq;
      double var = 0;
      for (int mask = 0; mask < 16; ++mask) {
        double m1 = 0, m2 = 0;
        var = 0;
        for (int t = 0; t < 4; ++t) {
          const bool in = mask >> t & 1;
          const AffineCase a = (in ? step_in(c, false) : step_out(c, false)).cases[0];
          const AffineCase b = (in ? step_in(c, true) : step_out(c, true)).cases[0];
          m1 = a.slope * m1 + a.shift;
          m2 = b.slope * m2 + b.shift;
          var = a.slope * a.slope * var + c.step_std * c.step_std;
        }
        w.push_back(1.0 / 16);
        mp.push_back(m1);
        mq.push_back(m2);
      }
      const auto [wd, we] = check_against(laws, mixture(w, mp, var), mixture(w, mq, var));
      CHECK(wd < 1e-3);
      CHECK(we < 1e-3);
      WARN("sampling without replacement T = 4" << (location ? " (location mixture)" : "")
                                                << ": delta width " << wd << ", eps width " << we);
    }
  }
}

TEST_CASE("exact profile brackets of a projected chain with atoms against Monte Carlo",
          "[exact][profile]") {
  // the blog's chain, shortened (as in test_exact_engine.cpp): linear loss, b = 2 of n = 10
  // without replacement, clamp to [-0.1, 0.1] (the atoms hold much of the mass), T = 5
  const ChainSpec c = blog_chain(2, 5, 0.1);
  const ChainLaws laws = evolve_pair(c, {});
  const ProfileBrackets brackets(laws.d, laws.dprime);
  const CellLaw& lp = laws.d.last;
  const CellLaw& lq = laws.dprime.last;
  const int cells = lp.cells;
  const double h = lp.width();
  // N trajectories per dataset, counted per cell and atom (index cells: lo, cells + 1: hi)
  const long N = 1'000'000;
  rdpaudit::test::ProjectedChainRuns runs;
  std::vector<std::vector<long>> count;
  for (double g : {c.record_d, c.record_dprime}) count.push_back(runs.counts(c, g, N, cells, h));
  const auto mass = [&](const CellLaw& l, int k, bool lo) {
    if (k < cells) return lo ? l.mass_lo[k] : l.mass_hi[k];
    const Bracket& b = l.points[k - cells].mass;
    return lo ? b.lo : b.hi;
  };
  for (bool fwd : {true, false}) {
    const CellLaw& a = fwd ? lp : lq;
    const CellLaw& b = fwd ? lq : lp;
    const std::vector<long>& ca = count[fwd ? 0 : 1];
    const std::vector<long>& cb = count[fwd ? 1 : 0];
    for (double eps : {0.0, 0.1, 0.25, 0.5}) {
      const double e = std::exp(eps);
      const Bracket x = brackets.delta(eps, fwd);
      // Two sets: S_lo, where the lower bound's pieces are (P_lo > e^eps Q_hi): its true
      // P(S) - e^eps Q(S) is at least delta_lo; S_mid, where the brackets' midpoints say p >
      // e^eps q: its value is at most delta(eps) <= delta_hi.
      const auto set_value = [&](bool by_bounds, double& se) {
        double fa = 0, fb = 0;
        for (int k = 0; k < cells + 2; ++k) {
          const bool in = by_bounds ? mass(a, k, true) > e * mass(b, k, false)
                                    : mass(a, k, true) + mass(a, k, false) >
                                          e * (mass(b, k, true) + mass(b, k, false));
          if (!in) continue;
          fa += static_cast<double>(ca[k]) / N;
          fb += static_cast<double>(cb[k]) / N;
        }
        se = std::sqrt((fa * (1 - fa) + e * e * fb * (1 - fb)) / N);
        return fa - e * fb;
      };
      double se_lo = 0, se_mid = 0;
      const double v_lo = set_value(true, se_lo), v_mid = set_value(false, se_mid);
      INFO((fwd ? "forward" : "backward")
           << " eps " << eps << ": bracket [" << x.lo << ", " << x.hi << "], Monte Carlo on S_lo "
           << v_lo << " (se " << se_lo << "), on S_mid " << v_mid << " (se " << se_mid << ")");
      CHECK(v_lo >= x.lo - 5 * se_lo);
      CHECK(v_mid <= x.hi + 5 * se_mid);
      CHECK(x.lo > 0);
      CHECK(x.hi - x.lo <= 1e-3 * x.hi);
      WARN("projected chain " << (fwd ? "forward" : "backward") << " eps " << eps << ": [" << x.lo
                              << ", " << x.hi << "] relative width " << (x.hi - x.lo) / x.hi
                              << "; Monte Carlo " << v_mid << " +- " << se_mid);
    }
  }
}

namespace {

// The blog's chain shortened (test_exact_engine.cpp), as an experiment file.
const std::string kProjected = rdpaudit::test::linear_worst_case_toml(3, 1000, R"(
[training]
scheme = "sample_without_replacement"
batch_size = 2
eta = 0.04
steps = 5
projection_diameter = 0.2
[noise]
step_std = 0.04
[estimate]
methods = ["exact"]
alphas = [2]
[profile]
epsilons = [0.5, 1.0]
deltas = [1e-5, 1e-3]
)");

}  // namespace

TEST_CASE("a projected [profile] scenario: exact-chain-profile rows, both directions",
          "[exact][profile][estimate]") {
  const auto spec = rdpaudit::config::parse_experiment(kProjected, "t.toml");
  const auto e = rdpaudit::estimate::estimate_scenario(spec.scenarios.at(0), {}, {}, spec.seed);
  int rows = 0;
  for (const auto& p : e.profile) {
    REQUIRE(p.method == "exact-chain-profile");
    ++rows;
    REQUIRE(p.epsilon_lower.size() == 2);
    for (std::size_t k = 0; k < 2; ++k) {
      CHECK(p.delta_lower[k] <= p.delta_upper[k]);
      CHECK(p.epsilon_lower[k] <= p.epsilon_value[k]);
      CHECK(p.epsilon_value[k] <= p.epsilon_upper[k]);
      CHECK(p.epsilon_upper[k] - p.epsilon_lower[k] < 1e-2 * p.epsilon_upper[k]);
    }
    CHECK(p.epsilon_lower[0] > p.epsilon_upper[1]);  // a smaller delta needs a larger eps
    // the projection bounds the likelihood ratio (eps(delta) = 0.72 at delta = 1e-5): delta(0.5)
    // is positive, delta(1) = 0, and the bracket shows both
    CHECK(p.delta_lower[0] > 0.02);
    CHECK(p.delta_upper[1] < 1e-10);  // the sums' rounding allowance
    CHECK(p.epsilon_upper[0] < 1.0);
  }
  CHECK(rows == 2);
}

TEST_CASE("claims on a projected chain are decided by the exact chain profile's bracket",
          "[exact][profile][audit]") {
  // eps(1e-5) lies in [0.720696, 0.720700], eps(1e-3) in [0.7137, 0.7138]: a claim of 0.5 is
  // below the bracket (violated, exact), one of 0.8 above it (valid, exact)
  using rdpaudit::audit::Verdict;
  const auto spec = rdpaudit::config::parse_experiment(
      kProjected +
          "[[profile.claims]]\nname = \"low\"\nepsilon = [0.5, 0.5]\n"
          "[[profile.claims]]\nname = \"high\"\nepsilon = [0.8, 0.8]\n",
      "t.toml");
  const auto& s = spec.scenarios.at(0);
  auto est = rdpaudit::estimate::estimate_scenario(s, {}, {}, spec.seed);
  const auto renyi = rdpaudit::audit::audited_bounds(s);
  const auto claims = rdpaudit::audit::audited_claims(s, renyi);
  rdpaudit::audit::Auditor a(0.05);
  a.add(s, renyi, est, "-", 1000);
  a.add_claims(s, claims, est);
  const auto r = a.finish();
  int seen = 0;
  for (const auto& c : r.cells) {
    const std::string& name = r.bounds[c.bound].name;
    if (!c.is_claim() || (name != "low" && name != "high")) continue;
    ++seen;
    INFO(name << " delta " << c.delta << ": " << c.note);
    CHECK(c.exact_method == "exact-chain-profile");
    CHECK(c.exact_lower <= c.exact);
    CHECK(c.exact <= c.exact_upper);
    CHECK(c.exact > 0.71);
    CHECK(c.exact < 0.73);
    CHECK(c.verdict == (name == "low" ? Verdict::kViolatedExact : Verdict::kValidExact));
    if (name == "low") CHECK_THAT(c.note, Catch::Contains("exact chain profile"));
    if (name == "high") CHECK_THAT(c.note, Catch::Contains("(certified)"));
  }
  CHECK(seen == 8);  // 2 claims x 2 deltas x 2 directions
}

TEST_CASE("a law whose brackets cannot hold its total is refused", "[exact][profile]") {
  const ChainLaws laws = evolve_pair(gaussian_pair_chain(2), {});
  std::string why;
  CHECK(brackets_hold_total(laws.d.last, why));
  CHECK(brackets_hold_total(laws.dprime.last, why));
  // the masses of a law whose case weights summed to 1 + 1e-7 (what lgamma's cancellation in
  // a Binomial over 6e4 records does over 3516 steps): every bracket moved up by that much
  CellLaw off = laws.d.last;
  for (double& m : off.mass_lo) m *= 1 + 1e-7;
  for (double& m : off.mass_hi) m *= 1 + 1e-7;
  CHECK_FALSE(brackets_hold_total(off, why));
  CHECK_THAT(why, Catch::Contains("cannot hold the law's total"));
}
