#include "rdpaudit/config/limits.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "rdpaudit/config/loss.hpp"
#include "rdpaudit/config/traits.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/core/memory.hpp"

namespace rdpaudit::config {

namespace {

std::string num(double x) {
  return fmt::format("{:.4g}", x);
}

// ---------------------------------------------------------------- noise

// The per-step std s is derived from the file's noise key and eta (e.g. s = eta * blog_sigma),
// so it can leave the range of magnitudes although both inputs are inside it.
void check_noise(const Scenario& s, Reader& r) {
  const double v = s.step_std;
  if (std::isfinite(v) && v >= kMinMagnitude && v <= kMaxMagnitude) return;
  r.fail("noise." + to_string(s.noise_key),
         fmt::format("gives the per-step noise std s = {} with training.eta = {}; s must be in "
                     "[1e-100, 1e100]",
                     num(v), num(s.eta)));
}

// ---------------------------------------------------------------- steps and work

constexpr double kMaxSteps = 1e9;
// trajectories x steps of one scenario: with at most 10^5 scenarios and both datasets the
// run's total stays below 2^63 (the progress counter), and 10^13 trajectory-steps already
// take hours on a server.
constexpr double kMaxWork = 1e13;

// The covariance of the last iterates (every results file holds it) needs two trajectories.
constexpr long kMinTrajectories = 2;

void check_work(const Scenario& s, Reader& r, long trajectories, const TrajectorySource& src) {
  if (trajectories < kMinTrajectories) {
    throw InputError(src.scale != 1.0 ? "--scale" : src.key,
                     src.scale != 1.0 ? fmt::format("{}", src.scale) : std::to_string(trajectories),
                     fmt::format("leaves {} trajectory per dataset; at least {} (the covariance "
                                 "of the last iterates needs two)",
                                 trajectories, kMinTrajectories));
  }
  if (s.epochs > 0 && static_cast<double>(s.steps) > kMaxSteps) {
    r.fail("training.epochs", fmt::format("gives T = K * {} steps per epoch = {} steps; at most "
                                          "10^9 steps",
                                          s.steps_per_epoch, s.steps));
  }
  const double work = static_cast<double>(trajectories) * static_cast<double>(s.steps);
  if (work > kMaxWork) {
    throw InputError(src.key, std::to_string(trajectories),
                     fmt::format("{} trajectories x {} steps = {} trajectory-steps per dataset "
                                 "and scenario; at most 10^13",
                                 trajectories, s.steps, num(work)));
  }
}

// ---------------------------------------------------------------- tally.range

void check_range(const Scenario& s, Reader& r) {
  if (!s.has_range) return;
  const int bins = s.dim > 1 ? std::max(s.bins, s.bins_2d) : s.bins;
  const double width = (s.range_hi - s.range_lo) / bins;
  const double scale = std::max(std::fabs(s.range_lo), std::fabs(s.range_hi));
  // The edges lo + k * width must be distinct doubles: keep thousands of ulps per bin.
  if (width >= 1e-12 * scale) return;
  r.fail("tally.range",
         fmt::format("{} bins of width {} are below the resolution of numbers near {}; widen "
                     "the range or use fewer tally.bins",
                     bins, num(width), num(scale)));
}

// ---------------------------------------------------------------- the iterates

// log10 of an a-priori size of the iterates: |theta_{t+1}| <= c |theta_t| + a with the
// contraction c of the update and a = eta * (gradient bound) + 10 s sqrt(d) (ten noise
// standard deviations), so |theta_T| <= c^T |theta_0| + a * sum_{t<T} c^t.
struct Growth {
  double c = 1;      ///< factor of |theta| per step
  double m0 = 0;     ///< |theta_0| (mean + 10 std)
  double a = 0;      ///< additive push per step
  double drift = 0;  ///< the gradient's part of a
  double log10 = 0;  ///< log10 of the bound on |theta_T|
};

Growth iterate_growth(const Scenario& s) {
  Growth g;
  double x = s.data.replacement.norm();  // largest record norm (data, gradient or features)
  for (int i = 0; i < s.n(); ++i) x = std::max(x, s.data.points.row(i).norm());
  // Poisson divides the batch sum by the expected size q n: up to 1/q times a mean.
  // Random allocation divides by the expected size n/t: a step may hold all n records, t
  // times a mean.
  const BatchSizing sizing = scheme_info(s.scheme).sizing;
  const double poisson = sizing == BatchSizing::kExpected ? 1.0 / s.sampling_rate
                         : sizing == BatchSizing::kAllocated
                             ? static_cast<double>(s.steps_per_epoch)
                             : 1.0;
  const LossFamily& family = loss_family(s.loss);
  g.c = family.contraction(s);
  double gradient = family.gradient_bound(s, x) * poisson;
  // A crafted record (data.preset = "crafted_gradient") adds at most max_t ||g_t|| to a mean.
  if (s.data.crafted) gradient += s.data.crafted_gradient.rowwise().norm().maxCoeff() * poisson;
  const double d = std::sqrt(static_cast<double>(s.dim));
  g.m0 = s.init_mean.norm() + 10.0 * s.init_std * d;
  g.drift = s.eta * gradient;
  g.a = g.drift + 10.0 * s.step_std * d;
  const double t = static_cast<double>(s.steps);
  if (g.c > 1) {  // sum_{t<T} c^t <= min(T, 1/(c-1)) c^T
    g.log10 = t * std::log10(g.c) + std::log10(g.m0 + g.a * std::min(t, 1.0 / (g.c - 1.0)));
  } else {
    g.log10 = std::log10(g.m0 + g.a * (g.c < 1 ? std::min(t, 1.0 / (1.0 - g.c)) : t));
  }
  return g;
}

// Doubles carry about 16 significant digits: a per-step noise std below 1e-12 of the distance
// one step moves the iterates is lost in rounding (the pilot then sees identical iterates and
// every estimator's cells collapse; the run failed after the pilot, naming an internal scale).
constexpr double kMaxResolution = 1e12;

void check_resolution(const Scenario& s, Reader& r) {
  double x = s.data.replacement.norm();  // largest record (data, gradient or features)
  for (int i = 0; i < s.n(); ++i) x = std::max(x, s.data.points.row(i).norm());
  double gradient = loss_family(s.loss).gradient_bound(s, x);
  if (s.data.crafted)
    gradient = std::max(gradient, s.data.crafted_gradient.rowwise().norm().maxCoeff());
  // One record's share of one step: eta * gradient / b (Poisson: b = q n, the normaliser).
  const double b = scheme_info(s.scheme).sizing == BatchSizing::kExpected ? s.sampling_rate * s.n()
                                                                          : s.batch_size;
  const double step = s.eta * gradient / std::max(b, 1.0);
  if (!(step > kMaxResolution * s.step_std)) return;
  // Blame the larger of the two factors: the step size, or the data that sets the gradient.
  std::string key = "training.eta";
  if (gradient > s.eta) {
    for (const char* k : {"data.sensitivity", "data.lipschitz", "data.gradient",
                          "data.gradient_formula", "data.replacement", "data.points"}) {
      if (r.has(k)) {
        key = k;
        break;
      }
    }
  }
  r.fail(key, fmt::format("one step moves the iterates by about eta * {} / b = {}, and the "
                          "per-step noise std s = {} is below 1e-12 of that: double precision "
                          "would lose the noise in rounding; a smaller gradient or step, or "
                          "more noise",
                          num(gradient), num(step), num(s.step_std)));
}

void check_iterates(const Scenario& s, Reader& r) {
  // A projection keeps every iterate in its ball, whose size the inputs' range bounds.
  if (std::isfinite(s.projection_diameter)) return;
  // A contraction that scales with the batch (quadratic: 1 - eta lambda |B|/(qn)) is random
  // per step under Poisson sampling; whether it diverges shows only in the simulation (sim/
  // detects it).
  if (loss_family(s.loss).contraction_scales_with_batch &&
      (scheme_info(s.scheme).sizing == BatchSizing::kExpected ||
       scheme_info(s.scheme).sizing == BatchSizing::kAllocated))
    return;
  const Growth g = iterate_growth(s);
  if (!(g.log10 > std::log10(kMaxMagnitude))) return;
  const std::string reach = fmt::format(
      "the iterates reach about 1e{:.0f} in T = {} steps (at most 1e100)", g.log10, s.steps);
  if (g.c > 1) {
    r.fail(
        "training.eta",
        fmt::format("eta * lambda = {} > 2 (model.lambda = {}): training diverges, each step "
                    "multiplies {} by |1 - eta * lambda| = {} and {}; need eta < 2 / lambda = {}, "
                    "fewer steps or a projection",
                    num(s.eta * s.lambda), num(s.lambda), loss_family(s.loss).contracted, num(g.c),
                    reach, num(2.0 / s.lambda)));
  }
  const double steps = g.c < 1 ? std::min(static_cast<double>(s.steps), 1.0 / (1.0 - g.c))
                               : static_cast<double>(s.steps);
  if (g.m0 >= g.a * steps) {
    const bool by_std = 10.0 * s.init_std * std::sqrt(s.dim) >= s.init_mean.norm();
    r.fail(by_std ? "init.std" : "init.mean",
           fmt::format("starts the iterates at a size of about {}; {}", num(g.m0), reach));
  }
  if (g.drift >= g.a - g.drift) {
    r.fail("training.eta", fmt::format("moves the iterates by up to eta * (gradient bound) = {} "
                                       "per step: {}; use a smaller eta, fewer steps or a "
                                       "projection",
                                       num(g.drift), reach));
  }
  r.fail("noise." + to_string(s.noise_key),
         fmt::format("gives the per-step noise std s = {}: {}", num(s.step_std), reach));
}

}  // namespace

void check_scenario_limits(const Scenario& s, Reader& r, long trajectories,
                           const TrajectorySource& source) {
  check_noise(s, r);
  check_range(s, r);
  check_gradient_values(s, r);
  if (!source.simulated) return;
  check_work(s, r, trajectories, source);
  check_iterates(s, r);
  check_resolution(s, r);
  // The estimators need no split of the counted trajectories any more: the selection phase
  // runs on estimate.pilot (>= 1000, checked where it is read) and every trajectory is
  // counted, so no size decidable from the file leaves an estimator without rows.
}

MemoryNeed run_memory(const ExperimentSpec& spec) {
  MemoryNeed need;
  const double n = static_cast<double>(spec.trajectories);
  for (const Scenario& s : spec.scenarios) {
    const double d = s.dim;
    // Kept until the file is written: both datasets' raw rows (the first tally.raw_samples of
    // the counted trajectories), the crafted gradient table, the histograms.
    const double raw = 2.0 * std::min(static_cast<double>(s.raw_cap), n) * d * 8.0;
    const double crafted = static_cast<double>(s.data.crafted_gradient.size()) * 8.0;
    const double cells = d > 1 ? (d + 1) * (s.bins + 2) + std::pow(s.bins_2d + 2.0, 2) : s.bins + 2;
    need.raw += raw;
    need.crafted += crafted;
    need.kept += raw + crafted + 2.0 * cells * 8.0;
    // At once, one scenario at a time: the last iterates of both pilots and of both datasets'
    // selection samples (estimate.pilot), with the learned scores' work on them.
    const double transient = 2.0 * static_cast<double>(s.pilot_trajectories) * d * 8.0 +
                             4.0 * static_cast<double>(s.estimate.pilot) * d * 8.0;
    need.transient = std::max(need.transient, transient);
  }
  return need;
}

void check_run_memory(const ExperimentSpec& spec, const TrajectorySource& source) {
  const double limit = static_cast<double>(memory_limit());
  const MemoryNeed need = run_memory(spec);
  if (limit <= 0 || need.total() <= limit) return;
  const auto gb = [](double bytes) { return fmt::format("{:.3g} GB", bytes * 1e-9); };
  const std::string tail = fmt::format(
      "; the run needs at least {} in all over its {} scenario(s), more than the {} "
      "this process may use (physical memory, ulimit -v, ulimit -d)",
      gb(need.total()), spec.scenarios.size(), gb(limit));
  const Scenario& first = spec.scenarios.front();
  if (need.raw >= need.crafted && need.raw >= need.transient) {
    throw InputError("tally.raw_samples", std::to_string(first.raw_cap),
                     fmt::format("every scenario keeps 2 x tally.raw_samples raw last iterates "
                                 "of d coordinates until the results file is written: {}{}; "
                                 "fewer raw samples or scenarios",
                                 gb(need.raw), tail));
  }
  if (need.crafted >= need.transient) {
    throw InputError("data.gradient_formula",
                     "\"" + first.data.crafted_formula.substr(0, 40) + "\"",
                     fmt::format("every scenario holds its T x d table of crafted gradients: {}{}; "
                                 "fewer training steps or scenarios",
                                 gb(need.crafted), tail));
  }
  const bool selection = 2 * first.estimate.pilot >= first.pilot_trajectories;
  throw InputError(selection ? "estimate.pilot" : "tally.pilot_trajectories",
                   std::to_string(selection ? first.estimate.pilot : first.pilot_trajectories),
                   fmt::format("one scenario's pilot (tally.pilot_trajectories) and selection "
                               "samples (estimate.pilot, by default a quarter of {}) need {} at "
                               "once{}",
                               source.key, gb(need.transient), tail));
}

}  // namespace rdpaudit::config
