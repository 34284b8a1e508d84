// The catalogue of built-in bounds and their preconditions.  The formulas live in
// ye_shokri.cpp, blog.cpp and mechanisms.cpp; this file decides when each one applies.
#include "rdpaudit/bounds/bounds.hpp"

#include <fmt/format.h>

#include <cmath>
#include <initializer_list>
#include <optional>

#include "rdpaudit/bounds/blog.hpp"
#include "rdpaudit/bounds/mechanisms.hpp"
#include "rdpaudit/bounds/ye_shokri.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::bounds {
namespace {

std::string g(double x) {
  return fmt::format("{:.6g}", x);
}

/// Collects the reasons a bound does not apply.
class Checks {
 public:
  explicit Checks(const Params& p) : p_(p) {}

  void require(bool ok, const std::string& reason) {
    if (ok) return;
    reasons_ += (reasons_.empty() ? "" : "; ") + reason;
  }
  bool ok() const { return reasons_.empty(); }
  const std::string& reasons() const { return reasons_; }

  void scheme(std::initializer_list<BatchScheme> allowed, const char* why) {
    for (BatchScheme s : allowed) {
      if (p_.scheme == s) return;
    }
    require(false, fmt::format("scheme {} is not covered: {}", config::to_string(p_.scheme), why));
  }
  /// The source assumes each record's gradient is that of one loss at every step, with the
  /// constants (beta, L) it derives from that loss.
  void one_loss() {
    require(p_.not_one_loss.empty(), p_.not_one_loss);
    require(p_.missing_constants.empty(), p_.missing_constants);
  }
  void unconstrained() {
    require(std::isinf(p_.D),
            fmt::format("the iterates are projected onto a domain of diameter D = {}, but "
                        "Algorithm 1 is unconstrained (no projection)",
                        g(p_.D)));
  }
  /// False when beta and L are unknown (Params::missing_constants; one_loss() gives the
  /// reason): the checks that would read their stand-ins are skipped.
  bool constants_known() const { return p_.missing_constants.empty(); }
  void strongly_convex_smooth() {
    require(p_.lambda > 0.0, "the loss is not strongly convex (lambda = 0)");
    if (!constants_known()) return;
    require(p_.beta >= p_.lambda,
            fmt::format("beta = {} < lambda = {}: no loss is lambda-strongly convex and "
                        "beta-smooth",
                        g(p_.beta), g(p_.lambda)));
  }
  /// eta < limit (strict) or eta <= limit; `limit_text` is the source's expression.
  void step(double limit, bool strict, const char* limit_text) {
    if (!constants_known()) return;  // the limit is beta's
    const bool ok = strict ? p_.eta < limit : p_.eta <= limit;
    require(ok, fmt::format("step size eta = {} is not {} {} = {}", g(p_.eta),
                            strict ? "<" : "<=", limit_text, g(limit)));
  }
  void two_batches() {
    require(batches_per_epoch(p_) >= 2,
            fmt::format("floor(n/b) = floor({}/{}) = {} mini-batch per epoch; the theorem "
                        "assumes n/b >= 2",
                        p_.n, p_.b, batches_per_epoch(p_)));
  }
  /// The bound counts batches of b records (n/b, b/n, a batch of b): a Poisson scenario
  /// qualifies only when its expected batch size q*n is a whole number b.
  void whole_batch() {
    require(p_.b >= 1,
            fmt::format("the expected Poisson batch size q*n = {} is not a whole number; the "
                        "bound counts batches of b records",
                        g(batch_normaliser(p_))));
  }
  void whole_epochs() {
    if (p_.b < 1) return;  // whole_batch() gives the reason
    const long steps = p_.K * batches_per_epoch(p_);
    require(p_.T == steps, fmt::format("T = {} is not K floor(n/b) = {}: the bound counts "
                                       "whole epochs",
                                       p_.T, steps));
  }

 private:
  const Params& p_;
  std::string reasons_;
};

using Eval = std::optional<double> (*)(const Params&, double, Checks&);

struct Entry {
  BoundInfo info;
  Eval eval;
};

/// Runs `formula` only when every check passed.
template <typename F>
std::optional<double> when_ok(const Checks& c, F&& formula) {
  if (!c.ok()) return std::nullopt;
  return formula();
}

const char* const kStronglyConvexStep = "2/(lambda+beta)";

// ---- Ye & Shokri 2022 ----

std::optional<double> thm2_1(const Params& p, double a, Checks& c) {
  c.one_loss();
  c.scheme({BatchScheme::kShufflePartition, BatchScheme::kFixedOrder, BatchScheme::kFullBatch},
           "Theorem 2.1 is stated for shuffle and partition (Figure 1 also uses it for a fixed "
           "order; full batch is the case n/b = 1)");
  c.unconstrained();
  c.strongly_convex_smooth();
  c.step(2.0 / (p.lambda + p.beta), true, kStronglyConvexStep);
  return when_ok(c, [&] { return ye_shokri::thm2_1(p, a); });
}

void thm3_3_checks(const Params& p, Checks& c) {
  c.one_loss();
  c.unconstrained();
  c.strongly_convex_smooth();
  c.step(2.0 / (p.lambda + p.beta), true, kStronglyConvexStep);
  c.two_batches();
}

std::optional<double> thm3_3_fixed(const Params& p, double a, Checks& c) {
  c.scheme({BatchScheme::kFixedOrder},
           "Theorem 3.3 is conditioned on one fixed sequence of partitioned mini-batches");
  thm3_3_checks(p, c);
  return when_ok(c, [&] { return ye_shokri::thm3_3(p, a, p.j0); });
}

std::optional<double> thm3_3_worst(const Params& p, double a, Checks& c) {
  c.scheme({BatchScheme::kFixedOrder, BatchScheme::kShufflePartition},
           "Theorem 3.3 needs one partition kept for all epochs (fixed, or drawn once)");
  thm3_3_checks(p, c);
  return when_ok(c, [&] { return ye_shokri::thm3_3(p, a, batches_per_epoch(p) - 1); });
}

void thm4_2_checks(const Params& p, Checks& c) {
  c.scheme({BatchScheme::kShufflePartition},
           "Theorem 4.2 analyses shuffle and partition with one partition kept for all epochs "
           "(Algorithm 1, step 2)");
  thm3_3_checks(p, c);
}

std::optional<double> thm4_2(const Params& p, double a, Checks& c) {
  thm4_2_checks(p, c);
  return when_ok(c, [&] { return ye_shokri::thm4_2(p, a); });
}

std::optional<double> thm4_2_fn4(const Params& p, double a, Checks& c) {
  thm4_2_checks(p, c);
  return when_ok(c, [&] { return ye_shokri::thm4_2_footnote4_as_printed(p, a); });
}

std::optional<double> thm4_3(const Params& p, double a, Checks& c) {
  c.one_loss();
  c.scheme({BatchScheme::kSampleWithoutReplacement, BatchScheme::kFullBatch},
           "Theorem 4.3 analyses (re)sampling b indices without replacement for every step");
  c.unconstrained();
  c.strongly_convex_smooth();
  c.step(2.0 / (p.lambda + p.beta), true, kStronglyConvexStep);
  c.whole_epochs();
  return when_ok(c, [&] { return ye_shokri::thm4_3(p, a); });
}

std::optional<double> thmD4(const Params& p, double a, Checks& c) {
  c.one_loss();
  c.scheme({BatchScheme::kFixedOrder, BatchScheme::kFullBatch},
           "Theorem D.4 is conditioned on fixed mini-batches");
  c.unconstrained();
  c.require(p.beta == 0.0 || p.eta < 2.0 / p.beta,
            fmt::format("step size eta = {} is not < 2/beta = {}", g(p.eta), g(2.0 / p.beta)));
  const long j0 = p.scheme == BatchScheme::kFixedOrder ? p.j0 : 0;
  return when_ok(c, [&] { return ye_shokri::thmD4(p, a, j0); });
}

std::optional<double> thmD5(const Params& p, double a, Checks& c) {
  c.one_loss();
  c.scheme({BatchScheme::kFixedOrder},
           "Theorem D.5 is conditioned on a fixed sequence of partitioned mini-batches");
  c.unconstrained();
  c.strongly_convex_smooth();
  c.step(2.0 / (p.beta + p.lambda), false, "2/(beta+lambda)");
  c.two_batches();
  const long last = batches_per_epoch(p) - 1;
  c.require(p.j0 == 0 || p.j0 == last,
            fmt::format("j0 = {}: Section D.6 states the composed bound only for the first "
                        "(j0 = 0) and the last (j0 = {}) batch",
                        p.j0, last));
  return when_ok(c, [&] { return ye_shokri::thmD5_composed(p, a, p.j0 == last); });
}

void full_batch_checks(const Params& p, Checks& c, const char* which) {
  c.one_loss();
  c.scheme({BatchScheme::kFullBatch}, which);
  c.unconstrained();
  c.strongly_convex_smooth();
  c.step(1.0 / p.beta, true, "1/beta");
}

std::optional<double> thmD6(const Params& p, double a, Checks& c) {
  full_batch_checks(p, c, "Theorem D.6 is for full-batch noisy gradient descent (b = n)");
  return when_ok(c, [&] { return ye_shokri::thmD6(p, a); });
}

std::optional<double> thmD7(const Params& p, double a, Checks& c) {
  full_batch_checks(p, c, "Theorem D.7 is for full-batch noisy gradient descent (b = n)");
  c.require(p.init == Init::kGaussianChourasia,
            fmt::format("initialisation {}: Theorem D.7 starts from theta_0 ~ N(0, 2 sigma^2 / "
                        "lambda I)",
                        init_name(p.init)));
  return when_ok(c, [&] { return ye_shokri::thmD7(p, a); });
}

std::optional<double> cor5_3(const Params& p, double a, Checks& c) {
  c.one_loss();
  c.scheme({BatchScheme::kShufflePartition},
           "Corollary 5.3 applies Theorem 4.2 (shuffle and partition)");
  c.require(p.loss == LossKind::kLogistic,
            fmt::format("loss {}: Corollary 5.3 is for regularised logistic regression",
                        config::to_string(p.loss)));
  c.unconstrained();
  c.require(p.lambda > 0.0, "the loss is not strongly convex (lambda = 0)");
  c.two_batches();
  if (std::isnan(p.feature_clip)) {  // not the logistic loss
    c.require(false, "feature_clip (the feature norm bound L of Corollary 5.3) is not set");
  } else if (std::isfinite(p.feature_clip)) {
    const double Lf = p.feature_clip;
    c.step(2.0 / ((Lf * Lf + 1.0) / 2.0 + 2.0 * p.lambda), true, "2/((L^2+1)/2 + 2 lambda)");
  }  // +inf: no model.feature_clip, the reason one_loss() gives (Params::missing_constants)
  return when_ok(c, [&] { return ye_shokri::cor5_3(p, a); });
}

std::optional<double> fig2(const Params& p, double a, Checks& c) {
  c.scheme({BatchScheme::kShufflePartition, BatchScheme::kSampleWithoutReplacement,
            BatchScheme::kPoisson},
           "Figure 2 uses this composition baseline for stochastic mini-batches");
  c.whole_batch();
  c.whole_epochs();
  return when_ok(c, [&] { return ye_shokri::fig2_composition(p, a); });
}

// ---- blog ----

void blog_checks(const Params& p, Checks& c) {
  c.one_loss();
  c.scheme({BatchScheme::kSampleWithoutReplacement, BatchScheme::kFullBatch},
           "the blog samples a uniformly random mini-batch of size b at every iteration");
  c.require(std::isfinite(p.D),
            "the domain is unbounded (D = inf); the blog projects onto a "
            "closed convex set of finite diameter D");
  c.require(std::isfinite(p.L) || !c.constants_known(),
            "no per-example gradient bound (L = inf); the blog needs every "
            "f_i to be L-Lipschitz");
  c.require(p.beta == 0.0 || p.eta <= 2.0 / p.beta,
            fmt::format("step size eta = {} is not <= 2/M = {}", g(p.eta), g(2.0 / p.beta)));
  c.require(p.init == Init::kFixedPoint,
            fmt::format("initialisation {}: the blog starts both runs at one point w_0 in K",
                        init_name(p.init)));
}

std::optional<double> blog_thm1(const Params& p, double a, Checks& c) {
  blog_checks(p, c);
  return when_ok(c, [&] { return blog::thm1_saturation(p, a); });
}

std::optional<double> blog_step5(const Params& p, double a, Checks& c) {
  blog_checks(p, c);
  return when_ok(c, [&] { return blog::step5_as_derived(p, a); });
}

// ---- composition baselines ----

std::optional<double> mtz(const Params& p, double a, Checks& c) {
  c.scheme({BatchScheme::kPoisson},
           "the sampled Gaussian mechanism samples each record "
           "independently (Poisson)");
  return when_ok(c, [&] {
    return static_cast<double>(p.T) * mtz_poisson_rdp(sampling_rate(p), step_noise_ratio(p), a);
  });
}

std::optional<double> wbk(const Params& p, double a, Checks& c) {
  c.scheme({BatchScheme::kSampleWithoutReplacement, BatchScheme::kFullBatch},
           "Wang et al. 2019 analyse a subsample of fixed size drawn without replacement");
  return when_ok(c, [&] {
    return static_cast<double>(p.T) * wbk_swor_rdp(sampling_rate(p), step_noise_ratio(p), a);
  });
}

std::optional<double> wbk27(const Params& p, double a, Checks& c) {
  c.scheme({BatchScheme::kSampleWithoutReplacement, BatchScheme::kFullBatch},
           "Wang et al. 2019 analyse a subsample of fixed size drawn without replacement");
  // Theorem 27 (Gaussian mechanism, sensitivity eta S_g / b, noise s), composed over T steps.
  return when_ok(c, [&] {
    return static_cast<double>(p.T) *
           wbk_swor_gaussian_rdp(sampling_rate(p), step_noise_ratio(p), a);
  });
}

std::optional<double> gaussian_composition(const Params& p, double a, Checks& c) {
  // Steps that can touch the differing record: one per epoch when every epoch visits every
  // record once, otherwise (sampling) every step.
  const bool per_epoch =
      p.scheme != BatchScheme::kSampleWithoutReplacement && p.scheme != BatchScheme::kPoisson;
  double uses = static_cast<double>(per_epoch ? p.K : p.T);
  if (p.scheme == BatchScheme::kRandomAllocation && p.b > 0) {
    // One step of every epoch begun, a partial last one included (T need not be whole epochs
    // of t = n/b steps): the record may sit in its first T - K t steps.
    const long t = p.n / p.b;
    uses = static_cast<double>((p.T + t - 1) / t);
  }
  return when_ok(c, [&] { return uses * gaussian_rdp(step_noise_ratio(p), a); });
}

const std::vector<Entry>& entries() {
  static const std::vector<Entry> table{
      {{"ys_thm2.1_naive", "Ye & Shokri 2022, Theorem 2.1 (naive extension of Chourasia et al.)",
        Kind::kTheorem,
        "shuffle_partition (fixed_order as in Fig. 1, full_batch); lambda > 0; eta < "
        "2/(lambda+beta); unconstrained"},
       thm2_1},
      {{"ys_thm3.3_fixed_order", "Ye & Shokri 2022, Theorem 3.3, Eq. (3), batch j0", Kind::kTheorem,
        "fixed_order; lambda > 0; eta < 2/(lambda+beta); n/b >= 2; unconstrained"},
       thm3_3_fixed},
      {{"ys_thm3.3_worst_batch",
        "Ye & Shokri 2022, Theorem 3.3, Eq. (3) at j0 = n/b - 1 (largest over j0; Figure 2 "
        "'last batch')",
        Kind::kTheorem, "fixed_order, shuffle_partition; as Theorem 3.3"},
       thm3_3_worst},
      {{"ys_thm4.2_shuffle_partition",
        "Ye & Shokri 2022, Theorem 4.2, Eq. (5) (log-average-exp shifted by its largest term)",
        Kind::kTheorem,
        "shuffle_partition; lambda > 0; eta < 2/(lambda+beta); n/b >= 2; unconstrained"},
       thm4_2},
      {{"ys_thm4.2_footnote4_as_printed",
        "Ye & Shokri 2022, Theorem 4.2 with footnote 4's shifted expression as printed (no "
        "1/(alpha-1) before the log; differs from Eq. (5))",
        Kind::kApproximation, "as Theorem 4.2"},
       thm4_2_fn4},
      {{"ys_thm4.3_sample_wor",
        "Ye & Shokri 2022, Theorem 4.3, Eq. (6), recursion (148)-(150) in log space",
        Kind::kTheorem,
        "sample_without_replacement (full_batch); lambda > 0; eta < 2/(lambda+beta); T = K "
        "floor(n/b); "
        "unconstrained"},
       thm4_3},
      {{"ys_thmD.4_convex", "Ye & Shokri 2022, Theorem D.4, Eq. (80), batch j0", Kind::kTheorem,
        "fixed_order, full_batch; convex; eta < 2/beta; unconstrained"},
       thmD4},
      {{"ys_thmD.5_balle_composed",
        "Ye & Shokri 2022, Theorem D.5 (Balle et al. 2019, Thm 5), Eq. (111), composed over K "
        "epochs as in Section D.6",
        Kind::kTheorem,
        "fixed_order, j0 = 0 or n/b - 1; lambda > 0; eta <= 2/(beta+lambda); n/b >= 2; "
        "unconstrained"},
       thmD5},
      {{"ys_thmD.6_full_batch", "Ye & Shokri 2022, Theorem D.6, Eq. (112)", Kind::kTheorem,
        "full_batch; lambda > 0; eta < 1/beta; unconstrained"},
       thmD6},
      {{"ys_thmD.7_chourasia",
        "Ye & Shokri 2022, Theorem D.7 = Chourasia et al. 2021, Corollary 1, Eq. (127)",
        Kind::kTheorem,
        "full_batch; lambda > 0; eta < 1/beta; theta_0 ~ N(0, 2 sigma^2/lambda I); "
        "unconstrained"},
       thmD7},
      {{"ys_cor5.3_logreg",
        "Ye & Shokri 2022, Corollary 5.3, Eqs. (12)-(13), sigma_mul of Algorithm 2 (Sec. F.1)",
        Kind::kTheorem,
        "shuffle_partition; logistic; lambda > 0; eta < 2/((L^2+1)/2 + 2 lambda); n/b >= 2"},
       cor5_3},
      {{"ys_fig2_composition_approx",
        "Ye & Shokri 2022, Figure 2 caption: composition bound 'approximately' (b/n) alpha "
        "eta S_g^2 / (4 sigma^2 b^2) K",
        Kind::kApproximation,
        "shuffle_partition, sample_without_replacement, poisson; T = K floor(n/b)",
        Adjacency::kAddRemove},  // the leading term of MTZ's add/remove accountant
       fig2},
      {{"blog_thm1_saturation", "Privacy Saturation blog, Theorem 1", Kind::kTheorem,
        "sample_without_replacement (full_batch); convex; L < inf; D < inf (projected); eta <= "
        "2/M; fixed "
        "start"},
       blog_thm1},
      {{"blog_step5_as_derived",
        "Privacy Saturation blog, Step 5: F(R) at R = T or R = ceil(Dn/(L eta))", Kind::kDerivation,
        "as blog Theorem 1"},
       blog_step5},
      {{"mtz19_poisson_composition",
        "Mironov, Talwar, Zhang 2019 (sampled Gaussian mechanism, add/remove neighbours), "
        "noise multiplier s/(eta S_g/b) as in Ye & Shokri Sec. E.1, composed over T steps",
        Kind::kBaseline, "poisson", Adjacency::kAddRemove},
       mtz},
      {{"wbk19_swor_composition",
        "Wang, Balle, Kasiviswanathan 2019, Theorem 9 + Corollary 10 (replace-one), Gaussian "
        "with sensitivity eta S_g/b, composed over T steps",
        Kind::kTheorem, "sample_without_replacement, full_batch"},
       wbk},
      {{"wbk19_thm27_swor_gaussian",
        "Wang, Balle, Kasiviswanathan 2019, Theorem 27 (the Gaussian mechanism's strengthening "
        "of Theorem 9, replace-one) + Corollary 10, as Google's dp_accounting evaluates it, "
        "Gaussian with sensitivity eta S_g/b, composed over T steps",
        Kind::kTheorem, "sample_without_replacement, full_batch"},
       wbk27},
      {{"gaussian_composition",
        "Mironov 2017, Corollary 3 (Gaussian mechanism) + Proposition 1 (composition), "
        "sensitivity eta S_g/b, over every step that can use the record; no amplification",
        Kind::kTheorem, "every scheme (K uses for epoch schemes, T when sampling)"},
       gaussian_composition},
  };
  return table;
}

BoundValue run(const Entry& e, const Params& p, double alpha) {
  Checks checks(p);
  if (e.info.adjacency == Adjacency::kReplaceOne)
    checks.require(p.not_replacement.empty(), p.not_replacement);
  BoundValue out{e.info.name, e.info.source, e.info.kind, e.info.adjacency,
                 alpha,       std::nullopt,  ""};
  out.value = e.eval(p, alpha, checks);
  if (!out.value) out.not_applicable = checks.reasons();
  return out;
}

}  // namespace

const std::vector<BoundInfo>& bound_catalogue() {
  static const std::vector<BoundInfo> infos = [] {
    std::vector<BoundInfo> v;
    for (const Entry& e : entries()) v.push_back(e.info);
    return v;
  }();
  return infos;
}

Adjacency bound_adjacency(std::string_view name, Adjacency scenario) {
  for (const Entry& e : entries()) {
    if (e.info.name == name) return e.info.adjacency;
  }
  return scenario;
}

std::string adjacency_mismatch(std::string_view name, Adjacency bound, Adjacency scenario,
                               bool absent) {
  if (bound == scenario) return "";
  const std::string head = fmt::format("{} assumes {} neighbours, the audited pair is {}: ", name,
                                       config::to_string(bound), config::to_string(scenario));
  if (bound == Adjacency::kAddRemove) {
    return head +
           "a replace-one divergence may exceed it without contradicting its source (it is a "
           "baseline, not a bound for this pair)";
  }
  if (absent) {
    return head +
           "record i0 is left out of D', which no replacement by a record of the loss gives, so "
           "the bound does not apply";
  }
  // An add/remove pair here is a record against one with zero gradient, which is also a
  // replacement of one record, so the replace-one statement covers it.
  return head +
         "the pair (a record against one with zero gradient) is also a replace-one pair, so "
         "the bound covers it";
}

BoundValue evaluate_bound(std::string_view name, const Params& p, double alpha) {
  validate(p);
  validate_alpha(alpha);
  for (const Entry& e : entries()) {
    if (e.info.name == name) return run(e, p, alpha);
  }
  throw InputError("bounds.name", std::string(name), "is not a built-in bound");
}

std::vector<BoundValue> evaluate_all(const Params& p, const std::vector<double>& alphas,
                                     const std::vector<CustomBound>& custom) {
  validate(p);
  for (double a : alphas) validate_alpha(a);
  std::vector<BoundValue> out;
  out.reserve((entries().size() + custom.size()) * alphas.size());
  for (const Entry& e : entries()) {
    for (double a : alphas) out.push_back(run(e, p, a));
  }
  for (const CustomBound& c : custom) {
    for (double a : alphas) out.push_back(c.evaluate(p, a));
  }
  return out;
}

}  // namespace rdpaudit::bounds
