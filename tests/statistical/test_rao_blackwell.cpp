// The Rao-Blackwell estimate's pattern-sampling interval (exact/rao_blackwell.hpp) against
// truths that can be enumerated: sampling without replacement with all other records equal
// (the worst-case pair, x_i = 0), where theta_T depends on the schedule only through the
// steps whose batch holds i0 (independently, each with probability b/n), so P' is a mixture
// of 2^T Gaussians built here from that formula, independently of sim/mixture.cpp.
#include <catch2/catch.hpp>
#include <cmath>

#include "rdpaudit/config/load.hpp"
#include "rdpaudit/estimate/scenario.hpp"
#include "rdpaudit/exact/gaussian_mixture.hpp"
#include "rdpaudit/exact/known_truth.hpp"
#include "rdpaudit/exact/rao_blackwell.hpp"
#include "rdpaudit/sim/mixture.hpp"
#include "rdpaudit/sim/simulate.hpp"

using namespace rdpaudit;

namespace {

struct Setting {
  int n = 24, b = 2, epochs = 1;
  double eta = 0.02, lambda = 1.0, v = 4.0, s = 0.4;
  int steps() const { return epochs * n / b; }
};

std::string experiment(const Setting& p) {
  return "[experiment]\nseed = 1\ntrajectories = 1000\n[model]\nloss = \"quadratic\"\nlambda = " +
         std::to_string(p.lambda) +
         "\n[data]\npreset = \"quadratic_worst_case\"\nn = " + std::to_string(p.n) +
         "\nsensitivity = " + std::to_string(p.v * p.lambda) +
         "\n[training]\nscheme = \"sample_without_replacement\"\neta = " + std::to_string(p.eta) +
         "\nbatch_size = " + std::to_string(p.b) + "\nepochs = " + std::to_string(p.epochs) +
         "\n[noise]\nstep_std = " + std::to_string(p.s) + "\n[estimate]\nmethods = [\"exact\"]\n";
}

// P = N(0, v_T); P' = sum over in in {0,1}^T of pi^|in| (1-pi)^(T-|in|) N(mu(in), v_T) with
// mu <- a mu + c x' in_t step by step, a = 1 - eta lambda, c = eta lambda / b, pi = b / n.
exact::MixturePair enumerated(const Setting& p) {
  const int T = p.steps();
  const double a = 1.0 - p.eta * p.lambda, c = p.eta * p.lambda / p.b, pi = double(p.b) / p.n;
  double var = 0.0;
  for (int t = 0; t < T; ++t) var = a * a * var + p.s * p.s;
  exact::MixturePair m;
  m.p = exact::gaussian({0.0}, {var});
  m.q.covariance = {var};
  for (unsigned in = 0; in < (1u << T); ++in) {
    double mean = 0.0, w = 1.0;
    for (int t = 0; t < T; ++t) {
      const bool held = (in >> t) & 1u;
      mean = a * mean + (held ? c * p.v : 0.0);
      w *= held ? pi : 1.0 - pi;
    }
    m.q.weights.push_back(w);
    m.q.means.push_back(mean);
  }
  return m;
}

bool one_sided(const estimate::Estimate& e) {
  return std::isinf(e.upper);
}

struct Coverage {
  int claimed = 0;  // rows with a two-sided interval
  int covered = 0;  // of those, the ones that hold the truth
};

// `reps` independent sets of `patterns` patterns; coverage per order and direction.
std::vector<Coverage> measure(const Setting& p, const std::vector<double>& alphas, int reps,
                              int patterns, std::vector<estimate::Estimate>& truth) {
  const auto exact = enumerated(p);
  truth = exact::exact_renyi(exact.p, exact.q, alphas);
  const auto spec = config::parse_experiment(experiment(p), "rb.toml");
  std::vector<Coverage> out(truth.size());
  for (int r = 0; r < reps; ++r) {
    std::string why;
    const auto mix =
        sim::quadratic_last_iterate_mixture(spec.scenarios.at(0), 1000 + r, patterns, why);
    REQUIRE(mix.has_value());
    REQUIRE(!mix->dprime.exact);
    const auto rb = exact::rao_blackwell_renyi(exact::to_gaussian_mixture(mix->d),
                                               exact::to_gaussian_mixture(mix->dprime), alphas);
    for (std::size_t k = 0; k < rb.size(); ++k) {
      REQUIRE(rb[k].informative);
      REQUIRE(rb[k].direction == truth[k].direction);
      if (one_sided(rb[k])) continue;
      ++out[k].claimed;
      out[k].covered += rb[k].lower <= truth[k].value && truth[k].value <= rb[k].upper;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("rao-blackwell: the pattern-sampling interval covers the enumerated truth",
          "[estimate][rao-blackwell][statistical]") {
  // 200 sets of 256 patterns, T = 12 steps (4096 enumerated patterns). At the nominal 95 %
  // fewer than 180 of 200 has probability ~1e-3; the quadrature bracket this interval
  // replaces (~1e-11 wide) covered none.
  const int reps = 200;
  std::vector<estimate::Estimate> truth;
  SECTION("the paper's step and noise (eta = 0.02, s = 0.4): every order up to 64") {
    const auto c = measure(Setting{}, {2.0, 16.0, 64.0}, reps, 256, truth);
    for (std::size_t k = 0; k < c.size(); ++k) {
      INFO("alpha " << truth[k].alpha << ", direction " << truth[k].direction << ": "
                    << c[k].covered << " of " << c[k].claimed << " intervals cover "
                    << truth[k].value);
      CHECK(c[k].claimed >= 195);  // the rare-pattern flag stays off
      CHECK(c[k].covered >= 180 * c[k].claimed / reps);
    }
  }
  SECTION(
      "a large shift per inclusion (eta = 0.1, s = 0.3): low orders covered, the flag "
      "fires where rare patterns dominate") {
    Setting p;
    p.eta = 0.1;
    p.s = 0.3;
    const auto c = measure(p, {2.0, 8.0, 32.0}, reps, 256, truth);
    for (std::size_t k = 0; k < c.size(); ++k) {
      INFO("alpha " << truth[k].alpha << ", direction " << truth[k].direction << ": "
                    << c[k].covered << " of " << c[k].claimed << " intervals cover "
                    << truth[k].value);
      if (truth[k].alpha <= 8.0) {
        CHECK(c[k].claimed >= 150);
        CHECK(c[k].covered >= 0.9 * c[k].claimed);
      } else if (truth[k].direction == estimate::kBackward) {
        // R(P'||P) at alpha = 32 lives on patterns with i0 in >= 4 of 12 batches
        // (probability ~1e-3): 256 draws miss them and the value is ~80 % low. The interval
        // is withheld in 199 of 200 runs (measured).
        CHECK(c[k].claimed <= 10);
      }
    }
  }
}

TEST_CASE("rao-blackwell: a scenario's rows carry the pattern-sampling interval",
          "[estimate][rao-blackwell][scenario][statistical]") {
  // The case: the paper's Figure 2 setting without replacement, K = 1 (T = 25),
  // 4096 patterns. The reference is the mixture of 65536 patterns from other streams (its
  // own pattern error is 1/4 of the rows'). 20 seeds: at 95 % each, fewer than 15 covering
  // has probability ~3e-3.
  Setting p;
  p.n = 50;
  const auto spec = config::parse_experiment(experiment(p), "fig2.toml");
  const auto& s = spec.scenarios.at(0);
  std::string why;
  const auto big = sim::quadratic_last_iterate_mixture(s, 999, 65536, why);
  REQUIRE(big.has_value());
  const std::vector<double> alphas = {2.0, 16.0};
  const auto reference = exact::exact_renyi(exact::to_gaussian_mixture(big->d),
                                            exact::to_gaussian_mixture(big->dprime), alphas);
  const sim::ScenarioTallies none{};
  std::vector<int> covered(reference.size(), 0);
  double half_width = 0.0;
  for (int seed = 1; seed <= 20; ++seed) {
    const auto est = estimate::estimate_scenario(s, estimate::Selection{}, none,
                                                 static_cast<std::uint64_t>(seed));
    CHECK(est.mixture.find("4096 sampled schedules") != std::string::npos);
    for (std::size_t k = 0; k < reference.size(); ++k) {
      const estimate::Estimate* row = nullptr;
      for (const auto& e : est.estimates) {
        if (e.method == "rao-blackwell" && e.alpha == reference[k].alpha &&
            e.direction == reference[k].direction)
          row = &e;
      }
      REQUIRE(row != nullptr);
      REQUIRE(row->informative);
      CHECK(row->interval.find("pattern-sampling confidence interval 95 %") != std::string::npos);
      CHECK(row->interval.find("not a bracket") != std::string::npos);
      covered[k] += row->lower <= reference[k].value && reference[k].value <= row->upper;
      if (k == 0) half_width += 0.5 * (row->upper - row->lower) / row->value / 20;
    }
  }
  INFO("mean relative half-width at alpha = 2, R(P||P'): " << half_width);
  CHECK(half_width > 0.01);  // the pattern error is a few %, not a quadrature's 1e-11
  CHECK(half_width < 0.2);
  for (std::size_t k = 0; k < reference.size(); ++k) {
    INFO("alpha " << reference[k].alpha << ", direction " << reference[k].direction << ": "
                  << covered[k] << " of 20 cover " << reference[k].value);
    CHECK(covered[k] >= 15);
  }
}
