// The last-iterate heuristic of Steinke et al. 2025 (bounds/last_iterate_heuristic.hpp):
// closed forms where the pair is Gaussian (q = 1), the PLD accountant's bracket at T = 1 (one
// subsampled Gaussian step: the heuristic's pair is that mechanism), and the identity that
// fixes its conventions -- it is the exact last iterate of the linear canary under Poisson
// sampling, so the exact engine's eps(delta) of that run must equal it.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "rdpaudit/bounds/last_iterate_heuristic.hpp"
#include "rdpaudit/bounds/pld.hpp"
#include "rdpaudit/bounds/profile_bounds.hpp"
#include "rdpaudit/bounds/scenario.hpp"
#include "rdpaudit/config/load.hpp"
#include "rdpaudit/estimate/scenario.hpp"

using namespace rdpaudit;
namespace heuristic = bounds::heuristic;

namespace {

double phi(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

// delta(eps) of N(mu, 1) against N(0, 1) (either order).
double gaussian_delta(double mu, double eps) {
  return phi(-eps / mu + mu / 2) - std::exp(eps) * phi(-eps / mu - mu / 2);
}

}  // namespace

TEST_CASE("the heuristic at q = 1 is the Gaussian pair N(T, z^2 T) against N(0, z^2 T)",
          "[bounds][heuristic]") {
  for (long T : {1L, 7L, 100L}) {
    for (double z : {0.8, 2.0}) {
      const double mu = std::sqrt(static_cast<double>(T)) / z;
      for (double eps : {0.0, 0.5, 2.0}) {
        INFO("T = " << T << ", z = " << z << ", eps = " << eps);
        CHECK(heuristic::hockey_stick(T, 1.0, z, eps, true) ==
              Approx(gaussian_delta(mu, eps)).epsilon(1e-9).margin(1e-15));
        CHECK(heuristic::hockey_stick(T, 1.0, z, eps, false) ==
              Approx(gaussian_delta(mu, eps)).epsilon(1e-9).margin(1e-15));
      }
    }
  }
}

TEST_CASE("the heuristic at T = 1 lies in the PLD accountant's bracket of one subsampled step",
          "[bounds][heuristic]") {
  for (double q : {0.01, 0.2}) {
    for (double z : {0.8, 2.0}) {
      const double h = heuristic::epsilon(1, q, z, 1e-5);
      const auto pld =
          bounds::pld::epsilon_poisson_gaussian(q, z, 1, 1e-5, bounds::pld::Adjacency::kAddRemove);
      INFO("q = " << q << ", z = " << z << ": heuristic " << h << ", PLD [" << pld.lower << ", "
                  << pld.upper << "]");
      CHECK(h >= pld.lower * (1 - 1e-9));
      CHECK(h <= pld.upper * (1 + 1e-9));
      // and eps(delta) inverts delta(eps)
      CHECK(heuristic::delta(1, q, z, h) == Approx(1e-5).epsilon(1e-6));
    }
  }
}

TEST_CASE("the heuristic is the exact last iterate of the linear canary (the identity)",
          "[bounds][heuristic][exact]") {
  const std::string text = R"(
[experiment]
seed = 4
trajectories = 1000
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
scheme = "poisson"
sampling_rate = 0.05
eta = 1.0
steps = [1, 50]
[noise]
noise_multiplier = 1.0
[estimate]
methods = ["exact"]
[profile]
epsilons = [0.0, 1.0]
deltas = [1e-5, 1e-3]
)";
  const auto spec = config::parse_experiment(text, "t.toml");
  for (const config::Scenario& s : spec.scenarios) {
    const auto e = estimate::estimate_scenario(s, {}, {}, spec.seed);
    std::vector<double> exact(s.profile.deltas.size(), 0.0);
    int rows = 0;
    for (const auto& p : e.profile) {
      if (p.method.rfind("exact", 0) != 0) continue;
      ++rows;
      for (std::size_t i = 0; i < exact.size(); ++i) {
        // a sharp bracket: the identity is checked on its value
        CHECK(p.epsilon_upper[i] - p.epsilon_lower[i] <= 1e-9 * p.epsilon_value[i]);
        exact[i] = std::max(exact[i], p.epsilon_value[i]);
      }
    }
    REQUIRE(rows == 2);
    for (std::size_t i = 0; i < exact.size(); ++i) {
      INFO("T = " << s.steps << ", delta = " << s.profile.deltas[i]);
      CHECK(heuristic::epsilon(s.steps, 0.05, 1.0, s.profile.deltas[i]) ==
            Approx(exact[i]).epsilon(1e-9));
    }
    // the catalogue entry evaluates it with the scenario's q and z
    int found = 0, pld = 0;
    for (const auto& v : bounds::epsilon_bounds_of(bounds::bounds_of(s), s.profile.deltas)) {
      const std::size_t i = v.at == s.profile.deltas[0] ? 0 : 1;
      if (v.name == "pld_poisson_composition") {
        // the PLD composition (every iterate released) is above the last iterate, by the
        // composition's margin: its certified upper end, with the accountant's numbers
        ++pld;
        REQUIRE(v.applicable());
        CHECK(v.kind == bounds::Kind::kBaseline);
        CHECK(*v.value >= exact[i]);
        CHECK(*v.value == bounds::pld::epsilon_poisson_gaussian(0.05, 1.0, s.steps, v.at,
                                                                bounds::pld::Adjacency::kAddRemove)
                              .upper);
      }
      if (v.name != "steinke25_last_iterate_heuristic") continue;
      ++found;
      REQUIRE(v.applicable());
      CHECK(v.kind == bounds::Kind::kHeuristic);
      CHECK(*v.value == Approx(heuristic::epsilon(s.steps, 0.05, 1.0, v.at)).epsilon(1e-12));
    }
    CHECK(found == 2);
    CHECK(pld == 2);
  }
}
