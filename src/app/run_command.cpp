// `rdpaudit run FILE`: simulate every scenario and write the results file.
#include <fmt/core.h>
#include <omp.h>

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

// "exact | plug-in | lower" of the forward direction at alpha = 2 and 10: the first score's
// plug-in, the largest rigorous lower bound.
std::string summary(const estimate::ScenarioEstimates& e) {
  std::string out;
  for (double a : {2.0, 10.0}) {
    std::string ex = "-", plug = "-", low = "-";
    double best_lower = 0.0;
    for (const auto& x : e.estimates) {
      if (x.direction != estimate::kForward || std::fabs(x.alpha - a) > 1e-9) continue;
      const std::string v = x.informative ? fmt::format("{:.4g}", x.value) : "n/i";
      if (x.method == "exact-quadrature" || x.method == "rao-blackwell") ex = v;
      if (x.method == "histogram-plugin" || x.method == "logistic-ratio/histogram-plugin") plug = v;
      // The best rigorous bound of any score (each is valid at the run's level on its own).
      if (x.method.find("rigorous-") != std::string::npos) {
        if (x.informative && (low == "-" || low == "n/i" || x.lower > best_lower)) {
          best_lower = x.lower;
          low = fmt::format("{:.4g}", x.lower);
        } else if (low == "-") {
          low = "n/i";
        }
      }
    }
    out += fmt::format("{}{}: {} | {} | {}", out.empty() ? "" : ";  ", a, ex, plug, low);
  }
  return out;
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
  const std::string out = args.output.empty() ? "results/" + spec.name + ".h5" : args.output;
  check_output_path(out, !args.output.empty());
  const int threads = args.threads > 0 ? args.threads : omp_get_max_threads();

  io::ResultsWriter writer(out, spec, {args.command_line, threads});
  std::int64_t total = 0;
  for (const auto& s : spec.scenarios)
    total += 2 * spec.trajectories * s.steps;  // trajectory-steps
  Progress progress(total, true);

  fmt::print("{:>4}  {:<28} {:>20} {:>20} {:>8}  {}\n", "#", "sweep point", "D: mean (std) th_0",
             "D': mean (std) th_0", "seconds",
             "R_alpha(P||P') at alpha = 2, 10: exact | plug-in | lower bound");
  // One family-wise level per run: the rigorous bounds' confidence (the same in every scenario).
  audit::Auditor auditor(1.0 - spec.scenarios.front().estimate.confidence);
  for (const auto& s : spec.scenarios) {
    progress.set_label(fmt::format("scenario {}/{}", s.index + 1, spec.scenarios.size()));
    const sim::SimOptions options{spec.seed, spec.trajectories, threads, &progress};
    const auto t = sim::simulate_scenario(s, options);
    auto e = estimate::estimate_scenario(s, t, spec.seed);
    const audit::BoundTable bounds = audit::audited_bounds(s);
    writer.add_scenario(s, t, e, bounds);
    auditor.add(s, bounds, e, describe_point(s));
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
  fmt::print("audit: family-wise level {:g}, Holm over {} tested cells, {} violated\n",
             verdicts.level, verdicts.hypotheses, verdicts.violated_cells());
  print_bound_table(verdicts);
  fmt::print("(rdpaudit check {} turns this into an exit status)\n", out);
  return 0;
}

}  // namespace rdpaudit::app
