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

std::string to_string(LossKind v) {
  return name_of(loss_names(), v);
}
std::string to_string(BatchScheme v) {
  return name_of(scheme_names(), v);
}
std::string to_string(Adjacency v) {
  return name_of(adjacency_names(), v);
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

}  // namespace rdpaudit::config
