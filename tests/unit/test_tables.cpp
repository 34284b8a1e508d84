// The per-concept tables agree with each other where a concept has rows on two sides of a
// module boundary: a loss family's config row and its sim functor, a batch scheme's config
// traits and the simulator's, a count method's config registry rows and its estimate row.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "rdpaudit/config/loss.hpp"
#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/config/traits.hpp"
#include "rdpaudit/estimate/selection.hpp"
#include "rdpaudit/sim/batches.hpp"
#include "rdpaudit/sim/loss.hpp"

using namespace rdpaudit;

namespace {

template <class... Losses>
std::vector<config::LossKind> functor_kinds(sim::LossList<Losses...>) {
  return {Losses::kKind...};
}

}  // namespace

TEST_CASE("every loss family has one config row and one sim functor", "[config][sim]") {
  const std::vector<config::LossKind> functors = functor_kinds(sim::LossFunctors<1>{});
  const auto& families = config::loss_families();
  CHECK(functors.size() == families.size());
  const auto& names = config::loss_names();
  REQUIRE(names.size() == families.size());
  for (std::size_t i = 0; i < families.size(); ++i) {
    const config::LossFamily& f = families[i];
    INFO(f.name);
    CHECK(std::count(functors.begin(), functors.end(), f.kind) == 1);
    CHECK(&config::loss_family(f.kind) == &f);
    CHECK(names[i].first == f.name);
    CHECK(names[i].second == f.kind);
    CHECK(config::parse_loss(f.name, "model.loss") == f.kind);
  }
}

TEST_CASE("a batch scheme's config traits and sim traits agree", "[config][sim]") {
  for (const config::SchemeInfo& info : config::scheme_registry()) {
    INFO(info.name);
    const sim::SchemeTraits t = sim::scheme_traits(info.scheme);
    CHECK(t.partition == info.partitions_epochs);
    CHECK(t.differing_placed == info.fixed_differing_batch);
    CHECK(t.poisson == (info.sizing == config::BatchSizing::kExpected));
  }
}

TEST_CASE("every method that runs from the counts has one row of count_methods()",
          "[estimate][config]") {
  const auto& table = estimate::count_methods();
  for (const config::MethodInfo& m : config::method_registry()) {
    INFO(m.name);
    const auto rows = std::count_if(table.begin(), table.end(),
                                    [&](const auto& c) { return c.method == m.method; });
    // Exact values come from the law of the last iterate, not from counts.
    CHECK(rows == (m.role == config::MethodRole::kExact ? 0 : 1));
  }
  for (const estimate::CountMethod& c : table) {
    INFO(config::to_string(c.method));
    const auto& registry = config::row_registry();
    const auto row = std::find_if(registry.begin(), registry.end(),
                                  [&](const config::RowInfo& r) { return r.row == c.row; });
    REQUIRE(row != registry.end());
    CHECK(row->method == c.method);
    CHECK(c.run != nullptr);
    // A count method's rows are stored under its own name (config/count_methods.def).
    CHECK(std::string(row->name) == config::to_string(c.method));
    CHECK(config::row_kind(row->name).method == c.method);
    CHECK(config::parse_method(config::to_string(c.method), "estimate.methods[0]") == c.method);
  }
}

TEST_CASE("estimate.methods runs every method of the registry by default, in its order",
          "[estimate][config]") {
  const config::EstimateSpec spec;
  const auto& registry = config::method_registry();
  REQUIRE(spec.methods.size() == registry.size());
  for (std::size_t i = 0; i < registry.size(); ++i) {
    INFO(registry[i].name);
    CHECK(spec.methods[i] == registry[i].method);
  }
  // Every row kind has one entry, under a name of its own.
  const auto& rows = config::row_registry();
  for (const config::RowInfo& r : rows) {
    INFO(r.name);
    CHECK(std::count_if(rows.begin(), rows.end(),
                        [&](const config::RowInfo& o) { return o.row == r.row; }) == 1);
    CHECK(std::count_if(rows.begin(), rows.end(), [&](const config::RowInfo& o) {
            return std::string(o.name) == r.name;
          }) == 1);
    CHECK(config::to_string(r.row) == r.name);
  }
}
