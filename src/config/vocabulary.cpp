#include "rdpaudit/config/vocabulary.hpp"

#include <stdexcept>

#include "rdpaudit/config/loss.hpp"
#include "rdpaudit/config/traits.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::config {
namespace {

template <class Enum>
std::string name_of(const NameTable<Enum>& table, Enum v) {
  for (const auto& [name, value] : table) {
    if (value == v) return name;
  }
  return "?";
}

template <class Enum>
Enum parse(const NameTable<Enum>& table, std::string_view name, const std::string& key) {
  for (const auto& [text, value] : table) {
    if (text == name) return value;
  }
  throw InputError(key, "\"" + std::string(name) + "\"", "must be one of: " + name_list(table));
}

}  // namespace

const NameTable<LossKind>& loss_names() {
  static const NameTable<LossKind> table = [] {
    NameTable<LossKind> t;
    for (const auto& family : loss_families()) t.emplace_back(family.name, family.kind);
    return t;
  }();
  return table;
}

const std::vector<SchemeInfo>& scheme_registry() {
  using S = BatchScheme;
  using B = BatchSizing;
  static const std::vector<SchemeInfo> registry = {
      {S::kFixedOrder, "fixed_order", B::kGiven, true, true},
      {S::kShufflePartition, "shuffle_partition", B::kGiven, true, false},
      {S::kShuffleEachEpoch, "shuffle_each_epoch", B::kGiven, true, false},
      {S::kSampleWithoutReplacement, "sample_without_replacement", B::kGiven, false, false},
      {S::kPoisson, "poisson", B::kExpected, false, false},
      {S::kFullBatch, "full_batch", B::kWholeDataset, true, false},
      {S::kRandomAllocation, "random_allocation", B::kAllocated, false, false}};
  return registry;
}

const SchemeInfo& scheme_info(BatchScheme scheme) {
  for (const auto& info : scheme_registry()) {
    if (info.scheme == scheme) return info;
  }
  throw InternalError("scheme_info: a batch scheme without a registry entry");
}

const NameTable<BatchScheme>& scheme_names() {
  static const NameTable<BatchScheme> table = [] {
    NameTable<BatchScheme> t;
    for (const auto& info : scheme_registry()) t.emplace_back(info.name, info.scheme);
    return t;
  }();
  return table;
}

const NameTable<Adjacency>& adjacency_names() {
  static const NameTable<Adjacency> table = {{"replace_one", Adjacency::kReplaceOne},
                                             {"add_remove", Adjacency::kAddRemove}};
  return table;
}

const NameTable<Expectation>& expectation_names() {
  static const NameTable<Expectation> table = {{"holds", Expectation::kHolds},
                                               {"violated", Expectation::kViolated},
                                               {"valid_exact", Expectation::kValidExact},
                                               {"informative", Expectation::kInformative}};
  return table;
}

std::string to_string(LossKind v) {
  return name_of(loss_names(), v);
}
std::string to_string(BatchScheme v) {
  return name_of(scheme_names(), v);
}
std::string to_string(Adjacency v) {
  return name_of(adjacency_names(), v);
}

std::string to_string(Expectation v) {
  return name_of(expectation_names(), v);
}

const std::vector<MethodInfo>& method_registry() {
  static const std::vector<MethodInfo> registry = {
#define RDPAUDIT_COUNT_METHOD(id, name, role, preference, run) \
  {Method::k##id, name, MethodRole::role},
#include "rdpaudit/config/count_methods.def"
      {Method::kExact, "exact", MethodRole::kExact},
  };
  return registry;
}

// The exact method's rows, then each count method's one row kind, under the method's name.
const std::vector<RowInfo>& row_registry() {
  static const std::vector<RowInfo> registry = {
      {Row::kExactQuadrature, "exact-quadrature", Method::kExact, MethodRole::kExact, 0},
      {Row::kExactChain, "exact-chain", Method::kExact, MethodRole::kExact, 1},
      {Row::kRaoBlackwell, "rao-blackwell", Method::kExact, MethodRole::kPoint, 2},
#define RDPAUDIT_COUNT_METHOD(id, name, role, preference, run) \
  {Row::k##id, name, Method::k##id, MethodRole::role, preference},
#include "rdpaudit/config/count_methods.def"
  };
  return registry;
}

std::string to_string(Row v) {
  for (const auto& info : row_registry()) {
    if (info.row == v) return info.name;
  }
  return "?";
}

namespace {

const NameTable<Method>& method_names() {
  static const NameTable<Method> table = [] {
    NameTable<Method> t;
    for (const auto& m : method_registry()) t.emplace_back(m.name, m.method);
    return t;
  }();
  return table;
}

}  // namespace

std::string to_string(Method v) {
  return name_of(method_names(), v);
}

Method parse_method(std::string_view name, const std::string& key) {
  return parse(method_names(), name, key);
}

RowKind row_kind(std::string_view stored) {
  const auto slash = stored.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? stored : stored.substr(slash + 1);
  const std::string_view score = slash == std::string_view::npos ? "" : stored.substr(0, slash);
  for (const auto& info : row_registry()) {
    if (base != info.name) continue;
    // The plug-ins of the identity score first, then the logistic score's, then the KDE's.
    const int score_rank = score.empty() ? 0 : score == "logistic-ratio" ? 1 : 2;
    const bool per_score = info.row == Row::kHistogramPlugin;
    return {info.method, info.role, info.point_preference + (per_score ? score_rank : 0)};
  }
  throw std::invalid_argument("row_kind: no estimator writes rows named " + std::string(stored));
}

LossKind parse_loss(std::string_view name, const std::string& key) {
  return parse(loss_names(), name, key);
}
BatchScheme parse_scheme(std::string_view name, const std::string& key) {
  return parse(scheme_names(), name, key);
}
Adjacency parse_adjacency(std::string_view name, const std::string& key) {
  return parse(adjacency_names(), name, key);
}

Expectation parse_expectation(std::string_view name, const std::string& key) {
  return parse(expectation_names(), name, key);
}

}  // namespace rdpaudit::config
