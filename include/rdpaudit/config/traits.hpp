// What the code needs to know of each vocabulary entry (vocabulary.hpp), in one registry per
// concept (src/config/vocabulary.cpp): a batch scheme's traits, and the rows each estimator
// method stores under which name.
#pragma once

#include <string>
#include <vector>

#include "rdpaudit/config/vocabulary.hpp"

namespace rdpaudit::config {

/// A batch scheme's traits: what reading a file, the bounds and the commands need to know of
/// how it draws its batches (sim/batches.hpp draws them).
enum class BatchSizing {
  kGiven,         ///< training.batch_size = b; floor(n/b) steps per epoch (footnote 3)
  kWholeDataset,  ///< b = n; one step per epoch
  kExpected,      ///< training.sampling_rate q (or the expected batch size); floor(1/q) steps
                  ///< per epoch; the sums are divided by q n
  kAllocated,     ///< training.batch_size = b, the expected batch size, dividing n: t = n/b
                  ///< steps per epoch, a batch of Binomial(n, 1/t) records divided by b
};

struct SchemeInfo {
  BatchScheme scheme;
  const char* name;  ///< as written in training.scheme
  BatchSizing sizing;
  /// Each epoch's batches are disjoint and cover floor(n/b) b records: the K-epoch statements
  /// (and "whole epochs" of T) apply; false: every step draws afresh.
  bool partitions_epochs;
  /// Record i0 sits in one batch j0 of every epoch, training.differing_batch.
  bool fixed_differing_batch;
};

/// Every scheme, in the order of scheme_names().
const std::vector<SchemeInfo>& scheme_registry();
const SchemeInfo& scheme_info(BatchScheme scheme);

/// The kinds of rows an estimate stores (Estimate::method, after any score prefix such as
/// "logistic-ratio/"). Each count method (config/count_methods.def) stores one kind, named as
/// the method; kExact stores quadrature rows (enumerated patterns), exact-chain rows (the 1-D
/// law evolved on a grid, exact/chain.hpp) or Rao-Blackwell rows (sampled patterns).
enum class Row {
#define RDPAUDIT_COUNT_METHOD(id, name, role, preference, run) k##id,
#include "rdpaudit/config/count_methods.def"
  kExactQuadrature,
  kExactChain,
  kRaoBlackwell
};

struct RowInfo {
  Row row;
  const char* name;  ///< as stored in the results file
  Method method;     ///< the method that writes it
  MethodRole role;
  /// Among point estimates, lower is preferred (quadrature, then the exact chain, then
  /// Rao-Blackwell, then the plug-ins); -1: not a point estimate.
  int point_preference;
};

/// Every row kind, in order of preference.
const std::vector<RowInfo>& row_registry();

/// The name a row kind is stored under.
std::string to_string(Row v);

}  // namespace rdpaudit::config
