// R_alpha brackets of a 1-D last iterate from the exact engine's evolved laws
// (exact/chain.hpp, docs/exact-laws.md): "exact-chain" rows, within a work limit.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/estimate/profile.hpp"
#include "rdpaudit/estimate/types.hpp"
#include "rdpaudit/exact/chain.hpp"

namespace rdpaudit::estimate {

/// The `interval` of exact-chain rows whose two ends are certified (docs/exact-laws.md, section
/// 5); rows whose upper end is not (an unclamped law whose tails cannot be bounded) say
/// "lower certified; upper not certified beyond the grid: <why>".
inline constexpr const char* kExactChainCertified =
    "exact chain bracket (both ends certified; rounding not directed)";

/// What evolving a chain costs, estimated before evolving it: steps x grid cells x kernel
/// width (targets visited per source) x affine cases propagated per step, summed over both
/// datasets (a shuffled partition evolves one chain per batch of the differing record; a
/// fresh shuffle each epoch three propagations a step).
struct ChainWork {
  long cells = 0;           ///< grid cells
  long width = 0;           ///< targets visited per source cell
  double propagations = 0;  ///< affine cases propagated per step, both datasets
  double work = 0;          ///< (steps + 1) x cells x width x propagations
  /// `work` is a lower bound (already above the limit; the grid's hull was not computed).
  bool at_least = false;
  /// The engine takes the location-mixture path: work = steps x clusters x cases + 2 x cells
  /// x width.
  bool location = false;
  /// Bytes the evolution holds at its peak, estimated from above (laws, density points, kept
  /// coefficient tables): held to estimate.exact_max_memory.
  double memory = 0;
};
ChainWork chain_work(const exact::ChainSpec& chain, const exact::EngineOptions& options,
                     double limit = std::numeric_limits<double>::infinity());

/// Empty when `w` is within estimate.exact_max_work and estimate.exact_max_memory, else which
/// limit it is over, by how much and the key that raises it ("work limit: ...", "memory limit:
/// ...").
std::string over_limits(const exact::ChainSpec& chain, const config::EstimateSpec& e,
                        const ChainWork& w);

/// Throws InputError naming estimate.exact_max_memory when a scenario's exact chain, within
/// both limits, would hold more memory than this process may use (core/memory.hpp): validate
/// and run refuse it before any work rather than running out of memory in the estimation.
/// Quadratic losses in d <= 2 are left to the run (their quadrature usually serves them and
/// the chain is not evolved; the limit still holds there).
void check_exact_chain_memory(const config::ExperimentSpec& spec);

/// The result of trying the exact chain on a scenario: the rows (empty when it was not
/// evolved) and the description stored as the scenario's exact law ("exact chain (h = s/40)",
/// or "none: <why>").
struct ChainEstimates {
  std::vector<Estimate> rows;
  std::string how;
  /// With [profile]: the privacy-profile brackets of the same laws ("exact-chain-profile",
  /// both directions; exact/profile.hpp), on profile.epsilons and profile.deltas.
  std::vector<ProfileEstimate> profile;
};

/// Evolves the scenario's chain (when exact::chain_from_scenario gives one and its work is at
/// most estimate.exact_max_work) and brackets R_alpha at `alphas` in both directions: value =
/// the bracket's midpoint (its lower end when the upper is +infinity), lower / upper = the
/// bracket (both ends certified; interval kExactChainCertified, or, where the upper end is not
/// certified beyond the engine's grid, a text that says why). With
/// profile.enabled, the privacy profile's brackets of the same laws too.
ChainEstimates exact_chain_renyi(const config::Scenario& s, const std::vector<double>& alphas);

}  // namespace rdpaudit::estimate
