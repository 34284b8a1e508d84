// Workload W1 (issue 2): 1-D quadratic loss, n = 50, b = 2, eta = 0.02, Algorithm 1
// sigma^2 = 4, K = 50 epochs, shuffle and partition, worst-case pair with S_g = 4,
// 10^6 trajectories for each of D and D'. Reports the wall time of the simulation, the
// trajectory-steps per second, and the time to draw the same number of normals alone with
// the same streams and threads, measured in the same run (median of the repeats).
//
//   ./build/release/bench_w1 [trajectories=1000000] [threads=0: all] [repeats=3]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "rdpaudit/config/load.hpp"
#include "rdpaudit/rng/stream.hpp"
#include "rdpaudit/sim/simulate.hpp"

using namespace rdpaudit;

namespace {

const char* kW1 = R"(
[experiment]
seed = 1
trajectories = 1000000
[model]
loss = "quadratic"
dim = 1
lambda = 1.0
[data]
preset = "quadratic_worst_case"
n = 50
sensitivity = 4.0
[training]
scheme = "shuffle_partition"
eta = 0.02
batch_size = 2
epochs = 50
[noise]
sigma2 = 4.0
)";

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// CPU time of the whole process (all threads): steadier than wall time on a shared machine.
double cpu_seconds() {
  return static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
}

// The same number of normals as W1 draws (one per step and trajectory, both datasets), from
// the same per-trajectory noise streams, over the same threads.
double normals_alone(std::int64_t trajectories, long steps, int threads, double& cpu) {
  double sink = 0;
  const double c0 = cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for num_threads(threads) schedule(dynamic, 256) reduction(+ : sink)
  for (std::int64_t j = 0; j < 2 * trajectories; ++j) {
    rng::Stream noise({1, 0, static_cast<std::uint32_t>(j % 2), static_cast<std::uint64_t>(j / 2),
                       rng::Purpose::kNoise});
    double acc = 0;
    for (long t = 0; t < steps; ++t) acc += noise.normal();
    sink += acc;
  }
  const double s = seconds_since(t0);
  cpu = cpu_seconds() - c0;
  if (sink == 42.0) std::puts("");  // keep the loop alive
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t m = argc > 1 ? std::atoll(argv[1]) : 1000000;
  const int threads =
      argc > 2 && std::atoi(argv[2]) > 0 ? std::atoi(argv[2]) : omp_get_max_threads();
  const int repeats = argc > 3 ? std::max(1, std::atoi(argv[3])) : 3;
  omp_set_num_threads(threads);  // the simulator runs on the OpenMP default, as in `run`

  const auto spec = config::parse_experiment(kW1, "W1");
  const auto& s = spec.scenarios.at(0);
  std::vector<double> sim_s, normal_s, sim_cpu, normal_cpu;
  for (int r = 0; r < repeats; ++r) {
    const double c0 = cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    const auto t = sim::simulate_scenario(s, spec.seed, m);
    sim_s.push_back(seconds_since(t0));
    sim_cpu.push_back(cpu_seconds() - c0);
    double ncpu = 0;
    normal_s.push_back(normals_alone(m, s.steps, threads, ncpu));
    normal_cpu.push_back(ncpu);
    std::printf(
        "repeat %d: W1 %.3f s (cpu %.3f s), normals alone %.3f s (cpu %.3f s); D' mean %.5f\n",
        r + 1, sim_s.back(), sim_cpu.back(), normal_s.back(), normal_cpu.back(),
        t.dprime.mean()(0));
  }
  const double steps = 2.0 * static_cast<double>(m) * static_cast<double>(s.steps);
  const double w = median(sim_s), nrm = median(normal_s);
  std::printf("W1: %lld trajectories x 2 datasets x %ld steps on %d thread(s)\n",
              static_cast<long long>(m), s.steps, threads);
  std::printf("  wall time (median of %d)      %8.3f s\n", repeats, w);
  std::printf("  trajectory-steps per second   %8.3e\n", steps / w);
  std::printf("  normals alone                 %8.3f s  (%.2f ns per normal per core)\n", nrm,
              nrm * threads / steps * 1e9);
  std::printf("  W1 / normals alone            %8.3f  (wall)\n", w / nrm);
  std::printf("  W1 / normals alone            %8.3f  (process CPU time, median %.3f s / %.3f s)\n",
              median(sim_cpu) / median(normal_cpu), median(sim_cpu), median(normal_cpu));
  std::printf(
      "  (W1 includes its pilot run of %ld trajectories per dataset that places the bins)\n",
      s.pilot_trajectories);
  return 0;
}
