// Simulator invariants: thread-count independence, clipping, projection, batch schedules.
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "rdpaudit/config/load.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/exact/chain.hpp"
#include "rdpaudit/rng/stream.hpp"
#include "rdpaudit/sim/batches.hpp"
#include "rdpaudit/sim/loss.hpp"
#include "rdpaudit/sim/simulate.hpp"
#include "rdpaudit/tally/flat.hpp"
#include "with_threads.hpp"

using namespace rdpaudit;

namespace {

config::Scenario scenario_of(const std::string& text) {
  return config::parse_experiment(text, "test.toml").scenarios.at(0);
}

const char* kQuadratic2d = R"(
[experiment]
seed = 3
trajectories = 5000
[model]
loss = "quadratic"
dim = 2
lambda = 0.5
[data]
preset = "quadratic_worst_case"
n = 12
sensitivity = 2.0
[training]
scheme = "shuffle_each_epoch"
eta = 0.1
batch_size = 3
epochs = 3
[noise]
sigma = 1.0
[init]
std = 0.5
[tally]
bins = 64
bins_2d = 16
raw_samples = 300
pilot_trajectories = 500
)";

const char* kLogisticPoisson = R"(
[experiment]
seed = 5
trajectories = 3000
[model]
loss = "logistic"
features = 2
classes = 2
lambda = 0.1
feature_clip = 2.0
clip_norm = 0.5
[data]
preset = "logistic_synthetic"
n = 20
[training]
scheme = "poisson"
eta = 0.2
batch_size = 4
epochs = 2
projection_diameter = 3.0
[noise]
noise_multiplier = 1.0
[tally]
raw_samples = 100
pilot_trajectories = 500
)";

// Random allocation on a quadratic loss, whose contraction reads each step's count.
const char* kRandomAllocation = R"(
[experiment]
seed = 5
trajectories = 3000
[model]
loss = "quadratic"
lambda = 1.0
[data]
preset = "quadratic_worst_case"
n = 40
sensitivity = 2.0
[training]
scheme = "random_allocation"
eta = 0.1
batch_size = 8
epochs = 3
[noise]
sigma = 1.0
[tally]
raw_samples = 100
pilot_trajectories = 500
)";

// Poisson at DP-SGD scale, drawn by distinguished records: the count of the other records
// (Binomial(n - s, q), mean 256) and the replaced record's inclusion.
const char* kPoissonLarge = R"(
[experiment]
seed = 5
trajectories = 3000
[model]
loss = "quadratic"
lambda = 1.0
[data]
preset = "quadratic_worst_case"
n = 60000
sensitivity = 2.0
[training]
scheme = "poisson"
eta = 0.5
batch_size = 256
steps = 40
[noise]
sigma = 1.0
[init]
std = 0.5
[tally]
raw_samples = 300
pilot_trajectories = 500
)";

// The plot cells placed by the pilot of `seed`, as the scenario pass places them.
tally::Binning plot_binning_of(const config::Scenario& s, std::uint64_t seed) {
  const std::int64_t pilot = sim::pilot_trajectories(s);
  const Eigen::MatrixXd pilot_d = sim::simulate_last_iterates(s, seed, sim::kPilotD, 0, pilot);
  const Eigen::MatrixXd pilot_dprime =
      sim::simulate_last_iterates(s, seed, sim::kPilotDPrime, 0, pilot);
  return sim::plot_binning(s, pilot_d, pilot_dprime);
}

void require_identical(const tally::Tally& a, const tally::Tally& b) {
  REQUIRE(a.coordinate.size() == b.coordinate.size());
  for (std::size_t k = 0; k < a.coordinate.size(); ++k)
    CHECK(a.coordinate[k].counts == b.coordinate[k].counts);
  CHECK(a.projection.counts == b.projection.counts);
  CHECK(a.joint.counts == b.joint.counts);
  CHECK(a.raw == b.raw);  // bitwise equality of doubles
  CHECK(a.moments.count == b.moments.count);
  CHECK(a.moments.sum == b.moments.sum);  // exact sums: equal limbs
  CHECK(a.moments.outer == b.moments.outer);
}

}  // namespace

TEST_CASE("one seed gives identical tallies at 1 and 2 threads", "[sim][determinism]") {
  for (const char* text : {kQuadratic2d, kLogisticPoisson, kPoissonLarge, kRandomAllocation}) {
    const auto s = scenario_of(text);
    const auto one = test::with_threads(1, [&] { return sim::simulate_scenario(s, 3, 5000); });
    const auto two = test::with_threads(2, [&] { return sim::simulate_scenario(s, 3, 5000); });
    require_identical(one.d, two.d);
    require_identical(one.dprime, two.dprime);
    CHECK(one.d.coordinate[0].total() == 5000);
    // ...and a different seed gives different numbers.
    const auto other = sim::simulate_scenario(s, 4, 5000);
    CHECK(other.d.raw != one.d.raw);
  }
}

TEST_CASE("clipped per-example logistic gradients never exceed the clip norm", "[sim][loss]") {
  rng::Stream stream({99, 0, 0, 0, rng::Purpose::kTest});
  for (int features = 1; features <= 3; ++features) {
    for (int classes = 2; (features + 1) * classes <= config::kMaxDim; ++classes) {
      for (double clip : {0.05, 0.5, 2.0}) {
        const sim::LogisticLoss<config::kMaxDim> loss{0.0, clip, features, classes};
        const int d = (features + 1) * classes;
        int clipped = 0;
        for (int rep = 0; rep < 2000; ++rep) {
          double theta[config::kMaxDim], x[config::kMaxDim], g[config::kMaxDim];
          for (int k = 0; k < d; ++k) theta[k] = 3.0 * stream.normal();
          for (int k = 0; k < features; ++k) x[k] = 5.0 * stream.normal();
          loss.example_gradient(theta, x, static_cast<int>(stream.below(classes)), g);
          double sq = 0;
          for (int k = 0; k < d; ++k) sq += g[k] * g[k];
          REQUIRE(std::sqrt(sq) <= clip * (1 + 1e-12));
          clipped += std::sqrt(sq) > clip * (1 - 1e-9);
        }
        CHECK(clipped > 0);  // the clip was active in some draws, so the check bit
      }
    }
  }
}

TEST_CASE("the logistic softmax skips exp only where it is exactly 1", "[sim][loss]") {
  const sim::LogisticLoss<6> loss{0.1, std::numeric_limits<double>::infinity(), 2, 2};
  double theta[6] = {0.3, -0.2, 0.1, -0.5, 0.4, 0.05};
  const double x[2] = {0.7, -1.2};
  for (int y : {0, 1}) {
    double g[6];
    loss.example_gradient(theta, x, y, g);
    // The softmax written out with both exp calls: the same bits.
    const double l0 = 0.1 + 0.3 * 0.7 + -0.2 * -1.2, l1 = 0.05 + -0.5 * 0.7 + 0.4 * -1.2;
    const double top = std::max(l0, l1), e0 = std::exp(l0 - top), e1 = std::exp(l1 - top);
    const double total = 0.0 + e0 + e1;
    const double c0 = e0 / total - (y == 0), c1 = e1 / total - (y == 1);
    const double want[6] = {c0 * 0.7, c0 * -1.2, c0, c1 * 0.7, c1 * -1.2, c1};
    for (int k = 0; k < 6; ++k) CHECK(g[k] == want[k]);
  }
  // An infinite logit: inf - inf is NaN, and NaN goes through exp as before.
  theta[2] = std::numeric_limits<double>::infinity();
  double g[6];
  loss.example_gradient(theta, x, 0, g);
  CHECK(std::isnan(g[0]));
}

TEST_CASE("unclipped logistic gradient equals a finite difference of the loss", "[sim][loss]") {
  const int f = 2, c = 3, d = (f + 1) * c;
  const sim::LogisticLoss<9> loss{0.0, config::kInf, f, c};
  const double x[2] = {0.7, -1.3};
  const int y = 1;
  double theta[9] = {0.1, -0.2, 0.3, 0.5, 0.4, -0.6, -0.1, 0.2, 0.05};
  auto value = [&](const double* th) {  // eq. (8): -log softmax_y(x-bar . theta)
    double z[3], top = -1e300, sum = 0;
    for (int k = 0; k < c; ++k) {
      z[k] = th[k * (f + 1) + f] + th[k * (f + 1)] * x[0] + th[k * (f + 1) + 1] * x[1];
      top = std::max(top, z[k]);
    }
    for (int k = 0; k < c; ++k) sum += std::exp(z[k] - top);
    return -(z[y] - top - std::log(sum));
  };
  double g[9];
  loss.example_gradient(theta, x, y, g);
  for (int k = 0; k < d; ++k) {
    double plus[9], minus[9];
    std::copy(theta, theta + d, plus);
    std::copy(theta, theta + d, minus);
    plus[k] += 1e-6;
    minus[k] -= 1e-6;
    CHECK(g[k] == Approx((value(plus) - value(minus)) / 2e-6).margin(1e-8));
  }
}

TEST_CASE("projected runs stay in the ball of diameter D", "[sim]") {
  const auto s = scenario_of(kLogisticPoisson);
  const auto t = sim::simulate_scenario(s, 5, 3000);
  const int d = s.dim;
  for (std::size_t j = 0; j * d < t.d.raw.size(); ++j) {
    double sq = 0;
    for (int k = 0; k < d; ++k) sq += t.d.raw[j * d + k] * t.d.raw[j * d + k];
    REQUIRE(std::sqrt(sq) <= 0.5 * s.projection_diameter * (1 + 1e-12));
  }
}

TEST_CASE("batch schedules follow their scheme", "[sim][batches]") {
  auto s = scenario_of(kQuadratic2d);  // n = 12, b = 3: 4 batches per epoch
  rng::Stream stream({1, 0, 0, 7, rng::Purpose::kBatch});
  SECTION("shuffle and partition: one partition of all records, repeated every epoch") {
    s.scheme = config::BatchScheme::kShufflePartition;
    const auto order = sim::fixed_order(s);
    sim::BatchSchedule batches(s, order, stream);
    std::vector<int> first_epoch;
    for (long t = 0; t < 4; ++t) {
      int count = 0;
      const int* idx = batches.next(count);
      first_epoch.insert(first_epoch.end(), idx, idx + count);
    }
    CHECK(std::set<int>(first_epoch.begin(), first_epoch.end()).size() == 12);
    for (long t = 4; t < 12; ++t) {
      int count = 0;
      const int* idx = batches.next(count);
      CHECK(std::vector<int>(idx, idx + count) ==
            std::vector<int>(first_epoch.begin() + (t % 4) * 3,
                             first_epoch.begin() + (t % 4) * 3 + 3));
    }
  }
  SECTION("fixed order puts the differing record into batch j0") {
    s.scheme = config::BatchScheme::kFixedOrder;
    s.differing_batch = 2;
    const auto order = sim::fixed_order(s);
    sim::BatchSchedule batches(s, order, stream);
    int count = 0;
    const int* idx = nullptr;
    for (int t = 0; t <= 2; ++t) idx = batches.next(count);
    CHECK(std::find(idx, idx + count, s.data.differing_index) != idx + count);
  }
  SECTION("sampling without replacement draws b distinct records") {
    s.scheme = config::BatchScheme::kSampleWithoutReplacement;
    const auto order = sim::fixed_order(s);
    sim::BatchSchedule batches(s, order, stream);
    for (long t = 0; t < 100; ++t) {
      int count = 0;
      const int* idx = batches.next(count);
      CHECK(std::set<int>(idx, idx + count).size() == 3);
    }
  }
}

namespace {

// The noise and initial iterate of the kernel comparisons below.
const char* kNoiseAndInit = R"([noise]
sigma = 1.0
[init]
mean = [0.3, -0.1]
std = 0.2
)";

// The address of trajectory j's stream of purpose p (seed 7), as the simulator forms it.
rng::StreamId stream_of(const config::Scenario& s, sim::Dataset dataset, std::int64_t j,
                        rng::Purpose p) {
  return rng::StreamId{7, static_cast<std::uint32_t>(s.index), dataset,
                       static_cast<std::uint64_t>(j), p};
}

// theta_0 of trajectory j: the initial mean, plus init_std times normals of its init stream.
std::vector<double> initial_theta(const config::Scenario& s, sim::Dataset dataset, std::int64_t j) {
  std::vector<double> theta(static_cast<std::size_t>(s.dim));
  for (int k = 0; k < s.dim; ++k) theta[k] = s.init_mean(k);
  if (s.init_std > 0) {
    rng::Stream init(stream_of(s, dataset, j, rng::Purpose::kInit));
    for (int k = 0; k < s.dim; ++k) theta[k] += s.init_std * init.normal();
  }
  return theta;
}

// Pi_K, written out: the projection onto the ball of diameter D around the centre.
void project_onto_ball(const config::Scenario& s, std::vector<double>& theta) {
  if (!std::isfinite(s.projection_diameter)) return;
  const double radius = 0.5 * s.projection_diameter;
  double sq = 0;
  for (int k = 0; k < s.dim; ++k)
    sq += (theta[k] - s.projection_center(k)) * (theta[k] - s.projection_center(k));
  if (sq <= radius * radius) return;
  for (int k = 0; k < s.dim; ++k)
    theta[k] =
        s.projection_center(k) + radius / std::sqrt(sq) * (theta[k] - s.projection_center(k));
}

// One trajectory, written as plainly as possible (no lanes, no cached batch sums), from the
// same streams the simulator uses: the optimised kernels must give the same numbers.
// With `diverged` it also records the first step (0: the initial iterate) after which a
// coordinate is not finite, and that coordinate's value.
std::vector<double> reference_trajectory(const config::Scenario& s, sim::Dataset dataset,
                                         std::int64_t j,
                                         std::pair<long, double>* diverged = nullptr) {
  const auto watch = [&](long t, const std::vector<double>& theta) {
    for (double v : theta) {
      if (diverged && diverged->first < 0 && !std::isfinite(v)) *diverged = {t, v};
    }
  };
  const int d = s.dim;
  const auto id = [&](rng::Purpose p) { return stream_of(s, dataset, j, p); };
  std::vector<double> theta = initial_theta(s, dataset, j);
  const auto project = [&] { project_onto_ball(s, theta); };
  project();
  watch(0, theta);
  Eigen::MatrixXd x = s.data.points;
  if (dataset == sim::kDPrime || dataset == sim::kPilotDPrime)
    x.row(s.data.differing_index) = s.data.replacement.transpose();
  rng::Stream batch_stream(id(rng::Purpose::kBatch)), noise(id(rng::Purpose::kNoise));
  const auto order = sim::fixed_order(s);
  const sim::BatchDraws draws = sim::batch_draws(s, dataset);  // as the simulator draws
  sim::BatchSchedule batches(s, order, draws, batch_stream);
  for (long t = 0; t < s.steps; ++t) {
    int count = 0;
    const int* idx = batches.next(count);
    std::vector<double> sum(d, 0.0);
    for (int m = 0; m < count; ++m) {
      for (int k = 0; k < d; ++k) sum[k] += x(idx[m], k);
    }
    // A crafted record counts no record of the loss and adds g_t in D (absent in D').
    const bool crafted =
        s.data.crafted && std::find(idx, idx + count, s.data.differing_index) != idx + count;
    const bool in_d = dataset == sim::kD || dataset == sim::kPilotD;
    const int others = count - (crafted ? 1 : 0);
    for (int k = 0; k < d; ++k) {
      double g = s.loss == config::LossKind::kQuadratic
                     ? s.lambda * batches.inverse_normaliser() * (others * theta[k] - sum[k])
                     : batches.inverse_normaliser() * sum[k];
      if (crafted && in_d) g += batches.inverse_normaliser() * s.data.crafted_at(t)(k);
      theta[k] += s.step_std * noise.normal() - s.eta * g;
    }
    project();
    watch(t + 1, theta);
  }
  return theta;
}

// Trajectories 0..count-1 of `dataset` from the optimised kernels against the plain loop:
// bit for bit, or within 1e-13 (relative and absolute) with `tolerance`. Returns the
// simulated last iterates.
Eigen::MatrixXd check_plain_loop(const config::Scenario& s, sim::Dataset dataset, int count,
                                 const std::string& what, bool tolerance = false) {
  const Eigen::MatrixXd got = sim::simulate_last_iterates(s, 7, dataset, 0, count);
  for (int j = 0; j < count; ++j) {
    const auto want = reference_trajectory(s, dataset, j);
    INFO(what << " dataset " << dataset << " trajectory " << j);
    for (int k = 0; k < 2; ++k) {
      if (tolerance)
        CHECK(got(j, k) == Approx(want[k]).epsilon(1e-13).margin(1e-13));
      else
        CHECK(got(j, k) == want[k]);
    }
  }
  return got;
}

// An experiment of 2-D records `points` (a TOML array) whose record 2 is replaced by
// (4, -3), seed 7, eta 0.05: the kernel comparisons' setting. `training` holds the lines of
// [training] after the scheme and eta, `tail` the tables after [training].
std::string points_experiment(int trajectories, const std::string& loss, const std::string& points,
                              const std::string& scheme, const std::string& training,
                              const std::string& tail) {
  return fmt::format(R"(
[experiment]
seed = 7
trajectories = {}
[model]
loss = "{}"
dim = 2
{}
[data]
points = {}
replacement = [4.0, -3.0]
differing_index = 2
[training]
scheme = "{}"
eta = 0.05
{}
{})",
                     trajectories, loss, loss == "quadratic" ? "lambda = 0.7" : "", points, scheme,
                     training, tail);
}

}  // namespace

TEST_CASE("the optimised kernels give the numbers of a plain one-trajectory loop", "[sim]") {
  for (const char* scheme :
       {"fixed_order", "shuffle_partition", "shuffle_each_epoch", "sample_without_replacement",
        "poisson", "full_batch", "random_allocation"}) {
    for (const char* loss : {"quadratic", "linear"}) {
      const std::string batch = std::string(scheme) == "full_batch"          ? ""
                                : std::string(scheme) == "random_allocation" ? "batch_size = 1\n"
                                                                             : "batch_size = 2\n";
      const auto s = scenario_of(points_experiment(
          20, loss, "[[1.0, 0.5], [-2.0, 0.25], [0.5, 3.0], [1.5, -1.0], [0.0, 2.0]]", scheme,
          batch + "epochs = 7", kNoiseAndInit));
      for (auto dataset : {sim::kD, sim::kDPrime})
        check_plain_loop(s, dataset, 20, std::string(scheme) + " " + loss, true);
    }
  }
}

TEST_CASE("a crafted record: the optimised kernels give the numbers of a plain loop",
          "[sim][crafted]") {
  // Every scheme, both losses, a constant and a step-dependent gradient; n = 4100 with b = 1
  // has more batch sums per epoch than the cache holds, so fixed order takes the per-step path.
  struct Case {
    const char* scheme;
    int n, b;
    const char* gradient;
  };
  for (const Case& c :
       {Case{"fixed_order", 5, 2, "gradient = [1.5, -0.5]"},
        Case{"shuffle_partition", 5, 2, "gradient_formula = \"(t < 3) * (1 + k) - 0.1 * t\""},
        Case{"shuffle_each_epoch", 5, 2, "gradient = [1.5, -0.5]"},
        Case{"sample_without_replacement", 5, 2, "gradient_formula = \"sin(t + k)\""},
        Case{"poisson", 5, 2, "gradient_formula = \"(t == 0) * 2\""},
        Case{"random_allocation", 6, 2, "gradient_formula = \"(t < 4) * (2 - k)\""},
        Case{"full_batch", 5, 5, "gradient = [1.5, -0.5]"},
        Case{"fixed_order", 4100, 1, "gradient_formula = \"(rint(t / 7) == t / 7) * (k - 1)\""}}) {
    for (const char* loss : {"quadratic", "linear"}) {
      const std::string text = fmt::format(
          R"(
[experiment]
seed = 7
trajectories = 20
[model]
loss = "{}"
dim = 2
{}
[data]
preset = "crafted_gradient"
n = {}
differing_index = 1
{}
[training]
scheme = "{}"
eta = 0.05
{}
epochs = {}
{})",
          loss, std::string(loss) == "quadratic" ? "lambda = 0.7" : "", c.n, c.gradient, c.scheme,
          std::string(c.scheme) == "full_batch" ? "" : fmt::format("batch_size = {}", c.b),
          c.n > 100 ? 1 : 7, kNoiseAndInit);
      const auto s = scenario_of(text);
      REQUIRE(s.data.crafted);
      for (auto dataset : {sim::kD, sim::kDPrime}) {
        check_plain_loop(s, dataset, 20, fmt::format("{} n {} {}", c.scheme, c.n, loss), true);
      }
    }
  }
}

TEST_CASE("the optimised kernels match the plain loop where batches have no sum table", "[sim]") {
  // Sampling without replacement with too many tuples for a table of their sums (by rank, or
  // by offsets), shuffles of more than 64 records (Fisher-Yates), and the lane-minor
  // projection (SSE2 or AVX2) onto a ball most iterates leave (diameter 0.5), for both
  // sum-of-records losses and Poisson batches too: bit for bit, and with the projection
  // acting on the last step of most trajectories.
  for (auto [scheme, n, b, diameter, loss] :
       {std::tuple{"sample_without_replacement", 300, 2, "", "quadratic"},
        std::tuple{"sample_without_replacement", 300, 4, "", "quadratic"},
        std::tuple{"shuffle_each_epoch", 70, 7, "", "quadratic"},
        std::tuple{"shuffle_partition", 70, 7, "", "quadratic"},
        std::tuple{"sample_without_replacement", 50, 2, "0.5", "quadratic"},
        std::tuple{"shuffle_partition", 50, 2, "0.5", "quadratic"},
        std::tuple{"sample_without_replacement", 50, 2, "0.5", "linear"},
        std::tuple{"poisson", 50, 2, "0.5", "quadratic"},
        std::tuple{"poisson", 50, 2, "0.5", "linear"},
        std::tuple{"random_allocation", 50, 2, "", "quadratic"},
        std::tuple{"random_allocation", 50, 5, "0.5", "linear"}}) {
    // Records that all differ, so that a wrong batch changes the numbers.
    std::string points = "[";
    for (int i = 0; i < n; ++i)
      points += fmt::format("{}[{}, {}]", i ? ", " : "", (i * 37 % 101) / 50.0 - 1, i / 100.0);
    const auto s = scenario_of(points_experiment(
        40, loss, points + "]", scheme,
        fmt::format("batch_size = {}\nepochs = 3\n{}", b,
                    *diameter ? std::string("projection_diameter = ") + diameter : ""),
        "[noise]\nsigma = 1.0\n"));
    const Eigen::MatrixXd got = check_plain_loop(
        s, sim::kDPrime, 40, fmt::format("{} {} n {} b {} D {}", scheme, loss, n, b, diameter));
    int on_sphere = 0;
    for (int j = 0; j < 40; ++j) on_sphere += std::abs(got.row(j).norm() - 0.25) < 1e-12;
    if (*diameter) CHECK(on_sphere > 20);
  }
}

namespace {

// One trajectory of the logistic loss from the definition: the batches, noise and projection
// as reference_trajectory draws them, the gradient LogisticLoss::add_gradient (the scalar
// per-example code, the per-step path's). D: the model's dimension.
template <int D>
std::vector<double> logistic_reference(const config::Scenario& s, sim::Dataset dataset,
                                       std::int64_t j) {
  const auto id = [&](rng::Purpose p) { return stream_of(s, dataset, j, p); };
  const bool prime = dataset == sim::kDPrime || dataset == sim::kPilotDPrime;
  const int n = s.data.n(), p = static_cast<int>(s.data.points.cols());
  std::vector<double> x;
  std::vector<int> labels = s.data.labels;
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < p; ++k)
      x.push_back(prime && i == s.data.differing_index ? s.data.replacement(k)
                                                       : s.data.points(i, k));
  }
  if (prime) labels[s.data.differing_index] = s.data.replacement_label;
  const sim::DataView data{x.data(), labels.data(), n, p};
  const sim::LogisticLoss<D> loss{s.lambda, s.clip_norm, s.features, s.classes};
  std::vector<double> theta = initial_theta(s, dataset, j);
  project_onto_ball(s, theta);
  rng::Stream batch_stream(id(rng::Purpose::kBatch)), noise(id(rng::Purpose::kNoise));
  const auto order = sim::fixed_order(s);
  const sim::BatchDraws draws = sim::batch_draws(s, dataset);
  sim::BatchSchedule batches(s, order, draws, batch_stream);
  for (long t = 0; t < s.steps; ++t) {
    int count = 0;
    const int* idx = batches.next(count);
    // LogisticLoss::add_gradient spelt out: record i0 is skipped where D' lacks it (add/remove).
    double g[D] = {}, e[D];
    const double inv_norm = batches.inverse_normaliser();
    for (int m = 0; m < count; ++m) {
      if (prime && s.data.absent && idx[m] == s.data.differing_index) continue;
      loss.example_gradient(theta.data(), data.x + static_cast<long>(idx[m]) * p,
                            data.labels[idx[m]], e);
      for (int k = 0; k < D; ++k) g[k] += inv_norm * e[k];
    }
    for (int k = 0; k < D; ++k) g[k] += s.lambda * theta[k];
    for (int k = 0; k < D; ++k) theta[k] += s.step_std * noise.normal() - s.eta * g[k];
    project_onto_ball(s, theta);
  }
  return theta;
}

}  // namespace

TEST_CASE("the logistic loss's lane kernel gives the numbers of a plain loop", "[sim]") {
  // Every scheme (Poisson: batches of different sizes in the lanes of one group), two
  // classes and three, clipping that acts on most examples and none, a projection that acts:
  // bit for bit, over 37 trajectories (a last group of lanes partly empty).
  struct Case {
    const char* scheme;
    int features, classes;
    const char* clip;
    const char* diameter;
    int b = 4;
    const char* adjacency = "replace_one";
  };
  // add_remove: record i0 is absent from D' (the plain loop skips it).
  for (const Case& c :
       {Case{"shuffle_partition", 2, 2, "0.5", ""}, Case{"poisson", 2, 2, "0.5", "3.0"},
        Case{"sample_without_replacement", 1, 3, "0.2", ""},
        Case{"shuffle_each_epoch", 1, 3, "100.0", "1.0"}, Case{"fixed_order", 2, 2, "0.05", ""},
        Case{"full_batch", 1, 3, "0.5", "", 20}, Case{"poisson", 2, 2, "0.5", "", 4, "add_remove"},
        Case{"shuffle_partition", 1, 3, "0.2", "", 4, "add_remove"},
        Case{"full_batch", 2, 2, "100.0", "", 20, "add_remove"}}) {
    const std::string text =
        fmt::format(R"(
[experiment]
seed = 7
trajectories = 37
[model]
loss = "logistic"
features = {}
classes = {}
lambda = 0.1
feature_clip = 2.0
clip_norm = {}
[data]
preset = "logistic_synthetic"
n = 20
adjacency = "{}"
[training]
scheme = "{}"
eta = 0.3
batch_size = {}
epochs = 3
{}
[noise]
noise_multiplier = 0.5
)",
                    c.features, c.classes, c.clip, c.adjacency, c.scheme, c.b,
                    *c.diameter ? std::string("projection_diameter = ") + c.diameter : "");
    const auto s = scenario_of(text);
    REQUIRE(s.dim == 6);
    REQUIRE(s.data.absent == (std::string(c.adjacency) == "add_remove"));
    for (const sim::Dataset dataset : {sim::kD, sim::kDPrime}) {
      const Eigen::MatrixXd got = sim::simulate_last_iterates(s, 7, dataset, 0, 37);
      for (int j = 0; j < 37; ++j) {
        const auto want = logistic_reference<6>(s, dataset, j);
        INFO(c.scheme << " classes " << c.classes << " dataset " << dataset << " trajectory " << j);
        for (int k = 0; k < 6; ++k) CHECK(got(j, k) == want[k]);
      }
    }
  }
}

namespace {

const char* kDiverging = R"(
[experiment]
seed = 7
trajectories = 300
[model]
loss = "quadratic"
lambda = 1.0
[data]
preset = "quadratic_worst_case"
n = 10
sensitivity = 1.0
[training]
scheme = "shuffle_partition"
eta = 0.5
batch_size = 2
epochs = 200
[noise]
sigma = 1.0
[tally]
pilot_trajectories = 100
)";

std::string divergence_message(const config::Scenario& s, int threads) {
  try {
    test::with_threads(threads, [&] { return sim::simulate_scenario(s, 7, 300); });
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("a run whose iterates overflow stops with trajectory, dataset, value and step",
          "[sim][divergence]") {
  // eta = 5 with lambda = 1: theta <- theta - 5 (theta - mean of the batch) + noise grows by
  // a factor 4 per step and overflows after about 500 of the 1000 steps. The pilot of D runs
  // first, so its trajectory 0 is the first to diverge; the plain loop says where.
  // validate refuses eta = 5 in a file (config/limits: the divergence is decidable from it);
  // the simulator's guard is for what validate cannot foresee, so the scenario is edited here.
  auto s = scenario_of(kDiverging);
  s.eta = 5.0;
  std::pair<long, double> expected{-1, 0.0};
  reference_trajectory(s, sim::kPilotD, 0, &expected);
  REQUIRE(expected.first > 0);
  const std::string message = divergence_message(s, 2);
  INFO(message);
  CHECK(message.find("training diverged") != std::string::npos);
  CHECK(message.find("trajectory 0 on dataset D (pilot run)") != std::string::npos);
  CHECK(message.find(fmt::format("is {} at step {} of 1000", expected.second, expected.first)) !=
        std::string::npos);
  CHECK(message.find("training.eta = 5") != std::string::npos);
  CHECK(divergence_message(s, 1) == message);  // the same report for any thread count
}

TEST_CASE("a huge noise step never reaches the histograms", "[sim][divergence]") {
  // step_std >= 5e307 once overflowed the pilot's range, made the bin width
  // infinite and the bin index negative, and Histogram1D::add wrote out of bounds.
  auto s = scenario_of(kDiverging);
  s.eta = 0.01;
  s.step_std = 5e307;
  const std::string message = divergence_message(s, 2);
  INFO(message);
  CHECK(message.find("training diverged") != std::string::npos);
  CHECK(message.find("noise step std = 5e+307") != std::string::npos);
}

TEST_CASE("plot cells never count outside their cells, whatever the range and value",
          "[sim][tally]") {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // A range wider than the largest double: hi - lo = inf. The old uniform axis computed
  // (x - lo) * (bins / (hi - lo)) = inf * 0 = NaN near hi and converted it to int
  // (undefined); the edges of the one binning are interpolated, finite for any finite range.
  for (const auto& [lo, hi] : {std::pair{-1e308, 1.5e308}, std::pair{0.0, 1.0}}) {
    tally::ScoreCells h = tally::coordinate_cells(0, tally::uniform_edges(lo, hi, 10));
    REQUIRE(h.index.edges().size() == 11);
    const double values[] = {
        1e308, -1e308,      1.4e308, 0.0,   0.5,
        1.0,   0.999999999, kInf,    -kInf, std::numeric_limits<double>::quiet_NaN()};
    for (double x : values) {
      INFO("range [" << lo << ", " << hi << "), x = " << x);
      REQUIRE(h.index.cell(x) < h.counts.size());
      h.add(&x);
    }
    CHECK(h.total() == std::size(values));
    CHECK(h.counts.size() == 12);
  }
  // An infinite range has no edges (it used to give an axis that miscounted).
  CHECK_THROWS_AS(tally::uniform_edges(-kInf, kInf, 10), std::invalid_argument);
  CHECK_THROWS_AS(tally::uniform_edges(1.0, 1.0, 10), std::invalid_argument);
  // On an ordinary range: the edges, and a value just below the top edge.
  const tally::CellIndex unit(tally::uniform_edges(0.0, 1.0, 10));
  CHECK(unit.cell(-0.1) == 0);
  CHECK(unit.cell(0.0) == 1);
  CHECK(unit.cell(0.05) == 1);
  CHECK(unit.cell(0.95) == 10);
  CHECK(unit.cell(std::nextafter(1.0, 0.0)) == 10);
  CHECK(unit.cell(1.0) == 11);
}

TEST_CASE("counting ids in any split gives the tally of one pass", "[sim][tally][split]") {
  // Ranks, parts, looks and checkpoint slabs count contiguous shares of the ids and
  // add them; counts are integers and moment sums exact, so every split gives the same bits.
  for (const char* text : {kQuadratic2d, kLogisticPoisson}) {
    const auto s = scenario_of(text);
    const tally::Binning binning = plot_binning_of(s, 3);
    const auto whole = test::with_threads(2, [&] {
      return sim::count_dataset(s, binning, 3, sim::kD, {0, 3000});
    });
    tally::Tally pieces(binning, 0);
    for (auto [first, n] :
         {std::pair<std::int64_t, std::int64_t>{0, 17}, {17, 1200}, {1217, 1}, {1218, 1782}}) {
      pieces.append(test::with_threads(1, [&] {
        return sim::count_dataset(s, binning, 3, sim::kD, {first, n});
      }));
    }
    const auto a = tally::flatten(whole), b = tally::flatten(pieces);
    CHECK(a.ints == b.ints);
    CHECK(a.raw == b.raw);  // bitwise: the raw rows of ids below tally.raw_samples, in order
    CHECK(whole.raw_cap == std::min<std::int64_t>(s.raw_cap, 3000));
    REQUIRE(whole.raw_cap > 17);  // the raw rows span several pieces
    // The flat form is the whole state: unflatten gives the same tally back, and refuses
    // numbers that do not fit the cells.
    const auto back = tally::flatten(tally::unflatten(binning, a));
    CHECK(back.ints == a.ints);
    auto broken = a;
    broken.ints.pop_back();
    CHECK_THROWS_AS(tally::unflatten(binning, broken), std::invalid_argument);
    // The fingerprint names the cells: another pilot (seed) gives other cells.
    CHECK(tally::fingerprint(binning) == tally::fingerprint(whole.binning));
    CHECK(tally::fingerprint(binning) != tally::fingerprint(plot_binning_of(s, 4)));
  }
}

TEST_CASE("records that copy one row: the kernels give the plain loop's numbers, bit for bit",
          "[sim][batches]") {
  // Schedules drawn by distinguished records (BatchDraws): s = 0 in D and 1 in D' (the
  // worst-case preset), 2 in D and 3 in D' (the replaced record is distinguished in D' only),
  // a batch larger than store_distinguished_batches lists on the stack, and records left out of
  // every batch (n - m b > 0). Random allocation where b divides n.
  struct Case {
    int n, b;
    std::vector<int> distinguished;  // of D, rows (k + 1, -k) at these; background (0.5, -1)
    int replaced;                    // replaced by (4, -3) in D'
    std::size_t s_d, s_dprime;
  };
  for (const Case& c :
       {Case{50, 2, {}, 0, 0, 1}, Case{9, 2, {1, 4}, 6, 2, 3}, Case{11, 4, {0, 10}, 5, 2, 3},
        Case{141, 70, {3, 77}, 140, 2, 3}, Case{12, 3, {2, 7}, 11, 2, 3}}) {
    std::string points = "[";
    for (int i = 0; i < c.n; ++i) {
      const auto at = std::find(c.distinguished.begin(), c.distinguished.end(), i);
      const int k = static_cast<int>(at - c.distinguished.begin());
      points += at == c.distinguished.end() ? "[0.5, -1.0]" : fmt::format("[{}, {}]", k + 1, -k);
      points += i + 1 < c.n ? ", " : "]";
    }
    for (const char* scheme : {"shuffle_partition", "shuffle_each_epoch",
                               "sample_without_replacement", "poisson", "random_allocation"}) {
      if (std::string(scheme) == "random_allocation" && c.n % c.b != 0) continue;
      for (const char* loss : {"quadratic", "linear"}) {
        const std::string text =
            fmt::format(R"(
[experiment]
seed = 7
trajectories = 40
[model]
loss = "{}"
dim = 2
{}
[data]
points = {}
replacement = [4.0, -3.0]
differing_index = {}
[training]
scheme = "{}"
eta = 0.05
batch_size = {}
epochs = 5
{})",
                        loss, std::string(loss) == "quadratic" ? "lambda = 0.7" : "", points,
                        c.replaced, scheme, c.b, kNoiseAndInit);
        const auto s = scenario_of(text);
        for (auto dataset : {sim::kD, sim::kDPrime}) {
          const sim::BatchDraws draws = sim::batch_draws(s, dataset);
          REQUIRE(draws.by_distinguished);
          REQUIRE(draws.distinguished.size() == (dataset == sim::kD ? c.s_d : c.s_dprime));
          check_plain_loop(s, dataset, 40, fmt::format("{} n {} {}", scheme, c.n, loss));
        }
      }
    }
  }
  SECTION("not for the logistic loss, nor with a crafted record but under the counted schemes") {
    CHECK_FALSE(sim::batch_draws(scenario_of(kLogisticPoisson), sim::kD).by_distinguished);
    auto s = scenario_of(kQuadratic2d);
    CHECK(sim::batch_draws(s, sim::kDPrime).by_distinguished);
    s.scheme = config::BatchScheme::kPoisson;
    CHECK(sim::batch_draws(s, sim::kDPrime).by_distinguished);
    CHECK(sim::batch_draws(s, sim::kDPrime).counted.others);  // quadratic: the count matters
    s.scheme = config::BatchScheme::kFixedOrder;
    CHECK_FALSE(sim::batch_draws(s, sim::kDPrime).by_distinguished);
    auto crafted = scenario_of(R"(
[experiment]
seed = 7
trajectories = 20
[model]
loss = "linear"
dim = 2
[data]
preset = "crafted_gradient"
n = 5
differing_index = 1
gradient = [1.5, -0.5]
[training]
scheme = "shuffle_each_epoch"
eta = 0.05
batch_size = 2
epochs = 2
[noise]
sigma = 1.0
)");
    REQUIRE(crafted.data.crafted);
    CHECK_FALSE(sim::batch_draws(crafted, sim::kD).by_distinguished);
    // Poisson and random allocation: the crafted record is distinguished, whatever its row;
    // the others, rows of zeros under the linear loss, add nothing and are not counted.
    for (auto scheme : {config::BatchScheme::kPoisson, config::BatchScheme::kRandomAllocation}) {
      crafted.scheme = scheme;
      for (auto dataset : {sim::kD, sim::kDPrime}) {
        const sim::BatchDraws draws = sim::batch_draws(crafted, dataset);
        CHECK(draws.by_distinguished);
        CHECK(draws.distinguished == std::vector<int>{1});
        CHECK_FALSE(draws.counted.others);
      }
    }
  }
}

namespace {

// n records (0.3, -0.1), but (2.0, 1.0) at `at`, as a TOML array.
std::string points_with(int n, std::initializer_list<int> at) {
  std::string points = "[";
  for (int i = 0; i < n; ++i) {
    points += std::find(at.begin(), at.end(), i) != at.end() ? "[2.0, 1.0]" : "[0.3, -0.1]";
    points += i + 1 < n ? ", " : "]";
  }
  return points;
}

// Trajectories 0..count-1 of D and D', drawn by distinguished records, against the plain
// loop, bit for bit.
void check_by_distinguished(const config::Scenario& s, int count, const std::string& what) {
  for (auto dataset : {sim::kD, sim::kDPrime}) {
    REQUIRE(sim::batch_draws(s, dataset).by_distinguished);
    check_plain_loop(s, dataset, count, what);
  }
}

}  // namespace

TEST_CASE("shuffles by distinguished records with more batches than the lanes cache",
          "[sim][batches]") {
  // m d > 4096 (n = 4500, b = 1; n = 9001, b = 2 with a record left out): each step's batch
  // sum is formed from the distinguished records' positions; the plain loop's numbers.
  for (auto [n, b] : {std::pair{4500, 1}, std::pair{9001, 2}}) {
    for (const char* scheme : {"shuffle_partition", "shuffle_each_epoch"}) {
      const auto s = scenario_of(fmt::format(R"(
[experiment]
seed = 7
trajectories = 8
[model]
loss = "quadratic"
dim = 2
lambda = 0.7
[data]
points = {}
replacement = [4.0, -3.0]
differing_index = 140
[training]
scheme = "{}"
eta = 0.05
batch_size = {}
epochs = 2
{})",
                                             points_with(n, {3, 77}), scheme, b, kNoiseAndInit));
      check_by_distinguished(s, 8, fmt::format("{} n {}", scheme, n));
    }
  }
}

TEST_CASE("Poisson by distinguished records: batches beyond the table of background sums",
          "[sim][batches][poisson]") {
  // n = 20000, q = 0.9: about 18000 background records join each step, past the table's
  // 16384 rows at d = 2, so the lanes add the rows above it one by one; the numbers are those
  // of the plain loop over next()'s indices, bit for bit.
  for (const char* loss : {"quadratic", "linear"}) {
    const auto s = scenario_of(fmt::format(
        R"(
[experiment]
seed = 7
trajectories = 8
[model]
loss = "{}"
dim = 2
{}
[data]
points = {}
replacement = [4.0, -3.0]
differing_index = 7
[training]
scheme = "poisson"
eta = 0.05
batch_size = 18000
steps = 4
{})",
        loss, std::string(loss) == "quadratic" ? "lambda = 0.7" : "", points_with(20000, {7}),
        kNoiseAndInit));
    REQUIRE(sim::batch_draws(s, sim::kD).counted.others);
    check_by_distinguished(s, 8, loss);
  }
}

TEST_CASE("random allocation: the exact engine's law brackets the simulator's last iterates",
          "[sim][exact][allocation]") {
  // The linear worst case (the differing record's gradient 1 in D, -1 in D', the others 0)
  // under random allocation, n = 16, b = 2 (t = 8 steps per epoch), K = 2 epochs, projected
  // onto [-0.6, 0.6] (two hits of 0.4 reach the boundary): the exact engine evolves it as
  // shuffle_each_epoch's chain (the record's step uniform in each epoch), the simulator draws
  // the real allocations. Their bin masses (cells of 10 grid cells, the two boundary atoms)
  // must agree within 5 standard errors. A chain that draws the record's inclusion
  // independently at every step (rate 1/t, as sample_without_replacement) misses by 70
  // standard errors; one that keeps the record's step for both epochs (shuffle_partition) is
  // not told apart at this size.
  const auto s = scenario_of(R"(
[experiment]
seed = 3
trajectories = 1000
[model]
loss = "linear"
dim = 1
[data]
preset = "linear_worst_case"
n = 16
lipschitz = 1.0
[training]
scheme = "random_allocation"
eta = 0.8
batch_size = 2
epochs = 2
projection_diameter = 1.2
[noise]
step_std = 0.2
)");
  std::string why;
  const auto spec = exact::chain_from_scenario(s, why);
  INFO(why);
  REQUIRE(spec);
  const exact::ChainLaws laws = exact::evolve_pair(*spec, {});
  const long N = 400000;
  for (auto dataset : {sim::kD, sim::kDPrime}) {
    const exact::CellLaw& law = dataset == sim::kD ? laws.d.last : laws.dprime.last;
    const int per = 10, bins = law.cells / per;
    std::vector<double> lo(bins + 2, 0.0), hi(bins + 2, 0.0);
    for (int k = 0; k < law.cells; ++k) {
      lo[std::min(bins - 1, k / per)] += law.mass_lo[k];
      hi[std::min(bins - 1, k / per)] += law.mass_hi[k];
    }
    for (int a = 0; a < 2; ++a) {
      lo[bins + a] = law.points[a].mass.lo;
      hi[bins + a] = law.points[a].mass.hi;
    }
    const Eigen::MatrixXd x = sim::simulate_last_iterates(s, 11, dataset, 0, N);
    std::vector<long> count(bins + 2, 0);
    const double h = law.width();
    for (long i = 0; i < N; ++i) {
      const double th = x(i, 0);
      int k;
      if (th <= -0.6 + 1e-12)
        k = bins;
      else if (th >= 0.6 - 1e-12)
        k = bins + 1;
      else
        k = std::min(bins - 1, static_cast<int>((th + 0.6) / h) / per);
      ++count[static_cast<std::size_t>(k)];
    }
    double worst = 0;
    for (int k = 0; k < bins + 2; ++k) {
      const double f = static_cast<double>(count[k]) / N, se = std::sqrt(std::max(f, 1e-7) / N);
      INFO("dataset " << dataset << " bin " << k << ": simulated " << f << " exact [" << lo[k]
                      << ", " << hi[k] << "]");
      CHECK(f >= lo[k] - 5 * se);
      CHECK(f <= hi[k] + 5 * se);
      worst = std::max(worst, std::max(lo[k] - f, f - hi[k]) / se);
    }
    INFO("largest excess over the bracket: " << worst << " standard errors");
    CHECK(worst < 5);
  }
  // The other records must add nothing for the chain to apply: the quadratic loss is refused.
  auto quadratic = s;
  quadratic.loss = config::LossKind::kQuadratic;
  quadratic.lambda = 1.0;
  CHECK_FALSE(exact::chain_from_scenario(quadratic, why));
  CHECK(why.find("random_allocation") != std::string::npos);
}
