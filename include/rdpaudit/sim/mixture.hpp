// The exact law of the last iterate for the quadratic loss (no projection, fixed batch size):
// given the batch pattern the update theta <- a theta + (eta lambda / b) sum_B x + s z with
// a = 1 - eta lambda is affine, so theta_T is Gaussian with a covariance that does not depend
// on the pattern, and the law under D or D' is a Gaussian mixture over patterns
// (DESIGN.md section 3, "Known truth exists").
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
  double variance = 0;          ///< common covariance variance * I
  bool exact = false;           ///< true: patterns enumerated (or deterministic); false: sampled
  std::string how;              ///< how the patterns were obtained
};

struct MixturePair {
  LastIterateMixture d, dprime;
};

/// The mixtures of D and D', or nullopt with `why` set when the scenario has no such form
/// (another loss, a projection, Poisson batches of random size). Patterns are enumerated
/// when the batch of the differing record is all that matters (all other records equal,
/// shuffle and partition) or the schedule is deterministic (fixed order, full batch), and
/// otherwise sampled: `patterns` independent schedules from streams of their own.
std::optional<MixturePair> quadratic_last_iterate_mixture(const config::Scenario& s,
                                                          std::uint64_t seed, int patterns,
                                                          std::string& why);

}  // namespace rdpaudit::sim
