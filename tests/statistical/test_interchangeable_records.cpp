// Schedules drawn by distinguished records (sim/batches.hpp, BatchDraws): only where the few
// records that differ from the background row go is drawn. The simulated last iterate of the
// quadratic loss must still have the law of the full draws: its mean and variance against
// ground truth enumerated here over every order of the records (5040 for n = 7: shuffle and
// partition, shuffle each epoch) or every b-subset (sampling without replacement), with no
// use of the simulator's draws. D has 2 distinguished records, D' 3 (the replaced record is
// a background one in D).
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "rdpaudit/config/load.hpp"
#include "rdpaudit/sim/simulate.hpp"
#include "sim_moments_support.hpp"

using namespace rdpaudit;

namespace {

struct Setting {
  std::vector<double> x = {0, 0, 3, 0, -2, 0, 0};  // D; D' has x[1] = 5
  int b = 2, epochs = 3;
  double eta = 0.3, lambda = 1.0, s = 0.3, m0 = 0.5, s0 = 0.2;
  int n() const { return static_cast<int>(x.size()); }
};

using testing::check_against_closed_form;
using testing::Moments;

// theta <- a theta + c S_t + s z_t, a = 1 - eta lambda, c = eta lambda / b, S_t the batch sum.
// One epoch of a partition given the order: theta <- a^m theta + B + noise of variance V.
struct EpochMap {
  double b_term = 0, noise = 0, a_power = 1;
};

EpochMap epoch_of(const Setting& p, const std::vector<double>& x, const std::vector<int>& order) {
  const double a = 1 - p.eta * p.lambda, c = p.eta * p.lambda / p.b;
  EpochMap e;
  for (int t = 0; t < p.n() / p.b; ++t) {
    double sum = 0;
    for (int i = 0; i < p.b; ++i) sum += x[static_cast<std::size_t>(order[t * p.b + i])];
    e.b_term = a * e.b_term + c * sum;
    e.noise = a * a * e.noise + p.s * p.s;
    e.a_power *= a;
  }
  return e;
}

Moments truth(const Setting& p, const std::vector<double>& x, const std::string& scheme) {
  const Moments start{p.m0, p.m0 * p.m0 + p.s0 * p.s0};
  const auto step = [](const Moments& m, double a, double eb, double eb2, double noise) {
    return Moments{a * m.mean + eb, a * a * m.second + 2 * a * eb * m.mean + eb2 + noise};
  };
  if (scheme == "sample_without_replacement") {
    double eb = 0, eb2 = 0, count = 0;  // over every b-subset (b = 2)
    const double c = p.eta * p.lambda / p.b;
    for (int i = 0; i < p.n(); ++i) {
      for (int j = i + 1; j < p.n(); ++j) {
        const double bt = c * (x[static_cast<std::size_t>(i)] + x[static_cast<std::size_t>(j)]);
        eb += bt;
        eb2 += bt * bt;
        ++count;
      }
    }
    Moments m = start;
    for (int t = 0; t < p.epochs * (p.n() / p.b); ++t)
      m = step(m, 1 - p.eta * p.lambda, eb / count, eb2 / count, p.s * p.s);
    return m;
  }
  std::vector<int> order(static_cast<std::size_t>(p.n()));
  std::iota(order.begin(), order.end(), 0);
  double eb = 0, eb2 = 0, orders = 0, a_power = 1, noise = 0;
  Moments mix{0, 0};
  do {  // every order of the records, equally likely
    const EpochMap e = epoch_of(p, x, order);
    a_power = e.a_power;
    noise = e.noise;
    eb += e.b_term;
    eb2 += e.b_term * e.b_term;
    ++orders;
    if (scheme == "shuffle_partition") {  // one order for every epoch
      Moments m = start;
      for (int k = 0; k < p.epochs; ++k)
        m = step(m, e.a_power, e.b_term, e.b_term * e.b_term, e.noise);
      mix.mean += m.mean;
      mix.second += m.second;
    }
  } while (std::next_permutation(order.begin(), order.end()));
  if (scheme == "shuffle_partition") return {mix.mean / orders, mix.second / orders};
  Moments m = start;  // shuffle each epoch: independent orders
  for (int k = 0; k < p.epochs; ++k) m = step(m, a_power, eb / orders, eb2 / orders, noise);
  return m;
}

std::string experiment(const Setting& p, const std::string& scheme) {
  std::string points;
  for (double v : p.x) points += fmt::format("{}[{}]", points.empty() ? "" : ", ", v);
  return fmt::format(R"(
[experiment]
seed = 13
trajectories = 1000000
[model]
loss = "quadratic"
dim = 1
lambda = {}
[data]
points = [{}]
replacement = [5.0]
differing_index = 1
[training]
scheme = "{}"
eta = {}
batch_size = {}
epochs = {}
[noise]
step_std = {}
[init]
mean = [{}]
std = {}
[tally]
raw_samples = 1000000
pilot_trajectories = 1000
)",
                     p.lambda, points, scheme, p.eta, p.b, p.epochs, p.s, p.m0, p.s0);
}

}  // namespace

TEST_CASE("draws by distinguished records give the last iterate the law of the full draws",
          "[sim][statistical]") {
  const Setting p;
  std::vector<double> xp = p.x;
  xp[1] = 5;
  for (const std::string scheme :
       {"shuffle_partition", "shuffle_each_epoch", "sample_without_replacement"}) {
    const auto spec = config::parse_experiment(experiment(p, scheme), scheme + ".toml");
    const auto& s = spec.scenarios.at(0);
    REQUIRE(sim::batch_draws(s, sim::kD).distinguished.size() == 2);
    REQUIRE(sim::batch_draws(s, sim::kDPrime).distinguished.size() == 3);
    const auto t = sim::simulate_scenario(s, spec.seed, spec.trajectories);
    REQUIRE(t.d.raw.size() == 1000000);
    INFO("scheme " << scheme << " under D");
    check_against_closed_form(t.d.raw, truth(p, p.x, scheme));
    INFO("scheme " << scheme << " under D'");
    check_against_closed_form(t.dprime.raw, truth(p, xp, scheme));
  }
}

TEST_CASE("the enumerated truths tell the schemes and the datasets apart (the test above can fail)",
          "[sim]") {
  const Setting p;
  std::vector<double> xp = p.x;
  xp[1] = 5;
  const std::vector<std::string> schemes = {"shuffle_partition", "shuffle_each_epoch",
                                            "sample_without_replacement"};
  // A schedule that ignored a distinguished record (as if D' were D) or mixed up the schemes
  // moves the mean or variance by many standard errors at 10^6 samples.
  for (const auto& scheme : schemes) {
    const Moments d = truth(p, p.x, scheme), dp = truth(p, xp, scheme);
    const double se = std::sqrt(std::max(d.variance(), dp.variance()) / 1e6);
    CHECK(std::fabs(d.mean - dp.mean) / se > 25);
  }
  for (std::size_t i = 0; i < schemes.size(); ++i) {
    for (std::size_t j = i + 1; j < schemes.size(); ++j) {
      const Moments x = truth(p, xp, schemes[i]), y = truth(p, xp, schemes[j]);
      const double var = std::max(x.variance(), y.variance());
      const double se_mean = std::sqrt(var / 1e6), se_var = 1.5 * var * std::sqrt(2.0 / 1e6);
      INFO(schemes[i] << " vs " << schemes[j]);
      CHECK(std::max(std::fabs(x.mean - y.mean) / se_mean,
                     std::fabs(x.variance() - y.variance()) / se_var) > 25);
    }
  }
}
