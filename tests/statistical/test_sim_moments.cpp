// The simulated last iterate of the quadratic loss against its closed-form mean and variance,
// for every batch scheme, under D and D'. With the worst-case pair (x_i = 0, x'_i0 = v) the
// update is theta <- A_t theta + B_t + s z_t with A_t = 1 - eta*lambda*|B_t|/N and
// B_t = eta*lambda*v*1[i0 in B_t]/N (N = b, or q n for Poisson). The moments follow from
// the law of (A_t, B_t), computed here independently of the simulator's code:
//   E[theta'] = E[A] E[theta] + E[B];  E[theta'^2] = E[A^2] E[theta^2] + 2 E[AB] E[theta]
//   + E[B^2] + s^2   when (A_t, B_t) are independent of the past (per step or per epoch),
// and by conditioning on the batch of i0 for shuffle-and-partition and fixed order.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <iomanip>

#include "rdpaudit/config/load.hpp"
#include "rdpaudit/sim/mixture.hpp"
#include "rdpaudit/sim/simulate.hpp"
#include "sim_moments_support.hpp"

using namespace rdpaudit;
using config::BatchScheme;

namespace {

using testing::check_against_closed_form;
using testing::Moments;

// One step of the moment recursion for an affine map theta -> A theta + B + noise.
struct AffineLaw {
  double ea, ea2, eb, eb2, eab, noise_var;
};
Moments apply(const Moments& m, const AffineLaw& law) {
  return {law.ea * m.mean + law.eb,
          law.ea2 * m.second + 2 * law.eab * m.mean + law.eb2 + law.noise_var};
}

// Chosen so that every pair of schemes differs in the D' mean or variance by more than 25
// standard errors at 10^6 samples (checked below): a scheme mix-up cannot pass.
struct Setting {
  int n = 6, b = 2, epochs = 2;
  double eta = 0.3, lambda = 1.0, v = 4.0, s = 0.1, m0 = 0.5, s0 = 0.2;
};

const std::vector<std::pair<std::string, BatchScheme>> kSchemes = {
    {"fixed_order", BatchScheme::kFixedOrder},
    {"shuffle_partition", BatchScheme::kShufflePartition},
    {"shuffle_each_epoch", BatchScheme::kShuffleEachEpoch},
    {"sample_without_replacement", BatchScheme::kSampleWithoutReplacement},
    {"poisson", BatchScheme::kPoisson},
    {"full_batch", BatchScheme::kFullBatch}};

// Deterministic map of one epoch given that i0 sits in batch J (J = -1: not used).
AffineLaw epoch_given_batch(const Setting& p, int m, int j) {
  const double a = 1 - p.eta * p.lambda, c = p.eta * p.lambda * p.v / p.b;
  AffineLaw law{1, 1, 0, 0, 0, 0};
  for (int t = 0; t < m; ++t) {
    const double bt = (t == j) ? c : 0.0;
    // compose: theta -> a*(A theta + B) + bt, noise accumulates
    law.eb = a * law.eb + bt;
    law.ea *= a;
    law.noise_var = a * a * law.noise_var + p.s * p.s;
  }
  law.ea2 = law.ea * law.ea;
  law.eb2 = law.eb * law.eb;
  law.eab = law.ea * law.eb;
  return law;
}

Moments closed_form(const Setting& p, BatchScheme scheme, bool prime) {
  const Moments start{p.m0, p.m0 * p.m0 + p.s0 * p.s0};
  const int m = p.n / p.b;  // steps per epoch (also floor(1/q) for Poisson with q = b/n)
  const double v = prime ? p.v : 0.0;
  Setting q = p;
  q.v = v;
  Moments out = start;
  switch (scheme) {
    case BatchScheme::kFixedOrder: {  // i0 = 0 in batch j0 = 0 every epoch
      const auto law = epoch_given_batch(q, m, 0);
      for (int k = 0; k < p.epochs; ++k) out = apply(out, law);
      return out;
    }
    case BatchScheme::kShufflePartition: {  // mixture over the batch J of i0, fixed for all epochs
      // J = j with probability b/n for j < m; J = -1 (i0 among the n - m b records left out
      // of the partition, footnote 3) with probability (n - m b)/n.
      Moments mix{0, 0};
      for (int j = -1; j < m; ++j) {
        const double weight = j < 0 ? double(p.n - m * p.b) / p.n : double(p.b) / p.n;
        Moments c = start;
        const auto law = epoch_given_batch(q, m, j);
        for (int k = 0; k < p.epochs; ++k) c = apply(c, law);
        mix.mean += weight * c.mean;
        mix.second += weight * c.second;
      }
      return mix;
    }
    case BatchScheme::kShuffleEachEpoch: {  // J_k independent per epoch: average the epoch law
      AffineLaw avg{0, 0, 0, 0, 0, 0};
      for (int j = -1; j < m; ++j) {
        const double weight = j < 0 ? double(p.n - m * p.b) / p.n : double(p.b) / p.n;
        const auto law = epoch_given_batch(q, m, j);
        avg.ea += weight * law.ea;
        avg.ea2 += weight * law.ea2;
        avg.eb += weight * law.eb;
        avg.eb2 += weight * law.eb2;
        avg.eab += weight * law.eab;
        avg.noise_var = law.noise_var;
      }
      for (int k = 0; k < p.epochs; ++k) out = apply(out, avg);
      return out;
    }
    case BatchScheme::kSampleWithoutReplacement: {  // i0 in B_t iid with prob b/n
      const double a = 1 - p.eta * p.lambda, c = p.eta * p.lambda * v / p.b, pi = double(p.b) / p.n;
      const AffineLaw law{a, a * a, pi * c, pi * c * c, a * pi * c, p.s * p.s};
      for (int t = 0; t < p.epochs * m; ++t) out = apply(out, law);
      return out;
    }
    case BatchScheme::kPoisson: {  // |B_t| = I + Binomial(n-1, q), I ~ Bernoulli(q)
      const double qq = double(p.b) / p.n, norm = qq * p.n, g = p.eta * p.lambda / norm;
      const double ec = p.n * qq, ec2 = p.n * qq * (1 - qq) + ec * ec;
      const double eci = qq + qq * (p.n - 1) * qq;  // E[|B| I]
      const double cb = g * v;                      // B = cb * I
      const AffineLaw law{1 - g * ec,   1 - 2 * g * ec + g * g * ec2, cb * qq,
                          cb * cb * qq, cb * qq - g * cb * eci,       p.s * p.s};
      for (int t = 0; t < p.epochs * m; ++t) out = apply(out, law);
      return out;
    }
    case BatchScheme::kFullBatch: {
      const double a = 1 - p.eta * p.lambda, c = p.eta * p.lambda * v / p.n;
      const AffineLaw law{a, a * a, c, c * c, a * c, p.s * p.s};
      for (int k = 0; k < p.epochs; ++k) out = apply(out, law);
      return out;
    }
    case BatchScheme::kRandomAllocation:  // not in kSchemes: no closed form written here
      break;
  }
  return out;
}

std::string experiment(const Setting& p, const std::string& scheme) {
  return "[experiment]\nseed = 11\ntrajectories = 1000000\n"
         "[model]\nloss = \"quadratic\"\ndim = 1\nlambda = " +
         std::to_string(p.lambda) +
         "\n[data]\npreset = \"quadratic_worst_case\"\nn = " + std::to_string(p.n) +
         "\nsensitivity = " + std::to_string(p.v * p.lambda) + "\n[training]\nscheme = \"" +
         scheme + "\"\neta = " + std::to_string(p.eta) +
         (scheme == "full_batch" ? "" : "\nbatch_size = " + std::to_string(p.b)) +
         "\nepochs = " + std::to_string(p.epochs) + "\n[noise]\nstep_std = " + std::to_string(p.s) +
         "\n[init]\nmean = [" + std::to_string(p.m0) + "]\nstd = " + std::to_string(p.s0) +
         "\n[tally]\nraw_samples = 1000000\npilot_trajectories = 1000\n";
}

}  // namespace

TEST_CASE("quadratic last iterate matches the closed-form mean and variance for every scheme",
          "[sim][statistical]") {
  Setting p;
  SECTION("b divides n") {}
  SECTION("b does not divide n: footnote 3 leaves one record out of each partition") {
    p.n = 7;
  }
  for (const auto& [name, scheme] : kSchemes) {
    const auto spec = config::parse_experiment(experiment(p, name), name + ".toml");
    const auto& s = spec.scenarios.at(0);
    const auto t = sim::simulate_scenario(s, spec.seed, spec.trajectories);
    REQUIRE(t.d.raw.size() == 1000000);
    INFO("scheme " << name << " under D");
    check_against_closed_form(t.d.raw, closed_form(p, scheme, false));
    INFO("scheme " << name << " under D'");
    check_against_closed_form(t.dprime.raw, closed_form(p, scheme, true));
  }
}

TEST_CASE("the closed forms separate the schemes (the test above can fail)", "[sim]") {
  const Setting p;
  for (std::size_t i = 0; i < kSchemes.size(); ++i) {
    for (std::size_t j = i + 1; j < kSchemes.size(); ++j) {
      const auto x = closed_form(p, kSchemes[i].second, true);
      const auto y = closed_form(p, kSchemes[j].second, true);
      const double var = std::max(x.variance(), y.variance());
      // Standard errors at 10^6 samples; the variance's with 1.5x the Gaussian value to
      // allow for the mixtures' heavier tails.
      const double se_mean = std::sqrt(var / 1e6), se_var = 1.5 * var * std::sqrt(2.0 / 1e6);
      INFO(kSchemes[i].first << " vs " << kSchemes[j].first);
      CHECK(std::max(std::fabs(x.mean - y.mean) / se_mean,
                     std::fabs(x.variance() - y.variance()) / se_var) > 25);
    }
  }
}

TEST_CASE("the last-iterate Gaussian mixture has the closed-form mean and variance",
          "[sim][mixture]") {
  // Enumerated (shuffle and partition) and deterministic (fixed order, full batch) mixtures
  // are exact: their moments equal the closed forms to rounding. Sampled patterns (each
  // epoch, without replacement) are checked within 5 standard errors of their pattern means.
  Setting p;
  SECTION("b divides n") {}
  SECTION("b does not divide n") {
    p.n = 7;
  }
  for (const auto& [name, scheme] : kSchemes) {
    if (scheme == BatchScheme::kPoisson) continue;  // random batch size: no common covariance
    const auto spec = config::parse_experiment(experiment(p, name), name + ".toml");
    std::string why;
    const auto mix = sim::quadratic_last_iterate_mixture(spec.scenarios.at(0), 3, 20000, why);
    REQUIRE(mix.has_value());
    for (bool prime : {false, true}) {
      const auto& m = prime ? mix->dprime : mix->d;
      double wsum = 0, mean = 0, second = 0;
      for (std::size_t k = 0; k < m.weights.size(); ++k) {
        wsum += m.weights[k];
        mean += m.weights[k] * m.means[k];
        second += m.weights[k] * m.means[k] * m.means[k];
      }
      mean /= wsum;
      second /= wsum;
      const double variance = m.variance + second - mean * mean;
      const Moments truth = closed_form(p, scheme, prime);
      INFO(name << (prime ? " D'" : " D") << std::setprecision(17) << ": mean " << mean << " vs "
                << truth.mean << ", variance " << variance << " vs " << truth.variance());
      if (m.exact) {
        CHECK(mean == Approx(truth.mean).epsilon(1e-12).margin(1e-14));
        CHECK(variance == Approx(truth.variance()).epsilon(1e-12));
      } else {
        const double between = std::max(0.0, second - mean * mean);  // of the pattern means
        CHECK(std::fabs(mean - truth.mean) < 5 * std::sqrt(between / m.weights.size()) + 1e-12);
      }
    }
  }
}
