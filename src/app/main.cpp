// rdpaudit command line: a thin layer over the library. Exit status 0 on success, 2 on bad
// input (the message names the key, the value and what was expected), 3 on a broken internal
// contract (a bug: "internal error: ... please report"), 1 on other failures.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "commands.hpp"
#include "counting.hpp"
#include "rdpaudit/bounds/accountant.hpp"
#include "rdpaudit/bounds/experiment.hpp"
#include "rdpaudit/build_info.hpp"
#include "rdpaudit/core/activity.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/estimate/exact_chain.hpp"
#include "rdpaudit/io/hdf5.hpp"
#include "rdpaudit/par/team.hpp"

namespace {

using rdpaudit::InputError;
namespace config = rdpaudit::config;
namespace app = rdpaudit::app;

void print_scenarios(const config::ExperimentSpec& spec) {
  fmt::print("experiment {} ({}), seed {}, {} trajectories per dataset, {} scenario(s)\n",
             spec.name, spec.source_path, spec.seed, spec.trajectories, spec.scenarios.size());
  fmt::print("{:>4}  {:<10} {:<27} {:>2} {:>6} {:>4} {:>8} {:>9} {:>10}  {}\n", "#", "loss",
             "scheme", "d", "n", "b", "steps", "eta", "step_std", "sweep point");
  for (const auto& s : spec.scenarios) {
    fmt::print("{:>4}  {:<10} {:<27} {:>2} {:>6} {:>4} {:>8} {:>9.4g} {:>10.4g}  {}\n", s.index,
               config::to_string(s.loss), config::to_string(s.scheme), s.dim, s.n(), s.batch_size,
               s.steps, s.eta, s.step_std, app::describe_point(s));
  }
}

// What validate did with each accountant command: ran it, or (without consent) listed it with
// the SHA-256 of the files it names.
void print_commands(const config::ExperimentSpec& spec) {
  for (const auto& run : spec.accountant_runs) {
    std::string argv;
    for (const auto& a : run.command) argv += (argv.empty() ? "" : " ") + a;
    fmt::print("custom bound {}: command `{}` in {} {}\n", run.bound, argv, run.directory,
               run.how == "listed" ? "not run (no --allow-commands)" : "ran");
    for (const auto& [name, hash] : run.file_sha256) fmt::print("  {}  sha256 {}\n", name, hash);
  }
}

// --seed: a decimal integer in [0, 2^64 - 1] (read as text: CLI11's long long would clamp
// 2^64 - 1 to 2^63 - 1 silently).
std::uint64_t parse_seed(const std::string& text) {
  const bool digits = !text.empty() && text.size() <= 20 &&
                      text.find_first_not_of("0123456789") == std::string::npos;
  errno = 0;
  const unsigned long long v = digits ? std::strtoull(text.c_str(), nullptr, 10) : 0;
  if (!digits || errno == ERANGE) {
    throw InputError("--seed", text.size() > 40 ? text.substr(0, 40) + "..." : text,
                     "must be an integer in [0, 2^64 - 1]");
  }
  return static_cast<std::uint64_t>(v);
}

// --threads of run and merge.
void check_threads(int threads) {
  if (threads < 1 || threads > 4096)
    throw InputError("--threads", std::to_string(threads), "must be in [1, 4096]");
}

// --part i/N: 1 <= i <= N.
void parse_part(const std::string& text, int& part, int& parts) {
  const auto slash = text.find('/');
  const auto whole = [](const std::string& t) {
    return !t.empty() && t.size() <= 6 && t.find_first_not_of("0123456789") == std::string::npos;
  };
  if (slash == std::string::npos || !whole(text.substr(0, slash)) ||
      !whole(text.substr(slash + 1))) {
    throw InputError("--part", text, "must be i/N with whole numbers 1 <= i <= N, e.g. 3/8");
  }
  part = std::stoi(text.substr(0, slash));
  parts = std::stoi(text.substr(slash + 1));
  if (parts < 1 || part < 1 || part > parts)
    throw InputError("--part", text, "must be i/N with 1 <= i <= N, e.g. 3/8");
}

int run_main(int argc, char** argv) {
  CLI::App cli{"rdpaudit: Monte Carlo audit of last-iterate Renyi-DP bounds of noisy SGD"};
  cli.set_version_flag("--version",
                       fmt::format("rdpaudit {} ({})", rdpaudit::build_info::tool_version,
                                   rdpaudit::build_info::git_hash));
  cli.require_subcommand(1);

  std::string file;
  app::RunArgs run_args;
  long trajectories = 0;
  std::string seed;  // parsed below: the whole uint64 range, never clamped
  auto* run =
      cli.add_subcommand("run", "simulate an experiment file and write an HDF5 results file");
  run->add_option("FILE", file, "experiment file (TOML)")->required();
  run->add_option("-o,--output", run_args.output,
                  "results file (default: results/<experiment name>.h5)");
  run->add_option("--threads", run_args.threads, "OpenMP threads (default: all)");
  run->add_option("--trajectories", trajectories, "trajectories per dataset (overrides the file)");
  run->add_option("--seed", seed, "random seed (overrides the file)");
  run->add_option("--scale", run_args.overrides.scale,
                  "multiply trajectories (and the default estimate.pilot) (servers: 10, 100)");
  run->add_flag("--until-decided", run_args.until_decided,
                "sequential audit: count in rounds doubling from experiment.trajectories, test at "
                "each look, stop when every cell is decided (needs --max-trajectories)");
  run->add_option("--max-trajectories", run_args.max_trajectories,
                  "budget of a sequential audit: trajectories per dataset and scenario");
  run->add_option("--decided-margin", run_args.decided_margin,
                  "sequential audit: a not-rejected cell is decided when its bound is at least "
                  "this multiple of the point estimate (default 2)");
  std::string part_text;
  run->add_option("--part", part_text,
                  "i/N: count the i-th of N shares of every scenario's trajectories and write a "
                  "part file (-o) for `rdpaudit merge` (job arrays)");
  run->add_flag("--resume", run_args.resume,
                "continue from the checkpoint <output>.ckpt of an interrupted run (same file, "
                "options and build)");
  run->add_flag("--allow-commands", run_args.allow_commands,
                "run the programs the experiment file names ([[bounds.custom]] command); also "
                "RDPAUDIT_ALLOW_COMMANDS=1");
  run->add_option("--checkpoint-every", run_args.checkpoint_every,
                  "seconds between checkpoints to <output>.ckpt (default 300; 0: only when "
                  "interrupted)");

  app::MergeArgs merge_args;
  auto* merge = cli.add_subcommand(
      "merge", "combine the part files of a split run (run --part i/N) into its results file");
  merge->add_option("PARTS", merge_args.parts, "part files, one per part, any order")->required();
  merge->add_option("-o,--output", merge_args.output, "results file")->required();
  merge->add_option("--threads", merge_args.threads, "OpenMP threads (default: all)");

  app::CheckArgs check_args;
  auto* check = cli.add_subcommand(
      "check", "verdict table of a results file; exit 1 if a bound is not as expected");
  check->add_option("RESULTS", check_args.file, "results file (HDF5)")->required();
  check->add_flag("--cells", check_args.cells,
                  "also list violated and inconclusive cells and warnings");
  check->add_flag("--all-cells", check_args.all_cells, "list every cell");

  bool report_csv = false;
  auto* report = cli.add_subcommand("report", "readable summary of a results file");
  report->add_option("RESULTS", file, "results file (HDF5)")->required();
  report->add_flag("--csv", report_csv,
                   "one CSV row per audit cell (scenario, sweep point, bound, order, direction, "
                   "bound value, estimate, exact, lower, p-values, verdict, margin, note)");

  std::string plot_out;
  auto* plot = cli.add_subcommand("plot", "draw the audit's figures (PNG) from a results file");
  plot->add_option("RESULTS", file, "results file (HDF5)")->required();
  plot->add_option("--out", plot_out, "directory of the PNG files (default: the file's)");

  auto* validate =
      cli.add_subcommand("validate", "check an experiment file and list its scenarios");
  validate->add_option("FILE", file, "experiment file (TOML)")->required();
  bool validate_commands = false;
  validate->add_flag("--allow-commands", validate_commands,
                     "run the programs the file names (else they are listed with the SHA-256 of "
                     "their files, not run); also RDPAUDIT_ALLOW_COMMANDS=1");

  app::BoundsArgs bounds_args;
  bool only_applicable = false;
  auto* bounds = cli.add_subcommand("bounds", "table of every analytic bound of every scenario");
  bounds->add_option("FILE", file, "experiment file (TOML)")->required();
  bounds
      ->add_option("--alpha", bounds_args.alphas,
                   "orders (default: bounds.alphas, else 2 4 8 10 15 16 32 64)")
      ->delimiter(',');
  bounds->add_option("--delta", bounds_args.delta,
                     "also print epsilon at this delta and the order that attains it");
  bounds->add_option("--epsilon", bounds_args.epsilon,
                     "also print delta at this epsilon and the order that attains it");
  bounds->add_flag("--applicable", only_applicable, "omit bounds that do not apply");
  bounds->add_flag("--allow-commands", bounds_args.allow_commands,
                   "run the programs the experiment file names ([[bounds.custom]] command); also "
                   "RDPAUDIT_ALLOW_COMMANDS=1");
  bounds->add_flag("--csv", bounds_args.csv,
                   "CSV rows: scenario, sweep point, scheme, K, T, j0, bound, kind, adjacency, "
                   "alpha, value, reason if n/a (+ epsilon/delta columns with --delta/--epsilon)");

  app::SearchArgs search_args;
  auto* search = cli.add_subcommand(
      "search",
      "search the adversaries of an experiment's [search] table for the largest R_alpha (or "
      "ratio to a bound, or delta), exact or else a plug-in on streams of its own, and write "
      "the one found as an experiment file");
  search->add_option("FILE", file, "experiment file with a [search] table (TOML)")->required();
  search
      ->add_option("-o,--output", search_args.output,
                   "the found adversary's experiment file (TOML), for `rdpaudit run`")
      ->required();
  search->add_option("--trace", search_args.trace,
                     "CSV of every evaluated point (default: the output with .trace.csv)");
  search->add_option("--threads", search_args.threads, "OpenMP threads (default: all)");
  search->add_flag("--allow-commands", search_args.allow_commands,
                   "run the programs the experiment file names ([[bounds.custom]] command); also "
                   "RDPAUDIT_ALLOW_COMMANDS=1");

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = cli.exit(e);
    return code == 0 ? 0 : 2;
  }
  for (int i = 0; i < argc; ++i) run_args.command_line += (i ? " " : "") + std::string(argv[i]);
  merge_args.command_line = run_args.command_line;

  // MPI starts (under mpirun or srun) before anything can fail, and a failure of one rank ends
  // every rank (par::abort) rather than leaving the others waiting.
  std::optional<rdpaudit::par::Session> mpi;
  const auto fail = [&](int code, const std::string& line) {
    namespace par = rdpaudit::par;
    const bool one_rank = par::size() > 1 && app::errors_are_per_rank();
    if (par::root() || one_rank) {
      std::fprintf(stderr, "%s%s\n",
                   par::size() > 1 ? fmt::format("[rank {}] ", par::rank()).c_str() : "",
                   line.c_str());
    }
    if (one_rank) par::abort(code);
    return code;
  };
  try {
    const rdpaudit::Activity activity(
        fmt::format("running `rdpaudit {}`", cli.get_subcommands().front()->get_name()));
    mpi.emplace(argc, argv);
    if (*merge) {
      if (merge->count("--threads")) check_threads(merge_args.threads);
      file.clear();  // merge's messages name the part or the output they are about
      return app::merge_command(merge_args);
    }
    if (*validate) {
      const rdpaudit::Activity reading("reading the experiment file " + file);
      const auto spec = rdpaudit::bounds::load_experiment(
          file, {},
          rdpaudit::bounds::consent_from(validate_commands, rdpaudit::bounds::CommandUse::kList));
      rdpaudit::estimate::check_exact_chain_memory(spec);
      print_scenarios(spec);
      print_commands(spec);
      fmt::print("ok\n");
      return 0;
    }
    if (*check) {
      file = check_args.file;
      check_args.cells = check_args.cells || check_args.all_cells;
      return app::check_command(check_args);
    }
    if (*search) {
      if (search->count("--threads")) check_threads(search_args.threads);
      search_args.file = file;
      return app::search_command(search_args);
    }
    if (*report) return app::report_command(file, report_csv);
    if (*plot) return app::plot_command(file, plot_out);
    if (*bounds) {
      for (double a : bounds_args.alphas) {
        if (!(a > 1)) throw InputError("--alpha", fmt::format("{}", a), "orders must be > 1");
      }
      if (bounds->count("--delta") && !(bounds_args.delta > 0 && bounds_args.delta < 1)) {
        throw InputError("--delta", fmt::format("{}", bounds_args.delta), "must be in (0, 1)");
      }
      if (bounds->count("--epsilon") &&
          !(bounds_args.epsilon >= 0 && std::isfinite(bounds_args.epsilon))) {
        throw InputError("--epsilon", fmt::format("{}", bounds_args.epsilon),
                         "must be >= 0 and finite");
      }
      bounds_args.file = file;
      bounds_args.show_reasons = !only_applicable;
      return app::bounds_command(bounds_args);
    }
    if (run->count("--trajectories")) {
      if (trajectories < 2)
        throw InputError("--trajectories", std::to_string(trajectories),
                         "must be >= 2 (the covariance of the last iterates needs two)");
      run_args.overrides.trajectories = trajectories;
    }
    if (run->count("--seed")) run_args.overrides.seed = parse_seed(seed);
    if (run->count("--threads")) check_threads(run_args.threads);
    if (run_args.until_decided != (run->count("--max-trajectories") > 0)) {
      throw InputError(run_args.until_decided ? "--until-decided" : "--max-trajectories",
                       run_args.until_decided ? "set" : std::to_string(run_args.max_trajectories),
                       "--until-decided and --max-trajectories go together");
    }
    if (run->count("--max-trajectories") && run_args.max_trajectories < 1) {
      throw InputError("--max-trajectories", std::to_string(run_args.max_trajectories),
                       "must be >= 1");
    }
    if (run->count("--decided-margin") &&
        !(run_args.decided_margin >= 1.0 && std::isfinite(run_args.decided_margin))) {
      throw InputError("--decided-margin", fmt::format("{}", run_args.decided_margin),
                       "must be a number >= 1");
    }
    if (run->count("--part")) parse_part(part_text, run_args.part, run_args.parts);
    if (run->count("--checkpoint-every") &&
        !(run_args.checkpoint_every >= 0 && std::isfinite(run_args.checkpoint_every))) {
      throw InputError("--checkpoint-every", fmt::format("{}", run_args.checkpoint_every),
                       "must be a number of seconds >= 0 (0: only when interrupted)");
    }
    run_args.file = file;
    return app::run_command(run_args);
  } catch (const app::Stopped& stop) {
    std::string resume = run_args.command_line;
    if (resume.find("--resume") == std::string::npos) resume += " --resume";
    // Every rank stops together (Counting decides it collectively): rank 0 says so, and
    // every rank ends normally.
    if (rdpaudit::par::root()) {
      std::fprintf(
          stderr,
          "rdpaudit: stopped; the work so far (pilot and counts) is in %s; continue with\n  %s\n",
          stop.checkpoint.c_str(), resume.c_str());
    }
    return 130;
  } catch (const app::QuietExit& e) {
    return e.code;  // another rank reported the error
  } catch (const InputError& e) {
    // Named by the command's file unless the message names a file itself (a damaged part
    // of a merge names the part, not the output).
    const std::string what = e.what();
    const bool named = file.empty() || what.find(file) != std::string::npos;
    return fail(2, fmt::format("rdpaudit: error: {}{}", named ? "" : file + ": ", what));
  } catch (const rdpaudit::ResourceError& e) {
    return fail(2, fmt::format("rdpaudit: error: {}", e.what()));
  } catch (const std::bad_alloc&) {
    return fail(2, fmt::format("rdpaudit: error: out of memory while {} (a smaller "
                               "experiment, fewer raw samples or scenarios, or a machine with "
                               "more memory)",
                               rdpaudit::failed_activity()));
  } catch (const rdpaudit::InternalError& e) {
    return fail(3, fmt::format("rdpaudit: internal error: {} (please report it with the "
                               "experiment file)",
                               e.what()));
  } catch (const std::exception& e) {
    return fail(1, fmt::format("rdpaudit: failed: {}", e.what()));
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Past a file-size limit (ulimit -f) a write fails with EFBIG and is reported like a full
  // disk (nothing half-written), instead of SIGXFSZ ending the process without a word.
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    rdpaudit::io::hdf5_start();
  } catch (const rdpaudit::ResourceError& e) {
    std::fprintf(stderr, "rdpaudit: error: %s\n", e.what());
    return 2;
  }
  const int code = run_main(argc, argv);
  rdpaudit::io::hdf5_finish();
  return code;
}
