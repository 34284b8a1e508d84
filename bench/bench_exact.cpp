// Widths and times of the exact engine's R_alpha brackets on the cells of
// experiments/blog_saturation.toml and experiments/paper_fig2.toml (docs/exact-laws.md,
// section 6). One scenario per line: experiment, b or scheme, T, seconds (evolve + brackets),
// and the worst width over alpha in {2, 4, 8, 10, 15, 16} and both directions, relative to the
// lower end, or absolute where the lower end is below 1e-3; then the privacy profile's
// brackets (delta(eps) at eps = 0.5, 1, 2 and eps(1e-5)) and their CPU time.
//   bench_exact blog 2 100          one blog cell (b = 2, T = 100)
//   bench_exact fig2 sp 25          one Figure-2 cell (shuffle_partition, T = 25 steps)
//   bench_exact fig2 swor 25        (sample_without_replacement)
//   bench_exact formula "2 * sin(3 * theta) + x" 10
//                                   experiments/gradient_formula.toml's chain with this
//                                   gradient formula (T = 10)
// Optional 4th and 5th arguments: cells per noise sd, cluster width in cells (default: the
// engine's). Times are the process's CPU time (one core; the machine may be shared); the
// resident memory after the chain is what the engine still holds then.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "rdpaudit/estimate/exact_chain.hpp"
#include "rdpaudit/exact/chain.hpp"
#include "rdpaudit/exact/profile.hpp"

using namespace rdpaudit::exact;
using rdpaudit::config::BatchScheme;
using rdpaudit::config::LossKind;

namespace {

// The process's resident memory now, in MB (Linux; -1 elsewhere): what a chain leaves held.
double resident_mb() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  char line[256];
  double kb = -1;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::sscanf(line, "VmRSS: %lf kB", &kb) == 1) break;
  }
  std::fclose(f);
  return kb < 0 ? -1 : kb / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: bench_exact blog|fig2|formula <b|sp|swor|formula> <T> [cells_per_sd]\n");
    return 2;
  }
  const std::string which = argv[1], variant = argv[2];
  const long T = std::atol(argv[3]);
  ChainSpec c;
  if (which == "formula") {
    rdpaudit::config::Scenario s;
    s.loss = LossKind::kGradientFormula;
    s.gradient_formula = variant;
    s.eta = 0.1;
    s.step_std = 0.2;
    s.batch_size = 2;
    s.scheme = BatchScheme::kSampleWithoutReplacement;
    s.steps = T;
    s.projection_diameter = 2.0;
    s.projection_center = Eigen::VectorXd::Zero(1);
    s.init_mean = Eigen::VectorXd::Zero(1);
    s.data.points = Eigen::MatrixXd::Zero(10, 1);
    s.data.points(0, 0) = 1.0;
    s.data.replacement = Eigen::VectorXd::Constant(1, -1.0);
    std::string why;
    const auto chain = chain_from_scenario(s, why);
    if (!chain) {
      std::fprintf(stderr, "no exact value: %s\n", why.c_str());
      return 1;
    }
    c = *chain;
  } else if (which == "blog") {
    c.loss = LossKind::kLinear;
    c.eta = 0.04;
    c.step_std = 0.04;  // eta * blog_sigma
    c.clamp_lo = -1;
    c.clamp_hi = 1;
    c.record_d = 1;
    c.record_dprime = -1;
    c.n = 10;
    c.batch = std::atoi(variant.c_str());
    c.scheme = BatchScheme::kSampleWithoutReplacement;
    c.steps_per_epoch = c.n / c.batch;
  } else {
    c.loss = LossKind::kQuadratic;
    c.lambda = 1;
    c.eta = 0.02;
    c.step_std = std::sqrt(2 * 0.02 * 4.0);
    c.record_d = 0;
    c.record_dprime = 4;
    c.n = 50;
    c.batch = 2;
    c.scheme =
        variant == "sp" ? BatchScheme::kShufflePartition : BatchScheme::kSampleWithoutReplacement;
    c.steps_per_epoch = 25;
  }
  c.steps = T;
  c.steps_per_epoch = std::max(1L, c.steps_per_epoch);
  EngineOptions o;
  if (argc > 4) o.cells_per_sd = std::atoi(argv[4]);
  if (argc > 5) o.cluster_cells = std::atof(argv[5]);
  const std::clock_t c0 = std::clock();
  const auto t0 = std::chrono::steady_clock::now();
  const ChainLaws laws = evolve_pair(c, o);
  const auto t1 = std::chrono::steady_clock::now();
  const std::vector<double> alphas = {2, 4, 8, 10, 15, 16};
  const auto rows = renyi_brackets(laws.d, laws.dprime, alphas, o.renyi);
  const auto t2 = std::chrono::steady_clock::now();
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  double worst = 0;
  std::string worst_at;
  for (const auto& r : rows) {
    for (bool fwd : {true, false}) {
      const Bracket b = fwd ? r.forward : r.backward;
      const bool rel = b.lo >= 1e-3;
      const double w = rel ? (b.hi - b.lo) / b.lo : (b.hi - b.lo) * 1e3;  // in units of target
      std::printf("  alpha %4.1f %s [%.9g, %.9g] width %s %.3g\n", r.alpha, fwd ? "fwd" : "bwd",
                  b.lo, b.hi, rel ? "rel" : "abs", rel ? w : (b.hi - b.lo));
      if (w > worst) {
        worst = w;
        worst_at = std::to_string(r.alpha) + (fwd ? " fwd" : " bwd");
      }
    }
  }
  std::printf(
      "%s %s T=%ld cells=%d cpu %.2fs (wall: evolve %.2fs brackets %.2fs) worst %.3g"
      " (x target) at %s\n",
      which.c_str(), variant.c_str(), T, laws.d.last.cells, cpu,
      std::chrono::duration<double>(t1 - t0).count(),
      std::chrono::duration<double>(t2 - t1).count(), worst * 1e3, worst_at.c_str());
  std::printf("resident after the chain and its brackets: %.1f MB\n", resident_mb());
  // the estimate run's work limit compares (estimate.exact_max_work): CPU ns per unit of it
  const auto work = rdpaudit::estimate::chain_work(c, o);
  std::printf("work estimate %.3g (cases per step %g): %.3g ns of CPU per unit\n", work.work,
              work.propagations, cpu * 1e9 / work.work);
  {
    const std::string why =
        upper_uncertified(laws.d, laws.dprime, density_grid(laws.d, laws.dprime, o.renyi, 16));
    std::printf("  upper ends: %s\n",
                why.empty() ? "certified" : ("not certified: " + why).c_str());
  }
  // the privacy profile's brackets from the same laws (exact/profile.hpp): delta(eps) at
  // eps = 0.5, 1, 2 and eps(delta) at delta = 1e-5, both directions
  const std::clock_t c1 = std::clock();
  const ProfileBrackets profile(laws.d, laws.dprime, o.renyi);
  double worst_delta = 0, worst_eps = 0;
  for (bool fwd : {true, false}) {
    for (double eps : {0.5, 1.0, 2.0}) {
      const Bracket b = profile.delta(eps, fwd);
      std::printf("  delta(%.1f) %s [%.9g, %.9g] rel width %.3g\n", eps, fwd ? "fwd" : "bwd", b.lo,
                  b.hi, (b.hi - b.lo) / b.hi);
      if (b.hi > 1e-6) worst_delta = std::max(worst_delta, (b.hi - b.lo) / b.hi);
    }
    const Bracket e = profile.epsilon(1e-5, fwd);
    std::printf("  eps(1e-5) %s [%.9g, %.9g] width %.3g\n", fwd ? "fwd" : "bwd", e.lo, e.hi,
                e.hi - e.lo);
    worst_eps = std::max(worst_eps, e.hi - e.lo);
  }
  std::printf("%s %s T=%ld profile cpu %.2fs worst delta width %.3g (rel) eps(1e-5) width %.3g\n",
              which.c_str(), variant.c_str(), T,
              static_cast<double>(std::clock() - c1) / CLOCKS_PER_SEC, worst_delta, worst_eps);
  return 0;
}
