// The audit of a run: the cells of every scenario's tables, collected scenario by scenario,
// then decided together (Holm over every tested cell of the run). Renyi bounds and (eps,
// delta) claims climb one ladder: a cell is not applicable (NaN), valid (exact) (+infinity),
// inconclusive (no rigorous test, or none informative at its order), or tested; a tested
// cell's p-value is the smallest over the scenario's tests times their number (Bonferroni);
// its lower bound the largest of theirs at level / (m k); decide() gives the verdict.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rdpaudit/audit/cell.hpp"
#include "rdpaudit/audit/table.hpp"
#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/estimate/scenario.hpp"

namespace rdpaudit::audit {

/// A scenario's rigorous tests of one quantity: the Renyi methods' certificates, or the
/// scores' profile families. Each test gives a p-value and a lower bound at any level.
class Tests {
 public:
  virtual ~Tests() = default;
  virtual std::size_t size() const = 0;
  virtual const std::string& method(std::size_t test) const = 0;
  /// The p-value of "the cell's quantity <= bound" from one test.
  virtual double p_value(std::size_t test, const Cell& c) const = 0;
  /// The lower confidence bound of the cell's quantity at miss probability `level`.
  virtual double lower(std::size_t test, const Cell& c, double level) const = 0;
};

/// Collects the cells of a run scenario by scenario, then decides them together.
class Auditor {
 public:
  /// `level` in (0, 1): the run's family-wise error level.
  explicit Auditor(double level);
  ~Auditor();
  Auditor(Auditor&&) noexcept;
  Auditor& operator=(Auditor&&) noexcept;

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

  /// What a scenario's estimates say about one (order, direction): the same for every row of
  /// a table there.
  struct Point {
    double estimate = kNaN, estimate_lower = kNaN, estimate_upper = kNaN;
    double exact = kNaN, exact_lower = kNaN, exact_upper = kNaN;
    std::string exact_method;  ///< the row the exact value comes from
    /// the exact bracket's upper end is certified (false: an exact chain's that is not)
    bool exact_upper_certified = true;
    std::string method;
    bool informative = true;  ///< some rigorous test is informative here
    std::string reason;       ///< why none is
  };

 private:
  /// The words of one quantity's ladder.
  struct Words {
    const char* infinite;  ///< note of a +infinity row
    const char* untested;  ///< note of a scenario without tests
  };
  void add_table(const config::Scenario& s, const AuditTable& table,
                 const std::vector<Point>& points, std::unique_ptr<Tests> tests,
                 const Words& words);
  std::size_t row_of(const std::string& name, const std::string& kind, const std::string& source,
                     Expectation expect);

  double level_;
  std::vector<BoundRow> rows_;
  std::vector<Cell> cells_;
  std::vector<std::string> sweep_points_;      ///< per scenario
  std::vector<std::int64_t> trajectories_;     ///< per scenario
  std::vector<std::unique_ptr<Tests>> tests_;  ///< per scenario and quantity
  std::vector<std::size_t> tests_scenario_;    ///< per entry of tests_: its scenario's position
  std::vector<std::size_t> cell_tests_;        ///< per cell: its entry of tests_
};

}  // namespace rdpaudit::audit
