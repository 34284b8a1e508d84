// The crafted-gradient preset: the simulated last iterates have the mean and variance of the
// last-iterate mixture (sim/mixture.hpp) that gives the exact values, for every scheme, both
// losses and a gradient that changes with the step.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "rdpaudit/config/load.hpp"
#include "rdpaudit/sim/mixture.hpp"
#include "rdpaudit/sim/simulate.hpp"

using namespace rdpaudit;

namespace {

struct Moments {
  double mean = 0, variance = 0;
};

Moments mixture_moments(const sim::LastIterateMixture& m) {
  double wsum = 0, mean = 0, second = 0;
  for (std::size_t k = 0; k < m.weights.size(); ++k) {
    const double var = m.variance * (m.scales.empty() ? 1.0 : m.scales[k]);
    wsum += m.weights[k];
    mean += m.weights[k] * m.means[k];
    second += m.weights[k] * (var + m.means[k] * m.means[k]);
  }
  mean /= wsum;
  return {mean, second / wsum - mean * mean};
}

}  // namespace

TEST_CASE("crafted record: the simulated last iterate has the mixture's mean and variance",
          "[sim][mixture][crafted]") {
  constexpr long kTrajectories = 200'000;
  for (const char* scheme : {"fixed_order", "shuffle_partition", "shuffle_each_epoch",
                             "sample_without_replacement", "poisson", "full_batch"}) {
    for (const char* loss : {"loss = \"quadratic\"\nlambda = 0.8", "loss = \"linear\""}) {
      const std::string text = fmt::format(
          "[experiment]\nseed = 11\ntrajectories = 1000\n[model]\n{}\n[data]\npreset = "
          "\"crafted_gradient\"\nn = 6\ndiffering_index = 4\ngradient_formula = \"3 - t / 2\"\n"
          "[training]\nscheme = \"{}\"\neta = 0.3\n{}epochs = 3\n[noise]\nstep_std = 0.4\n"
          "[init]\nmean = [0.5]\nstd = 0.2\n",
          loss, scheme, std::string(scheme) == "full_batch" ? "" : "batch_size = 2\n");
      const auto s = config::parse_experiment(text, "crafted.toml").scenarios.at(0);
      std::string why;
      const auto mix = sim::quadratic_last_iterate_mixture(s, 5, 20000, why);
      REQUIRE(mix.has_value());
      for (auto dataset : {sim::kD, sim::kDPrime}) {
        const Eigen::MatrixXd x = sim::simulate_last_iterates(s, 11, dataset, 0, kTrajectories);
        const double mean = x.col(0).mean();
        const double variance = (x.col(0).array() - mean).square().sum() / (kTrajectories - 1);
        const auto& m = dataset == sim::kD ? mix->d : mix->dprime;
        const Moments truth = mixture_moments(m);
        // Five standard errors of the sample mean and variance (the latter with 1.5x the
        // Gaussian value for the mixtures' heavier tails), plus the pattern-sampling error
        // of sampled mixtures.
        const double se_mean = std::sqrt(truth.variance / kTrajectories);
        const double se_var = 1.5 * truth.variance * std::sqrt(2.0 / kTrajectories);
        const double slack = m.exact ? 0.0 : 5 * std::sqrt(truth.variance / m.weights.size());
        INFO(scheme << ", " << loss << ", dataset " << dataset << " (" << m.how << "): mean "
                    << mean << " vs " << truth.mean << ", variance " << variance << " vs "
                    << truth.variance);
        CHECK(std::fabs(mean - truth.mean) < 5 * se_mean + slack);
        CHECK(std::fabs(variance - truth.variance) < 5 * se_var + slack);
      }
    }
  }
}

TEST_CASE("crafted record: the moment test above separates D from D'", "[sim][crafted]") {
  // The crafted record moves D's mean by several standard errors of the test above: a
  // simulator or mixture that dropped it would fail there.
  const auto s = config::parse_experiment(
                     "[experiment]\nseed = 11\ntrajectories = 1000\n[model]\nloss = "
                     "\"linear\"\n[data]\npreset = \"crafted_gradient\"\nn = 6\ngradient = "
                     "[1.0]\n[training]\nscheme = \"poisson\"\neta = 0.3\nbatch_size = "
                     "2\nepochs = 3\n[noise]\nstep_std = 0.4\n",
                     "crafted.toml")
                     .scenarios.at(0);
  std::string why;
  const auto mix = sim::quadratic_last_iterate_mixture(s, 5, 20000, why);
  REQUIRE(mix.has_value());
  const Moments d = mixture_moments(mix->d), dprime = mixture_moments(mix->dprime);
  CHECK(std::fabs(d.mean - dprime.mean) > 50 * std::sqrt(d.variance / 200'000));
}
