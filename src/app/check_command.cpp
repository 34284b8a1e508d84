// `rdpaudit check RESULTS.h5`: the verdict table, and a non-zero exit status when a bound
// expected to hold is violated or an expected violation is not found (a regression test).
#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "commands.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/io/results_reader.hpp"

namespace rdpaudit::app {

namespace {

std::string range_text(double lo, double hi) {
  if (!(lo <= hi)) return "-";
  if (lo == hi) return fmt::format("{:.3g}", lo);
  return fmt::format("{:.3g} - {:.3g}", lo, hi);
}

}  // namespace

void print_bound_table(const audit::AuditResult& a) {
  fmt::print("{:<34} {:<13} {:<9} {:<15} {:>5} {:>5} {:>5} {:>5}  {:<19} {:<11} {}\n", "bound",
             "kind", "expect", "outcome", "viol", "holds", "inc", "n/a", "bound / estimate",
             "bound/exact", "");
  std::string nowhere;  // bounds whose preconditions fail in every scenario
  for (std::size_t r = 0; r < a.bounds.size(); ++r) {
    const auto& b = a.bounds[r];
    if (b.outcome == audit::Verdict::kNotApplicable && b.as_expected) {
      nowhere += (nowhere.empty() ? "" : ", ") + b.name;
      continue;
    }
    double lo = INFINITY, hi = -INFINITY, exact = INFINITY;
    for (const auto& c : a.cells) {
      if (c.bound != r) continue;
      if (std::isfinite(c.tightness_estimate)) {
        lo = std::min(lo, c.tightness_estimate);
        hi = std::max(hi, c.tightness_estimate);
      }
      if (c.exact > 0.0 && std::isfinite(c.bound_value))
        exact = std::min(exact, c.bound_value / c.exact);
    }
    const std::string exact_text = std::isfinite(exact) ? fmt::format("{:.4g}", exact) : "-";
    fmt::print("{:<34} {:<13} {:<9} {:<15} {:>5} {:>5} {:>5} {:>5}  {:<19} {:<11} {}\n", b.name,
               b.kind, b.expect_violated ? "violated" : "holds", audit::to_string(b.outcome),
               b.counts[0], b.counts[1], b.counts[2], b.counts[3], range_text(lo, hi), exact_text,
               b.as_expected ? "ok" : "UNEXPECTED");
  }
  if (!nowhere.empty()) fmt::print("not applicable in any scenario: {}\n", nowhere);
}

int check_command(const CheckArgs& args) {
  const io::ResultsSummary s = io::read_results(args.file);
  if (!s.has_audit) {
    throw InputError("RESULTS", args.file,
                     "a results file with an /audit group (format 1.2 or later; rerun it)");
  }
  const audit::AuditResult& a = s.audit;
  fmt::print("{}: experiment {}, {} scenario(s), {} samples per dataset\n", args.file,
             s.experiment_name, s.scenarios.size(), s.trajectories);
  fmt::print(
      "family-wise level {:g} (Holm over {} tested cells: scenario x bound x alpha x "
      "direction)\n\n",
      a.level, a.hypotheses);
  print_bound_table(a);
  for (const auto& b : a.bounds) {
    if (!b.evidence.empty()) fmt::print("\n{} violated: {}", b.name, b.evidence);
  }
  if (args.cells) {
    fmt::print("\n\n{:>4} {:<34} {:>6} {:>3} {:>11} {:>11} {:>11} {:>9} {:<15} {}\n", "#", "bound",
               "alpha", "dir", "bound", "estimate", "lower", "p_holm", "verdict", "note");
    for (const auto& c : a.cells) {
      const bool listed = c.verdict == audit::Verdict::kViolated ||
                          (c.verdict != audit::Verdict::kNotApplicable && !c.note.empty());
      if (!args.all_cells && !listed) continue;
      fmt::print("{:>4} {:<34} {:>6g} {:>3} {:>11.4g} {:>11.4g} {:>11.4g} {:>9.2g} {:<15} {}\n",
                 c.scenario, a.bounds[c.bound].name, c.alpha, c.direction, c.bound_value,
                 c.estimate, c.lower, c.p_holm, audit::to_string(c.verdict), c.note);
    }
  }
  const auto unexpected = a.unexpected();
  if (unexpected == 0) {
    fmt::print("\nPASS: every audited bound is as expected\n");
    return 0;
  }
  fmt::print("\nFAIL: {} bound(s) not as expected:\n", unexpected);
  for (const auto& b : a.bounds) {
    if (b.as_expected) continue;
    fmt::print("  {}: expected {}, found {}\n", b.name, b.expect_violated ? "violated" : "holds",
               audit::to_string(b.outcome));
  }
  return 1;
}

}  // namespace rdpaudit::app
