#include "rdpaudit/sim/mixture.hpp"

#include <cmath>

#include "rdpaudit/rng/philox.hpp"
#include "rdpaudit/sim/batches.hpp"
#include "rdpaudit/sim/simulate.hpp"

namespace rdpaudit::sim {

using config::BatchScheme;

namespace {

Eigen::MatrixXd records(const config::Scenario& s, bool prime) {
  Eigen::MatrixXd x = s.data.points;
  if (prime) x.row(s.data.differing_index) = s.data.replacement.transpose();
  return x;
}

// a^T m0 + sum_t a^(T-1-t) (eta lambda / b) sum_{B_t} x for one batch schedule.
Eigen::VectorXd pattern_mean(const config::Scenario& s, const Eigen::MatrixXd& x,
                             BatchSchedule& batches) {
  const double a = 1.0 - s.eta * s.lambda, c = s.eta * s.lambda / s.batch_size;
  Eigen::VectorXd mu = s.init_mean;
  for (long t = 0; t < s.steps; ++t) {
    int count = 0;
    const int* idx = batches.next(count);
    Eigen::VectorXd sum = Eigen::VectorXd::Zero(s.dim);
    for (int m = 0; m < count; ++m) sum += x.row(idx[m]).transpose();
    mu = a * mu + c * sum;
  }
  return mu;
}

bool others_identical(const config::Scenario& s) {
  const auto& x = s.data.points;
  const int i0 = s.data.differing_index, first = i0 == 0 ? 1 : 0;
  for (int i = 0; i < x.rows(); ++i) {
    if (i != i0 && !(x.row(i) - x.row(first)).isZero(0)) return false;
  }
  return true;
}

// Shuffle and partition when only the batch J of i0 matters: J = j with probability b/n for
// each of the m batches, J = -1 (left out, footnote 3) with probability (n - m b)/n.
LastIterateMixture enumerate_partition(const config::Scenario& s, bool prime) {
  const int i0 = s.data.differing_index;
  const Eigen::VectorXd xo = s.data.points.row(i0 == 0 ? 1 : 0).transpose();
  const Eigen::VectorXd xd =
      prime ? s.data.replacement : Eigen::VectorXd(s.data.points.row(i0).transpose());
  const double a = 1.0 - s.eta * s.lambda, c = s.eta * s.lambda / s.batch_size;
  const long m = s.steps_per_epoch, T = s.steps;
  LastIterateMixture out;
  out.dim = s.dim;
  out.exact = true;
  out.how = "enumerated: the batch of the differing record";
  for (long j = -1; j < m; ++j) {
    const double w =
        j < 0 ? double(s.n() - m * s.batch_size) / s.n() : double(s.batch_size) / s.n();
    if (w <= 0) continue;
    Eigen::VectorXd mu = s.init_mean;
    for (long t = 0; t < T; ++t) {
      // sum over the batch: b x_o, with x_o replaced by x_d for i0's batch
      Eigen::VectorXd sum = s.batch_size * xo;
      if (t % m == j) sum += xd - xo;
      mu = a * mu + c * sum;
    }
    out.weights.push_back(w);
    out.means.insert(out.means.end(), mu.data(), mu.data() + s.dim);
  }
  return out;
}

LastIterateMixture sample_patterns(const config::Scenario& s, bool prime, std::uint64_t seed,
                                   int patterns) {
  const bool deterministic =
      s.scheme == BatchScheme::kFixedOrder || s.scheme == BatchScheme::kFullBatch;
  const int count = deterministic ? 1 : patterns;
  const Eigen::MatrixXd x = records(s, prime);
  const auto order = fixed_order(s);
  LastIterateMixture out;
  out.dim = s.dim;
  out.exact = deterministic;
  out.how = deterministic ? "deterministic schedule"
                          : std::to_string(count) + " sampled schedules (Rao-Blackwellised)";
  for (int k = 0; k < count; ++k) {
    // Streams of their own (dataset ids 4, 5), independent of the simulated trajectories.
    rng::Stream stream({seed, static_cast<std::uint32_t>(s.index), prime ? 5u : 4u,
                        static_cast<std::uint64_t>(k), rng::Purpose::kBatch});
    BatchSchedule batches(s, order, stream);
    const Eigen::VectorXd mu = pattern_mean(s, x, batches);
    out.weights.push_back(1.0);
    out.means.insert(out.means.end(), mu.data(), mu.data() + s.dim);
  }
  return out;
}

}  // namespace

std::optional<MixturePair> quadratic_last_iterate_mixture(const config::Scenario& s,
                                                          std::uint64_t seed, int patterns,
                                                          std::string& why) {
  if (s.loss != config::LossKind::kQuadratic) {
    why = "the loss is not quadratic (the update is not affine)";
    return std::nullopt;
  }
  if (std::isfinite(s.projection_diameter)) {
    why = "the iterates are projected (the update is not affine)";
    return std::nullopt;
  }
  if (s.scheme == BatchScheme::kPoisson) {
    why = "Poisson batches have a random size, so the covariance depends on the pattern";
    return std::nullopt;
  }
  MixturePair out;
  const double a = 1.0 - s.eta * s.lambda;
  double var = std::pow(a, 2.0 * s.steps) * s.init_std * s.init_std;
  for (long t = 0; t < s.steps; ++t) var += s.step_std * s.step_std * std::pow(a, 2.0 * t);
  const bool enumerate = s.scheme == BatchScheme::kShufflePartition && others_identical(s);
  for (bool prime : {false, true}) {
    LastIterateMixture m =
        enumerate ? enumerate_partition(s, prime) : sample_patterns(s, prime, seed, patterns);
    m.variance = var;
    (prime ? out.dprime : out.d) = std::move(m);
  }
  return out;
}

}  // namespace rdpaudit::sim
