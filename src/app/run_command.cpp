// `rdpaudit run FILE`: simulate every scenario and write the results file.
#include <fmt/core.h>
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "commands.hpp"
#include "rdpaudit/core/progress.hpp"
#include "rdpaudit/io/results.hpp"
#include "rdpaudit/sim/simulate.hpp"

namespace rdpaudit::app {

std::string describe_point(const config::Scenario& s) {
  std::string out;
  for (const auto& v : s.sweep_point) {
    out +=
        fmt::format("{}{}={}", out.empty() ? "" : " ", v.key.substr(v.key.find('.') + 1), v.text);
  }
  return out.empty() ? "-" : out;
}

int run_command(const RunArgs& args) {
  const config::ExperimentSpec spec = config::load_experiment(args.file, args.overrides);
  const std::string out = args.output.empty() ? "results/" + spec.name + ".h5" : args.output;
  const auto parent = std::filesystem::path(out).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  const int threads = args.threads > 0 ? args.threads : omp_get_max_threads();

  io::ResultsWriter writer(out, spec, {args.command_line, threads});
  std::int64_t total = 0;
  for (const auto& s : spec.scenarios)
    total += 2 * spec.trajectories * s.steps;  // trajectory-steps
  Progress progress(total, true);

  fmt::print("{:>4}  {:<28} {:>22} {:>22} {:>8}\n", "#", "sweep point", "D: mean (std) th_0",
             "D': mean (std) th_0", "seconds");
  for (const auto& s : spec.scenarios) {
    progress.set_label(fmt::format("scenario {}/{}", s.index + 1, spec.scenarios.size()));
    const sim::SimOptions options{spec.seed, spec.trajectories, threads, &progress};
    const auto t = sim::simulate_scenario(s, options);
    writer.add_scenario(s, t);
    const auto cell = [](const tally::Tally& x) {
      return fmt::format("{:.5g} ({:.4g})", x.mean()(0), std::sqrt(x.covariance()(0, 0)));
    };
    fmt::print("{:>4}  {:<28} {:>22} {:>22} {:>8.2f}\n", s.index, describe_point(s), cell(t.d),
               cell(t.dprime), t.seconds);
    std::fflush(stdout);
  }
  progress.finish();
  writer.commit();
  fmt::print("wrote {} ({} scenario(s), {} trajectories per dataset, {} thread(s))\n", out,
             spec.scenarios.size(), spec.trajectories, threads);
  return 0;
}

}  // namespace rdpaudit::app
