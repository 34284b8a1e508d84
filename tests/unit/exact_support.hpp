// The chains the exact engine's tests evolve (exact/chain.hpp), one builder each, so that a
// test names the chain it checks and changes only what it varies.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "rdpaudit/exact/chain.hpp"
#include "rdpaudit/exact/gaussian_mixture.hpp"
#include "rdpaudit/exact/renyi.hpp"

namespace rdpaudit::test {

/// A 1-D Gaussian mixture (weights, means, one variance): the closed-form laws the engine's
/// brackets are checked against.
inline exact::GaussianMixture mixture(std::vector<double> w, std::vector<double> m, double var) {
  exact::GaussianMixture g;
  g.weights = std::move(w);
  g.means = std::move(m);
  g.covariance = {var};
  return g;
}

/// Checks both directions of every row against the truths (the references are accurate to
/// ~1e-10 relative, or exact): lower end <= truth <= upper end, lower <= upper; returns the
/// largest relative width (upper - lower) / truth over the orders up to width_up_to (beyond,
/// the lower end's cells may not reach the tilted law).
inline double check_rows(const std::vector<exact::RenyiBracketRow>& rows,
                         const std::function<double(double, bool)>& truth,
                         double width_up_to = INFINITY) {
  double widest = 0;
  for (const exact::RenyiBracketRow& r : rows) {
    for (bool fwd : {true, false}) {
      const exact::Bracket b = fwd ? r.forward : r.backward;
      const double t = truth(r.alpha, fwd);
      INFO("alpha " << r.alpha << (fwd ? " forward" : " backward") << ": [" << b.lo << ", " << b.hi
                    << "] truth " << t);
      CHECK(b.lo <= t * (1 + 1e-9));
      CHECK(t * (1 - 1e-9) <= b.hi);
      CHECK(b.lo <= b.hi);
      if (r.alpha <= width_up_to) widest = std::max(widest, (b.hi - b.lo) / t);
    }
  }
  return widest;
}

/// Noisy GD on the linear loss, one record (the gradient is the record: +1 in D, -1 in D'),
/// eta = 0.5, s = 1, T steps, unprojected: theta_T ~ N(-+T eta, T s^2), a Gaussian pair with
/// R_alpha = alpha (2 T eta)^2 / (2 T s^2).
inline exact::ChainSpec gaussian_pair_chain(long steps) {
  exact::ChainSpec c;
  c.loss = config::LossKind::kLinear;
  c.eta = 0.5;
  c.step_std = 1.0;
  c.record_d = 1.0;
  c.record_dprime = -1.0;
  c.scheme = config::BatchScheme::kFullBatch;
  c.steps = steps;
  return c;
}

/// The sampled Gaussian mechanism at T = 1: the linear loss, n = 4, b = 1 without
/// replacement, eta = s = 1; D's record (gradient 2) moves the mean by -2 w.p. 1/4, D''s (0)

/// One projected step of noisy GD on the linear loss onto [-0.05, 0.05], s = 0.04, eta = 0.04,
/// records +-0.5: N(-+0.02, 0.04^2) clamped, about 10 % of the mass on each boundary atom.
inline exact::ChainSpec clamped_pair_chain() {
  exact::ChainSpec c;
  c.loss = config::LossKind::kLinear;
  c.eta = 0.04;
  c.step_std = 0.04;
  c.clamp_lo = -0.05;
  c.clamp_hi = 0.05;
  c.record_d = 0.5;
  c.record_dprime = -0.5;
  c.scheme = config::BatchScheme::kFullBatch;
  c.steps = 1;
  return c;
}
/// not at all: P = 3/4 N(0, 1) + 1/4 N(-2, 1), P' = N(0, 1).
inline exact::ChainSpec sampled_gaussian_chain() {
  exact::ChainSpec c;
  c.loss = config::LossKind::kLinear;
  c.eta = 1.0;
  c.step_std = 1.0;
  c.record_d = 2.0;
  c.record_dprime = 0.0;
  c.n = 4;
  c.batch = 1;
  c.scheme = config::BatchScheme::kSampleWithoutReplacement;
  c.steps = 1;
  return c;
}

/// The quadratic loss (lambda = 1) on n = 4 records, b = 2 (two steps an epoch), eta = 0.25,
/// s = 0.5, the differing record 0 in D and 2 in D', the others 0: few enough batch patterns
/// to enumerate for every scheme.
inline exact::ChainSpec small_quadratic(config::BatchScheme scheme, long steps) {
  exact::ChainSpec c;
  c.loss = config::LossKind::kQuadratic;
  c.lambda = 1.0;
  c.eta = 0.25;
  c.step_std = 0.5;
  c.record_d = 0.0;
  c.record_dprime = 2.0;
  c.background = 0.0;
  c.n = 4;
  c.batch = 2;
  c.steps_per_epoch = 2;
  c.scheme = scheme;
  c.steps = steps;
  return c;
}

/// The blog's chain (experiments/blog_saturation.toml): the linear loss, gradient +1 in D and
/// -1 in D', b of n = 10 sampled without replacement, eta = s = 0.04, projected onto
/// [-radius, radius].
inline exact::ChainSpec blog_chain(long batch, long steps, double radius = 1.0) {
  exact::ChainSpec c;
  c.loss = config::LossKind::kLinear;
  c.eta = 0.04;
  c.step_std = 0.04;
  c.clamp_lo = -radius;
  c.clamp_hi = radius;
  c.record_d = 1;
  c.record_dprime = -1;
  c.n = 10;
  c.batch = static_cast<int>(batch);
  c.scheme = config::BatchScheme::kSampleWithoutReplacement;
  c.steps_per_epoch = c.n / c.batch;
  c.steps = steps;
  return c;
}

/// An experiment file on the linear loss with the linear_worst_case pair (the blog's data:
/// n = 10, L = 1; the records' gradients +1 in D, -1 in D'), given its seed and trajectories,
/// then `rest`: its [training] and [noise] tables and what else the test needs.
inline std::string linear_worst_case_toml(int seed, long trajectories, const std::string& rest) {
  return "[experiment]\nseed = " + std::to_string(seed) +
         "\ntrajectories = " + std::to_string(trajectories) +
         "\n[model]\nloss = \"linear\"\ndim = 1\n[data]\npreset = \"linear_worst_case\"\nn = "
         "10\nlipschitz = 1.0\n" +
         rest;
}

/// Monte Carlo runs of a projected chain sampled without replacement (blog_chain), from one
/// seeded generator that continues across runs.
struct ProjectedChainRuns {
  std::mt19937_64 gen{20261202};
  std::normal_distribution<double> z{0.0, 1.0};
  std::uniform_real_distribution<double> u{0.0, 1.0};

  /// N trajectories from theta_0 = 0 of the dataset whose differing record has gradient g,
  /// counted per cell of a grid of `cells` cells of width h from c.clamp_lo (index k) and per
  /// atom (index cells: clamp_lo, cells + 1: clamp_hi).
  std::vector<long> counts(const exact::ChainSpec& c, double g, long N, int cells, double h) {
    std::vector<long> count(static_cast<std::size_t>(cells) + 2, 0);
    const double rate = static_cast<double>(c.batch) / c.n;
    for (long i = 0; i < N; ++i) {
      double th = 0;
      for (long t = 0; t < c.steps; ++t) {
        const bool in = u(gen) < rate;
        th = std::clamp(th - (in ? c.eta * g / c.batch : 0.0) + c.step_std * z(gen), c.clamp_lo,
                        c.clamp_hi);
      }
      int k;
      if (th == c.clamp_lo)
        k = cells;
      else if (th == c.clamp_hi)
        k = cells + 1;
      else
        k = std::min(cells - 1, static_cast<int>((th - c.clamp_lo) / h));
      ++count[static_cast<std::size_t>(k)];
    }
    return count;
  }
};

}  // namespace rdpaudit::test
