// The last iterate's law of one-dimensional noisy (projected) SGD on a neighbouring pair,
// evolved by the exact engine for every batch scheme (docs/exact-laws.md, "Schemes").
#pragma once

#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/exact/formula.hpp"
#include "rdpaudit/exact/renyi.hpp"

namespace rdpaudit::exact {

/// The plain description of a 1-D chain the engine evolves (what it needs of a
/// config::Scenario; chain_from_scenario derives it).
struct ChainSpec {
  config::LossKind loss = config::LossKind::kQuadratic;  ///< quadratic, linear or formula
  /// The differing record of D gives the constant gradient `record_d` and counts no record
  /// of the loss; in D' it is absent (data.preset = "crafted_gradient", constant gradient).
  bool crafted = false;
  /// A gradient formula g(theta, x) (loss = kGradientFormula): record_d, record_dprime and
  /// background are the records' values x; every step's cases are maps (Step::maps).
  std::shared_ptr<const GradientFormula> formula;
  double lambda = 0;    ///< quadratic curvature
  double eta = 0;       ///< learning rate
  double step_std = 0;  ///< s: theta <- theta - eta g + s N(0, 1)
  double clamp_lo = -std::numeric_limits<double>::infinity();  ///< projection interval
  double clamp_hi = std::numeric_limits<double>::infinity();
  double init_mean = 0, init_std = 0;  ///< theta_0 ~ N(init_mean, init_std^2), then projected
  /// The differing record under D and D': its value x (quadratic) or gradient g (linear).
  double record_d = 0, record_dprime = 0;
  double background = 0;  ///< every other record's value (quadratic) or gradient (linear)
  int n = 1, batch = 1;   ///< records, batch size b
  config::BatchScheme scheme = config::BatchScheme::kFullBatch;
  long steps = 1;
  long steps_per_epoch = 1;  ///< m = floor(n / b) for the partition schemes
  int differing_batch = 0;   ///< fixed order: j0
  double sampling_rate = 0;  ///< Poisson: q

  bool clamped() const { return clamp_hi < std::numeric_limits<double>::infinity(); }
};

/// The chain of a scenario, or nullopt with `why` when the engine has no exact law for it
/// (the logistic loss, a crafted gradient that changes over the steps, other records that are
/// not copies of one another; d > 1 unless the pair differs along one axis and nothing couples
/// the axes: then the chain of that axis, the other coordinates having one law under D and
/// D' independent of it, docs/exact-laws.md).
std::optional<ChainSpec> chain_from_scenario(const config::Scenario& s, std::string& why);

struct EngineOptions {
  int cells_per_sd = 40;  ///< grid cells per noise sd s (h = s / cells_per_sd)
  /// Unclamped chains: the grid holds the hull of the possible means plus this many sds of
  /// the law on each side (mass beyond is tracked, but the upper bound integrates over the
  /// grid only).
  double grid_sds = 40.0;
  /// Unclamped chains whose cases share one slope at every step (every scheme of the linear
  /// loss, and of the quadratic loss but Poisson's): theta_T is a Gaussian of a known variance
  /// around a noise-free location law, evolved exactly as clusters of its atoms and sent
  /// through one Gaussian step on a grid of cells_per_sd cells per sd of that Gaussian
  /// (docs/exact-laws.md, "Location mixtures"). False: step by step on the grid.
  bool location_mixture = true;
  /// Location mixtures: atoms closer than this many cells (of the final grid) are merged into
  /// one cluster (exact mass, mean and second moment; its hull's half-width enters the
  /// remainders).
  double cluster_cells = 0.25;
  RenyiOptions renyi;
};

struct ChainLaws {
  ExactLaw d, dprime;
};

/// The laws of theta_T under D and D' (steps >= 1).
ChainLaws evolve_pair(const ChainSpec& chain, const EngineOptions& options = {});

/// The grid evolve_pair lays out: the projection interval, or (unclamped) the hull of the means
/// over every step of both datasets plus grid_sds sds of the widest law. The hull stops growing
/// once it holds more than `max_cells` cells of s / cells_per_sd (for cost estimates).
void grid_interval(const ChainSpec& chain, const EngineOptions& options, double& lo, double& hi,
                   double max_cells = std::numeric_limits<double>::infinity());

/// Whether evolve_pair takes the location-mixture path (unclamped, one slope for every case of
/// every step under each dataset): its cost is then the clusters' evolution and one grid step,
/// not one grid step per training step.
bool uses_location_mixture(const ChainSpec& chain, const EngineOptions& options = {});

/// One 1-D step's cases for a dataset (d_prime: D'), by whether the differing record is in the
/// batch: `in` and `out` (fixed batch size b), or the sampled mixture of the scheme
/// (sampling without replacement, Poisson).
Step step_in(const ChainSpec& chain, bool d_prime);
Step step_out(const ChainSpec& chain, bool d_prime);
Step step_sampled(const ChainSpec& chain, bool d_prime);

}  // namespace rdpaudit::exact
