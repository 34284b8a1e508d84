// The audit's tables as check, report, run and merge print them: one number format for every
// command (values to 4 significant digits, ratios to 3, p-values to 2; '-' where there is no
// number), the same quantity under the same name (lower = the simultaneous lower confidence
// bound of /audit/cells/lower), and the CSV of `report --csv`.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "commands.hpp"

namespace rdpaudit::app {

std::string csv(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

using audit::Verdict;

std::string value_text(double x) {
  if (std::isnan(x)) return "-";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return fmt::format("{:.4g}", x);
}

std::string ratio_text(double x) {
  return std::isnan(x) ? "-" : fmt::format("{:.3g}", x);
}

namespace {

std::string range_text(double lo, double hi) {
  if (!(lo <= hi)) return "-";
  if (lo == hi) return ratio_text(lo);
  return ratio_text(lo) + " - " + ratio_text(hi);
}

std::string direction_text(int d) {
  return d == 0 ? "P||P'" : "P'||P";
}

std::string csv(double x) {
  return std::isnan(x) ? std::string() : fmt::format("{:.17g}", x);
}

}  // namespace

void print_bound_table(const audit::AuditResult& a) {
  const auto line = [](auto&&... cols) {
    fmt::print(
        "{:<34} {:<15} {:<11} {:<17} {:>5} {:>6} {:>6} {:>5} {:>5} {:>6} {:>7}  {:<17} {:<11} "
        "{}\n",
        cols...);
  };
  line("bound", "kind", "expect", "outcome", "viol", "n.rej", "valid", "inc", "n/a", "close",
       "margin", "bound / estimate", "bound/exact", "check");
  std::string nowhere;  // bounds whose preconditions fail in every scenario
  for (std::size_t r = 0; r < a.bounds.size(); ++r) {
    const auto& b = a.bounds[r];
    if (b.outcome == Verdict::kNotApplicable && b.as_expected) {
      nowhere += (nowhere.empty() ? "" : ", ") + b.name;
      continue;
    }
    double lo = INFINITY, hi = -INFINITY, exact = INFINITY;
    bool blunt = false;  // some exact bracket wider than the target: the ratio is approximate
    for (const auto& c : a.cells) {
      if (c.bound != r) continue;
      if (std::isfinite(c.tightness_estimate)) {
        lo = std::min(lo, c.tightness_estimate);
        hi = std::max(hi, c.tightness_estimate);
      }
      if (c.exact > 0.0 && std::isfinite(c.bound_value)) {
        exact = std::min(exact, c.bound_value / c.exact);
        blunt |= !audit::exact_is_sharp(c.exact_lower, c.exact_upper);
      }
    }
    const auto n = [&](Verdict v) { return b.counts[static_cast<int>(v)]; };
    line(b.name, b.kind, config::to_string(b.expect), audit::to_string(b.outcome),
         n(Verdict::kViolatedExact) + n(Verdict::kViolated), n(Verdict::kNotRejected),
         n(Verdict::kValidExact), n(Verdict::kInconclusive), n(Verdict::kNotApplicable),
         b.close_cells, ratio_text(b.min_margin), range_text(lo, hi),
         std::isfinite(exact) ? (blunt ? "~" : "") + ratio_text(exact) : "-",
         b.as_expected ? "ok" : "UNEXPECTED");
  }
  if (!nowhere.empty()) fmt::print("not applicable in any scenario: {}\n", nowhere);
  fmt::print(
      "viol: violated cells (exact or Holm); n.rej: tested, not rejected; valid: valid (exact); "
      "margin: smallest bound / certified lower bound of a not-rejected cell; close: not-rejected "
      "cells with margin < {:g} or a point estimate above the bound; bound/exact: the smallest "
      "bound / exact value (~: over an exact bracket wider than 1e-3 relative, its midpoint); "
      "check: the outcome against the expectation (rdpaudit check fails on UNEXPECTED)\n",
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
  fmt::print("{:>4} {:<34} {:>7} {:<6} {:>11} {:>11} {:>11} {:>9} {:>10}\n", "#", "bound", "order",
             "dir", "bound", "lower", "estimate", "margin", "bound/est");
  for (std::size_t i = 0; i < close.size() && i < limit; ++i) {
    const audit::Cell& c = *close[i];
    fmt::print("{:>4} {:<34} {:>7} {:<6} {:>11} {:>11} {:>11} {:>9} {:>10}\n", c.scenario,
               a.bounds[c.bound].name, audit::order_text(c), direction_text(c.direction),
               value_text(c.bound_value), value_text(c.lower), value_text(c.estimate),
               ratio_text(c.tightness_lower), ratio_text(c.tightness_estimate));
  }
}

void print_cells(const audit::AuditResult& a, bool all) {
  fmt::print("\n{:>4} {:<34} {:>7} {:<6} {:>11} {:>11} {:>11} {:>9} {:>9} {:<17} {}\n", "#",
             "bound", "order", "dir", "bound", "estimate", "lower", "margin", "p_holm", "verdict",
             "note");
  std::size_t shown = 0;
  for (const auto& c : a.cells) {
    const bool listed =
        audit::is_violation(c.verdict) || (c.verdict != Verdict::kNotApplicable && !c.note.empty());
    if (!all && !listed) continue;
    ++shown;
    fmt::print("{:>4} {:<34} {:>7} {:<6} {:>11} {:>11} {:>11} {:>9} {:>9.2g} {:<17} {}\n",
               c.scenario, a.bounds[c.bound].name, audit::order_text(c),
               direction_text(c.direction), value_text(c.bound_value), value_text(c.estimate),
               value_text(c.lower), ratio_text(c.tightness_lower), c.p_holm,
               audit::to_string(c.verdict), c.note);
  }
  if (shown == 0)
    fmt::print("     (no cell is violated or has a note; --all-cells lists every cell)\n");
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

void print_last_iterate_eps(const audit::AuditResult& a,
                            const std::vector<std::string>& sweep_points) {
  struct Row {
    const audit::Cell* dir[2] = {nullptr, nullptr};
    std::map<std::string, double> claims;  // claim name -> its eps
  };
  std::map<std::pair<int, double>, Row> rows;
  for (const auto& c : a.cells) {
    if (!c.is_claim() || std::isnan(c.exact)) continue;
    Row& r = rows[{c.scenario, c.delta}];
    r.dir[c.direction == 0 ? 0 : 1] = &c;
    const auto& b = a.bounds[static_cast<std::size_t>(c.bound)];
    if (b.kind == "claim") r.claims[b.name] = c.bound_value;
  }
  if (rows.empty()) return;
  fmt::print("{:>4}  {:<36} {:>8} {:>12} {:>12}  {}\n", "#", "sweep point", "delta", "exact P||P'",
             "exact P'||P", "claims (eps)");
  for (const auto& [key, r] : rows) {
    const auto shown = [](const audit::Cell* c) {
      return c ? audit::exact_text(c->exact_lower, c->exact, c->exact_upper,
                                   c->exact_upper_certified)
               : std::string("-");
    };
    std::string claims;
    for (const auto& [name, eps] : r.claims)
      claims += fmt::format("{}{} {}", claims.empty() ? "" : ", ", name, value_text(eps));
    const auto i = static_cast<std::size_t>(key.first);
    fmt::print("{:>4}  {:<36} {:>8g} {:>12} {:>12}  {}\n", key.first,
               i < sweep_points.size() ? sweep_points[i] : std::string("-"), key.second,
               shown(r.dir[0]), shown(r.dir[1]), claims.empty() ? "-" : claims);
  }
  fmt::print(
      "exact: the eps(delta) of the last iterate theta_T alone, for this pair D, D' (the "
      "worst case the file sets up, not every pair, not the intermediate iterates); a claim "
      "covers what its source states (an accountant's eps: every iterate released, any pair). "
      "'valid (exact)' means the claim is at least this value.\n\n");
}

void print_cells_csv(const audit::AuditResult& a, const std::vector<std::string>& sweep_points) {
  fmt::print(
      "scenario,sweep_point,bound,kind,expect,outcome,quantity,alpha,delta,direction,"
      "bound_value,estimate,estimate_method,exact,lower,lower_method,p_value,p_holm,verdict,"
      "margin,bound_over_estimate,close,note\n");
  for (const auto& c : a.cells) {
    const audit::BoundRow& b = a.bounds[c.bound];
    const auto s = static_cast<std::size_t>(c.scenario);
    fmt::print("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", c.scenario,
               csv(s < sweep_points.size() ? sweep_points[s] : "-"), csv(b.name), csv(b.kind),
               config::to_string(b.expect), audit::to_string(b.outcome), audit::quantity_name(c),
               csv(c.alpha), csv(c.delta), direction_text(c.direction), csv(c.bound_value),
               csv(c.estimate), csv(c.estimate_method), csv(c.exact), csv(c.lower),
               csv(c.lower_method), csv(c.p_value), csv(c.p_holm), audit::to_string(c.verdict),
               csv(c.tightness_lower), csv(c.tightness_estimate), c.close ? 1 : 0, csv(c.note));
  }
}

}  // namespace rdpaudit::app
