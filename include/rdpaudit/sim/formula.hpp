// The gradient of model.loss = "gradient_formula": g(theta, x), a muparser formula evaluated
// coordinate by coordinate. A muparser Parser is not thread-safe, so each thread compiles its
// own on its first evaluation and keeps it (src/sim/formula.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace rdpaudit::sim {

class FormulaGradient {
 public:
  explicit FormulaGradient(std::string text);

  /// g(theta, x) at one point.
  double operator()(double theta, double x) const;

  /// g[k] += inv_norm * sum_{m < count} g(theta[k], x[idx[m] * d + k]) for k < d, the records
  /// in index order (x: n x d, row-major).
  void add_batch(const double* theta, int d, const double* x, const int* idx, int count,
                 double inv_norm, double* g) const;

 private:
  std::shared_ptr<const std::string> text_;
  std::uint64_t id_;  ///< names this formula in each thread's compiled parsers
};

}  // namespace rdpaudit::sim
