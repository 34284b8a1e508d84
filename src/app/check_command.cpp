// `rdpaudit check RESULTS.h5`: the verdict table, and a non-zero exit status when a bound
// expected to hold is violated or an expected violation is not found (a regression test).
// The words keep apart what the audit shows with certainty (violated (exact), valid (exact))
// and what it shows statistically (violated) or only fails to reject (not rejected, with the
// margin that was tested; "close" when that margin is small).
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "commands.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/io/results_reader.hpp"

namespace rdpaudit::app {

namespace {

using audit::Verdict;

std::string range_text(double lo, double hi) {
  if (!(lo <= hi)) return "-";
  if (lo == hi) return fmt::format("{:.3g}", lo);
  return fmt::format("{:.3g} - {:.3g}", lo, hi);
}

std::string number_or_dash(double x, const char* format = "{:.3g}") {
  return std::isfinite(x) ? fmt::format(fmt::runtime(format), x) : "-";
}

std::string direction_text(int d) {
  return d == 0 ? "P||P'" : "P'||P";
}

}  // namespace

void print_bound_table(const audit::AuditResult& a) {
  const auto line = [](auto&&... cols) {
    fmt::print(
        "{:<34} {:<13} {:<9} {:<17} {:>5} {:>6} {:>6} {:>5} {:>5} {:>6} {:>7}  {:<17} {:<11} {}\n",
        cols...);
  };
  line("bound", "kind", "expect", "outcome", "viol", "n.rej", "valid", "inc", "n/a", "close",
       "margin", "bound / estimate", "bound/exact", "");
  std::string nowhere;  // bounds whose preconditions fail in every scenario
  for (std::size_t r = 0; r < a.bounds.size(); ++r) {
    const auto& b = a.bounds[r];
    if (b.outcome == Verdict::kNotApplicable && b.as_expected) {
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
    const auto n = [&](Verdict v) { return b.counts[static_cast<int>(v)]; };
    line(b.name, b.kind, config::to_string(b.expect), audit::to_string(b.outcome),
         n(Verdict::kViolatedExact) + n(Verdict::kViolated), n(Verdict::kNotRejected),
         n(Verdict::kValidExact), n(Verdict::kInconclusive), n(Verdict::kNotApplicable),
         b.close_cells, number_or_dash(b.min_margin), range_text(lo, hi),
         number_or_dash(exact, "{:.4g}"), b.as_expected ? "ok" : "UNEXPECTED");
  }
  if (!nowhere.empty()) fmt::print("not applicable in any scenario: {}\n", nowhere);
  fmt::print(
      "viol: violated cells (exact or Holm); n.rej: tested, not rejected; valid: valid (exact); "
      "margin: smallest bound / certified lower bound of a not-rejected cell; close: not-rejected "
      "cells with margin < {:g} or a point estimate above the bound\n",
      a.close_margin);
}

void print_audit_counts(const audit::AuditResult& a) {
  std::int64_t close = 0;
  for (const auto& c : a.cells) close += c.close ? 1 : 0;
  fmt::print(
      "audit: family-wise level {:g}, Holm over {} tested cells; cells: {} violated (exact), {} "
      "violated, {} not rejected ({} close), {} valid (exact), {} inconclusive, {} not "
      "applicable\n\n",
      a.level, a.hypotheses, a.count(Verdict::kViolatedExact), a.count(Verdict::kViolated),
      a.count(Verdict::kNotRejected), close, a.count(Verdict::kValidExact),
      a.count(Verdict::kInconclusive), a.count(Verdict::kNotApplicable));
}

void print_close_cells(const audit::AuditResult& a, std::size_t limit) {
  std::vector<const audit::Cell*> close;
  for (const auto& c : a.cells) {
    if (c.close) close.push_back(&c);
  }
  if (close.empty()) return;
  std::stable_sort(close.begin(), close.end(), [](const audit::Cell* x, const audit::Cell* y) {
    return x->tightness_lower < y->tightness_lower;
  });
  fmt::print(
      "\n{} close cell(s): not rejected, but by a small margin; more trajectories could reject "
      "them{}\n",
      close.size(), close.size() > limit ? fmt::format(" (the {} smallest margins)", limit) : "");
  fmt::print("{:>4} {:<34} {:>6} {:<6} {:>11} {:>11} {:>11} {:>9} {:>10}\n", "#", "bound", "alpha",
             "dir", "bound", "lower", "estimate", "margin", "bound/est");
  for (std::size_t i = 0; i < close.size() && i < limit; ++i) {
    const audit::Cell& c = *close[i];
    fmt::print("{:>4} {:<34} {:>6} {:<6} {:>11.4g} {:>11.4g} {:>11.4g} {:>9.3g} {:>10}\n",
               c.scenario, a.bounds[c.bound].name, audit::order_text(c),
               direction_text(c.direction), c.bound_value, c.lower, c.estimate, c.tightness_lower,
               number_or_dash(c.tightness_estimate));
  }
}

void print_evidence(const audit::AuditResult& a) {
  for (const auto& b : a.bounds) {
    if (!b.evidence.empty())
      fmt::print("\n{} {}: {}\n", b.name, audit::to_string(b.outcome), b.evidence);
  }
  for (const auto& b : a.bounds) {  // a verdict against a relation the bound does not assume
    if (!b.adjacency_note.empty() && b.outcome != Verdict::kNotApplicable)
      fmt::print("\nnote: {}\n", b.adjacency_note);
  }
}

int check_command(const CheckArgs& args) {
  const io::ResultsSummary s = io::read_results(args.file);
  if (!s.has_audit) {
    throw InputError("RESULTS", args.file,
                     "a results file with an /audit group (format 2.0 or later; rerun it)");
  }
  const audit::AuditResult& a = s.audit;
  fmt::print("{}: experiment {}, {} scenario(s), {} trajectories per dataset\n", args.file,
             s.experiment_name, s.scenarios.size(), s.trajectories);
  print_audit_counts(a);
  print_bound_table(a);
  print_evidence(a);
  print_close_cells(a, args.all_cells ? a.cells.size() : 10);
  if (args.cells) {
    fmt::print("\n{:>4} {:<34} {:>6} {:<6} {:>11} {:>11} {:>11} {:>9} {:>9} {:<17} {}\n", "#",
               "bound", "alpha", "dir", "bound", "estimate", "lower", "margin", "p_holm", "verdict",
               "note");
    for (const auto& c : a.cells) {
      const bool listed = audit::is_violation(c.verdict) ||
                          (c.verdict != Verdict::kNotApplicable && !c.note.empty());
      if (!args.all_cells && !listed) continue;
      fmt::print(
          "{:>4} {:<34} {:>6} {:<6} {:>11.4g} {:>11.4g} {:>11.4g} {:>9} {:>9.2g} {:<17} {}\n",
          c.scenario, a.bounds[c.bound].name, audit::order_text(c), direction_text(c.direction),
          c.bound_value, c.estimate, c.lower, number_or_dash(c.tightness_lower), c.p_holm,
          audit::to_string(c.verdict), c.note);
    }
  }
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
