// Batch draws at DP-SGD scale: trajectory-steps per second of Poisson sampling, sampling
// without replacement, the shuffles and random allocation at n = 50 and n = 60000 in one run
// (worst-case pairs, 1-D, both datasets, the simulator alone: no pilot, no tally), and the wall
// time of the Opacus-sized run (Poisson, n = 60000, q = 256/60000, T = 3516, the linear worst
// case); and (`allocation`) random allocation against sampling without replacement, the two
// run one right after the other in each repeat, the ratio taken per repeat.
//
//   ./build/release/bench/bench_poisson [trajectories=100000] [repeats=3] [threads=0: all]
//   ./build/release/bench/bench_poisson opacus [trajectories=2000] [threads=0: all]
//   ./build/release/bench/bench_poisson allocation [trajectories=20000] [repeats=5] [threads]
//       [row: e.g. quadratic/60000/2, all rows by default]
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "rdpaudit/config/load.hpp"
#include "rdpaudit/sim/simulate.hpp"

using namespace rdpaudit;

namespace {

// One scenario: `loss` worst case ("quadratic" or "linear"), n records, batch size b (Poisson:
// q = b / n), T steps.
config::Scenario scenario(const std::string& scheme, const std::string& loss, int n, int b,
                          long steps) {
  const bool quadratic = loss == "quadratic";
  const std::string text =
      fmt::format(R"(
[experiment]
seed = 1
trajectories = 1000
[model]
loss = "{}"
dim = 1
{}
[data]
preset = "{}_worst_case"
n = {}
{}
[training]
scheme = "{}"
eta = 0.05
batch_size = {}
steps = {}
[noise]
step_std = 0.5
)",
                  loss, quadratic ? "lambda = 1.0" : "", loss, n,
                  quadratic ? "sensitivity = 4.0" : "lipschitz = 1.0", scheme, b, steps);
  return config::parse_experiment(text, "bench_poisson.toml").scenarios.at(0);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// CPU time of the whole process (all threads): steadier than wall time on a shared machine.
double cpu_seconds() {
  return static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
}

// Wall time of m trajectories of D and of D' (their process CPU time into cpu).
double run(const config::Scenario& s, std::int64_t m, double& check, double& cpu) {
  const double c0 = cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  const Eigen::MatrixXd d = sim::simulate_last_iterates(s, 1, sim::kD, 0, m);
  const Eigen::MatrixXd dp = sim::simulate_last_iterates(s, 1, sim::kDPrime, 0, m);
  const double w = seconds_since(t0);
  cpu = cpu_seconds() - c0;
  check = dp.mean() - d.mean();
  return w;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int opacus(std::int64_t m) {
  const auto s = scenario("poisson", "linear", 60000, 256, 3516);
  double shift = 0, cpu = 0;
  const double w = run(s, m, shift, cpu);
  const double per = w / static_cast<double>(m), per_cpu = cpu / static_cast<double>(m);
  const int threads = omp_get_max_threads();
  std::printf(
      "Opacus-sized run: Poisson, n = 60000, q = 256/60000, T = 3516, linear worst case, "
      "1-D, %d thread(s)\n",
      threads);
  std::printf(
      "  %lld trajectories x 2 datasets: wall %.3f s, process CPU %.3f s "
      "(%.3e trajectory-steps per wall second; D' - D mean %.4f)\n",
      static_cast<long long>(m), w, cpu, 2.0 * m * s.steps / w, shift);
  std::printf(
      "  10^6 trajectories per dataset, extrapolated: wall %.0f s; CPU %.0f s, / %d "
      "threads = %.0f s\n",
      per * 1e6, per_cpu * 1e6, threads, per_cpu * 1e6 / threads);
  return 0;
}

// Random allocation against sampling without replacement at the same setting: in each repeat
// one right after the other (the order alternating), each ratio of rates per repeat.
int allocation(std::int64_t m, int repeats, const std::string& only) {
  const long steps = 100;
  std::printf(
      "%lld trajectories x 2 datasets x %ld steps, %d thread(s), %d interleaved repeats\n\n",
      static_cast<long long>(m), steps, omp_get_max_threads(), repeats);
  std::printf(
      "trajectory-steps per second of process CPU time, medians; ratio = random_allocation / "
      "sample_without_replacement per repeat: median [min, max] (wall-clock median)\n\n");
  std::printf(
      "| loss | n | b | sample_without_replacement | random_allocation | ratio | wall ratio |\n");
  std::printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  struct Row {
    const char* loss;
    int n, b;
  };
  for (const Row& r : {Row{"linear", 50, 2}, Row{"linear", 60000, 2}, Row{"quadratic", 50, 2},
                       Row{"quadratic", 60000, 2}, Row{"quadratic", 60000, 2400}}) {
    if (!only.empty() && only != fmt::format("{}/{}/{}", r.loss, r.n, r.b)) continue;
    const auto swor = scenario("sample_without_replacement", r.loss, r.n, r.b, steps);
    const auto alloc = scenario("random_allocation", r.loss, r.n, r.b, steps);
    const double total = 2.0 * static_cast<double>(m) * steps;
    std::vector<double> rate_s, rate_a, ratio, wall;
    for (int k = 0; k < repeats; ++k) {
      double check = 0, cs = 0, ca = 0, ws = 0, wa = 0;
      if (k % 2 == 0) {
        ws = run(swor, m, check, cs);
        wa = run(alloc, m, check, ca);
      } else {
        wa = run(alloc, m, check, ca);
        ws = run(swor, m, check, cs);
      }
      rate_s.push_back(total / cs);
      rate_a.push_back(total / ca);
      ratio.push_back(cs / ca);
      wall.push_back(ws / wa);
    }
    const auto [lo, hi] = std::minmax_element(ratio.begin(), ratio.end());
    std::printf("| %s | %d | %d | %.3e | %.3e | %.2f [%.2f, %.2f] | %.2f |\n", r.loss, r.n, r.b,
                median(rate_s), median(rate_a), median(ratio), *lo, *hi, median(wall));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "allocation") == 0) {
    const std::int64_t m = argc > 2 ? std::atoll(argv[2]) : 20000;
    const int repeats = argc > 3 ? std::max(1, std::atoi(argv[3])) : 5;
    if (argc > 4 && std::atoi(argv[4]) > 0) omp_set_num_threads(std::atoi(argv[4]));
    return allocation(m, repeats, argc > 5 ? argv[5] : "");
  }
  if (argc > 1 && std::strcmp(argv[1], "opacus") == 0) {
    const std::int64_t m = argc > 2 ? std::atoll(argv[2]) : 2000;
    if (argc > 3 && std::atoi(argv[3]) > 0) omp_set_num_threads(std::atoi(argv[3]));
    return opacus(m);
  }
  const std::int64_t m = argc > 1 ? std::atoll(argv[1]) : 100000;
  const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  if (argc > 3 && std::atoi(argv[3]) > 0) omp_set_num_threads(std::atoi(argv[3]));
  const long steps = 100;
  std::printf("%lld trajectories x 2 datasets x %ld steps, %d thread(s), medians of %d repeats\n\n",
              static_cast<long long>(m), steps, omp_get_max_threads(), repeats);
  std::printf("trajectory-steps per second of process CPU time (wall-clock ratio in brackets)\n\n");
  std::printf(
      "| scheme | loss | b at n = 50 / 60000 | steps/s at n = 50 | steps/s at n = 60000 | ratio "
      "|\n");
  std::printf("| --- | --- | --- | ---: | ---: | ---: |\n");
  struct Row {
    const char* scheme;
    const char* loss;
    int b_small, b_large;  // the same b, or the same q = b / n
  };
  for (const Row& r :
       {Row{"poisson", "linear", 2, 2}, Row{"poisson", "quadratic", 2, 2},
        Row{"poisson", "quadratic", 2, 2400}, Row{"sample_without_replacement", "linear", 2, 2},
        Row{"sample_without_replacement", "quadratic", 2, 2},
        Row{"sample_without_replacement", "quadratic", 2, 2400},
        Row{"shuffle_partition", "quadratic", 2, 2}, Row{"shuffle_partition", "quadratic", 2, 2400},
        Row{"shuffle_each_epoch", "quadratic", 2, 2},
        Row{"shuffle_each_epoch", "quadratic", 2, 2400}, Row{"random_allocation", "linear", 2, 2},
        Row{"random_allocation", "quadratic", 2, 2},
        Row{"random_allocation", "quadratic", 2, 2400}}) {
    const auto small = scenario(r.scheme, r.loss, 50, r.b_small, steps);
    const auto large = scenario(r.scheme, r.loss, 60000, r.b_large, steps);
    std::vector<double> ws, wl, cs, cl;
    double check = 0, cpu = 0;
    for (int k = 0; k < repeats; ++k) {  // paired: each repeat runs both, one after the other
      ws.push_back(run(small, m, check, cpu));
      cs.push_back(cpu);
      wl.push_back(run(large, m, check, cpu));
      cl.push_back(cpu);
    }
    const double total = 2.0 * static_cast<double>(m) * steps;
    const double a = total / median(cs), b = total / median(cl);
    std::printf("| %s | %s | %d / %d | %.3e | %.3e | %.2f (%.2f) |\n", r.scheme, r.loss, r.b_small,
                r.b_large, a, b, b / a, median(ws) / median(wl));
  }
  return 0;
}
