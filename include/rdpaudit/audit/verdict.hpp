// The audit: every audited bound held against the rigorous lower confidence bounds of the
// Renyi divergence, at every audited order, in both directions, in every scenario of a run.
//
// A cell is one (scenario, bound, alpha, direction). Its null hypothesis is "R_alpha <= bound"
// (the bound is valid there). Each rigorous method gives a p-value by inverting its
// Clopper-Pearson level (estimate::rigorous_p_value); a cell's p-value is the smallest over the
// methods times their number (Bonferroni). Holm's step-down procedure over every tested cell
// of the run then controls the family-wise error: with probability >= 1 - level no valid bound
// is called violated anywhere in the run, whatever the dependence between cells (Holm 1979).
//
// Where the last iterate is an enumerated Gaussian mixture (quadratic loss), the exact R_alpha
// is known by quadrature with a numerical error bracket; a bound below the bracket is
// violated with certainty, whatever the samples say; so is a negative bound (R_alpha >= 0).
// Such cells are violated too, with a note.
//
// Verdicts: violated (Holm-adjusted p <= level), holds (tested, not rejected), inconclusive
// (no rigorous method is informative at this order: the samples do not reach where the order
// lives), not applicable (the bound's preconditions fail). A bound of +infinity holds without a
// test. Which cells are tested depends on the experiment file only, never on the data, as
// Holm's family must.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/estimate/scenario.hpp"

namespace rdpaudit::audit {

enum class Verdict { kViolated, kHolds, kInconclusive, kNotApplicable };
std::string_view to_string(Verdict v);
/// Inverse of to_string; throws InputError naming `key` for an unknown text.
Verdict parse_verdict(std::string_view text, const std::string& key);

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

struct Cell {
  int scenario = 0;
  std::size_t bound = 0;  ///< row of AuditResult::bounds
  double alpha = 0.0;
  int direction = 0;  ///< estimate::kForward or kBackward
  double bound_value = kNaN;
  double estimate = kNaN;  ///< best informative point estimate
  std::string estimate_method;
  double exact = kNaN;        ///< exact quadrature where available
  double exact_lower = kNaN;  ///< lower end of the quadrature's numerical error bracket
  double lower = 0.0;         ///< simultaneous rigorous lower bound (level / m per cell)
  std::string lower_method;
  double p_value = 1.0;
  double p_holm = 1.0;
  bool tested = false;  ///< in the Holm family (applicable, finite bound)
  Verdict verdict = Verdict::kNotApplicable;
  double tightness_estimate = kNaN;  ///< bound / estimate
  double tightness_lower = kNaN;     ///< bound / lower
  std::string note;
};

struct BoundRow {
  std::string name, kind, source;
  bool expect_violated = false;
  Verdict outcome = Verdict::kNotApplicable;
  bool as_expected = true;
  std::int64_t counts[4] = {0, 0, 0, 0};  ///< cells per Verdict, in enum order
  std::string evidence;                   ///< the most significant violated cell, in words
};

struct AuditResult {
  double level = 0.05;  ///< family-wise error level of the run
  std::int64_t hypotheses = 0;
  std::vector<BoundRow> bounds;
  std::vector<Cell> cells;
  std::int64_t violated_cells() const;
  std::int64_t unexpected() const;  ///< bounds whose outcome contradicts their expectation
};

/// A bound's outcome over its cells and whether it agrees with the expectation: "violated"
/// needs a violated cell; "holds" accepts holds, inconclusive and not applicable. Fills
/// counts, outcome and as_expected of `row` from `cells`.
void summarise(BoundRow& row, std::size_t row_index, const std::vector<Cell>& cells);

/// Holm's step-down adjustment of the tested cells' p-values (p_holm; untested cells get 1).
void holm_adjust(std::vector<Cell>& cells);

/// Collects the cells of a run scenario by scenario, then decides them together.
class Auditor {
 public:
  /// `level` in (0, 1): the run's family-wise error level.
  explicit Auditor(double level);

  /// Adds the cells of one scenario. Takes the rigorous certificates out of `estimates`.
  void add(const config::Scenario& s, const BoundTable& bounds,
           estimate::ScenarioEstimates& estimates, const std::string& sweep_point);

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
  std::size_t row_of(const BoundTable& t, std::size_t i);
};

}  // namespace rdpaudit::audit
