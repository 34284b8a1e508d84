#include "rdpaudit/config/loss.hpp"

namespace rdpaudit::config {

double pair_sensitivity(const Scenario& s) {
  // A crafted record against its absence: the total gradient moves by max_t ||g_t||.
  if (s.data.crafted) return s.data.crafted_gradient.rowwise().norm().maxCoeff();
  const Eigen::VectorXd x = s.data.points.row(s.data.differing_index).transpose();
  switch (s.loss) {
    case LossKind::kQuadratic:  // grad = lambda (theta - x): difference lambda ||x - x'||
      return s.lambda * (x - s.data.replacement).norm();
    case LossKind::kLinear:  // grad = g: difference ||g - g'||
      return (x - s.data.replacement).norm();
    case LossKind::kLogistic:  // Proposition 5.2: clip S_g/2 per example => S_g
      return 2.0 * s.clip_norm;
  }
  return 0;
}

}  // namespace rdpaudit::config
