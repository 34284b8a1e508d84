#include "rdpaudit/sim/mixture.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "rdpaudit/rng/stream.hpp"
#include "rdpaudit/sim/batches.hpp"
#include "rdpaudit/sim/simulate.hpp"

namespace rdpaudit::sim {

using config::BatchScheme;

namespace {

// lambda of the update theta <- (1 - eta lambda |B|/N) theta + ...: the quadratic loss's;
// 0 for the crafted preset's linear loss (its other records have zero gradients).
double curvature(const config::Scenario& s) {
  return s.loss == config::LossKind::kQuadratic ? s.lambda : 0.0;
}

// The conditional law of theta_T given one batch schedule, under D and D' at once (the
// schedule does not depend on the data): mean a_T(... a_1 m0 + c S_1 ...) + c S_T and
// variance a_T^2(... a_1^2 s0^2 + s^2 ...) + s^2, with a_t = 1 - eta lambda |B_t| / N,
// c = eta lambda / N and S_t the sum of the batch's records (the simulator's update,
// runner.hpp with QuadraticLoss::add_gradient_from_sum).
struct PatternLaw {
  Eigen::VectorXd mean_d, mean_dprime;
  double variance = 0;
};

PatternLaw pattern_law(const config::Scenario& s, const Eigen::MatrixXd& x,
                       BatchSchedule& batches) {
  const bool poisson = s.scheme == BatchScheme::kPoisson, crafted = s.data.crafted;
  const double el = s.eta * curvature(s), c = el * batches.inverse_normaliser();
  const int i0 = s.data.differing_index;
  const Eigen::VectorXd shift = s.data.replacement - x.row(i0).transpose();
  PatternLaw out{s.init_mean, s.init_mean, s.init_std * s.init_std};
  for (long t = 0; t < s.steps; ++t) {
    int count = 0;
    const int* idx = batches.next(count);
    Eigen::VectorXd sum = Eigen::VectorXd::Zero(s.dim);
    bool holds_i0 = false;
    for (int m = 0; m < count; ++m) {
      sum += x.row(idx[m]).transpose();
      holds_i0 = holds_i0 || idx[m] == i0;
    }
    // Fixed batch size: a = 1 - eta lambda exactly (b / b), as in the closed form. A crafted
    // record's slot counts no record of the loss (sim/loss.hpp, add_gradient_with_crafted).
    const int in = crafted && holds_i0 ? 1 : 0;
    const double a = poisson || in ? 1.0 - c * (count - in) : 1.0 - el;
    out.mean_d = a * out.mean_d + c * sum;
    out.mean_dprime = a * out.mean_dprime + c * sum;
    if (holds_i0) out.mean_dprime += c * shift;
    // The crafted gradient moves D's mean by -eta g_t / N where the batch holds it.
    if (in) out.mean_d -= s.eta * batches.inverse_normaliser() * s.data.crafted_at(t);
    out.variance = a * a * out.variance + s.step_std * s.step_std;
  }
  return out;
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
  const double a = 1.0 - s.eta * curvature(s), c = s.eta * curvature(s) / s.batch_size;
  const bool crafted = s.data.crafted;
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
    double var = s.init_std * s.init_std;  // crafted only: a_t depends on the pattern
    for (long t = 0; t < T; ++t) {
      // sum over the batch: b x_o, with x_o replaced by x_d for i0's batch
      Eigen::VectorXd sum = s.batch_size * xo;
      const bool in = t % m == j;
      if (in) sum += xd - xo;
      // A crafted record's slot counts no record (a_t = 1 - c (b - 1)) and moves D's mean
      // by -eta g_t / b.
      const double at = crafted && in ? 1.0 - c * (s.batch_size - 1) : a;
      mu = at * mu + c * sum;
      if (crafted && in && !prime) mu -= s.eta / s.batch_size * s.data.crafted_at(t);
      var = at * at * var + s.step_std * s.step_std;
    }
    out.weights.push_back(w);
    out.means.insert(out.means.end(), mu.data(), mu.data() + s.dim);
    if (crafted) out.scales.push_back(var);
  }
  return out;
}

// Poisson at T = 1 when all other records are equal (x_o): the law depends on the pattern only
// through I = 1[i0 in B] ~ Bernoulli(q) and the number k ~ Binomial(n - 1, q) of other records
// in the batch, independent: theta_1 ~ N(a m0 + c (k x_o + I x_i0), a^2 s0^2 + s^2) with
// a = 1 - c (k + I), c = eta lambda / (q n). Components with equal means and variances (e.g.
// m0 = 0, s0 = 0, x_o = 0: the two of the sampled Gaussian mechanism) are merged.
void enumerate_poisson_one_step(const config::Scenario& s, LastIterateMixture& d,
                                LastIterateMixture& dprime) {
  const int n = s.n(), i0 = s.data.differing_index;
  const double q = s.sampling_rate, c = s.eta * curvature(s) / (q * n);
  const bool crafted = s.data.crafted;
  const Eigen::VectorXd xo = n > 1 ? Eigen::VectorXd(s.data.points.row(i0 == 0 ? 1 : 0).transpose())
                                   : Eigen::VectorXd::Zero(s.dim);
  const Eigen::VectorXd xd = s.data.points.row(i0).transpose();
  std::map<std::pair<std::vector<double>, double>, std::size_t> seen[2];
  for (LastIterateMixture* m : {&d, &dprime}) {
    m->dim = s.dim;
    m->exact = true;
    m->how = "enumerated: Poisson, one step (differing record in or out, others counted)";
  }
  for (int k = 0; k < n; ++k) {
    // log C(n-1, k) q^k (1-q)^(n-1-k); q >= 1 includes every record (batches.hpp).
    double log_w = std::lgamma(n + 0.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 0.0);
    if (q >= 1.0) {
      if (k != n - 1) continue;
      log_w = 0.0;
    } else {
      log_w += k * std::log(q) + (n - 1 - k) * std::log1p(-q);
    }
    for (int in = 0; in <= 1; ++in) {
      const double w = std::exp(log_w + (q >= 1.0 ? 0.0 : in ? std::log(q) : std::log1p(-q)));
      if (!(w > 0.0) || (q >= 1.0 && in == 0)) continue;
      // A crafted record's slot counts no record; it moves D's mean by -eta g_0 / (q n).
      const double a = 1.0 - c * (k + (crafted ? 0 : in));
      const double var = a * a * s.init_std * s.init_std + s.step_std * s.step_std;
      for (int prime = 0; prime <= 1; ++prime) {
        const Eigen::VectorXd x = prime ? s.data.replacement : xd;
        Eigen::VectorXd mu = a * s.init_mean + c * (k * xo + in * x);
        if (crafted && in && !prime) mu -= s.eta / (q * n) * s.data.crafted_at(0);
        LastIterateMixture& m = prime ? dprime : d;
        std::vector<double> key(mu.data(), mu.data() + s.dim);
        const auto [it, fresh] = seen[prime].try_emplace({key, var}, m.weights.size());
        if (fresh) {
          m.weights.push_back(w);
          m.means.insert(m.means.end(), key.begin(), key.end());
          m.scales.push_back(var);
        } else {
          m.weights[it->second] += w;
        }
      }
    }
  }
}

// The crafted preset with the linear loss (no curvature, the other records' gradients zero)
// under Poisson or sampling without replacement: the record joins each step independently
// with probability q (q n / n, b / n), and the last iterate depends on the schedule only
// through the steps S that hold it: theta_T ~ N(m0 - eta/N sum_{t in S} g_t, s0^2 + T s^2)
// in D, N(m0, s0^2 + T s^2) in D'. The sums are enumerated step by step, equal ones merged
// (a constant g gives the T + 1 counts |S| ~ Binomial(T, q); a gradient at the first step
// only, two); false when more than kMaxSums distinct sums arise (the caller samples).
bool enumerate_independent_inclusions(const config::Scenario& s, LastIterateMixture& d,
                                      LastIterateMixture& dprime) {
  constexpr std::size_t kMaxSums = 4096;
  const bool poisson = s.scheme == BatchScheme::kPoisson;
  const double q = poisson ? s.sampling_rate : double(s.batch_size) / s.n();
  const double inv_norm = poisson ? 1.0 / (s.sampling_rate * s.n()) : 1.0 / s.batch_size;
  std::map<std::vector<double>, double> law{
      {std::vector<double>(s.init_mean.data(), s.init_mean.data() + s.dim), 1.0}};
  double var = s.init_std * s.init_std;
  for (long t = 0; t < s.steps; ++t) {
    const Eigen::VectorXd step = s.eta * inv_norm * s.data.crafted_at(t);
    std::map<std::vector<double>, double> next;
    for (const auto& [mean, w] : law) {
      if (q < 1.0) next[mean] += w * (1.0 - q);
      std::vector<double> in = mean;
      for (int k = 0; k < s.dim; ++k) in[k] -= step(k);
      next[in] += w * std::min(q, 1.0);
    }
    if (next.size() > kMaxSums) return false;
    law = std::move(next);
    var = var + s.step_std * s.step_std;  // a = 1
  }
  for (LastIterateMixture* m : {&d, &dprime}) {
    m->dim = s.dim;
    m->exact = true;
    m->how = "enumerated: the steps that hold the crafted record (independent inclusions)";
    m->variance = var;
  }
  for (const auto& [mean, w] : law) {
    if (!(w > 0.0)) continue;
    d.weights.push_back(w);
    d.means.insert(d.means.end(), mean.begin(), mean.end());
  }
  dprime.weights = {1.0};
  dprime.means.assign(s.init_mean.data(), s.init_mean.data() + s.dim);
  return true;
}

// `patterns` schedules from streams of their own (dataset D, purpose kPatterns: independent
// of the simulated trajectories); schedule k gives component k of D and of D'.
void sample_patterns(const config::Scenario& s, std::uint64_t seed, int patterns,
                     LastIterateMixture& d, LastIterateMixture& dprime) {
  const bool deterministic =
      s.scheme == BatchScheme::kFixedOrder || s.scheme == BatchScheme::kFullBatch;
  const int count = deterministic ? 1 : patterns;
  const Eigen::MatrixXd& x = s.data.points;  // D; D' differs in row i0 (pattern_law)
  const auto order = fixed_order(s);
  for (LastIterateMixture* m : {&d, &dprime}) {
    m->dim = s.dim;
    m->exact = deterministic;
    m->how = deterministic ? "deterministic schedule"
                           : std::to_string(count) + " sampled schedules (Rao-Blackwellised)";
  }
  for (int k = 0; k < count; ++k) {
    rng::Stream stream({seed, static_cast<std::uint32_t>(s.index), rng::kD,
                        static_cast<std::uint64_t>(k), rng::Purpose::kPatterns});
    BatchSchedule batches(s, order, stream);
    const PatternLaw law = pattern_law(s, x, batches);
    for (LastIterateMixture* m : {&d, &dprime}) {
      const Eigen::VectorXd& mu = m == &d ? law.mean_d : law.mean_dprime;
      m->weights.push_back(1.0);
      m->means.insert(m->means.end(), mu.data(), mu.data() + s.dim);
      m->scales.push_back(law.variance);
    }
  }
}

// Turns the components' variances (held in `scales`) into variance * scales[k] with the
// largest scale 1, or a common variance with no scales where they are all equal.
void set_variances(LastIterateMixture& m) {
  const double top = *std::max_element(m.scales.begin(), m.scales.end());
  m.variance = top;
  if (std::all_of(m.scales.begin(), m.scales.end(), [&](double v) { return v == top; })) {
    m.scales.clear();
    return;
  }
  for (double& v : m.scales) v /= top;
}

}  // namespace

std::optional<MixturePair> quadratic_last_iterate_mixture(const config::Scenario& s,
                                                          std::uint64_t seed, int patterns,
                                                          std::string& why) {
  // The linear loss of the crafted preset has zero gradients g_i besides the crafted record:
  // the quadratic update with lambda = 0 (curvature()).
  if (s.loss != config::LossKind::kQuadratic &&
      !(s.loss == config::LossKind::kLinear && s.data.crafted)) {
    why = "the loss is not quadratic (the update is not affine)";
    return std::nullopt;
  }
  if (std::isfinite(s.projection_diameter)) {
    why = "the iterates are projected (the update is not affine)";
    return std::nullopt;
  }
  MixturePair out;
  if (s.scheme == BatchScheme::kShufflePartition && others_identical(s)) {
    const double a = 1.0 - s.eta * s.lambda;
    double var = std::pow(a, 2.0 * s.steps) * s.init_std * s.init_std;
    for (long t = 0; t < s.steps; ++t) var += s.step_std * s.step_std * std::pow(a, 2.0 * t);
    out.d = enumerate_partition(s, false);
    out.dprime = enumerate_partition(s, true);
    out.d.variance = out.dprime.variance = var;
    if (!s.data.crafted) return out;
    // Crafted: each component's variance depends on the step that holds the record.
    set_variances(out.d);
    set_variances(out.dprime);
    return out;
  }
  if (s.data.crafted && curvature(s) == 0.0 &&
      (s.scheme == BatchScheme::kPoisson || s.scheme == BatchScheme::kSampleWithoutReplacement) &&
      enumerate_independent_inclusions(s, out.d, out.dprime)) {
    return out;
  }
  if (s.scheme == BatchScheme::kPoisson && s.steps == 1 && others_identical(s)) {
    enumerate_poisson_one_step(s, out.d, out.dprime);
  } else {
    sample_patterns(s, seed, patterns, out.d, out.dprime);
  }
  set_variances(out.d);
  set_variances(out.dprime);
  return out;
}

}  // namespace rdpaudit::sim
