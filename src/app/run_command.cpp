// `rdpaudit run FILE`: simulate every scenario and write the results file.
#include <fmt/core.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>

#include "commands.hpp"
#include "counting.hpp"
#include "rdpaudit/audit/verdict.hpp"
#include "rdpaudit/bounds/experiment.hpp"
#include "rdpaudit/build_info.hpp"
#include "rdpaudit/config/traits.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/core/interrupt.hpp"
#include "rdpaudit/core/progress.hpp"
#include "rdpaudit/estimate/exact_chain.hpp"
#include "rdpaudit/io/hdf5.hpp"
#include "rdpaudit/io/results.hpp"
#include "rdpaudit/io/state_file.hpp"
#include "rdpaudit/par/team.hpp"
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

namespace {

// "exact | plug-in | lower" at alpha = 2 and 10, each of the direction with the larger point
// estimate (marked > for R(P||P'), < for R(P'||P)): the exact or Rao-Blackwell value, the first
// score's plug-in, and the largest rigorous lower bound of any score (each is valid at the
// run's level on its own).
std::string summary(const estimate::ScenarioEstimates& e) {
  std::string out;
  for (double a : {2.0, 10.0}) {
    struct Column {
      std::string exact = "-", plug = "-", low = "-";
      double point = NAN, best_lower = 0.0;
      int exact_preference = -1;  // of the row shown as exact: quadrature, chain, Rao-Blackwell
    } col[2];
    const int plugin_preference =
        config::row_kind(config::to_string(config::Row::kHistogramPlugin)).point_preference;
    for (const auto& x : e.estimates) {
      if (std::fabs(x.alpha - a) > 1e-9) continue;
      Column& c = col[x.direction == estimate::kForward ? 0 : 1];
      const std::string v = x.informative ? fmt::format("{:.4g}", x.value) : "n/i";
      const config::RowKind kind = config::row_kind(x.method);
      if (kind.method == config::Method::kExact &&
          (c.exact_preference < 0 || kind.point_preference < c.exact_preference)) {
        // exact (quadrature, else the exact chain) — its bracket where wider than the target
        // — or Rao-Blackwell marked ~
        const bool bracket = kind.role == config::MethodRole::kExact && x.informative &&
                             !audit::exact_is_sharp(x.lower, x.upper);
        c.exact = bracket
                      ? fmt::format("[{:.4g}, {:.4g}]", x.lower, x.upper)
                      : (kind.role == config::MethodRole::kExact || !x.informative ? "" : "~") + v;
        c.exact_preference = kind.point_preference;
        if (x.informative) c.point = x.value;
      }
      if (kind.method == config::Method::kHistogramPlugin &&
          kind.point_preference <= plugin_preference + 1) {  // identity or logistic score
        c.plug = v;
        if (x.informative && std::isnan(c.point)) c.point = x.value;
      }
      if (kind.role == config::MethodRole::kRigorous) {
        if (x.informative && (c.low == "-" || c.low == "n/i" || x.lower > c.best_lower)) {
          c.best_lower = x.lower;
          c.low = fmt::format("{:.4g}", x.lower);
        } else if (c.low == "-") {
          c.low = "n/i";
        }
      }
    }
    const bool back =
        (col[1].point > col[0].point) || (std::isnan(col[0].point) && std::isnan(col[1].point) &&
                                          col[1].best_lower > col[0].best_lower);
    const Column& c = col[back ? 1 : 0];
    out += fmt::format("{}{} {}: {} | {} | {}", out.empty() ? "" : ";  ", a, back ? "<" : ">",
                       c.exact, c.plug, c.low);
  }
  return out;
}

}  // namespace

namespace {
bool g_per_rank = false;
}

bool errors_are_per_rank() {
  return g_per_rank;
}

void collective(const std::function<void()>& f) {
  // An error found by some ranks only (rank 0 reads files, checks paths) must end every
  // rank: the others would wait in the next exchange for ever. The rank that found it
  // reports it; the others end quietly with the same status.
  bool failed = false;
  std::exception_ptr error;
  try {
    f();
  } catch (...) {
    failed = true;
    error = std::current_exception();
  }
  if (!par::any(failed)) return;
  if (error) std::rethrow_exception(error);
  throw QuietExit{2};
}

int use_threads(int requested) {
  const int threads = requested > 0 ? requested : omp_get_max_threads();
  omp_set_num_threads(threads);
  return threads;
}

// Before simulating, so that `-o` naming a directory fails at once rather than when the
// finished results are renamed into place. Creates the parent directories.
void check_output_path(const std::string& out, bool from_option) {
  const std::string key = from_option ? "-o" : "results file (default from experiment.name)";
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(out, ec)) {
    throw InputError(
        key, out,
        "is a directory; name the results file, e.g. " + (fs::path(out) / "results.h5").string());
  }
  io::check_output_name(out, key);  // <out>.ckpt.tmp within NAME_MAX
  // Nothing but a regular file (or nothing) where rdpaudit will write: a link, a device or a
  // FIFO is refused before any work, not replaced after it.
  for (const char* suffix : {"", ".tmp", ".ckpt", ".ckpt.tmp"})
    io::refuse_irregular_target(out + suffix, key + (*suffix ? std::string(" + ") + suffix : ""));
  const auto parent = fs::path(out).parent_path();
  if (!parent.empty() && !fs::create_directories(parent, ec) && ec) {
    throw InputError(key, out,
                     "its directory " + parent.string() + " cannot be created: " + ec.message());
  }
}

std::vector<std::string> input_files(const config::ExperimentSpec& spec) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::path(spec.source_path).parent_path();
  const auto beside = [&folder](const std::string& name) {
    const fs::path p(name);
    return (p.is_relative() ? folder / p : p).string();
  };
  std::vector<std::string> files{spec.source_path};
  for (const auto& run : spec.accountant_runs)
    for (const auto& [name, hash] : run.file_sha256) files.push_back(beside(name));
  if (!spec.scenarios.empty()) {
    for (const auto& c : spec.scenarios.front().bounds.custom)
      if (!c.values_file.empty()) files.push_back(beside(c.values_file));
    for (const auto& c : spec.scenarios.front().profile.claims)
      if (!c.values_file.empty()) files.push_back(beside(c.values_file));
  }
  return files;
}

void refuse_reading_as_output(const std::string& out, const std::string& key,
                              const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  for (const std::string& in : inputs) {
    std::error_code ec_out, ec_in, ec;
    const fs::path a = fs::weakly_canonical(out, ec_out), b = fs::weakly_canonical(in, ec_in);
    const bool same = (!ec_out && !ec_in && a == b) || fs::equivalent(out, in, ec);
    if (same)
      throw InputError(
          key, out, "names " + in + ", which this command reads; name a new file for its output");
  }
}

namespace {

// The rounds of a run: one of experiment.trajectories, or (--until-decided) doubling from it
// up to --max-trajectories.
std::vector<std::int64_t> rounds_of(const RunArgs& args, std::int64_t first) {
  std::vector<std::int64_t> n{first};
  if (!args.until_decided) return n;
  while (n.back() < args.max_trajectories)
    n.push_back(std::min(2 * n.back(), args.max_trajectories));
  return n;
}

io::RunIdentity identity_of(const config::ExperimentSpec& spec, const RunArgs& args) {
  io::RunIdentity id;
  id.config_sha256 = spec.config_sha256;
  id.config_text = spec.config_text;
  id.config_path = spec.source_path;
  id.seed = spec.seed;
  id.trajectories = spec.trajectories;
  id.overrides = args.overrides;
  id.schedule = args.until_decided
                    ? fmt::format("until decided, at most {} trajectories, margin {}",
                                  args.max_trajectories, args.decided_margin)
                    : "single run";
  id.part = args.part;
  id.parts = args.parts;
  id.tool = fmt::format("{} ({})", build_info::tool_version, build_info::git_hash);
  id.accountant_runs = spec.accountant_runs;  // merge uses these outputs, running nothing
  return id;
}

// Rank 0 reads the checkpoint and checks that it belongs to this run; the other ranks learn
// only whether it did (and then its positions, from Counting::restore).
io::RunState checkpoint_to_resume(const std::string& path, const io::RunIdentity& id) {
  io::RunState st;
  collective([&] {
    if (!par::root()) return;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      throw InputError("--resume", path,
                       "no checkpoint to resume (it is written every --checkpoint-every seconds "
                       "and when a run is interrupted)");
    }
    st = io::read_state(path);
    if (st.kind != "checkpoint") throw InputError("--resume", path, "is not a checkpoint");
    const std::string diff = st.identity.difference(id, true);
    if (!diff.empty())
      throw InputError("--resume", path, "is the checkpoint of another run (" + diff + ")");
  });
  return st;
}

// What a resume continues from: how many pilot trajectories and counted trajectories (both
// datasets) the checkpoint holds.
std::string resumed_text(const io::RunState& st, const std::string& checkpoint,
                         const config::ExperimentSpec& spec) {
  std::int64_t counted = 0, piloted = 0, started = 0;
  for (std::size_t i = 0; i < st.scenarios.size(); ++i) {
    const auto& sc = st.scenarios[i];
    std::int64_t here = 0;  // ints[0] of a flat tally is its trajectory count
    for (const auto& t : sc.tally) here += t.ints.empty() ? 0 : t.ints[0];
    if (!sc.cells.empty()) piloted += 2 * sim::pilot_trajectories(spec.scenarios.at(i));
    for (const auto& rows : sc.pilot)
      piloted += static_cast<std::int64_t>(rows.size()) / spec.scenarios.at(i).dim;
    counted += here;
    if (here > 0 || !sc.cells.empty() || !sc.pilot[0].empty()) ++started;
  }
  return fmt::format(
      "rdpaudit: resuming from {}: {} pilot and {} counted trajectories kept (both datasets, {} "
      "of {} scenario(s) started, look {}); going on from there",
      checkpoint, piloted, counted, started, st.scenarios.size(), st.look);
}

}  // namespace

int run_command(const RunArgs& args) {
  const config::ExperimentSpec spec =
      bounds::load_experiment(args.file, args.overrides, bounds::consent_from(args.allow_commands));
  estimate::check_exact_chain_memory(spec);
  if (args.until_decided && args.max_trajectories < spec.trajectories) {
    throw InputError(
        "--max-trajectories", std::to_string(args.max_trajectories),
        fmt::format("at least the first round, experiment.trajectories = {}", spec.trajectories));
  }
  if (args.parts > 1 && args.until_decided) {
    throw InputError("--part", fmt::format("{}/{}", args.part, args.parts),
                     "a part cannot decide a sequential audit (--until-decided): it counts a "
                     "share; merge the parts, or use MPI ranks");
  }
  if (args.parts > 1 && spec.trajectories < args.parts) {
    throw InputError("--part", fmt::format("{}/{}", args.part, args.parts),
                     fmt::format("more parts than trajectories ({})", spec.trajectories));
  }
  const std::string out =
      !args.output.empty() ? args.output
      : args.parts > 1 ? fmt::format("results/{}_part{}of{}.h5", spec.name, args.part, args.parts)
                       : "results/" + spec.name + ".h5";
  collective([&] {
    if (par::root()) check_output_path(out, !args.output.empty());
    // The results (or their checkpoint) would replace a file being read.
    const std::string key = args.output.empty() ? "experiment.name" : "-o";
    refuse_reading_as_output(out, key, input_files(spec));
    refuse_reading_as_output(out + ".ckpt", key, input_files(spec));
  });
  const int threads = use_threads(args.threads);
  const io::RunIdentity identity = identity_of(spec, args);
  const std::string checkpoint = out + ".ckpt";
  const io::RunState resumed =
      args.resume ? checkpoint_to_resume(checkpoint, identity) : io::RunState{};
  collective([&] {
    std::error_code ec;
    if (!args.resume && par::root() && std::filesystem::exists(checkpoint, ec)) {
      throw InputError("--resume", checkpoint,
                       "a checkpoint of an earlier run is there: continue it with --resume, or "
                       "delete it to start again (a new run would overwrite it)");
    }
  });

  const bool part = args.parts > 1;
  const std::vector<std::int64_t> rounds = rounds_of(args, spec.trajectories);
  // A part counts ids [lo, hi) of every scenario's datasets; a whole run [0, rounds.back()).
  const auto [lo, hi] = par::share(0, spec.trajectories, args.part - 1, args.parts);
  std::int64_t total = 0;
  for (const auto& s : spec.scenarios)  // trajectory-steps, pilot and counted (at most)
    total += 2 * (sim::pilot_trajectories(s) + (part ? hi - lo : rounds.back())) * s.steps;
  Progress progress(total, par::root());

  std::optional<io::ResultsWriter> writer;
  if (par::root() && !part)
    writer.emplace(out, spec,
                   io::RunInfo{args.command_line, threads, par::size(), par::describe()});
  CountingPlan plan{identity, checkpoint, args.checkpoint_every, threads};
  g_per_rank = true;
  Counting counting(spec, plan, &progress);
  if (args.resume) {
    counting.restore(resumed);
    if (par::root()) std::fprintf(stderr, "%s\n", resumed_text(resumed, checkpoint, spec).c_str());
  }
  stop_gracefully_on_interrupt(true);

  // The family-wise level of the run (the rigorous bounds' confidence) is spent over the
  // planned looks, delta / L each: whatever the look at which the run stops, the probability
  // of calling any valid bound violated at any look is at most delta (union bound).
  const double level = 1.0 - spec.scenarios.front().estimate.confidence;
  const double level_per_look = level / static_cast<double>(rounds.size());
  std::vector<audit::BoundTable> bounds;
  std::vector<audit::ClaimTable> claims;  // (eps, delta) claims, [profile] on
  for (const auto& s : spec.scenarios) {
    bounds.push_back(audit::audited_bounds(s));
    claims.push_back(audit::audited_claims(s, bounds.back()));
  }
  audit::AuditResult verdicts;
  std::string stop = args.until_decided ? "budget" : "single run";
  int look = counting.look();
  for (; look <= static_cast<int>(rounds.size()); ++look) {
    const std::int64_t n = rounds[static_cast<std::size_t>(look - 1)];
    counting.set_look(look);
    audit::Auditor auditor(level_per_look);
    for (const auto& s : spec.scenarios) {
      progress.set_label(fmt::format("scenario {}/{}{}", s.index + 1, spec.scenarios.size(),
                                     rounds.size() > 1 ? fmt::format(", look {}", look) : ""));
      // The scenario pass (scenario_pass.hpp): the pilot chooses the cells (once per
      // scenario), every trajectory is counted through them, and a later look counts the
      // next trajectories into the same cells before estimating and auditing again.
      ScenarioRun& run = counting.prepared(s, spec.trajectories);
      counting.count_to(s, lo, part ? hi : n);
      if (part || !par::root()) continue;
      const auto i = static_cast<std::size_t>(s.index);
      estimate_and_audit(s, spec.seed, run, bounds[i], claims[i], n, auditor);
    }
    if (part) break;
    std::int64_t open = 0;
    if (par::root()) {
      verdicts = auditor.finish();
      open = std::count_if(verdicts.cells.begin(), verdicts.cells.end(), [&](const audit::Cell& c) {
        return !audit::is_decided(c, args.decided_margin);
      });
      if (rounds.size() > 1) {
        progress.note(fmt::format(
            "look {} of at most {}: {} trajectories per dataset, this look's share of the "
            "family-wise level {:.3g}: {} violated, {} cells undecided",
            look, rounds.size(), n, level_per_look, verdicts.violated_cells(), open));
        if (open > 0) progress.note(audit::undecided_text(verdicts, args.decided_margin, 4));
      }
    }
    if (rounds.size() > 1 && par::broadcast(open) == 0) {
      stop = "decided";
      break;
    }
  }
  look = std::min(look, static_cast<int>(rounds.size()));
  progress.finish();
  stop_gracefully_on_interrupt(false);
  if (stop_requested() && par::root()) {
    std::fprintf(stderr,
                 "rdpaudit: the interrupt came after the last trajectory was counted: "
                 "finishing the results file\n");
  }
  if (!par::root()) return 0;
  std::error_code ec;
  if (part) {
    io::write_state(out, counting.state("part"));
    std::filesystem::remove(checkpoint, ec);
    fmt::print(
        "wrote {}: part {} of {} (trajectories {} to {} of each scenario and dataset, {} "
        "thread(s), {}); `rdpaudit merge` combines the {} parts\n",
        out, args.part, args.parts, lo, hi - 1, threads, par::describe(), args.parts);
    return 0;
  }
  std::vector<ScenarioRun> runs;
  for (const auto& s : spec.scenarios) runs.push_back(std::move(counting.run(s.index)));
  write_results(*writer, spec, runs, bounds, claims, verdicts,
                Outcome{rounds[static_cast<std::size_t>(look - 1)], look,
                        static_cast<int>(rounds.size()), level_per_look, stop});
  std::filesystem::remove(checkpoint, ec);
  fmt::print("wrote {} ({} scenario(s), {} trajectories per dataset, {} thread(s){}{})\n\n", out,
             spec.scenarios.size(), rounds[static_cast<std::size_t>(look - 1)], threads,
             par::size() > 1 ? fmt::format(" x {} MPI ranks", par::size()) : "",
             args.until_decided ? fmt::format("; {} look(s), stopped: {}", look, stop) : "");
  std::vector<std::string> points;
  for (const auto& s : spec.scenarios) points.push_back(describe_point(s));
  print_last_iterate_eps(verdicts, points);
  if (rounds.size() > 1) {
    // the audit line's level is a look's: say what the run's is
    fmt::print(
        "sequential audit: each of the {} planned looks tests at {:g}, the run's "
        "family-wise level {:g} split over them (a union bound)\n",
        rounds.size(), level_per_look, level);
  }
  print_audit_counts(verdicts);
  print_bound_table(verdicts);
  if (counting.checkpoints() > 0) {
    fmt::print("checkpoints: {} written to {} in {:.3f} s\n", counting.checkpoints(), checkpoint,
               counting.checkpoint_seconds());
  }
  fmt::print("(rdpaudit check {} turns this into an exit status)\n", out);
  return 0;
}

void write_results(io::ResultsWriter& writer, const config::ExperimentSpec& spec,
                   const std::vector<ScenarioRun>& runs,
                   const std::vector<audit::BoundTable>& bounds,
                   const std::vector<audit::ClaimTable>& claims, const audit::AuditResult& verdicts,
                   const Outcome& outcome) {
  fmt::print("{:>4}  {:<28} {:>20} {:>20} {:>8}  {}\n", "#", "sweep point", "D: mean (std) th_0",
             "D': mean (std) th_0", "seconds",
             "R_alpha at alpha = 2, 10, larger direction (> P||P', < P'||P): exact | plug-in | "
             "lower bound");
  for (const auto& s : spec.scenarios) {
    const ScenarioRun& run = runs[static_cast<std::size_t>(s.index)];
    writer.add_scenario(s, run.tallies, run.estimates, bounds[static_cast<std::size_t>(s.index)],
                        &claims[static_cast<std::size_t>(s.index)]);
    const auto cell = [](const tally::Tally& x) {
      return fmt::format("{:.5g} ({:.4g})", x.mean()(0), std::sqrt(x.covariance()(0, 0)));
    };
    fmt::print("{:>4}  {:<28} {:>20} {:>20} {:>8.2f}  {}\n", s.index, describe_point(s),
               cell(run.tallies.d), cell(run.tallies.dprime), run.tallies.seconds,
               summary(run.estimates));
  }
  fmt::print(
      "exact: the exact value ([lo, hi]: its bracket, where wider than 1e-3 relative; ~: a "
      "Rao-Blackwell estimate, not exact); plug-in: the first "
      "score's histogram plug-in; lower bound: the largest rigorous lower confidence bound of any "
      "score, each at the run's level on its own (check and report show the simultaneous, "
      "Holm-adjusted one); n/i: not informative (the samples do not reach the order's tail); -: "
      "not computed\n");
  writer.add_audit(verdicts);
  writer.add_outcome(outcome.counted, outcome.looks, outcome.looks_planned, outcome.level_per_look,
                     outcome.stop_reason);
  writer.commit();
}

}  // namespace rdpaudit::app
