// `rdpaudit run FILE`: simulate every scenario and write the results file.
#include <fmt/core.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "commands.hpp"
#include "rdpaudit/audit/verdict.hpp"
#include "rdpaudit/core/error.hpp"
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
    } col[2];
    for (const auto& x : e.estimates) {
      if (std::fabs(x.alpha - a) > 1e-9) continue;
      Column& c = col[x.direction == estimate::kForward ? 0 : 1];
      const std::string v = x.informative ? fmt::format("{:.4g}", x.value) : "n/i";
      const config::RowKind kind = config::row_kind(x.method);
      if (kind.method == config::Method::kExact) {  // exact, or Rao-Blackwell marked ~
        c.exact = (kind.role == config::MethodRole::kExact || !x.informative ? "" : "~") + v;
        if (x.informative) c.point = x.value;
      }
      if (kind.point_preference == 2 || kind.point_preference == 3) {  // identity or logistic
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

// The rounds of a run: one of experiment.trajectories, or (--until-decided) doubling from it
// up to --max-trajectories.
std::vector<std::int64_t> rounds_of(const RunArgs& args, std::int64_t first) {
  std::vector<std::int64_t> n{first};
  if (!args.until_decided) return n;
  while (n.back() < args.max_trajectories)
    n.push_back(std::min(2 * n.back(), args.max_trajectories));
  return n;
}

// Before simulating: `-o` naming a directory used to fail only when the finished results were
// renamed into place (issue 13, item 16). Creates the parent directories.
void check_output_path(const std::string& out, bool from_option) {
  const std::string key = from_option ? "-o" : "results file (default from experiment.name)";
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(out, ec)) {
    throw InputError(
        key, out,
        "is a directory; name the results file, e.g. " + (fs::path(out) / "results.h5").string());
  }
  const auto parent = fs::path(out).parent_path();
  if (!parent.empty() && !fs::create_directories(parent, ec) && ec) {
    throw InputError(key, out,
                     "its directory " + parent.string() + " cannot be created: " + ec.message());
  }
}

}  // namespace

int run_command(const RunArgs& args) {
  const config::ExperimentSpec spec = config::load_experiment(args.file, args.overrides);
  if (args.until_decided && args.max_trajectories < spec.trajectories) {
    throw InputError(
        "--max-trajectories", std::to_string(args.max_trajectories),
        fmt::format("at least the first round, experiment.trajectories = {}", spec.trajectories));
  }
  const std::string out = args.output.empty() ? "results/" + spec.name + ".h5" : args.output;
  check_output_path(out, !args.output.empty());
  const int threads = args.threads > 0 ? args.threads : omp_get_max_threads();

  io::ResultsWriter writer(out, spec, {args.command_line, threads});
  const std::vector<std::int64_t> rounds = rounds_of(args, spec.trajectories);
  std::int64_t total = 0;
  for (const auto& s : spec.scenarios)  // trajectory-steps, pilot and counted (at most)
    total += 2 * (sim::pilot_trajectories(s) + rounds.back()) * s.steps;
  Progress progress(total, true);

  // The family-wise level of the run (the rigorous bounds' confidence) is spent over the
  // planned looks, delta / L each: whatever the look at which the run stops, the probability
  // of calling any valid bound violated at any look is at most delta (union bound).
  const double level = 1.0 - spec.scenarios.front().estimate.confidence;
  const double level_per_look = level / static_cast<double>(rounds.size());
  std::vector<estimate::ScenarioRun> runs(spec.scenarios.size());
  std::vector<audit::BoundTable> bounds;
  std::vector<audit::ClaimTable> claims;  // (eps, delta) claims, [profile] on
  for (const auto& s : spec.scenarios) {
    bounds.push_back(audit::audited_bounds(s));
    claims.push_back(audit::audited_claims(s, bounds.back()));
  }
  audit::AuditResult verdicts;
  std::int64_t counted = 0;
  std::string stop = args.until_decided ? "budget" : "single run";
  int looks = 0;
  for (const std::int64_t n : rounds) {
    ++looks;
    audit::Auditor auditor(level_per_look);
    for (const auto& s : spec.scenarios) {
      estimate::ScenarioRun& run = runs[static_cast<std::size_t>(s.index)];
      const audit::BoundTable& table = bounds[static_cast<std::size_t>(s.index)];
      progress.set_label(fmt::format("scenario {}/{}{}", s.index + 1, spec.scenarios.size(),
                                     rounds.size() > 1 ? fmt::format(", look {}", looks) : ""));
      // Two phases: the pilot chooses the estimators' cells (selection), then every
      // trajectory is counted through them inside the simulation loop; a later look counts
      // the next trajectories into the same cells and adds the counts.
      const sim::SimOptions options{spec.seed, n - counted, threads, &progress, {}, counted};
      if (counted == 0) {
        run = estimate::run_scenario(s, options);
      } else {
        estimate::extend_run(s, run, options);
      }
      auditor.add(s, table, run.estimates, describe_point(s), n);
      auditor.add_claims(s, claims[static_cast<std::size_t>(s.index)], run.estimates);
    }
    counted = n;
    verdicts = auditor.finish();
    if (rounds.size() > 1) {
      const auto open = std::count_if(
          verdicts.cells.begin(), verdicts.cells.end(),
          [&](const audit::Cell& c) { return !audit::is_decided(c, args.decided_margin); });
      progress.note(fmt::format(
          "look {} of at most {}: {} trajectories per dataset, level {:.3g}: {} violated, {} "
          "cells undecided",
          looks, rounds.size(), n, level_per_look, verdicts.violated_cells(), open));
      if (open == 0) {
        stop = "decided";
        break;
      }
    }
  }
  progress.finish();

  fmt::print("{:>4}  {:<28} {:>20} {:>20} {:>8}  {}\n", "#", "sweep point", "D: mean (std) th_0",
             "D': mean (std) th_0", "seconds",
             "R_alpha at alpha = 2, 10, larger direction (> P||P', < P'||P): exact | plug-in | "
             "lower bound");
  for (const auto& s : spec.scenarios) {
    const estimate::ScenarioRun& run = runs[static_cast<std::size_t>(s.index)];
    writer.add_scenario(s, run.tallies, run.estimates, bounds[static_cast<std::size_t>(s.index)],
                        &claims[static_cast<std::size_t>(s.index)]);
    const auto cell = [](const tally::Tally& x) {
      return fmt::format("{:.5g} ({:.4g})", x.mean()(0), std::sqrt(x.covariance()(0, 0)));
    };
    fmt::print("{:>4}  {:<28} {:>20} {:>20} {:>8.2f}  {}\n", s.index, describe_point(s),
               cell(run.tallies.d), cell(run.tallies.dprime), run.tallies.seconds,
               summary(run.estimates));
  }
  writer.add_audit(verdicts);
  writer.add_outcome(counted, looks, static_cast<int>(rounds.size()), level_per_look, stop);
  writer.commit();
  fmt::print("wrote {} ({} scenario(s), {} trajectories per dataset, {} thread(s){})\n\n", out,
             spec.scenarios.size(), counted, threads,
             args.until_decided ? fmt::format("; {} look(s), stopped: {}", looks, stop) : "");
  print_audit_counts(verdicts);
  print_bound_table(verdicts);
  fmt::print("(rdpaudit check {} turns this into an exit status)\n", out);
  return 0;
}

}  // namespace rdpaudit::app
