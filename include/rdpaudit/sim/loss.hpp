// Per-example gradients of the loss families, with the clipping of Algorithm 2, and the list
// of their functors (LossFunctors, at the end) that the simulator dispatches on. Each functor
// adds (1/normaliser) * sum_{i in B} grad l(theta; x_i) (+ regulariser) to g, names its
// config::LossKind (kKind) and takes its parameters from the scenario (of).
#pragma once

#include <algorithm>
#include <cmath>

#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/sim/formula.hpp"

namespace rdpaudit::sim {

/// Read-only view of one dataset (D or D') shared by all threads.
struct DataView {
  const double* x = nullptr;  ///< n x p, row-major
  const int* labels = nullptr;
  int n = 0;
  int p = 0;  ///< record width
  /// A crafted record (config::NeighbouringPair::crafted): its index, or -1 for none. Its
  /// row of x is zeros and its batch slot counts no record; at step t it adds
  /// crafted_at(t) (p numbers) to the gradient sum, nothing where `crafted` is null (D').
  int crafted_index = -1;
  const double* crafted = nullptr;  ///< crafted_rows x p, row-major
  long crafted_rows = 0;            ///< 1: the same gradient at every step; else T
  /// A record absent from this dataset (config::NeighbouringPair::absent, D'): its index, or
  /// -1 for none. It adds nothing to any gradient sum; its batch slot stays, so the batch is
  /// divided by the scheme's normaliser as with it (the sum of clipped per-example gradients
  /// over the records present, divided by b, or by q n under Poisson, as Opacus divides).
  int absent_index = -1;
  const double* crafted_at(long t) const {
    return crafted ? crafted + (crafted_rows == 1 ? 0 : t) * p : nullptr;
  }
};

/// 1 when the batch idx[0..count) holds the crafted record, else 0.
inline int holds_crafted(const DataView& data, const int* idx, int count) {
  if (data.crafted_index < 0) return 0;
  for (int m = 0; m < count; ++m) {
    if (idx[m] == data.crafted_index) return 1;
  }
  return 0;
}

/// Scales v (length len) so that ||v|| <= bound: v * min(1, bound / ||v||)  (Prop. 5.2).
inline void clip_to_norm(double* v, int len, double bound) {
  double sq = 0;
  for (int k = 0; k < len; ++k) sq += v[k] * v[k];
  if (sq > bound * bound) {
    const double scale = bound / std::sqrt(sq);
    for (int k = 0; k < len; ++k) v[k] *= scale;
  }
}

/// sum of the records idx[0..count) (each of width D), in index order.
template <int D>
void sum_records(const DataView& data, const int* idx, int count, double* sum) {
  for (int k = 0; k < D; ++k) sum[k] = 0.0;
  for (int m = 0; m < count; ++m) {
    const double* x = data.x + static_cast<long>(idx[m]) * D;
    for (int k = 0; k < D; ++k) sum[k] += x[k];
  }
}

/// add_gradient of a loss whose gradient needs only the sum of the batch's records.
template <int D, class Loss>
void add_gradient_by_sum(const Loss& loss, const double* theta, const DataView& data,
                         const int* idx, int count, double inv_norm, double* g) {
  double sum[D];
  sum_records<D>(data, idx, count, sum);
  loss.add_gradient_from_sum(theta, sum, count, inv_norm, g);
}

/// add_gradient at step t of a dataset with a crafted record, for losses whose gradient
/// needs only the batch sum: the loss's gradient over the batch's other records (the crafted
/// row is zeros, so the sum is theirs; its slot is not counted), then inv_norm * g_t where
/// the batch holds it. The lane-minor path of runner.hpp forms the same numbers.
template <int D, class Loss>
void add_gradient_with_crafted(const Loss& loss, const double* theta, const DataView& data,
                               const int* idx, int count, long t, double inv_norm, double* g) {
  double sum[D];
  sum_records<D>(data, idx, count, sum);
  const int in = holds_crafted(data, idx, count);
  loss.add_gradient_from_sum(theta, sum, count - in, inv_norm, g);
  if (const double* crafted = in ? data.crafted_at(t) : nullptr) {
    for (int k = 0; k < D; ++k) g[k] += inv_norm * crafted[k];
  }
}

/// l(theta; x) = lambda/2 ||theta - x||^2, gradient lambda (theta - x). The dimension is a
/// template argument (the kernels are instantiated for d = 1..8) so that the loops over
/// coordinates unroll.
template <int D>
struct QuadraticLoss {
  /// The gradient depends on the batch only through the sum of its records, so callers may
  /// cache that sum per batch (add_gradient_from_sum); and each coordinate of it only on the
  /// same coordinate of theta and of the sum (coordinate_gradient_from_sum), so callers may
  /// step many trajectories coordinate by coordinate.
  static constexpr bool kSumOfRecords = true;
  static constexpr int d = D;
  static constexpr config::LossKind kKind = config::LossKind::kQuadratic;
  double lambda;

  static QuadraticLoss of(const config::Scenario& s) { return {s.lambda}; }

  /// (1/N) sum_B lambda (theta - x_i) = (lambda/N) (|B| theta - sum_B x_i), coordinate-wise
  double coordinate_gradient_from_sum(double theta, double sum, int count, double inv_norm) const {
    const double c = lambda * inv_norm, size = count;
    return c * (size * theta - sum);
  }
  void add_gradient_from_sum(const double* theta, const double* sum, int count, double inv_norm,
                             double* g) const {
    for (int k = 0; k < D; ++k)
      g[k] += coordinate_gradient_from_sum(theta[k], sum[k], count, inv_norm);
  }
  void add_gradient(const double* theta, const DataView& data, const int* idx, int count,
                    double inv_norm, double* g) const {
    add_gradient_by_sum<D>(*this, theta, data, idx, count, inv_norm, g);
  }
};

/// l(theta; g_i) = <g_i, theta>, gradient g_i (constant: the blog's convex Lipschitz case).
template <int D>
struct LinearLoss {
  static constexpr bool kSumOfRecords = true;
  /// The gradient is the record sum alone, whatever the batch's size (Poisson may then skip
  /// drawing how many records of zeros join, sim/batches.hpp).
  static constexpr bool kIgnoresCount = true;
  static constexpr int d = D;
  static constexpr config::LossKind kKind = config::LossKind::kLinear;

  static LinearLoss of(const config::Scenario&) { return {}; }

  double coordinate_gradient_from_sum(double /*theta*/, double sum, int /*count*/,
                                      double inv_norm) const {
    return inv_norm * sum;
  }
  void add_gradient_from_sum(const double* theta, const double* sum, int count, double inv_norm,
                             double* g) const {
    for (int k = 0; k < D; ++k)
      g[k] += coordinate_gradient_from_sum(theta[k], sum[k], count, inv_norm);
  }
  void add_gradient(const double* theta, const DataView& data, const int* idx, int count,
                    double inv_norm, double* g) const {
    add_gradient_by_sum<D>(*this, theta, data, idx, count, inv_norm, g);
  }
};

/// Regularised multiclass logistic regression, paper eq. (7)-(8) and Algorithm 2: the
/// gradient of the unregularised loss l0 is clipped per example to norm clip_norm (= S_g/2,
/// Proposition 5.2), averaged, then lambda*theta is added once.
/// theta = (theta_1, ..., theta_c), theta_k in R^{f+1} = (weights, bias).
template <int D>
struct LogisticLoss {
  static constexpr bool kSumOfRecords = false;  // clipping: per-example gradients
  static constexpr int d = D;                   ///< = classes * (features + 1)
  static constexpr config::LossKind kKind = config::LossKind::kLogistic;
  double lambda;
  double clip_norm;
  int features;
  int classes;

  static LogisticLoss of(const config::Scenario& s) {
    return {s.lambda, s.clip_norm, s.features, s.classes};
  }

  /// Clipped per-example gradient of l0 at theta for record (x, y), into out (length d).
  void example_gradient(const double* theta, const double* x, int y, double* out) const {
    double logits[config::kMaxDim];
    const int stride = features + 1;
    double top = -INFINITY;
    for (int k = 0; k < classes; ++k) {
      const double* w = theta + k * stride;
      double z = w[features];
      for (int j = 0; j < features; ++j) z += w[j] * x[j];
      logits[k] = z;
      top = std::max(top, z);
    }
    double total = 0;
    for (int k = 0; k < classes; ++k) {
      // The largest logit's term is exp(0) = 1 exactly: one exp call less per example (of
      // two, for two classes). A NaN difference (infinite logits) still goes through exp.
      const double z = logits[k] - top;
      total += (logits[k] = z == 0.0 ? 1.0 : std::exp(z));
    }
    for (int k = 0; k < classes; ++k) {
      const double coef = logits[k] / total - (k == y ? 1.0 : 0.0);  // softmax - one-hot
      double* o = out + k * stride;
      for (int j = 0; j < features; ++j) o[j] = coef * x[j];
      o[features] = coef;
    }
    if (std::isfinite(clip_norm)) clip_to_norm(out, classes * stride, clip_norm);
  }

  void add_gradient(const double* theta, const DataView& data, const int* idx, int count,
                    double inv_norm, double* g) const {
    double e[config::kMaxDim];
    for (int m = 0; m < count; ++m) {
      if (idx[m] == data.absent_index) continue;
      example_gradient(theta, data.x + static_cast<long>(idx[m]) * features, data.labels[idx[m]],
                       e);
      for (int k = 0; k < d; ++k) g[k] += inv_norm * e[k];
    }
    for (int k = 0; k < d; ++k) g[k] += lambda * theta[k];
  }
};

/// A loss given by its gradient (model.loss = "gradient_formula"): coordinate k of record
/// x_i's gradient is g(theta_k, x_ik), the user's formula (sim/formula.hpp).
template <int D>
struct FormulaLoss {
  static constexpr bool kSumOfRecords = false;  // g is any function of the record
  static constexpr int d = D;
  static constexpr config::LossKind kKind = config::LossKind::kGradientFormula;
  FormulaGradient gradient;

  static FormulaLoss of(const config::Scenario& s) { return {FormulaGradient(s.gradient_formula)}; }

  void add_gradient(const double* theta, const DataView& data, const int* idx, int count,
                    double inv_norm, double* g) const {
    gradient.add_batch(theta, D, data.x, idx, count, inv_norm, g);
  }
};

template <class... Losses>
struct LossList {};

/// Every loss family's functor for dimension D: the simulator runs the one whose kKind is the
/// scenario's loss (with_loss, src/sim/loss_dispatch.hpp). A new family: its functor above and
/// its entry here; a four-lane kernel in src/sim/lane_kernels.hpp is optional.
template <int D>
using LossFunctors = LossList<QuadraticLoss<D>, LinearLoss<D>, LogisticLoss<D>, FormulaLoss<D>>;

}  // namespace rdpaudit::sim
