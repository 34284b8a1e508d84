#include "rdpaudit/bounds/scenario.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "rdpaudit/bounds/accountant.hpp"
#include "rdpaudit/bounds/loss.hpp"
#include "rdpaudit/config/traits.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::bounds {

namespace {

Init init_of(const config::Scenario& s) {
  if (s.init_std == 0) return Init::kFixedPoint;
  // Theorem D.7 (Chourasia et al.) starts from N(0, (2 sigma^2/lambda) I) = N(0, s^2/(eta lambda)
  // I).
  const double chourasia = s.step_std * s.step_std / (s.eta * s.lambda);
  if (s.lambda > 0 && s.init_mean.isZero(0) &&
      std::fabs(s.init_std * s.init_std - chourasia) <= 1e-9 * chourasia) {
    return Init::kGaussianChourasia;
  }
  return Init::kGaussian;
}

// Largest ||record - centre|| over D and D' (the data radius R of loss.hpp).
double data_radius(const config::Scenario& s) {
  const auto& pts = s.data.points;
  const Eigen::VectorXd c = s.loss == config::LossKind::kQuadratic
                                ? s.projection_center
                                : Eigen::VectorXd::Zero(pts.cols());
  double r = (s.data.replacement - c).norm();
  for (Eigen::Index i = 0; i < pts.rows(); ++i)
    r = std::max(r, (pts.row(i).transpose() - c).norm());
  return r;
}

bool epoch_scheme(config::BatchScheme s) {
  return config::scheme_info(s).partitions_epochs;
}

// The crafted record (data.preset = "crafted_gradient") against its absence. A gradient g
// that is the same at every step is that of the linear loss <g, theta>: convex,
// ||g||-Lipschitz, 0-smooth, so every record's loss is convex and beta-smooth with the
// others' beta, none is strongly convex (the paper's Theorems 2.1, 3.3, 4.2, 4.3, D.5-D.7
// assume every l(theta; x) lambda-strongly convex), and L grows to ||g|| (blog Theorem 1,
// assumption 2). A gradient that changes with the step is no loss applied at every step:
// only the composition bounds (a per-step gradient of norm <= S_g) remain.
void crafted_constants(const config::Scenario& s, Params& p, std::string& derivation) {
  const double g = s.data.crafted_gradient.rowwise().norm().maxCoeff();
  p.lambda = 0.0;
  p.L = std::max(p.L, g);
  if (s.data.crafted_constant()) {
    derivation += fmt::format(
        "; crafted record: the gradient of <g, theta> with ||g|| = {:.6g} (convex, 0-smooth, not "
        "strongly convex: lambda = 0; L = max(L, ||g||)); S_g = ||g|| against its absence",
        g);
    return;
  }
  p.not_one_loss =
      "the crafted gradient changes with the step t (data.gradient_formula): it is not the "
      "gradient of one loss l(theta; x) applied at every step, as the theorem assumes";
  derivation += fmt::format(
      "; crafted record: g_t changes with t, max_t ||g_t|| = S_g = {:.6g}; only composition "
      "bounds apply",
      g);
}

// A loss given by its gradient formula (model.loss = "gradient_formula"): nothing about it is
// derived (a formula may be non-convex, non-smooth, unbounded), so the constants are the
// [bounds] values the user states, as the user's claim (unchecked). Without bounds.S_g no
// bound applies (every bound needs the pair's sensitivity); without bounds.lambda (0: convex)
// and bounds.beta, the bounds whose source assumes a convex smooth loss do not apply; without
// bounds.L, L = +inf (the blog's bounds say so).
void formula_constants(const config::Scenario& s, Params& p, ScenarioBounds& out) {
  const auto& o = s.bounds;
  if (std::isnan(o.sensitivity)) {
    p.S_g = 0.0;  // never used: not_applicable
    if (out.not_applicable.empty()) {
      out.not_applicable =
          "model.loss = \"gradient_formula\": the pair's sensitivity S_g is not derived from the "
          "formula; state it as bounds.S_g (a claim of the user's, unchecked)";
    }
  }
  if (std::isnan(o.lambda) || std::isnan(o.beta)) {
    p.not_one_loss =
        "model.loss = \"gradient_formula\": nothing says the loss is convex and smooth, as the "
        "theorem assumes; state bounds.lambda (strong convexity, 0: convex) and bounds.beta "
        "(smoothness) as claims of the user's, unchecked";
  }
  out.derivation += "; the [bounds] constants are the user's claims about the gradient formula";
}

}  // namespace

ScenarioBounds bounds_of(const config::Scenario& s) {
  ScenarioBounds out;
  Params& p = out.params;
  p.loss = s.loss;
  p.scheme = s.scheme;
  p.init = init_of(s);
  p.eta = s.eta;
  p.step_std = s.step_std;
  p.D = s.projection_diameter;
  p.n = s.n();
  p.b = s.batch_size;
  if (config::scheme_info(s.scheme).sizing == config::BatchSizing::kExpected) {
    // The simulated q, not b/n: the simulator draws each record with probability q and
    // divides the batch sum by q*n, which need not be whole (then b = 0: the bounds that
    // count batches of b records are not applicable).
    p.q = s.sampling_rate;
    p.b = whole_batch_size(s.sampling_rate * static_cast<double>(s.n()));
  }
  p.T = s.steps;
  const long m = s.steps_per_epoch;
  p.K = std::max(1L, s.steps / m);
  p.j0 = std::max(0, s.differing_batch);
  p.adjacency = s.data.adjacency;
  p.feature_clip = s.loss == config::LossKind::kLogistic ? s.feature_clip : kNaN;
  p.clip_norm = std::isfinite(s.clip_norm) ? s.clip_norm : kNaN;
  p.eps_norm = s.bounds.eps_norm;
  if (epoch_scheme(s.scheme) && s.steps % m != 0) {
    out.not_applicable = fmt::format(
        "T = {} steps is not a whole number of epochs of floor(n/b) = {} steps; the bounds "
        "for scheme {} count epochs",
        s.steps, m, config::to_string(s.scheme));
  }

  LossDescription loss;
  loss.family = p.loss;
  loss.lambda = s.loss == config::LossKind::kLinear ? 0.0 : s.lambda;
  loss.data_radius = s.loss == config::LossKind::kLogistic ? kInf : data_radius(s);
  loss.feature_clip = s.feature_clip;
  loss.grad_clip = s.clip_norm;
  loss.domain_diameter = s.projection_diameter;
  loss.adjacency = s.data.adjacency;
  if (s.data.absent) {
    p.not_replacement =
        "the pair is add_remove with record i0 left out of D' (model.loss = \"logistic\", "
        "data.adjacency = \"add_remove\"), which no replacement by a record of the loss gives "
        "(a logistic record always has a gradient); the bound is stated for replace_one "
        "neighbours";
  }
  try {
    const LossConstants c = derive_loss_constants(loss);
    p.lambda = c.lambda;
    p.beta = c.beta;
    p.L = c.L;
    p.S_g = s.loss == config::LossKind::kLogistic ? c.S_g : s.sensitivity;
    out.derivation = c.derivation;
    if (std::isfinite(s.sensitivity)) {
      out.derivation += fmt::format("; S_g = {:.6g}: the sensitivity of this pair", s.sensitivity);
    }
  } catch (const InputError& e) {
    // The logistic loss without model.feature_clip: beta (and the Lipschitz constant the
    // paper derives) are unknown, so the bounds that assume a loss are not applicable. The
    // composition bounds need only the pair's sensitivity and the noise: with model.clip_norm
    // it is 2C (replace-one, Proposition 5.2) or the pair's own, and they still apply.
    p.lambda = loss.lambda;
    p.beta = 0;
    p.S_g = s.sensitivity;
    p.L = kInf;
    const std::string reason = std::string("loss constants: ") + e.what();
    if (std::isfinite(s.sensitivity)) {
      p.missing_constants = reason;
      out.derivation = fmt::format(
          "{}; S_g = {:.6g}: the sensitivity of this pair{}", reason, s.sensitivity,
          s.loss != config::LossKind::kLogistic ? ""
          : s.data.absent
              ? " (model.clip_norm: the per-example clip C, record i0 against its absence)"
              : " (2 model.clip_norm: the per-example clip C, Proposition 5.2)");
    } else if (out.not_applicable.empty()) {
      out.not_applicable = reason + "; and the pair's sensitivity S_g is not finite" +
                           (s.loss == config::LossKind::kLogistic
                                ? " (model.clip_norm, the per-example clip, is not set)"
                                : "");
    }
  }
  if (s.data.crafted) crafted_constants(s, p, out.derivation);
  const auto& o = s.bounds;
  const auto override = [&](double v, double& field, const char* name) {
    if (std::isnan(v)) return;
    field = v;
    out.derivation += fmt::format("; {} = {:.6g} from [bounds]", name, v);
  };
  override(o.lambda, p.lambda, "lambda");
  override(o.beta, p.beta, "beta");
  override(o.sensitivity, p.S_g, "S_g");
  override(o.lipschitz, p.L, "L");
  override(o.diameter, p.D, "D");
  if (s.loss == config::LossKind::kGradientFormula) formula_constants(s, p, out);
  for (const auto& c : o.custom) out.custom.emplace_back(custom_bound_spec(c, o.alphas));
  return out;
}

std::vector<BoundValue> evaluate_scenario(const ScenarioBounds& sb,
                                          const std::vector<double>& alphas) {
  if (sb.not_applicable.empty()) return evaluate_all(sb.params, alphas, sb.custom);
  std::vector<BoundValue> out;
  const auto add = [&](const std::string& name, const std::string& source, Kind kind) {
    for (double a : alphas) {
      BoundValue v;
      v.name = name;
      v.source = source;
      v.kind = kind;
      v.adjacency = bound_adjacency(name, sb.params.adjacency);
      v.alpha = a;
      v.not_applicable = sb.not_applicable;
      out.push_back(std::move(v));
    }
  };
  for (const auto& info : bound_catalogue()) add(info.name, info.source, info.kind);
  for (const auto& c : sb.custom) add(c.name(), c.spec().source, Kind::kCustom);
  return out;
}

namespace {

/// Each profile bound at each point, not applicable with the scenario's reason.
std::vector<ProfileValue> scenario_wide(const ScenarioBounds& sb,
                                        const std::vector<double>& points) {
  std::vector<ProfileValue> out;
  for (const BoundInfo& info : profile_catalogue()) {
    for (double at : points) {
      out.push_back(ProfileValue{info.name, info.source, info.kind, info.adjacency, at,
                                 std::nullopt, sb.not_applicable});
    }
  }
  return out;
}

}  // namespace

std::vector<ProfileValue> epsilon_bounds_of(const ScenarioBounds& sb,
                                            const std::vector<double>& deltas) {
  if (!sb.not_applicable.empty()) return scenario_wide(sb, deltas);
  return epsilon_bounds(sb.params, deltas);
}

std::vector<ProfileValue> delta_bounds_of(const ScenarioBounds& sb,
                                          const std::vector<double>& epsilons) {
  if (!sb.not_applicable.empty()) return scenario_wide(sb, epsilons);
  return delta_bounds(sb.params, epsilons);
}

}  // namespace rdpaudit::bounds
