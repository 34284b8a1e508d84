// The loss families, one row each (src/config/loss.cpp): the name a user writes, the [model]
// keys, what the family implies about the audited pair (its S_g, needed to read the noise
// conventions), the constants lambda, beta, S_g, L the bounds assume with the derivation they
// rest on, and how fast the family lets the iterates grow (the run's overflow checks). The
// gradient itself is sim's (sim/loss.hpp).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "rdpaudit/config/scenario.hpp"

namespace rdpaudit::config {

class Reader;

/// S_g of the scenario's pair: the l2 sensitivity of the total gradient sum_i grad l(theta; x_i)
/// when record i0 is replaced (or, for a crafted record or an absent one, removed).
double pair_sensitivity(const Scenario& s);

struct LossDescription {
  LossKind family = LossKind::kQuadratic;
  /// quadratic: curvature lambda of lambda/2 ||theta - x||^2;  logistic: L2 regulariser
  /// lambda of Eq. (7);  linear: must be 0.
  double lambda = 0.0;
  /// quadratic: every data point has ||x_i|| <= R;  linear: every ||g_i|| <= R.
  double data_radius = kInf;
  /// logistic: features clipped to ||x_i|| <= L_feat (Algorithm 2, "Feature Clipping").
  double feature_clip = kInf;
  /// logistic: per-example l2 clip C on the unregularised gradient (Algorithm 2; C = S_g/2).
  /// +inf: no gradient clipping.
  double grad_clip = kInf;
  /// D: the iterates are projected onto the closed ball of diameter D centred at the origin
  /// (+inf: unconstrained).  Only the per-example Lipschitz constant L depends on it.
  double domain_diameter = kInf;
  /// The pair's relation: S_g is the replace-one sensitivity, or (add_remove, logistic) that
  /// of record i0 against its absence.
  Adjacency adjacency = Adjacency::kReplaceOne;
};

struct LossConstants {
  double lambda;  ///< strong convexity (0: merely convex)
  double beta;    ///< smoothness
  double S_g;     ///< l2-sensitivity of the total gradient (LossDescription::adjacency)
  double L;       ///< bound on every per-example gradient norm on the domain (+inf if none)
  std::string derivation;  ///< where each constant comes from
};

/// quadratic  l = lambda/2 ||theta - x||^2: grad = lambda (theta - x), Hessian lambda I, so
///            lambda-strongly convex and beta = lambda smooth; replacing x by x' changes the
///            total gradient by lambda ||x - x'|| <= 2 lambda R = S_g; on the ball of diameter D
///            about 0, ||grad|| <= lambda (D/2 + R) = L.
/// logistic   Eq. (7) with ||x|| <= L_feat: beta = (L_feat^2 + 1)/2 + lambda (Prop. 5.1 and
///            Prop. 5.2 / Eq. (11)); S_g = 2 C with clipping (Prop. 5.2), otherwise
///            2 sqrt(2 (L_feat^2 + 1)) (Prop. 5.1 Lipschitz constant, Section F.4); half
///            that for add_remove (one clipped gradient against none);
///            L = min(C, sqrt(2 (L_feat^2 + 1))) + lambda D/2.
/// linear     l = <g, theta> with ||g|| <= R: Hessian 0 (beta = 0, not strongly convex),
///            S_g = 2 R, L = R.
/// gradient_formula: nothing derived (lambda = beta = 0, S_g = NaN, L = +inf placeholders);
///            the bounds use the [bounds] constants the user states (bounds/scenario.cpp).
/// Throws InputError when a constant the family needs is missing (R, L_feat) or negative.
LossConstants derive_loss_constants(const LossDescription& loss);

/// model.gradient (model.loss = "gradient_formula"): the names its formula reads, theta
/// (coordinate k of the parameters) and x (coordinate k of the record).
inline constexpr const char* kGradientKey = "model.gradient";
inline constexpr std::array<const char*, 2> kGradientNames{"theta", "x"};
inline constexpr const char* kGradientNamesText =
    "the formula may use theta (a coordinate of the parameters), x (the same coordinate of the "
    "record) and muparser's functions";

/// Points of theta (plus one) at which check_gradient_values evaluates model.gradient.
inline constexpr int kGradientCheckPoints = 1000;

/// model.loss = "gradient_formula": model.gradient is finite (at most 1e100 in magnitude) at
/// every record's value x (each coordinate, D and D') and 1001 points theta spread over the
/// projection's interval on that coordinate (unprojected: theta_0's mean +- 10 (init.std +
/// s sqrt(T))); otherwise an InputError naming model.gradient. Nothing for other losses.
void check_gradient_values(const Scenario& s, Reader& r);

/// One loss family: everything config knows of it. A new family is its LossKind enumerator,
/// its row of loss_families() and its functor in sim/loss.hpp.
struct LossFamily {
  LossKind kind;
  const char* name;  ///< as written in model.loss
  /// Reads the family's own [model] keys (model.loss is read): s.dim, s.lambda, ...
  void (*read_model)(Scenario& s, Reader& r);
  /// ||total gradient on D - on D'|| when record x is replaced by s.data.replacement.
  double (*pair_sensitivity)(const Scenario& s, const Eigen::VectorXd& x);
  /// lambda, beta, S_g, L from the description, whose domain diameter and lambda >= 0 are
  /// already checked; throws InputError naming the loss.* key a constant needs.
  LossConstants (*constants)(const LossDescription& loss);
  /// Largest norm of one record's gradient (before the batch's normaliser) when every record
  /// has norm <= record_norm, at any iterate.
  double (*gradient_bound)(const Scenario& s, double record_norm);
  /// c of |theta_{t+1}| <= c |theta_t| + (gradient and noise), for a full batch of b records.
  double (*contraction)(const Scenario& s);
  /// The contraction scales with the batch's size: random under Poisson sampling, where the
  /// file alone cannot bound the growth (sim/ detects a divergence).
  bool contraction_scales_with_batch;
  const char* contracted;  ///< what the contraction multiplies, for messages
};

/// Every loss family, in the order of loss_names().
const std::vector<LossFamily>& loss_families();
const LossFamily& loss_family(LossKind kind);

}  // namespace rdpaudit::config
