#include "rdpaudit/config/sweep.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <sstream>

#include "rdpaudit/config/reader.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::config {
namespace {

constexpr std::size_t kMaxScenarios = 100'000;  // docs/experiments.md, "Limits"

// Scalar numeric keys that may instead hold a list of values (a sweep axis).
const std::vector<std::string>& sweepable_keys() {
  static const std::vector<std::string> keys = {"model.dim",
                                                "model.lambda",
                                                "model.feature_clip",
                                                "model.clip_norm",
                                                "model.features",
                                                "model.classes",
                                                "training.eta",
                                                "training.batch_size",
                                                "training.epochs",
                                                "training.steps",
                                                "training.differing_batch",
                                                "training.sampling_rate",
                                                "training.projection_diameter",
                                                "noise.sigma",
                                                "noise.sigma2",
                                                "noise.noise_multiplier",
                                                "noise.paper_noise_multiplier",
                                                "noise.blog_sigma",
                                                "noise.step_std",
                                                "init.std",
                                                "data.n",
                                                "data.sensitivity",
                                                "data.lipschitz",
                                                "data.differing_index",
                                                "data.jitter",
                                                "tally.bins",
                                                "tally.bins_2d",
                                                "tally.pilot_trajectories",
                                                "tally.raw_samples",
                                                "training.scheme",
                                                "data.gradient_formula",
                                                "model.gradient"};
  return keys;
}

// The swept keys whose values are strings.
bool textual_key(const std::string& key) {
  return key == "training.scheme" || key == "data.gradient_formula" || key == "model.gradient";
}

}  // namespace

std::vector<SweepAxis> find_sweep_axes(const toml::table& root) {
  std::vector<SweepAxis> axes;
  for (const auto& key : sweepable_keys()) {
    const auto* n = root.at_path(key).node();
    if (!n || !n->is_array()) continue;
    const auto* arr = n->as_array();
    if (arr->empty()) throw InputError(key, "[]", "a swept key needs at least one value");
    const bool textual = textual_key(key);
    for (std::size_t i = 0; i < arr->size(); ++i) {
      if (textual ? !arr->get(i)->is_string() : !arr->get(i)->is_number()) {
        std::ostringstream os;
        arr->get(i)->visit([&os](const auto& v) { os << v; });
        throw InputError(key + "[" + std::to_string(i) + "]", os.str(),
                         textual ? "must be a string" : "must be a number");
      }
    }
    axes.push_back({key, arr});
  }
  // File order: the last swept key in the file varies fastest in a product sweep.
  std::sort(axes.begin(), axes.end(), [&](const SweepAxis& a, const SweepAxis& b) {
    const auto pa = a.values->source().begin, pb = b.values->source().begin;
    return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
  });
  return axes;
}

std::size_t sweep_size(const std::vector<SweepAxis>& axes, const std::string& mode) {
  std::size_t count = 1;
  for (const auto& a : axes) {
    if (mode == "zip") {
      if (count != 1 && a.values->size() != count) {
        throw InputError(a.key, std::to_string(a.values->size()) + " values",
                         "experiment.sweep = \"zip\" needs all swept lists of equal length (" +
                             axes.front().key + " has " + std::to_string(count) + ")");
      }
      count = a.values->size();
    } else {
      count *= a.values->size();
      if (count > kMaxScenarios) {
        throw InputError(a.key, std::to_string(a.values->size()) + " values",
                         "the product sweep expands to more than 10^5 scenarios");
      }
    }
  }
  if (count > kMaxScenarios) {
    throw InputError(axes.front().key, std::to_string(count) + " values",
                     "a sweep expands to at most 10^5 scenarios");
  }
  return count;
}

SweepPoint sweep_point(const std::vector<SweepAxis>& axes, const std::string& mode,
                       std::size_t index) {
  // The scenario reads each swept key's element through the Reader; copying the document
  // per point instead made the expansion quadratic.
  SweepPoint out;
  std::size_t rest = index;
  // Product order: the last swept key varies fastest.
  for (std::size_t a = axes.size(); a-- > 0;) {
    std::size_t i = index;
    if (mode == "product") {
      i = rest % axes[a].values->size();
      rest /= axes[a].values->size();
    }
    const toml::node* v = axes[a].values->get(i);
    out.swept[axes[a].key] = {static_cast<int>(i), v};
    if (const auto* str = v->as_string()) {
      out.values.insert(out.values.begin(), {axes[a].key, kNaN, str->get()});
    } else {
      const double x = number_value(*v).value_or(kNaN);
      out.values.insert(out.values.begin(), {axes[a].key, x, fmt::format("{:g}", x)});
    }
  }
  return out;
}

}  // namespace rdpaudit::config
