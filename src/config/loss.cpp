#include "rdpaudit/config/loss.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "rdpaudit/core/error.hpp"

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

namespace {

void require(bool ok, const char* key, double value, const char* expected) {
  if (!ok) throw InputError(key, fmt::format("{}", value), expected);
}

}  // namespace

LossConstants derive_loss_constants(const LossDescription& loss) {
  const double D = loss.domain_diameter;
  require(D > 0.0, "loss.domain_diameter", D, "must be > 0 (+inf: unconstrained)");
  require(loss.lambda >= 0.0 && std::isfinite(loss.lambda), "loss.lambda", loss.lambda,
          "must be >= 0 and finite");
  switch (loss.family) {
    case LossKind::kQuadratic: {
      const double R = loss.data_radius;
      require(R >= 0.0 && std::isfinite(R), "loss.data_radius", R,
              "must be >= 0 and finite for the quadratic loss (it bounds S_g)");
      const double lam = loss.lambda;
      return {lam, lam, 2.0 * lam * R, std::isinf(D) ? kInf : lam * (D / 2.0 + R),
              "quadratic lambda/2||theta-x||^2: Hessian = lambda I -> lambda-strongly convex, "
              "beta = lambda; total-gradient sensitivity lambda ||x-x'|| <= 2 lambda R; "
              "||grad|| <= lambda (D/2 + R) on the ball of diameter D"};
    }
    case LossKind::kLogistic: {
      const double Lf = loss.feature_clip;
      require(Lf >= 0.0 && std::isfinite(Lf), "loss.feature_clip", Lf,
              "must be >= 0 and finite for the logistic loss (Prop. 5.1 needs ||x|| <= L)");
      const double C = loss.grad_clip;
      require(C >= 0.0, "loss.grad_clip", C, "must be >= 0 (+inf: no clipping)");
      const double lip = std::sqrt(2.0 * (Lf * Lf + 1.0));      // Eq. (9)
      const double beta = (Lf * Lf + 1.0) / 2.0 + loss.lambda;  // Eq. (10) + regulariser
      const double S_g = std::isinf(C) ? 2.0 * lip : 2.0 * C;
      const double L = (loss.lambda == 0.0) ? std::min(C, lip)
                       : std::isinf(D)      ? kInf
                                            : std::min(C, lip) + loss.lambda * D / 2.0;
      return {loss.lambda, beta, S_g, L,
              std::isinf(C)
                  ? "logistic (Eq. 7): beta = (L^2+1)/2 + lambda (Prop. 5.1, Eq. 11); "
                    "S_g = 2 sqrt(2(L^2+1)) from the Lipschitz constant of Prop. 5.1 (Sec. F.4)"
                  : "logistic (Eq. 7): beta = (L^2+1)/2 + lambda (Prop. 5.1, Eq. 11); "
                    "S_g = 2 C from the per-example clip C = S_g/2 (Prop. 5.2)"};
    }
    case LossKind::kLinear: {
      require(loss.lambda == 0.0, "loss.lambda", loss.lambda,
              "must be 0 for the linear loss (it is not strongly convex)");
      const double R = loss.data_radius;
      require(R >= 0.0 && std::isfinite(R), "loss.data_radius", R,
              "must be >= 0 and finite for the linear loss (||g_i|| <= R)");
      return {0.0, 0.0, 2.0 * R, R,
              "linear <g,theta>: Hessian 0 -> convex, beta = 0, not strongly convex; "
              "sensitivity ||g-g'|| <= 2R; ||grad|| = ||g|| <= R"};
    }
  }
  throw InputError("loss.family: unknown value");
}

}  // namespace rdpaudit::config
