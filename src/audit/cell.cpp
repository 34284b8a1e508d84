#include "rdpaudit/audit/cell.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "rdpaudit/core/error.hpp"
#include "rdpaudit/estimate/types.hpp"

namespace rdpaudit::audit {

namespace {

constexpr const char* kVerdictNames[kVerdictCount] = {"violated (exact)", "violated",
                                                      "not rejected",     "valid (exact)",
                                                      "inconclusive",     "not applicable"};

}  // namespace

std::string cell_text(const Cell& c) {
  if (c.gdp)
    return fmt::format("mu, {}", c.direction == estimate::kForward ? "T(P, P')" : "T(P', P)");
  if (c.is_claim())
    return fmt::format("delta {:g}, {}", c.delta,
                       c.direction == estimate::kForward ? "eps(P||P')" : "eps(P'||P)");
  return fmt::format("alpha {:g}, {}", c.alpha,
                     c.direction == estimate::kForward ? "R(P||P')" : "R(P'||P)");
}

std::string exact_source(const Cell& c) {
  if (c.exact_method == "exact-chain") return "exact chain";
  if (c.exact_method == "exact-profile") return "exact profile";
  if (c.exact_method == "exact-chain-profile") return "exact chain profile";
  return c.is_claim() || c.gdp ? "exact profile" : "quadrature";
}

std::string_view quantity_name(const Cell& c) {
  return c.gdp ? "mu" : c.is_claim() ? "eps_delta" : "renyi";
}

std::string order_text(const Cell& c) {
  if (c.gdp) return "mu";
  return c.is_claim() ? fmt::format("d={:g}", c.delta) : fmt::format("{:g}", c.alpha);
}

std::string_view to_string(Verdict v) {
  return kVerdictNames[static_cast<int>(v)];
}

Verdict parse_verdict(std::string_view text, const std::string& key) {
  for (int i = 0; i < kVerdictCount; ++i) {
    if (text == kVerdictNames[i]) return static_cast<Verdict>(i);
  }
  throw InputError(key, std::string(text).substr(0, 80),
                   "one of violated (exact), violated, not rejected, valid (exact), "
                   "inconclusive, not applicable");
}

bool exact_is_sharp(double lower, double upper) {
  if (std::isnan(lower) || std::isnan(upper)) return true;  // no bracket: a closed form
  return std::isfinite(upper) &&
         upper - lower <= kExactShownWidth * std::max(std::fabs(upper), std::fabs(lower));
}

std::string exact_text(double lower, double value, double upper, bool upper_certified) {
  if (exact_is_sharp(lower, upper)) return fmt::format("{:.6g}", value);
  return fmt::format("in [{:.6g}, {:.6g}]{}", lower, upper,
                     upper_certified ? "" : " (upper end not certified)");
}

bool is_violation(Verdict v) {
  return v == Verdict::kViolatedExact || v == Verdict::kViolated;
}

bool meets(Expectation expect, Verdict outcome) {
  switch (expect) {
    case Expectation::kHolds:
      return !is_violation(outcome);
    case Expectation::kViolated:
      return is_violation(outcome);
    case Expectation::kValidExact:
      return outcome == Verdict::kValidExact;
    case Expectation::kInformative:
      return true;
  }
  return false;
}

std::int64_t AuditResult::violated_cells() const {
  return std::count_if(cells.begin(), cells.end(),
                       [](const Cell& c) { return is_violation(c.verdict); });
}

std::int64_t AuditResult::count(Verdict v) const {
  return std::count_if(cells.begin(), cells.end(), [v](const Cell& c) { return c.verdict == v; });
}

std::int64_t AuditResult::unexpected() const {
  return std::count_if(bounds.begin(), bounds.end(),
                       [](const BoundRow& b) { return !b.as_expected; });
}

void summarise(BoundRow& row, std::size_t row_index, const std::vector<Cell>& cells) {
  std::fill(std::begin(row.counts), std::end(row.counts), 0);
  row.close_cells = 0;
  row.min_margin = kNaN;
  for (const Cell& c : cells) {
    if (c.bound != row_index) continue;
    ++row.counts[static_cast<int>(c.verdict)];
    if (c.verdict != Verdict::kNotRejected) continue;
    if (c.close) ++row.close_cells;
    if (!(row.min_margin <= c.tightness_lower)) row.min_margin = c.tightness_lower;
  }
  const auto n = [&](Verdict v) { return row.counts[static_cast<int>(v)]; };
  const std::int64_t applicable =
      std::accumulate(std::begin(row.counts), std::end(row.counts), std::int64_t{0}) -
      n(Verdict::kNotApplicable);
  if (n(Verdict::kViolatedExact) > 0)
    row.outcome = Verdict::kViolatedExact;
  else if (n(Verdict::kViolated) > 0)
    row.outcome = Verdict::kViolated;
  else if (applicable > 0 && n(Verdict::kValidExact) == applicable)
    row.outcome = Verdict::kValidExact;
  else if (n(Verdict::kNotRejected) + n(Verdict::kValidExact) > 0)
    row.outcome = Verdict::kNotRejected;
  else if (n(Verdict::kInconclusive) > 0)
    row.outcome = Verdict::kInconclusive;
  else
    row.outcome = Verdict::kNotApplicable;
  row.as_expected = meets(row.expect, row.outcome);
}

void holm_adjust(std::vector<Cell>& cells) {
  std::vector<std::size_t> tested;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    cells[i].p_holm = 1.0;
    if (cells[i].tested) tested.push_back(i);
  }
  // Ties broken by position, so the adjustment is a deterministic function of the cells.
  std::stable_sort(tested.begin(), tested.end(), [&](std::size_t a, std::size_t b) {
    return cells[a].p_value < cells[b].p_value;
  });
  const double m = static_cast<double>(tested.size());
  double running = 0.0;  // adjusted p-values are the running maximum of (m - j) p_(j)
  for (std::size_t j = 0; j < tested.size(); ++j) {
    Cell& c = cells[tested[j]];
    running = std::max(running, std::min(1.0, (m - static_cast<double>(j)) * c.p_value));
    c.p_holm = running;
  }
}

namespace {

// A not-rejected cell that more trajectories cannot turn into a violation except falsely:
// the point estimate does not come from the trajectories (more of them leave it and its
// interval where they are), and the bound lies at or above the interval's upper end (within
// the rounding decide() allows), so R_alpha <= bound as far as the estimate can tell.
bool at_or_above_fixed_estimate(const Cell& c) {
  if (!std::isfinite(c.estimate_upper)) return false;
  return c.bound_value + 1e-9 * std::fabs(c.bound_value) >= c.estimate_upper;
}

}  // namespace

bool is_decided(const Cell& c, double margin) {
  switch (c.verdict) {
    case Verdict::kViolatedExact:
    case Verdict::kViolated:
    case Verdict::kValidExact:
    case Verdict::kNotApplicable:
      return true;
    case Verdict::kNotRejected:
      return c.tightness_estimate >= margin || at_or_above_fixed_estimate(c);
    case Verdict::kInconclusive:
      return false;
  }
  return false;
}

std::string undecided_text(const AuditResult& a, double margin, std::size_t limit) {
  std::string out;
  std::size_t shown = 0, open = 0;
  for (const Cell& c : a.cells) {
    if (is_decided(c, margin)) continue;
    ++open;
    if (shown == limit) continue;
    ++shown;
    out += fmt::format("  {}, scenario {}, {}: {}", a.bounds.at(c.bound).name, c.scenario,
                       cell_text(c), to_string(c.verdict));
    if (c.verdict == Verdict::kNotRejected && std::isfinite(c.tightness_estimate))
      out += fmt::format(", bound / estimate {:.4g} < {:g} (--decided-margin)",
                         c.tightness_estimate, margin);
    else if (!c.note.empty())
      out += ": " + c.note;
    out += "\n";
  }
  if (open > shown) out += fmt::format("  ... and {} more\n", open - shown);
  if (!out.empty()) out.pop_back();  // one line per cell, the last without its line break
  return out;
}

void decide(Cell& c, double level) {
  if (!std::isnan(c.bound_value)) {
    if (!std::isnan(c.estimate) && c.estimate > 0.0)
      c.tightness_estimate = c.bound_value / c.estimate;
    if (c.tested)
      c.tightness_lower =
          c.lower > 0.0 ? c.bound_value / c.lower : std::numeric_limits<double>::infinity();
  }
  // Not applicable, or +infinity: decided when the cell was made.
  if (!std::isfinite(c.bound_value)) return;
  const bool rejected = c.tested && c.p_holm <= level;
  // Rounding of both the bound and the quadrature: a relative 1e-9 is no evidence either way.
  const double tol = 1e-9 * std::fabs(c.bound_value);
  const std::string what = c.gdp ? "mu" : c.is_claim() ? "eps(delta)" : "R_alpha";
  const std::string how = exact_source(c);
  c.within_exact_bracket = false;
  if (c.bound_value < 0.0) {
    c.verdict = Verdict::kViolatedExact;
    c.note = fmt::format("the bound is negative, and {} >= 0 always", what);
  } else if (c.exact_lower > c.bound_value + tol) {
    c.verdict = Verdict::kViolatedExact;
    c.note = fmt::format(rejected ? "the exact {} ({}) exceeds the bound; the samples show it too"
                                  : "the exact {} ({}) exceeds the bound; the samples alone do "
                                    "not show it at the run's level",
                         what, how);
  } else if (c.exact_upper <= c.bound_value + tol) {
    c.verdict = Verdict::kValidExact;
    if (rejected) {
      c.note = fmt::format(
          "the samples reject it (Holm p {:.2g}), but the exact {} shows the bound valid: "
          "a false rejection, whose probability is at most the level",
          c.p_holm, what);
    } else if (c.exact_upper > c.bound_value) {
      c.note = "equal to the exact " + what + " within rounding";
    } else if (c.exact_method == "exact-chain" || c.exact_method == "exact-chain-profile") {
      c.note = fmt::format(c.exact_upper_certified
                               ? "the {}'s upper end {:.6g} is at or below the bound (certified)"
                               : "the {}'s upper end {:.6g} is at or below the bound (not "
                                 "certified beyond the engine's grid: see the estimate's "
                                 "interval)",
                           how, c.exact_upper);
    } else {
      c.note.clear();
    }
  } else if (rejected) {
    c.verdict = Verdict::kViolated;
    c.note.clear();
  } else if (c.verdict == Verdict::kNotRejected) {
    // Beyond quadrature rounding: an exact value equal to a tight bound is no warning.
    const bool above = c.estimate > c.bound_value * (1.0 + 1e-6);
    c.close = c.tightness_lower < kCloseMargin || above;
    if (above) {
      c.note =
          "close: the point estimate exceeds the bound, but not significantly at the run's "
          "level";
    } else if (c.close) {
      c.note = fmt::format("close: bound / certified lower bound = {:.3g} < {:g}",
                           c.tightness_lower, kCloseMargin);
    }
  }
  // Neither end of the exact bracket decides: the samples did, and the note says so.
  if (c.exact_lower <= c.bound_value + tol && !(c.exact_upper <= c.bound_value + tol)) {
    c.within_exact_bracket = true;
    const std::string within = fmt::format("within the exact bracket [{:.6g}, {:.6g}] ({})",
                                           c.exact_lower, c.exact_upper, how);
    c.note = c.note.empty() ? within : within + "; " + c.note;
  }
}

}  // namespace rdpaudit::audit
