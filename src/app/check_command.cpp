// `rdpaudit check RESULTS.h5`: the verdict table, and a non-zero exit status when a bound
// expected to hold is violated or an expected violation is not found (a regression test).
// The words keep apart what the audit shows with certainty (violated (exact), valid (exact))
// and what it shows statistically (violated) or only fails to reject (not rejected, with the
// margin that was tested; "close" when that margin is small).
#include <fmt/core.h>

#include <map>

#include "commands.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/io/results_reader.hpp"

namespace rdpaudit::app {

using audit::Verdict;

int check_command(const CheckArgs& args) {
  const io::ResultsSummary s = io::read_results(args.file);
  if (!s.has_audit) {
    throw InputError("results file", args.file,
                     "a results file with an /audit group (format 2.0 or later; rerun it)");
  }
  const audit::AuditResult& a = s.audit;
  fmt::print("{}: experiment {}, {} scenario(s), {} trajectories per dataset\n", args.file,
             s.experiment_name, s.scenarios.size(), s.trajectories);
  std::vector<std::string> points;
  for (const auto& sc : s.scenarios) points.push_back(sc.sweep_point);
  print_last_iterate_eps(a, points);
  print_audit_counts(a);
  print_bound_table(a);
  print_evidence(a);
  print_close_cells(a, args.all_cells ? a.cells.size() : 10);
  if (args.cells) print_cells(a, args.all_cells);
  // What each expectation was met by: "holds" is met by valid (exact) and by not rejected
  // (a statistical non-rejection, not a proof), and by a bound never tested.
  std::map<std::string, int> met;
  for (const auto& b : a.bounds) {
    if (!b.as_expected) continue;
    std::string word(audit::to_string(b.outcome));
    if (b.outcome == Verdict::kNotRejected && b.close_cells > 0) word += ", with close cells";
    ++met[word];
  }
  std::string summary;
  for (const auto& [word, n] : met)
    summary += fmt::format("{}{} {}", summary.empty() ? "" : "; ", n, word);
  const auto unexpected = a.unexpected();
  if (unexpected == 0) {
    fmt::print("\nPASS: every audited bound is as expected ({})\n", summary);
    return 0;
  }
  fmt::print("\nFAIL: {} bound(s) not as expected:\n", unexpected);
  for (const auto& b : a.bounds) {
    if (b.as_expected) continue;
    fmt::print("  {}: expected {}, found {}\n", b.name, config::to_string(b.expect),
               audit::to_string(b.outcome));
  }
  fmt::print("(as expected: {})\n", summary.empty() ? "none" : summary);
  return 1;
}

}  // namespace rdpaudit::app
