// Test support for the estimator tests: seeded samples from Gaussian mixtures, drawn with the
// project's counter-based streams (one stream per chunk of 2^16 samples, so the draws do not
// depend on the number of threads).
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "rdpaudit/estimate/samples.hpp"
#include "rdpaudit/exact/gaussian_mixture.hpp"
#include "rdpaudit/exact/known_truth.hpp"
#include "rdpaudit/rng/stream.hpp"

namespace rdpaudit::estimate::testing {

/// n samples (row-major, dim per row) of `mix`; stream ids (seed, scenario, dataset, chunk, kTest).
inline std::vector<double> draw(const exact::GaussianMixture& mix, std::size_t n,
                                std::uint64_t seed, std::uint32_t scenario, std::uint32_t dataset,
                                rng::Purpose purpose = rng::Purpose::kTest) {
  const std::size_t dim = mix.dim, k = mix.components();
  const auto d = static_cast<Eigen::Index>(dim);
  const Eigen::MatrixXd chol =
      Eigen::Map<const Eigen::MatrixXd>(mix.covariance.data(), d, d).llt().matrixL();
  std::vector<double> cumulative(k);
  double total = 0.0;
  for (std::size_t j = 0; j < k; ++j) cumulative[j] = (total += mix.weights[j]);
  std::vector<double> out(n * dim);
  constexpr std::size_t kChunk = std::size_t{1} << 16;
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(dynamic)
  for (std::ptrdiff_t c = 0; c < static_cast<std::ptrdiff_t>(chunks); ++c) {
    rng::Stream s(rng::StreamId{seed, scenario, dataset, static_cast<std::uint64_t>(c), purpose});
    Eigen::VectorXd z(d);
    const std::size_t first = static_cast<std::size_t>(c) * kChunk;
    const std::size_t last = std::min(n, first + kChunk);
    for (std::size_t i = first; i < last; ++i) {
      std::size_t j = 0;
      if (k > 1) {
        const double u = s.uniform() * total;
        j = static_cast<std::size_t>(std::upper_bound(cumulative.begin(), cumulative.end(), u) -
                                     cumulative.begin());
        j = std::min(j, k - 1);
      }
      for (Eigen::Index a = 0; a < d; ++a) z(a) = s.normal();
      const Eigen::VectorXd x = chol * z;
      for (std::size_t a = 0; a < dim; ++a) {
        out[i * dim + a] = mix.means[j * dim + a] + x(static_cast<Eigen::Index>(a));
      }
    }
  }
  return out;
}

/// The sampled Gaussian mechanism in 1-D: (1 - rate) N(0, s^2) + rate N(mu, s^2).
inline exact::GaussianMixture sampled_gaussian(double rate, double mu, double s) {
  exact::GaussianMixture g;
  g.dim = 1;
  g.weights = {1.0 - rate, rate};
  g.means = {0.0, mu};
  g.covariance = {s * s};
  return g;
}

/// A known-truth case: the laws of P and P' (Gaussian mixtures with a common covariance).
struct Case {
  std::string name;
  exact::GaussianMixture p, q;
  std::string description;
};

/// The known-truth suite. Where the tilted law of order 16 sits decides what 10^7 samples can
/// do (large orders live in the tail: the order-alpha divergence is an expectation under the
/// law tilted by the likelihood ratio to the power alpha, which for large alpha sits far out
/// in the tail of P', where few samples fall): "within reach" cases put 90 % of it within
/// 3.7 sd of P' (pair10, pair15, sgm), "edge" cases within 4.5 sd (pair20, sgm25), and sgm_far
/// puts it 16 sd out, beyond any sample.
inline std::vector<Case> known_truth_cases() {
  std::vector<Case> c;
  auto pair = [](const char* name, double rho) {
    return Case{name, exact::gaussian({2.0 * rho}, {4.0}), exact::gaussian({0.0}, {4.0}),
                "N(" + std::to_string(2.0 * rho).substr(0, 4) + ", 2^2) vs N(0, 2^2)"};
  };
  c.push_back(pair("pair10", 0.10));
  c.push_back(pair("pair15", 0.15));
  c.push_back(pair("pair20", 0.20));
  c.push_back(Case{"sgm", sampled_gaussian(0.5, 0.4, 2.0), exact::gaussian({0.0}, {4.0}),
                   "0.5 N(0, 2^2) + 0.5 N(0.4, 2^2) vs N(0, 2^2)"});
  c.push_back(Case{"sgm25", sampled_gaussian(0.5, 0.5, 2.0), exact::gaussian({0.0}, {4.0}),
                   "0.5 N(0, 2^2) + 0.5 N(0.5, 2^2) vs N(0, 2^2)"});
  c.push_back(Case{"sgm_far", sampled_gaussian(0.1, 2.0, 2.0), exact::gaussian({0.0}, {4.0}),
                   "0.9 N(0, 2^2) + 0.1 N(2, 2^2) vs N(0, 2^2)"});
  for (int k : {1, 10, 50}) {
    exact::QuadraticLossSetting s;
    s.epochs = k;
    const exact::MixturePair m = exact::quadratic_loss_last_iterate(s);
    c.push_back(Case{"fig2_k" + std::to_string(k), m.p, m.q,
                     "Figure 2 quadratic loss, shuffle and partition, K = " + std::to_string(k)});
  }
  const std::vector<double> cov = {2.0, 0.9, 0.9, 1.0};
  c.push_back(Case{
      "pair2d", exact::gaussian({0.1, -0.05}, cov), exact::gaussian({0.0, 0.0}, cov),
      "2-D N((0.1, -0.05), S) vs N(0, S), S = [[2, 0.9], [0.9, 1]] (Mahalanobis shift 0.142)"});
  return c;
}

inline Case known_truth_case(const std::string& name) {
  for (Case& c : known_truth_cases()) {
    if (c.name == name) return c;
  }
  throw std::invalid_argument("no known-truth case " + name);
}

/// Fine cells of 1-D samples split by position: the first `n_selection` of each side choose,
/// the rest are counted (as estimate_from_samples splits its rows).
inline OrderedCells cells_split_at(const std::vector<double>& xp, const std::vector<double>& xq,
                                   std::size_t n_selection) {
  const auto k = static_cast<std::ptrdiff_t>(n_selection);
  return cells_from_scores({xp.begin(), xp.begin() + k}, {xq.begin(), xq.begin() + k},
                           {xp.begin() + k, xp.end()}, {xq.begin() + k, xq.end()});
}

/// One seeded replication of the sample-based estimators on a known-truth case with n samples
/// per side, as the audit runs them (two phases):
///  * 1-D: an independent pilot (Purpose::kPilot streams, the audit's default size:
///    n / 4 clamped to [2 * 10^4, 10^6], at most n) chooses every cell (select_on_pilot); all n
///    samples are counted; "histogram-plugin" (bootstrap of `bootstrap` replicates),
///    "rigorous-cp" and "rigorous-bernstein" from the counts (estimate_from_counts).
///  * 2-D: estimate_from_samples with the logistic-regression score.
inline std::vector<Estimate> run_replication(const Case& c, std::size_t n, std::uint64_t seed,
                                             std::uint32_t scenario,
                                             const std::vector<double>& alphas,
                                             std::size_t bootstrap = 100) {
  const auto xp = draw(c.p, n, seed, scenario, 0);
  const auto xq = draw(c.q, n, seed, scenario, 1);
  rng::Stream boot(rng::StreamId{seed, scenario, 2, 0, rng::Purpose::kTest});
  if (c.p.dim == 2) {
    SampleOptions o;
    o.selection.scores = {Score::kLogistic};
    o.count.plugin.bootstrap_replicates = bootstrap;
    return estimate_from_samples(SampleView{xp.data(), n, 2}, SampleView{xq.data(), n, 2}, alphas,
                                 o, &boot);
  }
  const std::size_t n_pilot =
      std::min<std::size_t>(n, std::clamp<std::size_t>(n / 4, 20000, 1000000));
  const auto pp = draw(c.p, n_pilot, seed, scenario, 0, rng::Purpose::kPilot);
  const auto pq = draw(c.q, n_pilot, seed, scenario, 1, rng::Purpose::kPilot);
  const Selection sel = select_on_pilot(view_of(pp), view_of(pq), n, SelectionOptions{});
  const ScoreSelection& s = sel.scores.front();
  tally::ScoreCells cp = s.counting_cells(), cq = s.counting_cells();
  for (double x : xp) cp.add(&x);
  for (double x : xq) cq.add(&x);
  CountOptions o;
  o.plugin.bootstrap_replicates = bootstrap;
  return estimate_from_counts(s, cp.counts, cq.counts, alphas, o, &boot, nullptr);
}

}  // namespace rdpaudit::estimate::testing
