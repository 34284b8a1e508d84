#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "rdpaudit/config/tables.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::config {

namespace {

// Orders per alphas list and the largest order (docs/experiments.md, "Limits"): the
// estimators' cost grows with alpha (alpha = 10^6 made a 1000-trajectory run take 30 s,
// 10^4 costs nothing measurable).
constexpr std::size_t kMaxOrders = 1000;
constexpr double kMaxAlpha = 1e4;

}  // namespace

std::optional<std::vector<double>> read_orders(Reader& r, const std::string& key) {
  auto alphas = r.vector(key);
  if (!alphas) return alphas;
  if (alphas->size() > kMaxOrders) {
    throw InputError(key, std::to_string(alphas->size()) + " orders", "at most 1000 orders");
  }
  for (std::size_t i = 0; i < alphas->size(); ++i) {
    const double a = (*alphas)[i];
    if (!(a > 1 && a <= kMaxAlpha)) {
      throw InputError(key + "[" + std::to_string(i) + "]", fmt::format("{}", a),
                       "orders must be > 1 and <= 10^4");
    }
  }
  return alphas;
}

void read_estimate(Scenario& s, Reader& r, long trajectories) {
  auto& e = s.estimate;
  e.enabled = r.boolean("estimate.enabled").value_or(true);
  if (auto alphas = read_orders(r, "estimate.alphas")) e.extra_alphas = *alphas;
  e.confidence = r.number("estimate.confidence").value_or(0.95);
  if (!(e.confidence > 0 && e.confidence < 1)) r.fail("estimate.confidence", "must be in (0, 1)");
  // Every trajectory is counted; the pilot (streams of its own) is the selection phase.
  for (const char* gone : {"estimate.samples", "estimate.selection_fraction",
                           "estimate.variational_selection_fraction"}) {
    if (r.has(gone)) {
      r.fail(gone,
             "was removed in rdpaudit 0.2: every trajectory is counted, and the selection phase "
             "runs on a pilot of its own (estimate.pilot trajectories per dataset)");
    }
  }
  // Default: a quarter of the counted trajectories, at least 20 000 and at most 10^6 (4 x 10^5
  // above d = 2, where the pilot's last iterates and the learned score's design matrix would
  // otherwise dominate the memory); --scale grows it with the trajectories. A pilot of its own
  // size is never scaled.
  const auto pilot = r.integer("estimate.pilot");
  e.pilot = pilot ? *pilot
                  : std::clamp<long>(std::lround(0.25 * static_cast<double>(trajectories)), 20'000,
                                     s.dim <= 2 ? 1'000'000 : 400'000);
  if (e.pilot < 1000 || e.pilot > 100'000'000) {
    r.fail("estimate.pilot",
           "must be in [1000, 10^8] (trajectories per dataset of the selection phase: the "
           "methods choose their cells, scores and test functions on them)");
  }
  if (auto methods = r.strings("estimate.methods")) {
    std::vector<Method> chosen;
    for (std::size_t i = 0; i < methods->size(); ++i) {
      const std::string key = "estimate.methods[" + std::to_string(i) + "]";
      const Method m = parse_method((*methods)[i], key);  // names the registry's methods
      if (std::find(chosen.begin(), chosen.end(), m) != chosen.end()) {
        throw InputError(key, (*methods)[i], "named twice");
      }
      chosen.push_back(m);
    }
    if (chosen.empty()) r.fail("estimate.methods", "must name at least one method");
    e.methods = chosen;
  }
  e.patterns = static_cast<int>(
      r.integer_in("estimate.patterns", 1, 1'000'000, "must be in [1, 10^6]").value_or(4096));
  e.bootstrap = static_cast<int>(
      r.integer_in("estimate.bootstrap", 0, 100'000, "must be in [0, 10^5]").value_or(200));
  e.exact_cells_per_sd = static_cast<int>(
      r.integer_in("estimate.exact_cells_per_sd", 4, 1000, "must be in [4, 1000]").value_or(40));
  if (const auto work = r.number("estimate.exact_max_work")) {
    if (!(*work >= 0 && *work <= 1e16)) {
      r.fail("estimate.exact_max_work",
             "must be in [0, 10^16] (steps x grid cells x kernel width x cases of the exact "
             "chain; 0: never evolve it)");
    }
    e.exact_max_work = *work;
  }
  if (const auto bytes = r.number("estimate.exact_max_memory")) {
    if (!(*bytes >= 0 && *bytes <= 1e15)) {
      r.fail("estimate.exact_max_memory",
             "must be in [0, 10^15] (bytes the exact chain may hold at once; 0: never evolve it)");
    }
    e.exact_max_memory = *bytes;
  }
}

}  // namespace rdpaudit::config
