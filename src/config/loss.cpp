#include "rdpaudit/config/loss.hpp"

#include <fmt/format.h>
#include <muParser.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "rdpaudit/config/formula.hpp"
#include "rdpaudit/config/reader.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::config {

namespace {

void require(bool ok, const char* key, double value, const char* expected) {
  if (!ok) throw InputError(key, fmt::format("{}", value), expected);
}

// model.clip_norm: the per-example clip C (+inf: none).
void read_clip_norm(Scenario& s, Reader& r) {
  s.clip_norm = r.number("model.clip_norm").value_or(kInf);
  if (!(s.clip_norm > 0)) r.fail("model.clip_norm", "must be > 0");
}

// model.dim of a family whose records have the parameters' dimension.
void read_dimension(Scenario& s, Reader& r) {
  const long d = r.integer("model.dim").value_or(1);
  if (d < 1 || d > kMaxDim) r.fail("model.dim", "must be in [1, " + std::to_string(kMaxDim) + "]");
  s.dim = static_cast<int>(d);
}

// ---------------------------------------------------------------- quadratic
// l = lambda/2 ||theta - x||^2, gradient lambda (theta - x).

void read_quadratic(Scenario& s, Reader& r) {
  read_dimension(s, r);
  s.lambda = r.require_number("model.lambda", "curvature lambda > 0");
  if (!(s.lambda > 0)) r.fail("model.lambda", "must be > 0");
}

double quadratic_pair_sensitivity(const Scenario& s, const Eigen::VectorXd& x) {
  return s.lambda * (x - s.data.replacement).norm();  // lambda ||x - x'||
}

LossConstants quadratic_constants(const LossDescription& loss) {
  const double D = loss.domain_diameter, R = loss.data_radius;
  require(R >= 0.0 && std::isfinite(R), "loss.data_radius", R,
          "must be >= 0 and finite for the quadratic loss (it bounds S_g)");
  const double lam = loss.lambda;
  return {lam, lam, 2.0 * lam * R, std::isinf(D) ? kInf : lam * (D / 2.0 + R),
          "quadratic lambda/2||theta-x||^2: Hessian = lambda I -> lambda-strongly convex, "
          "beta = lambda; total-gradient sensitivity lambda ||x-x'|| <= 2 lambda R; "
          "||grad|| <= lambda (D/2 + R) on the ball of diameter D"};
}

// theta <- (1 - eta lambda |B|/N) theta + eta lambda sum(x_B)/N: the pull towards the data.
double quadratic_gradient_bound(const Scenario& s, double x) {
  return s.lambda * x;
}
// The lambda term scales theta by 1 - eta lambda per step (quadratic: for a batch of b of
// the N records it normalises by; logistic: the L2 regulariser, added once per step).
double lambda_contraction(const Scenario& s) {
  return std::fabs(1.0 - s.eta * s.lambda);
}

// ---------------------------------------------------------------- linear
// l = <g, theta>, gradient g: the blog's convex Lipschitz case.

void read_linear(Scenario& s, Reader& r) {
  read_dimension(s, r);
  // DP-SGD's per-example clip: every record's gradient g_i is clipped to norm C. The gradient
  // does not depend on theta, so read_data (and read_crafted_gradient) clip the records once.
  read_clip_norm(s, r);
}

double linear_pair_sensitivity(const Scenario& s, const Eigen::VectorXd& x) {
  return (x - s.data.replacement).norm();  // ||g - g'||
}

LossConstants linear_constants(const LossDescription& loss) {
  require(loss.lambda == 0.0, "loss.lambda", loss.lambda,
          "must be 0 for the linear loss (it is not strongly convex)");
  const double R = loss.data_radius;
  require(R >= 0.0 && std::isfinite(R), "loss.data_radius", R,
          "must be >= 0 and finite for the linear loss (||g_i|| <= R)");
  return {0.0, 0.0, 2.0 * R, R,
          "linear <g,theta>: Hessian 0 -> convex, beta = 0, not strongly convex; "
          "sensitivity ||g-g'|| <= 2R; ||grad|| = ||g|| <= R"};
}

// theta <- theta - eta mean(g_B).
double linear_gradient_bound(const Scenario&, double x) {
  return x;
}
double linear_contraction(const Scenario&) {
  return 1.0;
}

// ---------------------------------------------------------------- logistic
// Regularised multiclass logistic regression, Eq. (7), with Algorithm 2's clipping.

void read_logistic(Scenario& s, Reader& r) {
  const long f = r.require_integer("model.features", "number of features >= 1");
  const long c = r.integer("model.classes").value_or(2);
  if (f < 1 || f > kMaxDim)
    r.fail("model.features", "must be in [1, " + std::to_string(kMaxDim) + "]");
  if (c < 2 || c > kMaxDim)
    r.fail("model.classes", "must be in [2, " + std::to_string(kMaxDim) + "]");
  if ((f + 1) * c > kMaxDim) {
    r.fail("model.features", "(features + 1) * classes = " + std::to_string((f + 1) * c) +
                                 " parameters, must be <= " + std::to_string(kMaxDim));
  }
  s.features = static_cast<int>(f);
  s.classes = static_cast<int>(c);
  s.dim = static_cast<int>((f + 1) * c);
  s.lambda = r.require_number("model.lambda", "L2 regularisation lambda >= 0");
  if (!(s.lambda >= 0)) r.fail("model.lambda", "must be >= 0");
  s.feature_clip = r.number("model.feature_clip").value_or(kInf);
  if (!(s.feature_clip > 0)) r.fail("model.feature_clip", "must be > 0");
  read_clip_norm(s, r);
}

double logistic_pair_sensitivity(const Scenario& s, const Eigen::VectorXd&) {
  // Proposition 5.2: clip S_g/2 per example => S_g for a replaced record. Record i0 against
  // its absence (add_remove): its clipped gradient alone, of norm <= C.
  return (s.data.absent ? 1.0 : 2.0) * s.clip_norm;
}

LossConstants logistic_constants(const LossDescription& loss) {
  const double D = loss.domain_diameter, Lf = loss.feature_clip;
  // The keys as the experiment file names them: L_feat is model.feature_clip, C model.clip_norm.
  if (std::isinf(Lf)) {
    throw InputError(
        "model.feature_clip is not set: the logistic loss is smooth (beta) only for bounded "
        "features (Prop. 5.1 needs ||x|| <= L)");
  }
  require(Lf >= 0.0, "model.feature_clip", Lf, "must be >= 0");
  const double C = loss.grad_clip;
  require(C >= 0.0, "model.clip_norm", C, "must be >= 0 (+inf: no clipping)");
  const double lip = std::sqrt(2.0 * (Lf * Lf + 1.0));      // Eq. (9)
  const double beta = (Lf * Lf + 1.0) / 2.0 + loss.lambda;  // Eq. (10) + regulariser
  // Replace-one: two per-example gradients of norm <= min(C, lip) differ by twice that;
  // add/remove (record i0 absent from D'): one.
  const double pair = loss.adjacency == Adjacency::kAddRemove ? 1.0 : 2.0;
  const double S_g = std::isinf(C) ? pair * lip : pair * C;
  const double L = (loss.lambda == 0.0) ? std::min(C, lip)
                   : std::isinf(D)      ? kInf
                                        : std::min(C, lip) + loss.lambda * D / 2.0;
  return {loss.lambda, beta, S_g, L,
          std::string("logistic (Eq. 7): beta = (L^2+1)/2 + lambda (Prop. 5.1, Eq. 11); ") +
              (loss.adjacency == Adjacency::kAddRemove
                   ? (std::isinf(C) ? "S_g = sqrt(2(L^2+1)), the Lipschitz constant of Prop. "
                                      "5.1: record i0 against its absence (add_remove)"
                                    : "S_g = C, the per-example clip: record i0 against its "
                                      "absence (add_remove)")
                   : (std::isinf(C) ? "S_g = 2 sqrt(2(L^2+1)) from the Lipschitz constant of "
                                      "Prop. 5.1 (Sec. F.4)"
                                    : "S_g = 2 C from the per-example clip C = S_g/2 (Prop. "
                                      "5.2)"))};
}

// The L2 term scales theta by 1 - eta lambda once per step; the rest is clipped per example.
double logistic_gradient_bound(const Scenario& s, double x) {
  return std::min(s.clip_norm, std::sqrt(2.0 * (x * x + 1.0)));
}

// ---------------------------------------------------------------- gradient formula
// A loss given by its gradient: coordinate k of a record's gradient is g(theta_k, x_k), a
// muparser formula (model.gradient). Nothing is derived from it: its convexity, smoothness,
// Lipschitz constant and the pair's S_g are what the user states in [bounds]
// (bounds/scenario.cpp), and its growth is not bounded a priori (sim/ detects a divergence).

void read_gradient_formula(Scenario& s, Reader& r) {
  read_dimension(s, r);
  s.gradient_formula = r.require_string(kGradientKey, "a formula of theta and x");
  check_formula(s.gradient_formula, kGradientKey, {kGradientNames.begin(), kGradientNames.end()},
                kGradientNamesText, r);
}

double unknown_pair_sensitivity(const Scenario&, const Eigen::VectorXd&) {
  return kNaN;
}

LossConstants formula_constants(const LossDescription&) {
  return {0.0, 0.0, kNaN, kInf,
          "gradient formula: no constant is derived from it (lambda, beta, L and S_g are the "
          "[bounds] values the user states, unchecked)"};
}

double unknown_gradient_bound(const Scenario&, double) {
  return kNaN;
}
double unknown_contraction(const Scenario&) {
  return kNaN;
}

}  // namespace

void check_gradient_values(const Scenario& s, Reader& r) {
  if (s.loss != LossKind::kGradientFormula) return;
  double theta = 0, x = 0;
  mu::Parser parser;
  parser.DefineVar(kGradientNames[0], &theta);
  parser.DefineVar(kGradientNames[1], &x);
  parser.SetExpr(s.gradient_formula);
  const auto& pts = s.data.points;
  const double spread = 10.0 * (s.init_std + s.step_std * std::sqrt(static_cast<double>(s.steps)));
  for (int k = 0; k < s.dim; ++k) {
    std::vector<double> values = {s.data.replacement(k)};
    for (Eigen::Index i = 0; i < pts.rows(); ++i) values.push_back(pts(i, k));
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    double lo = 0, hi = 0;
    if (std::isfinite(s.projection_diameter)) {
      const double c = s.projection_center.size() > k ? s.projection_center(k) : 0.0;
      lo = c - 0.5 * s.projection_diameter;
      hi = c + 0.5 * s.projection_diameter;
    } else {
      const double c = s.init_mean.size() > k ? s.init_mean(k) : 0.0;
      lo = c - spread;
      hi = c + spread;
    }
    for (double v : values) {
      x = v;
      for (int i = 0; i <= kGradientCheckPoints; ++i) {
        theta = lo + (hi - lo) * i / kGradientCheckPoints;
        const double g = parser.Eval();
        if (!std::isfinite(g) || std::fabs(g) > kMaxMagnitude) {
          r.fail(kGradientKey,
                 fmt::format("gives {} at theta = {}, x = {} (coordinate {}); the gradient must "
                             "be finite, of magnitude at most 1e100, wherever the iterates may "
                             "be (checked at {} points of theta over {})",
                             g, theta, x, k, kGradientCheckPoints + 1,
                             std::isfinite(s.projection_diameter)
                                 ? "the projection's interval"
                                 : "theta_0's mean +- 10 (init.std + s sqrt(T))"));
        }
      }
    }
  }
}

const std::vector<LossFamily>& loss_families() {
  static const std::vector<LossFamily> table = {
      {LossKind::kQuadratic, "quadratic", read_quadratic, quadratic_pair_sensitivity,
       quadratic_constants, quadratic_gradient_bound, lambda_contraction, true,
       "the distance to the minimiser"},
      {LossKind::kLogistic, "logistic", read_logistic, logistic_pair_sensitivity,
       logistic_constants, logistic_gradient_bound, lambda_contraction, false, "the parameters"},
      {LossKind::kLinear, "linear", read_linear, linear_pair_sensitivity, linear_constants,
       linear_gradient_bound, linear_contraction, false, "the parameters"},
      {LossKind::kGradientFormula, "gradient_formula", read_gradient_formula,
       unknown_pair_sensitivity, formula_constants, unknown_gradient_bound, unknown_contraction,
       false, "the parameters"},
  };
  return table;
}

const LossFamily& loss_family(LossKind kind) {
  for (const LossFamily& family : loss_families()) {
    if (family.kind == kind) return family;
  }
  throw InternalError("loss_family: a loss kind without a row in loss_families()");
}

double pair_sensitivity(const Scenario& s) {
  // A crafted record against its absence: the total gradient moves by max_t ||g_t||.
  if (s.data.crafted) return s.data.crafted_gradient.rowwise().norm().maxCoeff();
  const Eigen::VectorXd x = s.data.points.row(s.data.differing_index).transpose();
  return loss_family(s.loss).pair_sensitivity(s, x);
}

LossConstants derive_loss_constants(const LossDescription& loss) {
  const double D = loss.domain_diameter;
  require(D > 0.0, "loss.domain_diameter", D, "must be > 0 (+inf: unconstrained)");
  require(loss.lambda >= 0.0 && std::isfinite(loss.lambda), "loss.lambda", loss.lambda,
          "must be >= 0 and finite");
  return loss_family(loss.family).constants(loss);
}

}  // namespace rdpaudit::config
