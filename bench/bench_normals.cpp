// Speed of rng::Stream: ns per 64-bit word, per uniform, per normal (ours one at a time and
// in runs of 32, and Boost's normal_distribution drawing from the same Stream), single thread, then
// Stream::normal on every OpenMP thread at once. Each figure is the median over the repeats.
//
//   build/release/bench/bench_normals [draws per repeat = 1e8] [repeats = 5]
//
// "cpu" is the thread's CPU time (CLOCK_THREAD_CPUTIME_ID): what a draw costs the core, robust
// to other processes taking turns on a shared machine. "wall" is elapsed time; on a busy
// machine it is larger by the time the thread waited for a core.
//
// Two ways of using the draws, because they cost differently: "store" writes each draw into
// a small array, as noise goes into a parameter vector (no dependency from one draw to the
// next); "sum" adds them into one double, a chain of dependent additions through the loop.
#include <omp.h>

#include <algorithm>
#include <boost/random/normal_distribution.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "rdpaudit/build_info.hpp"
#include "rdpaudit/rng/stream.hpp"

namespace {

using rdpaudit::rng::Purpose;
using rdpaudit::rng::Stream;
using rdpaudit::rng::StreamId;

double thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

double wall_ns() {
  return std::chrono::duration<double, std::nano>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

enum class Use { kStore, kSum };

// Global, so that the stores (and hence the draws) must happen.
constexpr std::size_t kOut = 1024;
std::uint64_t g_words[kOut];
double g_values[kOut];
void store(std::size_t i, std::uint64_t word) {
  g_words[i % kOut] = word;
}
void store(std::size_t i, double value) {
  g_values[i % kOut] = value;
}

struct Timing {
  double cpu_ns_per_draw;
  double wall_ns_per_draw;
};

// Times `draws` calls of draw(stream) on a fresh stream of the given trajectory.
template <Use kUse, class Draw>
Timing time_one(std::uint64_t trajectory, long draws, Draw&& draw) {
  Stream stream(StreamId{2024, 0, 0, trajectory, Purpose::kTest});
  decltype(draw(stream)) sum = 0;  // words add modulo 2^64
  const double cpu0 = thread_cpu_ns(), wall0 = wall_ns();
  for (long i = 0; i < draws; ++i) {
    if constexpr (kUse == Use::kStore) {
      store(static_cast<std::size_t>(i), draw(stream));
    } else {
      sum += draw(stream);
    }
  }
  const double cpu1 = thread_cpu_ns(), wall1 = wall_ns();
  store(0, sum);
  const auto n = static_cast<double>(draws);
  return {(cpu1 - cpu0) / n, (wall1 - wall0) / n};
}

template <Use kUse, class Draw>
void report(const char* what, long draws, int repeats, Draw&& draw) {
  std::vector<double> cpu, wall;
  for (int r = 0; r < repeats; ++r) {
    const Timing t = time_one<kUse>(0, draws, draw);
    cpu.push_back(t.cpu_ns_per_draw);
    wall.push_back(t.wall_ns_per_draw);
  }
  std::printf("%-42s %-5s cpu %6.3f ns  wall %6.3f ns  (cpu min %.3f max %.3f)\n", what,
              kUse == Use::kStore ? "store" : "sum", median(cpu), median(wall),
              *std::min_element(cpu.begin(), cpu.end()), *std::max_element(cpu.begin(), cpu.end()));
}

}  // namespace

int main(int argc, char** argv) {
  const long draws = argc > 1 ? static_cast<long>(std::atof(argv[1])) : 100000000L;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  if (draws <= 0 || repeats <= 0) {
    std::fprintf(stderr, "usage: bench_normals [draws per repeat] [repeats]\n");
    return 2;
  }
  std::printf("bench_normals  rdpaudit %s (%s, %s)  %ld draws x %d repeats, medians\n",
              rdpaudit::build_info::tool_version, rdpaudit::build_info::git_hash,
              rdpaudit::build_info::build_type, draws, repeats);

  const auto word = [](Stream& s) { return s(); };
  const auto uniform = [](Stream& s) { return s.uniform(); };
  const auto normal = [](Stream& s) { return s.normal(); };
  boost::random::normal_distribution<double> boost_normal;
  const auto boost = [&boost_normal](Stream& s) { return boost_normal(s); };
  report<Use::kStore>("Stream::operator() (64-bit word)", draws, repeats, word);
  report<Use::kStore>("Stream::uniform()", draws, repeats, uniform);
  report<Use::kStore>("Stream::normal()", draws, repeats, normal);
  report<Use::kStore>("boost::random::normal_distribution(Stream)", draws, repeats, boost);
  // As the simulator draws them: normals() in runs of 32 (one lane's noise for 32 steps),
  // handed out one by one from the run.
  double run[32];
  int next = 32;
  const auto normals32 = [&run, &next](Stream& s) {
    if (next == 32) {
      s.normals(run, 32);
      next = 0;
    }
    return run[next++];
  };
  report<Use::kStore>("Stream::normals(), runs of 32", draws, repeats, normals32);
  report<Use::kSum>("Stream::normal()", draws, repeats, normal);
  report<Use::kSum>("boost::random::normal_distribution(Stream)", draws, repeats, boost);

  // Every thread draws its own stream (trajectory = thread number), as the simulator does.
  const int threads = omp_get_max_threads();
  std::vector<double> cpu, wall;
  for (int r = 0; r < repeats; ++r) {
    std::vector<Timing> per_thread(static_cast<std::size_t>(threads));
    const double wall0 = wall_ns();
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num();
      per_thread[static_cast<std::size_t>(t)] =
          time_one<Use::kStore>(static_cast<std::uint64_t>(t), draws, normal);
    }
    const double elapsed = wall_ns() - wall0;
    double cpu_sum = 0;
    for (const Timing& t : per_thread) cpu_sum += t.cpu_ns_per_draw;
    cpu.push_back(cpu_sum / threads);
    wall.push_back(elapsed / static_cast<double>(draws));
  }
  std::printf(
      "Stream::normal() on %d OpenMP threads        store cpu %6.3f ns  wall %6.3f ns  "
      "(per normal per thread; wall / %d threads = %.3f ns)\n",
      threads, median(cpu), median(wall), threads, median(wall) / threads);
  return 0;
}
