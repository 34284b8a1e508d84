#include "rdpaudit/config/vocabulary.hpp"

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
  static const NameTable<LossKind> table = {{"quadratic", LossKind::kQuadratic},
                                            {"logistic", LossKind::kLogistic},
                                            {"linear", LossKind::kLinear}};
  return table;
}

const NameTable<BatchScheme>& scheme_names() {
  static const NameTable<BatchScheme> table = {
      {"fixed_order", BatchScheme::kFixedOrder},
      {"shuffle_partition", BatchScheme::kShufflePartition},
      {"shuffle_each_epoch", BatchScheme::kShuffleEachEpoch},
      {"sample_without_replacement", BatchScheme::kSampleWithoutReplacement},
      {"poisson", BatchScheme::kPoisson},
      {"full_batch", BatchScheme::kFullBatch}};
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
                                               {"valid_exact", Expectation::kValidExact}};
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
      {Method::kHistogramPlugin, "histogram-plugin", MethodRole::kPoint},
      {Method::kRigorousCp, "rigorous-cp", MethodRole::kRigorous},
      {Method::kRigorousBernstein, "rigorous-bernstein", MethodRole::kRigorous},
      {Method::kExact, "exact", MethodRole::kExact},
  };
  return registry;
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
  const int score_rank = score.empty() ? 0 : score == "logistic-ratio" ? 1 : 2;
  if (base == "exact-quadrature") return {Method::kExact, MethodRole::kExact, 0};
  if (base == "rao-blackwell") return {Method::kExact, MethodRole::kPoint, 1};
  if (base == "histogram-plugin")
    return {Method::kHistogramPlugin, MethodRole::kPoint, 2 + score_rank};
  if (base == "rigorous-cp") return {Method::kRigorousCp, MethodRole::kRigorous, -1};
  if (base == "rigorous-bernstein") return {Method::kRigorousBernstein, MethodRole::kRigorous, -1};
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
