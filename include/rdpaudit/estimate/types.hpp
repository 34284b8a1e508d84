// Common vocabulary of the estimators: the result record, the grid of Rényi orders and the
// cell-count pair every histogram-like estimator works on.
//
// Notation: P is the law of the last iterate under D, P' (written Q in the code) under D'.
// R_alpha(P||Q) = 1/(alpha-1) log  integral p^alpha q^(1-alpha), for orders alpha > 1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rdpaudit::estimate {

/// Direction of a divergence: R_alpha(P||P') or R_alpha(P'||P).
inline constexpr int kForward = 0;   ///< R_alpha(P || P')
inline constexpr int kBackward = 1;  ///< R_alpha(P' || P)

/// One estimate of one order in one direction by one method.
///
/// `value` is the point estimate, [lower, upper] an interval whose meaning `interval` states:
/// a valid confidence bound (the rigorous method), a diagnostic bootstrap interval (the
/// plug-in), or a numerical error bracket (quadrature). `upper` is +infinity where the method
/// claims no upper bound (a one-sided interval): that is the only non-finite number an
/// estimator returns, and only together with an `interval` text that says "one-sided".
/// When `informative` is false the numbers carry no evidence (value = lower = 0,
/// upper = +infinity) and `reason` says why, e.g. that no samples reached the region where
/// the tilted mass p^alpha q^(1-alpha) lives.
struct Estimate {
  double alpha = 0.0;
  int direction = kForward;  ///< kForward: R_alpha(P||P'); kBackward: R_alpha(P'||P)
  std::string method;        ///< a row name of config::row_registry(), maybe after a score prefix
  double value = 0.0;
  double lower = 0.0;
  double upper = 0.0;
  std::string interval;  ///< what [lower, upper] is, e.g. "bootstrap-percentile (diagnostic)"
  bool informative = false;
  std::string reason;  ///< why not informative; empty when informative
};

/// An estimate that carries no evidence, with the reason (value = lower = 0, upper = +inf).
Estimate uninformative(double alpha, int direction, std::string method, std::string reason);

/// The orders 1.1, 1.2, ..., 10.9 (step 0.1) and 11, 12, ..., 64 (Google dp_accounting's
/// default orders up to 63, which stop there, plus 64), merged with `extra` (sorted, duplicates
/// removed). Throws InternalError for an extra order that is not a finite number > 1.
std::vector<double> default_alpha_grid(const std::vector<double>& extra = {});

/// Throws InternalError naming `key` unless `alphas` is non-empty and every order is finite and
/// > 1 (the estimators here are for orders above 1, where p^alpha q^(1-alpha) is jointly
/// convex and increasing in p, decreasing in q).
void check_alphas(const std::vector<double>& alphas, const std::string& key = "alphas");

/// Read-only view of `rows` samples of dimension `dim`, stored row-major (sample i occupies
/// data[i*dim .. i*dim+dim-1]). The estimators split a view by position (first rows for
/// selection, the rest for evaluation), so the rows must be exchangeable (i.i.d. in the order
/// given), as trajectories of a simulation are.
struct SampleView {
  const double* data = nullptr;
  std::size_t rows = 0;
  std::size_t dim = 1;

  const double* row(std::size_t i) const { return data + i * dim; }
  /// Rows [first, first + count).
  SampleView slice(std::size_t first, std::size_t count) const {
    return SampleView{data + first * dim, count, dim};
  }
};

/// A view of a vector of 1-D samples.
inline SampleView view_of(const std::vector<double>& x) {
  return SampleView{x.data(), x.size(), 1};
}

/// Paired counts of the samples of P and of P' over the same cells (a histogram with its
/// under- and overflow cells, cells of a projection, ...). Counts are exact integers.
struct CellCounts {
  std::vector<std::uint64_t> p;  ///< counts of the samples of P
  std::vector<std::uint64_t> q;  ///< counts of the samples of P'

  std::size_t size() const { return p.size(); }
  std::uint64_t total_p() const;
  std::uint64_t total_q() const;
  /// Throws InternalError unless p and q have the same, non-zero number of cells.
  void check(const std::string& key = "counts") const;
};

/// R_alpha(p||q) of two discrete distributions given as unnormalised non-negative weights on
/// the same cells, computed in the log domain (orders up to 64 and beyond without overflow).
/// Cells with p = 0 contribute nothing; a cell with p > 0 and q = 0 makes it +infinity, which
/// the callers here never let happen (they merge such cells first).
double discrete_renyi(const std::vector<double>& p, const std::vector<double>& q, double alpha);

}  // namespace rdpaudit::estimate
