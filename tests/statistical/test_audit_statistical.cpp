// The verdict's two error rates, measured against exact truth (issue 5).
//
// False violations: a bound equal to the exact R_alpha (valid and as tight as a bound can be:
// the hardest valid bound to clear) audited at 4 orders in both directions, Holm over the 8
// cells, level 0.05. A run with any violated cell is a false violation; over 200 seeded runs a
// procedure at exactly the nominal level has Binomial(200, 0.05) of them: more than 20 has
// probability < 0.2 %, while a procedure at a true rate of 15 % passes with probability < 0.1 %.
// Power: the same audits hold 60 % of the exact value; a violation must be found in >= 90 % of
// runs, so an auditor that misses real violations fails. Measured with both rigorous methods
// (Bonferroni over the two, as the audit does): 100 of 100 runs at 50 % and 60 %, 99 at 70 %,
// 57 at 80 %, 0 at 90 %; with the partition bound alone it was 94 of 100 at 50 %.
// docs/studies/false_violation.md repeats this through the whole command line.
#include <catch2/catch.hpp>

#include "rdpaudit/audit/verdict.hpp"
#include "rdpaudit/estimate/rigorous.hpp"
#include "rdpaudit/estimate/variational.hpp"
#include "test_estimate_support.hpp"

using namespace rdpaudit;
using namespace rdpaudit::estimate;
using namespace rdpaudit::exact;

namespace {

// Runs with at least one violated cell when every cell's bound is `factor` x the truth.
int runs_with_violation(double factor, int runs) {
  // N(1, 2^2) vs N(0, 2^2): mu / s = 0.5, R_alpha = alpha / 8.
  const GaussianMixture p = gaussian({1.0}, {4.0}), q = gaussian({0.0}, {4.0});
  const std::vector<double> alphas = {2.0, 4.0, 8.0, 16.0};
  const std::vector<Estimate> truth = exact_renyi(p, q, alphas);
  int hits = 0;
  for (int rep = 1; rep <= runs; ++rep) {
    const auto seed = static_cast<std::uint64_t>(rep);
    const auto xp = testing::draw(p, 20000, seed, 93, 0);
    const auto xq = testing::draw(q, 20000, seed, 93, 1);
    // Both rigorous methods, as the audit runs them (partition on a 30/70 split, Hoelder +
    // Bernstein on a 10/90 split), Bonferroni over the two.
    const RigorousResult cp = rigorous_lower_bound(testing::cells_split_at(xp, xq, 6000), alphas);
    const RigorousResult vb =
        variational_lower_bound(testing::cells_split_at(xp, xq, 2000), alphas);
    std::vector<audit::Cell> cells;
    for (const Estimate& t : truth) {
      audit::Cell cell;
      cell.tested = true;
      const double threshold = factor * t.value;
      cell.p_value =
          std::min(1.0, 2.0 * std::min(rigorous_p_value(cp, t.alpha, t.direction, threshold),
                                       rigorous_p_value(vb, t.alpha, t.direction, threshold)));
      cells.push_back(cell);
    }
    audit::holm_adjust(cells);
    bool violated = false;
    for (const auto& cell : cells) violated = violated || cell.p_holm <= 0.05;
    hits += violated ? 1 : 0;
  }
  return hits;
}

}  // namespace

TEST_CASE("false-violation rate of the verdict on an exactly tight bound", "[audit][statistical]") {
  const int false_violations = runs_with_violation(1.0, 200);
  INFO("false violations in 200 runs: " << false_violations);
  CHECK(false_violations <= 20);
}

TEST_CASE("power of the verdict on a bound at 60 % of the truth", "[audit][statistical]") {
  const int found = runs_with_violation(0.6, 100);
  INFO("violations found in 100 runs: " << found);
  CHECK(found >= 90);
}
