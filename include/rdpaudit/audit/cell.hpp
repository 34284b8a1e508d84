// The audit's cells and their verdicts: every audited bound held against the rigorous lower
// confidence bounds of the Renyi divergence, at every audited order, in both directions, in
// every scenario of a run (and likewise every (eps, delta) claim at every delta).
//
// A cell is one (scenario, bound, order, direction). Its null hypothesis is "R_alpha <= bound"
// (the bound is valid there). Each rigorous method gives a p-value by inverting its
// confidence level (estimate::rigorous_p_value); a cell's p-value is the smallest over the
// methods times their number (Bonferroni). Holm's step-down procedure over every tested cell
// of the run then controls the family-wise error: with probability >= 1 - level no valid bound
// is called violated anywhere in the run, whatever the dependence between cells (Holm 1979).
//
// Samples can only ever show a bound violated; they cannot show it valid. So the verdicts
// keep apart what is certain and what is statistical:
//   violated (exact)  certain: the exact R_alpha's bracket (quadrature, or the exact chain's
//                     certified lower end) lies above the bound, or the bound is negative
//                     (R_alpha >= 0 always);
//   violated          statistical: Holm-adjusted p <= level;
//   not rejected      tested, p above the level: the samples do not show a violation. Its
//                     margin (bound / certified lower bound) says how much room was tested;
//                     a margin below kCloseMargin (or a point estimate above the bound) is
//                     flagged "close": more trajectories could change the answer;
//   valid (exact)     the exact value's bracket lies at or below the bound (or the bound is
//                     +infinity); certain for the quadrature, resting on the trapezoidal
//                     error estimate of the exact chain's upper end (docs/methods.md);
// A bound inside the exact bracket is decided by the samples, flagged within_exact_bracket.
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

#include "rdpaudit/config/vocabulary.hpp"

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

using config::Expectation;
/// Whether a bound's outcome meets its expectation: "violated" needs a violated cell,
/// "valid_exact" an outcome of valid (exact) (every applicable cell valid (exact)), "holds"
/// any outcome that is not a violation.
bool meets(Expectation expect, Verdict outcome);

/// A not-rejected cell whose bound is below this multiple of the certified lower bound is
/// "close": the test had little room, and more trajectories could reject it.
inline constexpr double kCloseMargin = 1.2;

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Cell {
  int scenario = 0;
  std::size_t bound = 0;  ///< row of AuditResult::bounds
  double alpha = 0.0;     ///< NaN for an (eps, delta) claim
  /// An (eps, delta) claim's delta (NaN for a Renyi bound): its null hypothesis is
  /// eps(delta) <= bound_value, and estimate / exact / lower are values of eps(delta).
  double delta = kNaN;
  bool is_claim() const { return delta == delta; }
  /// A Gaussian-DP claim's mu cell (alpha and delta NaN): its null hypothesis is "the pair is
  /// bound_value-GDP", and estimate / exact / lower are values of the pair's mu.
  bool gdp = false;
  /// The cell's order: alpha for a Renyi bound, delta for a claim, 0 for a mu cell.
  double order() const { return gdp ? 0.0 : is_claim() ? delta : alpha; }
  int direction = 0;  ///< estimate::kForward or kBackward
  double bound_value = kNaN;
  double estimate = kNaN;  ///< best informative point estimate
  std::string estimate_method;
  /// The point estimate's interval when it does not come from the counted trajectories (the
  /// exact quadrature's or exact profile's numerical bracket, the Rao-Blackwell mixture's
  /// pattern-sampling interval), else NaN: more trajectories cannot move it. Not stored in
  /// the results file; the sequential audit's stopping rule reads it (is_decided).
  double estimate_lower = kNaN, estimate_upper = kNaN;
  double exact = kNaN;  ///< exact value where available (quadrature, else the exact chain)
  /// The row it comes from: "exact-quadrature", "exact-chain", "exact-profile" or
  /// "exact-chain-profile"; empty without an exact value.
  std::string exact_method;
  double exact_lower = kNaN;  ///< lower end of the exact value's bracket (NaN: not used)
  double exact_upper = kNaN;  ///< upper end of that bracket
  /// That upper end is certified: every quadrature's and exact profile's, and the exact
  /// chain's except where its interval says otherwise (docs/exact-laws.md, section 5).
  bool exact_upper_certified = true;
  /// The bound lies inside the exact bracket (above its lower end, below its upper end): the
  /// samples decided the cell, as without an exact value.
  bool within_exact_bracket = false;
  double lower = 0.0;        ///< simultaneous rigorous lower bound (level / m per cell)
  std::string lower_method;  ///< the method that gave `lower` (the largest over methods)
  std::string p_method;      ///< the method with the smallest p-value
  double p_value = 1.0;
  double p_holm = 1.0;
  bool tested = false;  ///< in the Holm family (applicable, finite bound)
  Verdict verdict = Verdict::kNotApplicable;
  double tightness_estimate = kNaN;  ///< bound / estimate
  double tightness_lower = kNaN;  ///< bound / lower: the margin a not-rejected cell was tested with
  bool close = false;             ///< not rejected by a small margin (see kCloseMargin)
  std::string note;
};

/// Where a cell's exact value comes from, in words: "quadrature", "exact chain", "exact
/// profile", "exact chain profile" (from Cell::exact_method; "quadrature" when it is empty, as
/// in files before 2.4).
std::string exact_source(const Cell& c);

/// The relative width up to which an exact bracket is shown as one value (the exact engine's
/// width target): a wider bracket is never displayed as "exact".
inline constexpr double kExactShownWidth = 1e-3;

/// Whether the bracket [lower, upper] is narrow enough to be shown as its value.
bool exact_is_sharp(double lower, double upper);

/// An exact value as displayed: the value where its bracket is sharp, else "[lower, upper]"
/// (with "upper end not certified" where it is not).
std::string exact_text(double lower, double value, double upper, bool upper_certified = true);

/// What the cell tests, as /audit/cells/quantity and `report --csv` name it: "renyi"
/// (R_alpha <= bound), "eps_delta" (eps(delta) <= bound) or "mu" (a Gaussian-DP claim's mu).
std::string_view quantity_name(const Cell& c);

/// The cell's order as a table shows it: "2", "d=1e-05" for an (eps, delta) claim, "mu" for a
/// Gaussian-DP claim's mu cell.
std::string order_text(const Cell& c);
/// Where a cell is, in words: "alpha 2, R(P||P')", "delta 1e-05, eps(P||P')" or "mu,
/// T(P, P')".
std::string cell_text(const Cell& c);

struct BoundRow {
  std::string name, kind, source;
  Expectation expect = Expectation::kHolds;
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
/// as_expected by meets(). Fills counts, close_cells, min_margin, outcome and as_expected.
void summarise(BoundRow& row, std::size_t row_index, const std::vector<Cell>& cells);

/// Decides a tested cell from its Holm-adjusted p-value at `level`, the exact value's bracket
/// (certain verdicts first: a negative bound, the bracket above or below the bound) and its
/// margins (close); fills tightness_estimate and tightness_lower of every applicable cell.
void decide(Cell& c, double level);

/// For a sequential audit (docs/methods.md, "Sequential audit"): more trajectories cannot
/// change the cell's verdict, or are not needed. Decided: violated (exact or statistical),
/// valid (exact), not applicable; not rejected with the bound at least `margin` times the
/// point estimate, or at or above the upper end of the point estimate's interval when more
/// trajectories cannot move that interval (Cell::estimate_upper: R_alpha is at or below the
/// bound there, so more trajectories could reject it only falsely). Inconclusive cells are
/// never decided.
bool is_decided(const Cell& c, double margin);

/// The undecided cells of a look, in words, at most `limit` of them: "  bound name, scenario
/// 2, alpha 8, R(P||P'): not rejected, bound / estimate 1.02 < 2", one per line (no line break
/// after the last); empty when every cell is decided.
std::string undecided_text(const AuditResult& a, double margin, std::size_t limit);

/// Holm's step-down adjustment of the tested cells' p-values (p_holm; untested cells get 1).
void holm_adjust(std::vector<Cell>& cells);

}  // namespace rdpaudit::audit
