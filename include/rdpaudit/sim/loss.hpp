// Per-example gradients of the three loss families, with the clipping of Algorithm 2.
// Each functor adds (1/normaliser) * sum_{i in B} grad l(theta; x_i) (+ regulariser) to g.
#pragma once

#include <algorithm>
#include <cmath>

#include "rdpaudit/config/scenario.hpp"

namespace rdpaudit::sim {

/// Read-only view of one dataset (D or D') shared by all threads.
struct DataView {
  const double* x = nullptr;  ///< n x p, row-major
  const int* labels = nullptr;
  int n = 0;
  int p = 0;  ///< record width
};

/// Scales v (length len) so that ||v|| <= bound: v * min(1, bound / ||v||)  (Prop. 5.2).
inline void clip_to_norm(double* v, int len, double bound) {
  double sq = 0;
  for (int k = 0; k < len; ++k) sq += v[k] * v[k];
  if (sq > bound * bound) {
    const double scale = bound / std::sqrt(sq);
    for (int k = 0; k < len; ++k) v[k] *= scale;
  }
}

/// l(theta; x) = lambda/2 ||theta - x||^2, gradient lambda (theta - x).
struct QuadraticLoss {
  double lambda;
  int d;
  void add_gradient(const double* theta, const DataView& data, const int* idx, int count,
                    double inv_norm, double* g) const {
    const double c = lambda * inv_norm;
    for (int k = 0; k < d; ++k) g[k] += c * count * theta[k];
    for (int m = 0; m < count; ++m) {
      const double* x = data.x + static_cast<long>(idx[m]) * d;
      for (int k = 0; k < d; ++k) g[k] -= c * x[k];
    }
  }
};

/// l(theta; g_i) = <g_i, theta>, gradient g_i (constant: the blog's convex Lipschitz case).
struct LinearLoss {
  int d;
  void add_gradient(const double* /*theta*/, const DataView& data, const int* idx, int count,
                    double inv_norm, double* g) const {
    for (int m = 0; m < count; ++m) {
      const double* x = data.x + static_cast<long>(idx[m]) * d;
      for (int k = 0; k < d; ++k) g[k] += inv_norm * x[k];
    }
  }
};

/// Regularised multiclass logistic regression, paper eq. (7)-(8) and Algorithm 2: the
/// gradient of the unregularised loss l0 is clipped per example to norm clip_norm (= S_g/2,
/// Proposition 5.2), averaged, then lambda*theta is added once.
/// theta = (theta_1, ..., theta_c), theta_k in R^{f+1} = (weights, bias).
struct LogisticLoss {
  double lambda;
  double clip_norm;
  int features;
  int classes;

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
    for (int k = 0; k < classes; ++k) total += (logits[k] = std::exp(logits[k] - top));
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
    const int d = classes * (features + 1);
    double e[config::kMaxDim];
    for (int m = 0; m < count; ++m) {
      example_gradient(theta, data.x + static_cast<long>(idx[m]) * features, data.labels[idx[m]],
                       e);
      for (int k = 0; k < d; ++k) g[k] += inv_norm * e[k];
    }
    for (int k = 0; k < d; ++k) g[k] += lambda * theta[k];
  }
};

}  // namespace rdpaudit::sim
