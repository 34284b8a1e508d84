// `rdpaudit run FILE`: simulate every scenario and write the results file.
#include <fmt/core.h>
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "commands.hpp"
#include "rdpaudit/audit/verdict.hpp"
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
      if (x.method == "exact-quadrature" || x.method == "rao-blackwell") {
        c.exact = v;
        if (x.informative) c.point = x.value;
      }
      if (x.method == "histogram-plugin" || x.method == "logistic-ratio/histogram-plugin") {
        c.plug = v;
        if (x.informative && std::isnan(c.point)) c.point = x.value;
      }
      if (x.method.find("rigorous-") != std::string::npos) {
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

int run_command(const RunArgs& args) {
  const config::ExperimentSpec spec = config::load_experiment(args.file, args.overrides);
  const std::string out = args.output.empty() ? "results/" + spec.name + ".h5" : args.output;
  const auto parent = std::filesystem::path(out).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  const int threads = args.threads > 0 ? args.threads : omp_get_max_threads();

  io::ResultsWriter writer(out, spec, {args.command_line, threads});
  std::int64_t total = 0;
  for (const auto& s : spec.scenarios)  // trajectory-steps, pilot and counted
    total += 2 * (sim::pilot_trajectories(s) + spec.trajectories) * s.steps;
  Progress progress(total, true);

  fmt::print("{:>4}  {:<28} {:>20} {:>20} {:>8}  {}\n", "#", "sweep point", "D: mean (std) th_0",
             "D': mean (std) th_0", "seconds",
             "R_alpha at alpha = 2, 10, larger direction (> P||P', < P'||P): exact | plug-in | "
             "lower bound");
  // One family-wise level per run: the rigorous bounds' confidence (the same in every scenario).
  audit::Auditor auditor(1.0 - spec.scenarios.front().estimate.confidence);
  for (const auto& s : spec.scenarios) {
    progress.set_label(fmt::format("scenario {}/{}", s.index + 1, spec.scenarios.size()));
    // Two phases: the pilot chooses the estimators' cells (selection), then every trajectory
    // is counted through them inside the simulation loop.
    auto run = estimate::run_scenario(s, {spec.seed, spec.trajectories, threads, &progress, {}});
    const sim::ScenarioTallies& t = run.tallies;
    estimate::ScenarioEstimates& e = run.estimates;
    const audit::BoundTable bounds = audit::audited_bounds(s);
    writer.add_scenario(s, t, e, bounds);
    auditor.add(s, bounds, e, describe_point(s), spec.trajectories);
    const auto cell = [](const tally::Tally& x) {
      return fmt::format("{:.5g} ({:.4g})", x.mean()(0), std::sqrt(x.covariance()(0, 0)));
    };
    fmt::print("{:>4}  {:<28} {:>20} {:>20} {:>8.2f}  {}\n", s.index, describe_point(s), cell(t.d),
               cell(t.dprime), t.seconds, summary(e));
    std::fflush(stdout);
  }
  progress.finish();
  const audit::AuditResult verdicts = auditor.finish();
  writer.add_audit(verdicts);
  writer.commit();
  fmt::print("wrote {} ({} scenario(s), {} trajectories per dataset, {} thread(s))\n\n", out,
             spec.scenarios.size(), spec.trajectories, threads);
  print_audit_counts(verdicts);
  print_bound_table(verdicts);
  fmt::print("(rdpaudit check {} turns this into an exit status)\n", out);
  return 0;
}

}  // namespace rdpaudit::app
