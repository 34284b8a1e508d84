// rdpaudit command line: a thin layer over the library. Exit status 0 on success, 2 on bad
// input (the message names the key, the value and what was expected), 1 on other failures.
#include <fmt/core.h>
#include <omp.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "rdpaudit/build_info.hpp"
#include "rdpaudit/config/load.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/core/progress.hpp"
#include "rdpaudit/io/results.hpp"
#include "rdpaudit/sim/simulate.hpp"

namespace {

using rdpaudit::InputError;
namespace config = rdpaudit::config;

std::string describe_point(const config::Scenario& s) {
  std::string out;
  for (const auto& [k, v] : s.sweep_point) {
    out += fmt::format("{}{}={:g}", out.empty() ? "" : " ", k.substr(k.find('.') + 1), v);
  }
  return out.empty() ? "-" : out;
}

void print_scenarios(const config::ExperimentSpec& spec) {
  fmt::print("experiment {} ({}), seed {}, {} trajectories per dataset, {} scenario(s)\n",
             spec.name, spec.source_path, spec.seed, spec.trajectories, spec.scenarios.size());
  fmt::print("{:>4}  {:<10} {:<27} {:>2} {:>6} {:>4} {:>8} {:>9} {:>10}  {}\n", "#", "loss",
             "scheme", "d", "n", "b", "steps", "eta", "step_std", "sweep point");
  for (const auto& s : spec.scenarios) {
    fmt::print("{:>4}  {:<10} {:<27} {:>2} {:>6} {:>4} {:>8} {:>9.4g} {:>10.4g}  {}\n", s.index,
               config::to_string(s.loss), config::to_string(s.scheme), s.dim, s.n(), s.batch_size,
               s.steps, s.eta, s.step_std, describe_point(s));
  }
}

int run_command(const std::string& file, const std::string& out_arg, int threads,
                const config::Overrides& overrides, const std::string& command_line) {
  const config::ExperimentSpec spec = config::load_experiment(file, overrides);
  const std::string out = out_arg.empty() ? "results/" + spec.name + ".h5" : out_arg;
  const auto parent = std::filesystem::path(out).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  const int nthreads = threads > 0 ? threads : omp_get_max_threads();

  rdpaudit::io::ResultsWriter writer(out, spec, {command_line, nthreads});
  std::int64_t total = 0;
  for (const auto& s : spec.scenarios) total += 2 * spec.trajectories * s.steps;  // trajectory-steps
  rdpaudit::Progress progress(total, true);

  fmt::print("{:>4}  {:<28} {:>22} {:>22} {:>8}\n", "#", "sweep point", "D: mean (std) th_0",
             "D': mean (std) th_0", "seconds");
  for (const auto& s : spec.scenarios) {
    progress.set_label(fmt::format("scenario {}/{}", s.index + 1, spec.scenarios.size()));
    const rdpaudit::sim::SimOptions options{spec.seed, spec.trajectories, nthreads, &progress};
    const auto t = rdpaudit::sim::simulate_scenario(s, options);
    writer.add_scenario(s, t);
    const auto cell = [](const rdpaudit::tally::Tally& x) {
      return fmt::format("{:.5g} ({:.4g})", x.mean()(0), std::sqrt(x.covariance()(0, 0)));
    };
    fmt::print("{:>4}  {:<28} {:>22} {:>22} {:>8.2f}\n", s.index, describe_point(s), cell(t.d),
               cell(t.dprime), t.seconds);
    std::fflush(stdout);
  }
  progress.finish();
  writer.commit();
  fmt::print("wrote {} ({} scenario(s), {} trajectories per dataset, {} thread(s))\n", out,
             spec.scenarios.size(), spec.trajectories, nthreads);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rdpaudit: Monte Carlo audit of last-iterate Renyi-DP bounds of noisy SGD"};
  app.set_version_flag("--version",
                       fmt::format("rdpaudit {} ({})", rdpaudit::build_info::tool_version,
                                   rdpaudit::build_info::git_hash));
  app.require_subcommand(1);

  std::string file, out;
  int threads = 0;
  long trajectories = 0;
  long long seed = -1;

  auto* run =
      app.add_subcommand("run", "simulate an experiment file and write an HDF5 results file");
  run->add_option("FILE", file, "experiment file (TOML)")->required();
  run->add_option("-o,--output", out, "results file (default: results/<experiment name>.h5)");
  run->add_option("--threads", threads, "OpenMP threads (default: all)");
  run->add_option("--trajectories", trajectories, "trajectories per dataset (overrides the file)");
  run->add_option("--seed", seed, "random seed (overrides the file)");

  auto* validate =
      app.add_subcommand("validate", "check an experiment file and list its scenarios");
  validate->add_option("FILE", file, "experiment file (TOML)")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);

  try {
    config::Overrides overrides;
    if (run->count("--trajectories")) {
      if (trajectories < 1)
        throw InputError("--trajectories", std::to_string(trajectories), "must be >= 1");
      overrides.trajectories = trajectories;
    }
    if (run->count("--seed")) {
      if (seed < 0) throw InputError("--seed", std::to_string(seed), "must be >= 0");
      overrides.seed = static_cast<std::uint64_t>(seed);
    }
    if (run->count("--threads") && (threads < 1 || threads > 4096)) {
      throw InputError("--threads", std::to_string(threads), "must be in [1, 4096]");
    }
    if (*validate) {
      print_scenarios(config::load_experiment(file));
      fmt::print("ok\n");
      return 0;
    }
    return run_command(file, out, threads, overrides, command_line);
  } catch (const InputError& e) {
    std::fprintf(stderr, "rdpaudit: error: %s: %s\n", file.c_str(), e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rdpaudit: failed: %s\n", e.what());
    return 1;
  }
}
