// The immutable description of one simulated setting (one point of an experiment's sweep),
// with every default resolved and every noise convention converted. Only this crosses from
// config/ into the simulator.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rdpaudit/config/vocabulary.hpp"

namespace rdpaudit::config {

inline constexpr int kMaxDim = 8;  ///< largest parameter dimension d of the simulator
inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Which convention the experiment file used for the noise (exactly one is given).
enum class NoiseKey {
  kSigma,
  kSigma2,
  kNoiseMultiplier,       ///< z of Opacus / dp_accounting (relative to the per-example clip)
  kPaperNoiseMultiplier,  ///< sigma_mul of the paper's Algorithm 2 (relative to S_g/2)
  kBlogSigma,
  kStepStd
};

std::string to_string(NoiseKey v);

/// The neighbouring pair D, D'. D' equals D except record `differing_index`.
struct NeighbouringPair {
  std::string preset;           ///< name of the preset, empty when given explicitly
  Eigen::MatrixXd points;       ///< n x p: data x_i (quadratic), gradients g_i (linear),
                                ///< features (logistic, after feature clipping)
  std::vector<int> labels;      ///< logistic: class index of each record
  Eigen::VectorXd replacement;  ///< x'_{i0}, length p
  int replacement_label = 0;    ///< logistic: label of x'_{i0}
  int differing_index = 0;      ///< i0
  /// data.adjacency: replace_one, or add_remove when one side of the differing record has a
  /// gradient that is zero everywhere (linear loss, g = 0), i.e. is absent from every sum, or
  /// when record i0 is left out of D' (`absent`).
  Adjacency adjacency = Adjacency::kReplaceOne;
  /// D' lacks record i0: the logistic loss with data.adjacency = "add_remove" (a logistic
  /// record always has a gradient, so no record of the loss stands for the absence). Record
  /// i0 of D' then adds nothing to any gradient sum; its batch slot stays, so every scheme
  /// keeps its normaliser (b, or q n for Poisson). `replacement` is zeros and unused.
  bool absent = false;
  /// data.preset = "crafted_gradient": record i0 contributes, in D, a gradient given by the
  /// user instead of a loss's gradient (row t of `crafted_gradient` at step t, or its one row
  /// at every step) and, in D', nothing (it is absent: add_remove). Its rows of `points` and
  /// `replacement` are zeros and its batch slot counts no record of the loss.
  bool crafted = false;
  Eigen::MatrixXd crafted_gradient;  ///< 1 x d (data.gradient) or T x d (gradient_formula)
  std::string crafted_formula;       ///< data.gradient_formula as written; "" for a vector

  int n() const { return static_cast<int>(points.rows()); }
  /// The crafted gradient g_t of D at step t (crafted only).
  Eigen::VectorXd crafted_at(long t) const {
    return crafted_gradient.row(crafted_gradient.rows() == 1 ? 0 : t).transpose();
  }
  /// True when g_t is the same vector at every step: the gradient of the linear loss
  /// <g, theta> (convex, ||g||-Lipschitz, 0-smooth); otherwise no single loss gives it.
  bool crafted_constant() const {
    for (Eigen::Index t = 1; t < crafted_gradient.rows(); ++t) {
      if (crafted_gradient.row(t) != crafted_gradient.row(0)) return false;
    }
    return true;
  }
};

/// One swept key's value at a scenario: numeric keys have `number`, training.scheme has
/// `text` only (number = NaN).
struct SweepValue {
  std::string key;
  double number;
  std::string text;  ///< the value as written (numbers as %g)
};

/// A user-defined bound from the experiment file ([[bounds.custom]]), compiled by bounds/.
struct CustomBoundText {
  std::string name;
  std::string formula;                  ///< upper bound on R_alpha over the scenario's names
  std::vector<std::string> conditions;  ///< each must be nonzero (and not NaN) for it to apply
  /// Instead of a formula, an accountant's values, one per bounds.alphas order (NaN: not
  /// applicable there): `values` as written, or resolved per scenario from `values_file` (a
  /// CSV, path as written, relative to the experiment file) or from `command`'s output (argv;
  /// run with `timeout_s`) by bounds::resolve_accountant_values.
  std::vector<double> values;
  std::string values_file;
  std::vector<std::string> command;
  double timeout_s = 60;
  /// Its own `expect`, when written; otherwise the bounds.expect_* lists decide (default
  /// "holds"). A written expect that contradicts a list is refused when the file is read.
  std::optional<Expectation> expect;
};

/// The [bounds] table: orders, overrides of the constants derived from the loss and data,
/// and custom formulas.
struct BoundsSpec {
  /// The audited orders: bounds.alphas, else config::default_audited_orders() (resolved
  /// when the file is read; `rdpaudit bounds --alpha` replaces them for its table only).
  std::vector<double> alphas;
  double lambda = kNaN, beta = kNaN, sensitivity = kNaN, lipschitz = kNaN, diameter = kNaN;
  double eps_norm = 0;  ///< Corollary 5.3's normalisation cost
  std::vector<CustomBoundText> custom;
  /// Bounds the audit holds against the estimates: empty = every built-in and custom bound.
  std::vector<std::string> audit;
  /// Bounds expected to be found violated (bounds.expect_violated), or valid (exact) in every
  /// applicable cell (bounds.expect_valid_exact); all others are expected to hold. A custom
  /// bound may say it with its own `expect` key instead.
  std::vector<std::string> expect_violated, expect_valid_exact;
  /// Bounds expected to hold that would otherwise be informative (bounds.expect_holds): an
  /// approximation, or a baseline of another neighbouring relation, the file asks about.
  std::vector<std::string> expect_holds;
  /// A bound below the exact R_alpha's quadrature bracket is violated without sampling
  /// error; false audits the samples alone (bounds.exact_verdicts), as studies of the
  /// statistical verdict need.
  bool exact_verdicts = true;
};

/// The [estimate] table: which Renyi-divergence estimates `run` computes and stores.
struct EstimateSpec {
  bool enabled = true;
  /// estimate.alphas: added to config::estimation_orders' grid 1.1 ... 10.9, 11 ... 64
  /// (dp_accounting's orders up to 63, plus 64), as are the audited orders.
  std::vector<double> extra_alphas;
  double confidence = 0.95;  ///< family-wise level of the rigorous lower bounds
  /// Pilot trajectories per dataset of the selection phase (estimate.pilot), on streams of
  /// their own: they choose every cell, score and test function; all `trajectories` are then
  /// counted through those fixed maps.
  long pilot = 20'000;
  /// Methods run (estimate.methods; config::method_registry): default all of them.
  std::vector<Method> methods = {
#define RDPAUDIT_COUNT_METHOD(id, name, role, preference, run) Method::k##id,
#include "rdpaudit/config/count_methods.def"
      Method::kExact};
  bool runs(Method method) const {
    return std::find(methods.begin(), methods.end(), method) != methods.end();
  }
  int patterns = 4096;  ///< sampled batch schedules of the Rao-Blackwell mixture
  int bootstrap = 200;  ///< bootstrap replicates of the plug-in (diagnostic)
  /// The exact chain's grid (estimate.exact_cells_per_sd): cells per noise sd s, h = s / this.
  int exact_cells_per_sd = 40;
  /// The exact chain's work limit (estimate.exact_max_work): steps x grid cells x kernel width
  /// x cases, estimated before evolving; above it the scenario gets no exact-chain value (the
  /// default is about 20 s of one core, docs/experiments.md).
  double exact_max_work = 4e10;
  /// The exact chain's memory limit in bytes (estimate.exact_max_memory): its peak, estimated
  /// before evolving; above it the scenario gets no exact-chain value. The default is far above
  /// what a chain within the default work limit takes (at most about 2 GB).
  double exact_max_memory = 4e9;
};

/// A user's (eps, delta) claim ([[profile.claims]]): eps(delta) <= the claimed eps, in both
/// directions, at every delta of profile.deltas; or a Gaussian-DP claim (profile.claims[i].mu):
/// the pair is mu-GDP, audited on mu and on its (eps, delta) consequences at profile.deltas.
struct ClaimText {
  std::string name;
  std::vector<double> epsilons;  ///< one per profile.deltas (profile.claims[i].epsilon)
  double mu = kNaN;              ///< a GDP claim's mu (> 0, finite); NaN for an (eps, delta) claim
  std::string formula;           ///< or a muparser formula in delta and the scenario's names
  /// or a CSV (path as written, relative to the experiment file): columns the swept keys,
  /// delta, value; resolved into `epsilons` per scenario by bounds::resolve_accountant_values.
  std::string values_file;
  Expectation expect = Expectation::kHolds;  ///< its `expect` (default "holds")
};

/// The [profile] table: privacy-profile estimates and (eps, delta) claims. Off unless the
/// table is present (its cells join the audit's Holm family, which changes every verdict's
/// multiplicity).
struct ProfileSpec {
  bool enabled = false;
  std::vector<double> epsilons;  ///< the grid of delta(eps) (profile.epsilons), increasing
  std::vector<double> deltas;    ///< eps(delta) and the claims (profile.deltas), in (0, 1)
  /// Audit every audited Renyi bound's (eps, delta) consequence (profile.conversions).
  bool conversions = true;
  std::vector<ClaimText> claims;
  /// Conversions (named "<bound> (eps, delta)") expected violated (profile.expect_violated).
  std::vector<std::string> expect_violated;
};

struct Scenario {
  int index = 0;
  /// Values of the swept keys at this point, in file order.
  std::vector<SweepValue> sweep_point;

  // --- model ---
  LossKind loss = LossKind::kQuadratic;
  int dim = 1;                 ///< parameter dimension d (logistic: (features + 1) * classes)
  int features = 0;            ///< logistic only
  int classes = 0;             ///< logistic only
  double lambda = 0;           ///< quadratic curvature / logistic L2 regularisation
  double feature_clip = kInf;  ///< logistic: ||x|| <= L (Algorithm 2 feature clipping)
  /// model.clip_norm C: DP-SGD's per-example clip (logistic: of the unregularised gradient,
  /// S_g/2 of the replace-one pair; linear: every record's g and a crafted g_t, clipped when
  /// read); +inf: none. The noise multiplier z is relative to it.
  double clip_norm = kInf;
  /// gradient_formula: model.gradient as written, a muparser formula of theta and x giving
  /// coordinate k of a record's gradient from theta_k and x_k
  std::string gradient_formula;

  // --- training ---
  double eta = 0;
  int batch_size = 1;  ///< b (Poisson: expected batch size q*n)
  BatchScheme scheme = BatchScheme::kShufflePartition;
  long epochs = 0;           ///< K; 0 when the file gave steps
  long steps = 0;            ///< T, total number of updates
  long steps_per_epoch = 1;  ///< floor(n/b) (footnote 3), floor(1/q) for Poisson, 1 full batch
  int differing_batch = -1;  ///< fixed order: j0 (batch holding the differing record)
  double sampling_rate = 0;  ///< Poisson: q
  double projection_diameter = kInf;  ///< D of the l2 ball Pi_K; inf = no projection
  Eigen::VectorXd projection_center;  ///< centre of that ball (length d)

  // --- noise: one canonical per-step std, and every equivalent of it ---
  NoiseKey noise_key = NoiseKey::kSigma;
  double noise_value = 0;  ///< the number written in the file
  double step_std = 0;     ///< s: theta <- theta - eta*g + s*N(0, I)
  double sigma = 0;        ///< Algorithm 1: s = sqrt(2 eta sigma^2)
  /// Opacus / dp_accounting: noise std on the clipped-gradient sum / per-example clip norm,
  /// s = eta z clip_norm / b (config/noise.hpp); NaN without a per-example clip.
  double noise_multiplier = 0;
  /// Algorithm 2 / F.1: sigma = sqrt(eta/2) sigma_mul S_g/(2b); NaN if S_g = 0. Equals
  /// noise_multiplier when the clip norm is S_g/2 (the logistic loss).
  double paper_noise_multiplier = 0;
  double blog_sigma = 0;   ///< blog: s = eta * sigma_blog
  double sensitivity = 0;  ///< S_g: l2 sensitivity of the total gradient for this pair

  // --- initial parameters: theta_0 = init_mean + init_std * N(0, I) ---
  Eigen::VectorXd init_mean;
  double init_std = 0;

  NeighbouringPair data;

  // --- tallies ---
  int bins = 512;          ///< 1-D histogram bins per coordinate
  int bins_2d = 128;       ///< per axis of the 2-D histogram (d > 1)
  bool has_range = false;  ///< true: histogram range fixed in the file
  double range_lo = 0, range_hi = 0;
  long pilot_trajectories = 20000;  ///< per dataset, independent streams, place the bins
  long raw_cap = 0;                 ///< raw last iterates kept per dataset

  BoundsSpec bounds;      ///< the [bounds] table
  EstimateSpec estimate;  ///< the [estimate] table
  ProfileSpec profile;    ///< the [profile] table

  int n() const { return data.n(); }
};

/// One run of a custom bound's `command` (bounds::resolve_accountant_values): what the results
/// file stores so that the audit can be reproduced.
struct AccountantRun {
  std::string bound;                 ///< the custom bound's name
  std::vector<std::string> command;  ///< argv as written
  std::string directory;             ///< where it ran (the experiment file's folder)
  /// (argument as written, SHA-256) of each argument that names an existing regular file.
  std::vector<std::pair<std::string, std::string>> file_sha256;
  std::string input, output;  ///< the JSON written on its stdin, read from its stdout
  /// "ran" (this process ran it), "recorded" (its output was read from the checkpoint or part
  /// file the run continues), "listed" (validate without consent: not run, no output).
  std::string how;
};

/// A whole experiment file, parsed and expanded.
struct ExperimentSpec {
  std::string name;
  std::string description;
  std::string source_path;
  std::string config_text;    ///< verbatim file contents
  std::string config_sha256;  ///< hash of config_text
  std::uint64_t seed = 0;
  long trajectories = 0;   ///< per dataset and scenario
  std::string sweep_mode;  ///< "product" or "zip"
  std::vector<std::string> swept_keys;
  std::vector<Scenario> scenarios;
  std::vector<AccountantRun> accountant_runs;  ///< one per custom bound with a `command`
};

}  // namespace rdpaudit::config
