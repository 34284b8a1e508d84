// rdpaudit's one vocabulary: the loss families, batch schemes and neighbouring relations,
// each one enum with one name table. The names are what a user writes in an experiment file;
// config, bounds, the results file and every command print the same names.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rdpaudit::config {

enum class LossKind {
  kQuadratic,  ///< lambda/2 ||theta - x||^2: affine updates, exact ground truth
  kLogistic,   ///< regularised multiclass logistic regression (paper Section 5, Algorithm 2)
  kLinear,     ///< <g_i, theta>: convex, L-Lipschitz, 0-smooth (the blog's setting)
};

enum class BatchScheme {
  kFixedOrder,                ///< partition in a fixed order; the differing record in batch j0
  kShufflePartition,          ///< one random partition, kept for all epochs (Algorithm 1)
  kShuffleEachEpoch,          ///< a fresh random partition every epoch (common in libraries)
  kSampleWithoutReplacement,  ///< b distinct indices drawn afresh at every step
  kPoisson,                   ///< each record in with prob. q; sum divided by q*n
  kFullBatch,                 ///< every record at every step (b = n)
};

/// Which datasets count as neighbours. A scenario states the relation of its pair, every
/// bound the relation its source assumes (bounds::BoundInfo::adjacency).
enum class Adjacency {
  kReplaceOne,  ///< D' = D with one record replaced (same n)
  kAddRemove,   ///< D' = D with one record added or removed
};

template <class Enum>
using NameTable = std::vector<std::pair<std::string, Enum>>;

const NameTable<LossKind>& loss_names();
const NameTable<BatchScheme>& scheme_names();
const NameTable<Adjacency>& adjacency_names();

std::string to_string(LossKind v);
std::string to_string(BatchScheme v);
std::string to_string(Adjacency v);

/// "a, b, c": every name of a table, for messages.
template <class Enum>
std::string name_list(const NameTable<Enum>& table) {
  std::string list;
  for (const auto& entry : table) list += (list.empty() ? "" : ", ") + entry.first;
  return list;
}

/// Inverses of to_string. Throw InputError(key, "\"name\"", "must be one of: ...").
LossKind parse_loss(std::string_view name, const std::string& key);
BatchScheme parse_scheme(std::string_view name, const std::string& key);
Adjacency parse_adjacency(std::string_view name, const std::string& key);

}  // namespace rdpaudit::config
