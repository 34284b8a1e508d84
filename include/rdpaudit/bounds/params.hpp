// One noisy-SGD scenario as the analytic bounds see it, the value a bound returns, and the
// conversions between the noise conventions of the sources.
//
// Conventions (docs/bounds.md has the derivations):
//   * The canonical noise quantity is the per-step noise standard deviation `step_std` = s: every
//     step adds s * N(0, I_d) to the iterate.  Each source's own noise parameter is derived
//     from it by the one set of conversions in config/noise.hpp, never stored twice:
//       paper, Algorithm 1:            s = sqrt(2 eta sigma^2)           (alg1_sigma2)
//       paper, Algorithm 2 / Sec. F.1: s = eta sigma_mul S_g / (2 b)     (alg2_sigma_mul)
//       blog:                          s = eta sigma_blog                (blog_sigma)
//   * S_g is the l2-sensitivity of the TOTAL gradient sum_i grad l(theta; x_i) under replacing
//     one record (paper, Appendix A); the mini-batch mean moves by at most S_g / b, one step by
//     eta S_g / b (step_sensitivity).
//   * L bounds every per-example gradient norm on the domain (blog: each f_i is L-Lipschitz),
//     so replacing one record moves the mini-batch mean gradient by at most 2 L / b.
//   * D is the diameter of the closed convex set the iterates are projected onto after every
//     step (blog); D = +infinity means the unconstrained iteration of the paper's Algorithm 1.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "rdpaudit/config/vocabulary.hpp"

namespace rdpaudit::bounds {

// The schemes, losses and neighbouring relations are config's (config/vocabulary.hpp): one
// enum and one name table each, so `bounds` prints the names the user wrote.
using config::Adjacency;
using config::BatchScheme;
using config::LossKind;

/// Distribution of the initial iterate theta_0 (independent of the data).
enum class Init {
  kFixedPoint,         ///< a fixed point (in the domain when it is bounded)
  kGaussian,           ///< a data-independent Gaussian other than Chourasia et al.'s
  kGaussianChourasia,  ///< theta_0 ~ N(0, (2 sigma^2 / lambda) I_d) = N(0, s^2/(eta lambda) I_d),
                       ///< as Theorem D.7 (Chourasia et al. 2021, Cor. 1) requires
};

/// What kind of statement a bound implements.
enum class Kind {
  kTheorem,        ///< stated as a theorem/corollary (with composition/post-processing)
  kBaseline,       ///< a comparison baseline under a convention the source chose, not a proven
                   ///< bound for replace-one neighbours (see the bound's source string)
  kApproximation,  ///< stated by the source as an approximation
  kDerivation,     ///< an intermediate expression of a source's proof, for comparison
  kCustom,         ///< a user formula (CustomBound)
  kHeuristic,      ///< stated by its source as a heuristic that some losses exceed
};

std::string_view init_name(Init i);
std::string_view kind_name(Kind k);
/// Inverse of init_name; throws InputError on an unknown name.
Init parse_init(std::string_view name);

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// One scenario.  Every field without a default must be set; `validate` names the first bad
/// one.  All bounds read only this struct (no globals, no files).
struct Params {
  LossKind loss = LossKind::kQuadratic;
  BatchScheme scheme = BatchScheme::kShufflePartition;
  Init init = Init::kFixedPoint;

  double eta = kNaN;       ///< step size, > 0
  double step_std = kNaN;  ///< s: std of the Gaussian noise added to the iterate per step, > 0
  double lambda = kNaN;    ///< strong convexity constant, >= 0 (0: merely convex)
  double beta = kNaN;      ///< smoothness constant, >= 0
  double S_g = kNaN;       ///< replace-one l2-sensitivity of the total gradient, >= 0, finite
  double L = kInf;         ///< bound on every per-example gradient norm (blog), >= 0 or +inf
  double D = kInf;         ///< diameter of the projection domain, > 0, +inf = unconstrained

  long n = 0;  ///< data set size, >= 1
  /// Mini-batch size, 1 <= b <= n. Poisson: the expected size q*n when that is a whole
  /// number, else 0 (every bound that counts batches of b records is then not applicable).
  long b = 0;
  /// Poisson only: the probability q in (0, 1] with which every record joins every step; the
  /// summed gradient is divided by q*n. NaN: q = b/n. Must be NaN for every other scheme.
  double q = kNaN;
  long K = 0;   ///< epochs, >= 1
  long T = 0;   ///< total steps, >= 1; must equal K * floor(n/b) for the epoch schemes
  long j0 = 0;  ///< fixed order: index of the batch holding the differing record, 0..n/b-1

  /// The neighbouring relation of the audited pair (custom bounds take it as theirs).
  Adjacency adjacency = Adjacency::kReplaceOne;

  /// Non-empty: the differing record's gradient is not the gradient of one loss applied at
  /// every step (a crafted gradient that changes with the step), or it is, but nothing says
  /// the loss has the convexity and smoothness the theorems assume (a gradient formula whose
  /// constants the user did not state), and why. Every bound whose source assumes a convex
  /// loss l(theta; x) per record is then not applicable; the composition bounds, which need
  /// only a per-step gradient of norm <= S_g, still are.
  std::string not_one_loss;
  /// Non-empty: the loss constants a source needs (beta, L) are unknown, and why, naming the
  /// key that would give them (the logistic loss without model.feature_clip). Every bound that
  /// assumes a loss is then not applicable; the composition bounds, which need only S_g and
  /// the noise, still are. lambda and S_g are set; beta = 0 and L = +inf stand in.
  std::string missing_constants;
  /// Non-empty: the pair is add/remove and is not also a replace-one pair (record i0 is
  /// absent from D', config::NeighbouringPair::absent), and why. Every bound whose source is
  /// stated for replace-one neighbours (BoundInfo::adjacency) is then not applicable.
  std::string not_replacement;

  /// The per-example clip norm C where the scenario has one (model.clip_norm), else NaN: the
  /// C and z (= noise_multiplier_from_step_std) of custom formulas and accountants.
  double clip_norm = kNaN;
  double feature_clip = kNaN;  ///< logistic only: feature norm clip L of Corollary 5.3
  double eps_norm = 0.0;       ///< Corollary 5.3's private-normalisation cost (0: none)
};

/// Throws rdpaudit::InputError naming the first invalid field ("bounds.eta = -1 (must be > 0)").
void validate(const Params& p);
/// Throws InputError unless alpha is finite and > 1.
void validate_alpha(double alpha);

// ---- derived quantities (each one conversion, named after the source it serves) ----

/// floor(n / b): mini-batches per epoch (paper footnote 3 when b does not divide n); 0 for a
/// Poisson scenario whose expected batch size q*n is not a whole number (b = 0).
long batches_per_epoch(const Params& p);
/// q: probability that a given record is in a given mini-batch (b/n; Poisson: p.q).
double sampling_rate(const Params& p);
/// The normaliser of the summed gradient: b, or q*n for Poisson (need not be whole).
double batch_normaliser(const Params& p);
/// eta S_g / batch_normaliser: how far replacing one record can move one step's update.
double step_sensitivity(const Params& p);
/// s / step_sensitivity: the noise of one step in units of its sensitivity, the z of the
/// composition baselines (paper Section E.1: sensitivity eta S_g/b, std sqrt(2 eta sigma^2)).
/// It is sigma_mul / 2, not the noise multiplier of Opacus (that is relative to S_g/2).
double step_noise_ratio(const Params& p);
/// Paper Algorithm 1: sigma^2 = s^2 / (2 eta)  (config/noise.hpp).
double alg1_sigma2(const Params& p);
/// Paper Algorithm 2 (Section F.1): sigma_mul = 2 b s / (eta S_g)  (+inf when S_g = 0).
double alg2_sigma_mul(const Params& p);
/// Blog: sigma_blog = s / eta.
double blog_sigma(const Params& p);

/// True when b >= 1 equals q*n up to rounding (1e-9 relative): the expected Poisson batch
/// is then a whole batch of b records.
bool whole_batch(long b, double qn);
/// The b of a Poisson scenario: round(q*n) when q*n is whole, else 0.
long whole_batch_size(double qn);

/// The value of one bound at one order alpha: either a number or the reason it does not apply.
struct BoundValue {
  std::string name;    ///< stable identifier, e.g. "ys_thm4.2_shuffle_partition"
  std::string source;  ///< citation: paper, theorem, equation
  Kind kind = Kind::kTheorem;
  Adjacency adjacency = Adjacency::kReplaceOne;  ///< the relation the bound assumes
  double alpha = kNaN;
  std::optional<double> value;  ///< upper bound on R_alpha (finite or +inf); empty = n/a
  std::string not_applicable;   ///< human-readable reason when value is empty

  bool applicable() const { return value.has_value(); }
};

}  // namespace rdpaudit::bounds
