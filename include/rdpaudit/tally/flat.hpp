// A tally as two flat arrays: what ranks send each other and what part files and checkpoints
// store. Only the numbers travel; the cells themselves (edges, scores) are rebuilt from the
// pilot, which every process computes identically, and checked by their fingerprint.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rdpaudit/tally/tally.hpp"

namespace rdpaudit::tally {

struct FlatTally {
  /// count, raw_first, raw_cap, then every cell count (coordinates, projection, joint,
  /// scores, in that order), then the exact limbs of every moment sum.
  std::vector<std::int64_t> ints;
  std::vector<double> raw;  ///< raw_cap x d
};

FlatTally flatten(const Tally& t);

/// The tally of `binning`'s cells holding `flat`'s numbers. Throws std::invalid_argument when
/// the sizes do not fit these cells.
Tally unflatten(const Binning& binning, const FlatTally& flat);

/// A digest (SHA-256, hex) of every edge, score name, the moment shift and the projection
/// direction: equal exactly when two binnings count into the same cells.
std::string fingerprint(const Binning& binning);

}  // namespace rdpaudit::tally
