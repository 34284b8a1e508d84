// The audit: every audited bound held against the rigorous lower confidence bounds of the
// Renyi divergence, at every audited order, in both directions, in every scenario of a run.
//
// A cell is one (scenario, bound, alpha, direction). Its null hypothesis is "R_alpha <= bound"
// (the bound is valid there). Each rigorous method gives a p-value by inverting its
// confidence level (estimate::rigorous_p_value); a cell's p-value is the smallest over the
// methods times their number (Bonferroni). Holm's step-down procedure over every tested cell
// of the run then controls the family-wise error: with probability >= 1 - level no valid bound
// is called violated anywhere in the run, whatever the dependence between cells (Holm 1979).
//
// Samples can only ever show a bound violated; they cannot show it valid. So the verdicts
// keep apart what is certain and what is statistical:
//   violated (exact)  certain: the exact R_alpha's quadrature bracket lies above the bound
//                     (quadratic loss), or the bound is negative (R_alpha >= 0 always);
//   violated          statistical: Holm-adjusted p <= level;
//   not rejected      tested, p above the level: the samples do not show a violation. Its
//                     margin (bound / certified lower bound) says how much room was tested;
//                     a margin below kCloseMargin (or a point estimate above the bound) is
//                     flagged "close": more trajectories could change the answer;
//   valid (exact)     certain: the exact value's bracket lies at or below the bound (or the
//                     bound is +infinity);
//   inconclusive      no rigorous method is informative at this order;
//   not applicable    the bound's preconditions fail (with the reason).
// Which cells are tested depends on the experiment file only, never on the data, as Holm's
// family must.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/estimate/scenario.hpp"

namespace rdpaudit::audit {

/// Cell verdicts and bound outcomes, strongest evidence of a violation first.
enum class Verdict {
  kViolatedExact,
  kViolated,
  kNotRejected,
  kValidExact,
  kInconclusive,
  kNotApplicable
};
inline constexpr int kVerdictCount = 6;
std::string_view to_string(Verdict v);
/// Inverse of to_string; throws InputError naming `key` for an unknown text.
Verdict parse_verdict(std::string_view text, const std::string& key);
/// violated or violated (exact).
bool is_violation(Verdict v);

/// A not-rejected cell whose bound is below this multiple of the certified lower bound is
/// "close": the test had little room, and more trajectories could reject it.
inline constexpr double kCloseMargin = 1.2;

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// The audited bounds of one scenario at the audited orders (stored as bounds/ in the
/// results). values is names x alphas, row-major; NaN where the bound does not apply.
struct BoundTable {
  std::vector<double> alphas;
  std::vector<std::string> names, kinds, sources, reasons;
  std::vector<bool> expect_violated;
  std::vector<double> values;
  double value(std::size_t bound, std::size_t alpha) const {
    return values[bound * alphas.size() + alpha];
  }
};

/// The bounds named in bounds.audit (default: every built-in and custom bound) at bounds.alphas
/// (default: bounds::default_table_alphas()).
BoundTable audited_bounds(const config::Scenario& s);

/// The (eps, delta) claims of one scenario at profile.deltas ([profile] on): first each
/// audited Renyi bound's consequence (profile.conversions; Canonne, Kamath & Steinke 2020,
/// Proposition 12, minimised over the bound's audited orders: valid at any order, so a valid
/// Renyi bound's conversion is a valid claim), then the user's claims. values is names x
/// deltas (the claimed eps); NaN where a claim does not apply.
struct ClaimTable {
  std::vector<double> deltas;
  std::vector<std::string> names, kinds, sources, reasons;
  std::vector<bool> expect_violated;
  std::vector<double> values;
  double value(std::size_t claim, std::size_t delta) const {
    return values[claim * deltas.size() + delta];
  }
};
ClaimTable audited_claims(const config::Scenario& s, const BoundTable& renyi);

struct Cell {
  int scenario = 0;
  std::size_t bound = 0;  ///< row of AuditResult::bounds
  double alpha = 0.0;     ///< NaN for an (eps, delta) claim
  /// An (eps, delta) claim's delta (NaN for a Renyi bound): its null hypothesis is
  /// eps(delta) <= bound_value, and estimate / exact / lower are values of eps(delta).
  double delta = kNaN;
  bool is_claim() const { return delta == delta; }
  int direction = 0;  ///< estimate::kForward or kBackward
  double bound_value = kNaN;
  double estimate = kNaN;  ///< best informative point estimate
  std::string estimate_method;
  double exact = kNaN;        ///< exact quadrature where available
  double exact_lower = kNaN;  ///< lower end of the quadrature's numerical error bracket
  double exact_upper = kNaN;  ///< upper end of that bracket
  double lower = 0.0;         ///< simultaneous rigorous lower bound (level / m per cell)
  std::string lower_method;   ///< the method that gave `lower` (the largest over methods)
  std::string p_method;       ///< the method with the smallest p-value
  double p_value = 1.0;
  double p_holm = 1.0;
  bool tested = false;  ///< in the Holm family (applicable, finite bound)
  Verdict verdict = Verdict::kNotApplicable;
  double tightness_estimate = kNaN;  ///< bound / estimate
  double tightness_lower = kNaN;  ///< bound / lower: the margin a not-rejected cell was tested with
  bool close = false;             ///< not rejected by a small margin (see kCloseMargin)
  std::string note;
};

/// The cell's order as a table shows it: "2", or "d=1e-05" for an (eps, delta) claim.
std::string order_text(const Cell& c);

struct BoundRow {
  std::string name, kind, source;
  bool expect_violated = false;
  Verdict outcome = Verdict::kNotApplicable;
  bool as_expected = true;
  std::int64_t counts[kVerdictCount] = {};  ///< cells per Verdict, in enum order
  std::int64_t close_cells = 0;             ///< not-rejected cells flagged close
  double min_margin = kNaN;                 ///< smallest bound / lower over its not-rejected cells
  std::string evidence;                     ///< the most significant violated cell, in words
  /// Where the bound's neighbouring relation differs from an audited pair's (first scenario
  /// where it does, bounds::adjacency_mismatch), else empty.
  std::string adjacency_note;
};

struct AuditResult {
  double level = 0.05;  ///< family-wise error level of the run
  std::int64_t hypotheses = 0;
  std::vector<BoundRow> bounds;
  std::vector<Cell> cells;
  double close_margin = kCloseMargin;
  std::int64_t violated_cells() const;  ///< violated or violated (exact)
  std::int64_t count(Verdict v) const;
  std::int64_t unexpected() const;  ///< bounds whose outcome contradicts their expectation
};

/// A bound's outcome over its cells: violated (exact) or violated if any cell is (exact
/// first); valid (exact) only if every applicable cell is; otherwise not rejected if any cell
/// was tested without rejection (or is valid (exact)), else inconclusive, else not applicable.
/// The expectation "violated" needs a violated cell; "holds" is met by every outcome that is
/// not a violation. Fills counts, close_cells, min_margin, outcome and as_expected of `row`.
void summarise(BoundRow& row, std::size_t row_index, const std::vector<Cell>& cells);

/// Decides a tested cell from its Holm-adjusted p-value at `level`, the exact value's bracket
/// (certain verdicts first: a negative bound, the bracket above or below the bound) and its
/// margins (close); fills tightness_estimate and tightness_lower of every applicable cell.
void decide(Cell& c, double level);

/// For a sequential audit (docs/methods.md, "Sequential audit"): more trajectories cannot
/// change the cell's verdict or are not needed — violated (exact or statistical), valid
/// (exact), not applicable, or not rejected with the bound at least `margin` times the point
/// estimate. Inconclusive cells are never decided.
bool is_decided(const Cell& c, double margin);

/// Holm's step-down adjustment of the tested cells' p-values (p_holm; untested cells get 1).
void holm_adjust(std::vector<Cell>& cells);

/// Collects the cells of a run scenario by scenario, then decides them together.
class Auditor {
 public:
  /// `level` in (0, 1): the run's family-wise error level.
  explicit Auditor(double level);

  /// Adds the cells of one scenario, whose estimates counted `counted` trajectories per
  /// dataset. Takes the rigorous certificates out of `estimates`.
  void add(const config::Scenario& s, const BoundTable& bounds,
           estimate::ScenarioEstimates& estimates, const std::string& sweep_point,
           std::int64_t counted);

  /// Adds the (eps, delta) claim cells of the scenario last passed to add(): p-values from
  /// its profile families (Bonferroni over scores), the exact eps(delta) bracket where the
  /// exact profile is known. Claims of a scenario without profile families are inconclusive.
  void add_claims(const config::Scenario& s, const ClaimTable& claims,
                  const estimate::ScenarioEstimates& estimates);

  /// Holm over all cells added, verdicts, simultaneous lower bounds, per-bound outcomes.
  AuditResult finish();

 private:
  double level_;
  std::vector<BoundRow> rows_;
  std::vector<Cell> cells_;
  std::vector<std::string> sweep_points_;
  std::vector<std::vector<estimate::RigorousResult>> certificates_;  ///< per scenario
  std::vector<std::int64_t> trajectories_;                           ///< per scenario
  std::vector<std::size_t> cell_source_;  ///< per cell: its scenario's position above
  std::vector<std::vector<estimate::ProfileCounts>> profiles_;  ///< per scenario
  std::size_t row_of(const std::string& name, const std::string& kind, const std::string& source,
                     bool expect_violated);
};

}  // namespace rdpaudit::audit
