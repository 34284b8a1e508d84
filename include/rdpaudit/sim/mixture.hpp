// The exact law of the last iterate for the quadratic loss (no projection): given the batch
// pattern the update theta <- a_t theta + (eta lambda / N) sum_{B_t} x + s z with
// a_t = 1 - eta lambda |B_t| / N is affine, so theta_T is Gaussian, and the law under D or D'
// is a Gaussian mixture over patterns (DESIGN.md section 3, "Known truth exists"). With a
// fixed batch size (N = b = |B_t|) a_t = 1 - eta lambda and the covariance is the same for
// every pattern; with Poisson batches N = q n is fixed but |B_t| is random, so the covariance
// depends on the batch sizes of the pattern (including the other records'), see `scales`.
// The crafted-gradient preset (config::NeighbouringPair::crafted) keeps this form when its
// gradient does not depend on theta: where the batch holds the crafted record, D's mean moves
// by -eta g_t / N and the record's slot counts no record of the loss (a_t = 1 - eta lambda
// (|B_t| - 1) / N, so the covariance depends on the pattern); its linear-loss variant is the
// case lambda = 0 (the other records' gradients are zero).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rdpaudit/config/scenario.hpp"

namespace rdpaudit::sim {

struct LastIterateMixture {
  int dim = 1;
  std::vector<double> weights;  ///< one per pattern
  std::vector<double> means;    ///< patterns x dim, row-major
  double variance = 0;          ///< covariance variance * I (times scales[k], if any)
  /// Poisson only: component k has covariance variance * scales[k] * I (scales <= 1, the
  /// largest is 1). Empty: every component has covariance variance * I.
  std::vector<double> scales;
  bool exact = false;  ///< true: patterns enumerated (or deterministic); false: sampled
  std::string how;     ///< how the patterns were obtained
};

struct MixturePair {
  LastIterateMixture d, dprime;
};

/// The mixtures of D and D', or nullopt with `why` set when the scenario has no such form
/// (another loss, a projection). Patterns are enumerated when the batch of the differing
/// record is all that matters (all other records equal: shuffle and partition; Poisson at
/// T = 1, over the number of other records in the batch) or the schedule is deterministic
/// (fixed order, full batch), and otherwise sampled: `patterns` independent schedules from
/// streams of their own, schedule k giving component k of both D and D' (the pattern is
/// drawn independently of the data), so the components pair up for the pattern-sampling
/// interval (exact/rao_blackwell.hpp).
std::optional<MixturePair> quadratic_last_iterate_mixture(const config::Scenario& s,
                                                          std::uint64_t seed, int patterns,
                                                          std::string& why);

}  // namespace rdpaudit::sim
