// Test support for the estimator tests: seeded samples from Gaussian mixtures, drawn with the
// project's counter-based streams (one stream per chunk of 2^16 samples, so the draws do not
// depend on the number of threads).
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <boost/random/normal_distribution.hpp>
#include <cstdint>
#include <vector>

#include "rdpaudit/estimate/exact.hpp"
#include "rdpaudit/rng/philox.hpp"

namespace rdpaudit::estimate::testing {

/// n samples (row-major, dim per row) of `mix`; stream ids (seed, scenario, dataset, chunk, kTest).
inline std::vector<double> draw(const GaussianMixture& mix, std::size_t n, std::uint64_t seed,
                                std::uint32_t scenario, std::uint32_t dataset,
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
    boost::random::normal_distribution<double> normal;
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
      for (Eigen::Index a = 0; a < d; ++a) z(a) = normal(s);
      const Eigen::VectorXd x = chol * z;
      for (std::size_t a = 0; a < dim; ++a) {
        out[i * dim + a] = mix.means[j * dim + a] + x(static_cast<Eigen::Index>(a));
      }
    }
  }
  return out;
}

/// The sampled Gaussian mechanism in 1-D: (1 - rate) N(0, s^2) + rate N(mu, s^2).
inline GaussianMixture sampled_gaussian(double rate, double mu, double s) {
  GaussianMixture g;
  g.dim = 1;
  g.weights = {1.0 - rate, rate};
  g.means = {0.0, mu};
  g.covariance = {s * s};
  return g;
}

}  // namespace rdpaudit::estimate::testing
