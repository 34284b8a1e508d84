// rdpaudit's one vocabulary: the loss families, batch schemes and neighbouring relations,
// each one enum with one name table. The names are what a user writes in an experiment file;
// config, bounds, the results file and every command print the same names.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rdpaudit::config {

/// A loss family. Its row (name, [model] keys, constants, growth bound) is in
/// config::loss_families() (config/loss.hpp), its gradient in sim/loss.hpp.
enum class LossKind {
  kQuadratic,  ///< lambda/2 ||theta - x||^2: affine updates, exact ground truth
  kLogistic,   ///< regularised multiclass logistic regression (paper Section 5, Algorithm 2)
  kLinear,     ///< <g_i, theta>: convex, L-Lipschitz, 0-smooth (the blog's setting)
  /// a gradient g(theta, x) given as a formula (model.gradient), per coordinate: any
  /// landscape, its constants only as the user states them
  kGradientFormula,
};

enum class BatchScheme {
  kFixedOrder,                ///< partition in a fixed order; the differing record in batch j0
  kShufflePartition,          ///< one random partition, kept for all epochs (Algorithm 1)
  kShuffleEachEpoch,          ///< a fresh random partition every epoch (common in libraries)
  kSampleWithoutReplacement,  ///< b distinct indices drawn afresh at every step
  kPoisson,                   ///< each record in with prob. q; sum divided by q*n
  kFullBatch,                 ///< every record at every step (b = n)
  /// random allocation (balls and bins): every record in one uniformly random step of each
  /// epoch of t = n/b steps, independently; sum divided by the expected size n/t = b
  kRandomAllocation,
};

/// Which datasets count as neighbours. A scenario states the relation of its pair, every
/// bound the relation its source assumes (bounds::BoundInfo::adjacency).
enum class Adjacency {
  kReplaceOne,  ///< D' = D with one record replaced (same n)
  kAddRemove,   ///< D' = D with one record added or removed
};

/// What an audited bound or claim is expected to be found (a custom bound's or claim's
/// `expect`, bounds.expect_violated, bounds.expect_valid_exact); `rdpaudit check` fails on
/// any other outcome.
enum class Expectation {
  kHolds,       ///< "holds": any outcome that is not a violation (not rejected included)
  kViolated,    ///< "violated": violated or violated (exact)
  kValidExact,  ///< "valid_exact": valid (exact) in every applicable cell
  /// "informative": reported, expected nothing (every outcome meets it); the default of an
  /// approximation and of a baseline for another neighbouring relation than the audited pair's
  kInformative,
};

/// The estimator methods of estimate.methods: one registry (name, role, preference) read by
/// config, estimate, the audit and the commands. The count methods come from their table,
/// config/count_methods.def ("histogram-plugin": plug-in of fixed bins, a point estimate;
/// "rigorous-cp": partition + Clopper-Pearson and "rigorous-bernstein": Hoelder + Bernstein,
/// rigorous lower bounds).
enum class Method {
#define RDPAUDIT_COUNT_METHOD(id, name, role, preference, run) k##id,
#include "rdpaudit/config/count_methods.def"
  kExact,  ///< "exact": quadrature ("exact-quadrature"), exact chain or Rao-Blackwell rows
};

/// What a method's rows are for.
enum class MethodRole { kPoint, kRigorous, kExact };

struct MethodInfo {
  Method method;
  const char* name;  ///< as written in estimate.methods
  MethodRole role;
};

/// Every method, in the default order of estimate.methods.
const std::vector<MethodInfo>& method_registry();

/// The row kinds an estimate may carry (Estimate::method, after any score prefix such as
/// "logistic-ratio/"), with the preference of the point estimates: quadrature first, then the
/// exact chain, then Rao-Blackwell, then plug-ins (identity score, logistic score, KDE score).
struct RowKind {
  Method method;
  MethodRole role;
  int point_preference;  ///< lower is preferred; -1: not a point estimate
};
/// The kind of a stored row's method string; throws std::invalid_argument for a string no
/// estimator writes.
RowKind row_kind(std::string_view stored_method);

template <class Enum>
using NameTable = std::vector<std::pair<std::string, Enum>>;

const NameTable<LossKind>& loss_names();
const NameTable<BatchScheme>& scheme_names();
const NameTable<Adjacency>& adjacency_names();
const NameTable<Expectation>& expectation_names();

std::string to_string(LossKind v);
std::string to_string(BatchScheme v);
std::string to_string(Adjacency v);
std::string to_string(Expectation v);
std::string to_string(Method v);

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
Expectation parse_expectation(std::string_view name, const std::string& key);
Method parse_method(std::string_view name, const std::string& key);

}  // namespace rdpaudit::config
