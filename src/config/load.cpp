#include "rdpaudit/config/load.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "rdpaudit/bounds/bounds.hpp"
#include "rdpaudit/bounds/custom.hpp"
#include "rdpaudit/config/crafted.hpp"
#include "rdpaudit/config/expectations.hpp"
#include "rdpaudit/config/limits.hpp"
#include "rdpaudit/config/noise.hpp"
#include "rdpaudit/config/presets.hpp"
#include "rdpaudit/config/profile.hpp"
#include "rdpaudit/config/reader.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/core/sha256.hpp"

namespace rdpaudit::config {

// ---------------------------------------------------------------- names

std::string to_string(NoiseKey v) {
  switch (v) {
    case NoiseKey::kSigma:
      return "sigma";
    case NoiseKey::kSigma2:
      return "sigma2";
    case NoiseKey::kNoiseMultiplier:
      return "noise_multiplier";
    case NoiseKey::kPaperNoiseMultiplier:
      return "paper_noise_multiplier";
    case NoiseKey::kBlogSigma:
      return "blog_sigma";
    case NoiseKey::kStepStd:
      return "step_std";
  }
  return "?";
}

namespace {

// Limits that keep one file's work bounded (docs/experiments.md, "Limits"): scenarios of a
// sweep; orders per alphas list and the largest order (the estimators' cost grows with alpha:
// alpha = 10^6 made a 1000-trajectory run take 30 s, 10^4 costs nothing measurable).
constexpr std::size_t kMaxScenarios = 100'000;
constexpr std::size_t kMaxOrders = 1000;
constexpr double kMaxAlpha = 1e4;
constexpr double kMaxTrajectories = 1e12;  // per dataset and scenario, after --scale

// ---------------------------------------------------------------- sweeps

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
                                                "data.gradient_formula"};
  return keys;
}

// The swept keys whose values are strings.
bool textual_key(const std::string& key) {
  return key == "training.scheme" || key == "data.gradient_formula";
}

struct SweepAxis {
  std::string key;
  const toml::array* values;
};

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

// ---------------------------------------------------------------- one scenario

template <class Enum>
Enum pick_enum(Reader& r, const std::string& key, const NameTable<Enum>& options,
               const std::string& what) {
  const std::string v = r.require_string(key, what);
  for (const auto& [name, value] : options) {
    if (name == v) return value;
  }
  r.fail(key, "must be one of: " + name_list(options));
}

void read_model(Scenario& s, Reader& r) {
  s.loss = pick_enum(r, "model.loss", loss_names(), "the loss family");
  if (s.loss == LossKind::kLogistic) {
    const long f = r.require_integer("model.features", "number of features >= 1");
    const long c = r.integer("model.classes").value_or(2);
    if (f < 1 || f > kMaxDim)
      r.fail("model.features", "must be in [1, " + std::to_string(kMaxDim) + "]");
    if (c < 2 || c > kMaxDim)
      r.fail("model.classes", "must be in [2, " + std::to_string(kMaxDim) + "]");
    if ((f + 1) * c > kMaxDim) {
      r.fail("model.features", "(features + 1) * classes = " + std::to_string((f + 1) * c) +
                                   " parameters, must be <= " + std::to_string(kMaxDim));
    }
    s.features = static_cast<int>(f);
    s.classes = static_cast<int>(c);
    s.dim = static_cast<int>((f + 1) * c);
    s.lambda = r.require_number("model.lambda", "L2 regularisation lambda >= 0");
    if (!(s.lambda >= 0)) r.fail("model.lambda", "must be >= 0");
    s.feature_clip = r.number("model.feature_clip").value_or(kInf);
    if (!(s.feature_clip > 0)) r.fail("model.feature_clip", "must be > 0");
    s.clip_norm = r.number("model.clip_norm").value_or(kInf);
    if (!(s.clip_norm > 0)) r.fail("model.clip_norm", "must be > 0");
  } else {
    const long d = r.integer("model.dim").value_or(1);
    if (d < 1 || d > kMaxDim)
      r.fail("model.dim", "must be in [1, " + std::to_string(kMaxDim) + "]");
    s.dim = static_cast<int>(d);
    if (s.loss == LossKind::kQuadratic) {
      s.lambda = r.require_number("model.lambda", "curvature lambda > 0");
      if (!(s.lambda > 0)) r.fail("model.lambda", "must be > 0");
    }
  }
}

Eigen::VectorXd to_vector(const std::vector<double>& v) {
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

void read_data(Scenario& s, Reader& r) {
  const int p = s.loss == LossKind::kLogistic ? s.features : s.dim;
  if (auto preset = r.string("data.preset")) {
    if (r.has("data.points")) r.fail("data.points", "give data.preset or data.points, not both");
    s.data = make_preset(*preset, s, r);
  } else {
    auto pts = r.matrix("data.points");
    if (!pts)
      throw InputError("data.points", "<missing>", "required: give data.preset or data.points");
    const int n = static_cast<int>(pts->size());
    if (n < 2) r.fail("data.points", "needs at least 2 records");
    s.data.points.resize(n, p);
    for (int i = 0; i < n; ++i) {
      if (static_cast<int>((*pts)[i].size()) != p) {
        const std::size_t got = (*pts)[i].size();
        throw InputError("data.points[" + std::to_string(i) + "]",
                         std::to_string(got) + (got == 1 ? " number" : " numbers"),
                         "each record needs " + std::to_string(p) + " numbers");
      }
      for (int j = 0; j < p; ++j) s.data.points(i, j) = (*pts)[i][j];
    }
    const long i0 = r.require_integer("data.differing_index", "index of the record that differs");
    if (i0 < 0 || i0 >= n) {
      r.fail("data.differing_index", "must be in [0, " + std::to_string(n - 1) +
                                         "] (the dataset has " + std::to_string(n) + " records)");
    }
    s.data.differing_index = static_cast<int>(i0);
    auto rep = r.vector("data.replacement");
    if (!rep) throw InputError("data.replacement", "<missing>", "required: the record x'_i0 of D'");
    if (static_cast<int>(rep->size()) != p) {
      r.fail("data.replacement", "needs " + std::to_string(p) + " numbers");
    }
    s.data.replacement = to_vector(*rep);
    if (s.loss == LossKind::kLogistic) {
      auto labels = r.integer_vector("data.labels");
      if (!labels)
        throw InputError("data.labels", "<missing>", "required for model.loss = \"logistic\"");
      if (static_cast<int>(labels->size()) != n) {
        r.fail("data.labels", "needs one label per record (" + std::to_string(n) + ")");
      }
      for (std::size_t i = 0; i < labels->size(); ++i) {
        if ((*labels)[i] < 0 || (*labels)[i] >= s.classes) {
          throw InputError("data.labels[" + std::to_string(i) + "]", std::to_string((*labels)[i]),
                           "must be in [0, " + std::to_string(s.classes - 1) + "]");
        }
        s.data.labels.push_back(static_cast<int>((*labels)[i]));
      }
      const long rl = r.require_integer("data.replacement_label", "label of x'_i0");
      if (rl < 0 || rl >= s.classes) {
        r.fail("data.replacement_label", "must be in [0, " + std::to_string(s.classes - 1) + "]");
      }
      s.data.replacement_label = static_cast<int>(rl);
    }
  }
  if (s.loss == LossKind::kLogistic && std::isfinite(s.feature_clip)) {
    // Algorithm 2, feature clipping: x <- x / ||x|| * min(||x||, L).
    auto clip = [&](auto&& x) {
      const double norm = x.norm();
      if (norm > s.feature_clip) x *= s.feature_clip / norm;
    };
    for (int i = 0; i < s.data.n(); ++i) clip(s.data.points.row(i));
    clip(s.data.replacement);
  }
}

// A pair is add/remove when one side of the differing record contributes nothing to any
// gradient sum: only a linear-loss record with g = 0 does (a quadratic or logistic record
// always has a gradient). Every pair here is also a replacement of record i0.
bool pair_is_add_remove(const Scenario& s) {
  if (s.data.crafted) return true;  // a crafted record against its absence
  if (s.loss != LossKind::kLinear) return false;
  return s.data.points.row(s.data.differing_index).isZero(0) || s.data.replacement.isZero(0);
}

void read_adjacency(Scenario& s, Reader& r) {
  const bool add_remove = pair_is_add_remove(s);
  s.data.adjacency = add_remove ? Adjacency::kAddRemove : Adjacency::kReplaceOne;
  if (!r.has("data.adjacency")) return;
  s.data.adjacency = pick_enum(r, "data.adjacency", adjacency_names(), "the neighbouring relation");
  if (s.data.adjacency == Adjacency::kAddRemove && !add_remove) {
    r.fail("data.adjacency",
           "the pair replaces record i0 by one with a nonzero gradient, a replace_one pair; "
           "add_remove needs x_i0 or x'_i0 to contribute no gradient (model.loss = \"linear\" "
           "with a zero record)");
  }
}

void read_training(Scenario& s, Reader& r) {
  const int n = s.n();
  s.scheme = pick_enum(r, "training.scheme", scheme_names(), "the batch scheme");
  s.eta = r.require_number("training.eta", "step size eta > 0");
  if (!(s.eta > 0)) r.fail("training.eta", "must be > 0");

  if (s.scheme == BatchScheme::kFullBatch) {
    const long b = r.integer("training.batch_size").value_or(n);
    if (b != n)
      r.fail("training.batch_size", "must equal data.n = " + std::to_string(n) + " for full_batch");
    s.batch_size = n;
    s.steps_per_epoch = 1;
  } else if (s.scheme == BatchScheme::kPoisson) {
    if (r.has("training.batch_size") == r.has("training.sampling_rate")) {
      r.fail(r.has("training.batch_size") ? "training.sampling_rate" : "training.batch_size",
             "give exactly one of training.batch_size (expected batch size) and "
             "training.sampling_rate for scheme = \"poisson\"");
    }
    if (auto q = r.number("training.sampling_rate")) {
      if (!(*q > 0 && *q <= 1)) r.fail("training.sampling_rate", "must be in (0, 1]");
      s.sampling_rate = *q;
    } else {
      const long b = r.require_integer("training.batch_size", "expected batch size");
      if (b < 1 || b > n)
        r.fail("training.batch_size", "must be in [1, data.n = " + std::to_string(n) + "]");
      s.sampling_rate = static_cast<double>(b) / n;
    }
    s.batch_size = static_cast<int>(std::lround(s.sampling_rate * n));
    s.steps_per_epoch = std::max(1L, static_cast<long>(std::floor(1.0 / s.sampling_rate + 1e-9)));
  } else {
    const long b = r.require_integer("training.batch_size", "mini-batch size b");
    if (b < 1 || b > n)
      r.fail("training.batch_size", "must be in [1, data.n = " + std::to_string(n) + "]");
    s.batch_size = static_cast<int>(b);
    s.steps_per_epoch = n / b;  // footnote 3: the last n - floor(n/b) b records are ignored
  }

  if (r.has("training.epochs") == r.has("training.steps")) {
    r.fail(r.has("training.epochs") ? "training.steps" : "training.epochs",
           "give exactly one of training.epochs and training.steps");
  }
  if (auto k = r.integer("training.epochs")) {
    if (*k < 1 || *k > 100'000'000) r.fail("training.epochs", "must be in [1, 10^8]");
    s.epochs = *k;
    s.steps = *k * s.steps_per_epoch;
  } else {
    const long t = *r.integer("training.steps");
    if (t < 1 || t > 1'000'000'000) r.fail("training.steps", "must be in [1, 10^9]");
    s.steps = t;
  }

  if (s.scheme == BatchScheme::kFixedOrder) {
    const long natural = s.data.differing_index / s.batch_size;
    const long j0 = r.integer("training.differing_batch").value_or(natural);
    if (j0 < 0 || j0 >= s.steps_per_epoch) {
      r.fail("training.differing_batch",
             "must be in [0, n/b - 1 = " + std::to_string(s.steps_per_epoch - 1) + "]");
    }
    s.differing_batch = static_cast<int>(j0);
  }

  if (auto diam = r.number("training.projection_diameter")) {
    if (!(*diam > 0)) r.fail("training.projection_diameter", "must be > 0");
    s.projection_diameter = *diam;
  }
  s.projection_center = Eigen::VectorXd::Zero(s.dim);
  if (auto c = r.vector("training.projection_center")) {
    if (!std::isfinite(s.projection_diameter)) {
      r.fail("training.projection_center", "needs training.projection_diameter");
    }
    if (static_cast<int>(c->size()) != s.dim) {
      r.fail("training.projection_center", "needs d = " + std::to_string(s.dim) + " numbers");
    }
    s.projection_center = to_vector(*c);
  }
}

// S_g of this pair: sensitivity of the total gradient sum_i grad l(theta; x_i).
double pair_sensitivity(const Scenario& s) {
  // A crafted record against its absence: the total gradient moves by max_t ||g_t||.
  if (s.data.crafted) return s.data.crafted_gradient.rowwise().norm().maxCoeff();
  const Eigen::VectorXd x = s.data.points.row(s.data.differing_index).transpose();
  switch (s.loss) {
    case LossKind::kQuadratic:  // grad = lambda (theta - x): difference lambda ||x - x'||
      return s.lambda * (x - s.data.replacement).norm();
    case LossKind::kLinear:  // grad = g: difference ||g - g'||
      return (x - s.data.replacement).norm();
    case LossKind::kLogistic:  // Proposition 5.2: clip S_g/2 per example => S_g
      return 2.0 * s.clip_norm;
  }
  return 0;
}

void read_noise(Scenario& s, Reader& r) {
  const std::vector<std::pair<std::string, NoiseKey>> keys = {
      {"noise.sigma", NoiseKey::kSigma},
      {"noise.sigma2", NoiseKey::kSigma2},
      {"noise.noise_multiplier", NoiseKey::kNoiseMultiplier},
      {"noise.paper_noise_multiplier", NoiseKey::kPaperNoiseMultiplier},
      {"noise.blog_sigma", NoiseKey::kBlogSigma},
      {"noise.step_std", NoiseKey::kStepStd}};
  int given = 0;
  for (const auto& [key, kind] : keys) {
    if (!r.has(key)) continue;
    if (++given > 1)
      r.fail(key,
             "give exactly one of noise.sigma, noise.sigma2, noise.noise_multiplier, "
             "noise.paper_noise_multiplier, noise.blog_sigma, noise.step_std");
    s.noise_key = kind;
    s.noise_value = *r.number(key);
    if (!(s.noise_value > 0)) r.fail(key, "must be > 0");
  }
  if (given == 0) {
    throw InputError("noise", "<missing>",
                     "required: one of sigma, sigma2, noise_multiplier, "
                     "paper_noise_multiplier, blog_sigma, step_std");
  }
  s.sensitivity = pair_sensitivity(s);
  const double b = s.scheme == BatchScheme::kPoisson ? s.sampling_rate * s.n() : s.batch_size;
  switch (s.noise_key) {
    case NoiseKey::kSigma:
      s.step_std = step_std_from_sigma(s.noise_value, s.eta);
      break;
    case NoiseKey::kSigma2:
      s.step_std = step_std_from_sigma2(s.noise_value, s.eta);
      break;
    case NoiseKey::kNoiseMultiplier:
      // Opacus / dp_accounting: noise std on the clipped-gradient sum / per-example clip norm.
      if (!std::isfinite(s.clip_norm)) {
        r.fail("noise.noise_multiplier",
               "is relative to the per-example clip norm (as in Opacus and dp_accounting), and "
               "only model.loss = \"logistic\" with model.clip_norm clips; otherwise give "
               "noise.paper_noise_multiplier (Algorithm 2's sigma_mul, relative to S_g/2 of "
               "this pair), noise.sigma or noise.step_std");
      }
      s.step_std = step_std_from_noise_multiplier(s.noise_value, s.eta, s.clip_norm, b);
      break;
    case NoiseKey::kPaperNoiseMultiplier:
      if (!(std::isfinite(s.sensitivity) && s.sensitivity > 0)) {
        r.fail("noise.paper_noise_multiplier",
               "needs a finite, positive sensitivity S_g (logistic: set model.clip_norm; "
               "other losses: D and D' must differ)");
      }
      s.step_std = step_std_from_paper_noise_multiplier(s.noise_value, s.eta, s.sensitivity, b);
      break;
    case NoiseKey::kBlogSigma:
      s.step_std = step_std_from_blog_sigma(s.noise_value, s.eta);
      break;
    case NoiseKey::kStepStd:
      s.step_std = s.noise_value;
      break;
  }
  s.sigma = sigma_from_step_std(s.step_std, s.eta);
  s.blog_sigma = blog_sigma_from_step_std(s.step_std, s.eta);
  s.paper_noise_multiplier =
      s.sensitivity > 0 && std::isfinite(s.sensitivity)
          ? paper_noise_multiplier_from_step_std(s.step_std, s.eta, s.sensitivity, b)
          : kNaN;
  s.noise_multiplier = std::isfinite(s.clip_norm)
                           ? noise_multiplier_from_step_std(s.step_std, s.eta, s.clip_norm, b)
                           : kNaN;
}

void read_init(Scenario& s, Reader& r) {
  s.init_mean = Eigen::VectorXd::Zero(s.dim);
  if (auto m = r.vector("init.mean")) {
    if (static_cast<int>(m->size()) != s.dim)
      r.fail("init.mean", "needs d = " + std::to_string(s.dim) + " numbers");
    s.init_mean = to_vector(*m);
  }
  s.init_std = r.number("init.std").value_or(0.0);
  if (!(s.init_std >= 0)) r.fail("init.std", "must be >= 0");
}

void read_tally(Scenario& s, Reader& r) {
  s.bins = static_cast<int>(
      r.integer_in("tally.bins", 2, 1'000'000, "must be in [2, 10^6]").value_or(512));
  s.bins_2d = static_cast<int>(
      r.integer_in("tally.bins_2d", 2, 4096, "must be in [2, 4096]").value_or(128));
  if (auto range = r.vector("tally.range")) {
    if (range->size() != 2 || !((*range)[0] < (*range)[1]))
      r.fail("tally.range", "must be [lo, hi] with lo < hi");
    s.has_range = true;
    s.range_lo = (*range)[0];
    s.range_hi = (*range)[1];
  }
  s.pilot_trajectories = r.integer("tally.pilot_trajectories").value_or(20000);
  if (s.pilot_trajectories < 100 || s.pilot_trajectories > 100'000'000) {
    r.fail("tally.pilot_trajectories", "must be in [100, 10^8]");
  }
  s.raw_cap = r.integer("tally.raw_samples").value_or(0);
  if (s.raw_cap < 0 || s.raw_cap > 100'000'000) r.fail("tally.raw_samples", "must be in [0, 10^8]");
}

std::string custom_key(std::size_t i, const std::string& leaf) {
  return "bounds.custom[" + std::to_string(i) + "]." + leaf;
}

// [[bounds.custom]] tables: name, formula, optional conditions. The formulas are compiled
// here so that `rdpaudit validate` reports unknown names and syntax errors with positions.
std::vector<CustomBoundText> read_custom_bounds(Reader& r) {
  std::vector<CustomBoundText> out;
  const toml::array* arr = r.table_array("bounds.custom");
  if (!arr) return out;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const toml::table& t = *arr->get(i)->as_table();
    CustomBoundText c;
    for (const auto& [key, value] : t) {
      const std::string k(key.str());
      if (k == "name" || k == "formula") {
        const auto* str = value.as_string();
        if (!str || str->get().empty()) {
          throw InputError(custom_key(i, k), r.text(custom_key(i, k)),
                           "must be a non-empty string");
        }
        (k == "name" ? c.name : c.formula) = str->get();
      } else if (k == "conditions") {
        const auto* list = value.as_array();
        if (!list) throw InputError(custom_key(i, k), "...", "must be an array of strings");
        for (std::size_t j = 0; j < list->size(); ++j) {
          const auto* str = list->get(j)->as_string();
          if (!str)
            throw InputError(custom_key(i, k) + "[" + std::to_string(j) + "]", "...",
                             "must be a string");
          c.conditions.push_back(str->get());
        }
      } else if (k == "expect") {
        const auto* str = value.as_string();
        if (!str) throw InputError(custom_key(i, k), r.text(custom_key(i, k)), "must be a string");
        c.expect = parse_expectation(str->get(), custom_key(i, k));
      } else {
        throw InputError(custom_key(i, k), "...",
                         "unknown key (known: name, formula, conditions, expect)");
      }
    }
    if (c.name.empty()) throw InputError(custom_key(i, "name"), "<missing>", "required");
    if (c.formula.empty()) throw InputError(custom_key(i, "formula"), "<missing>", "required");
    for (const auto& prev : out) {
      if (prev.name == c.name)
        throw InputError(custom_key(i, "name"), "\"" + c.name + "\"", "duplicate bound name");
    }
    bounds::CustomBound(
        bounds::CustomBoundSpec{c.name, c.formula, c.conditions});  // compiles or throws
    out.push_back(std::move(c));
  }
  return out;
}

// A list of Renyi orders: each in (1, 10^4], at most 1000 of them.
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

void read_bounds(Scenario& s, Reader& r) {
  auto& b = s.bounds;
  if (auto alphas = read_orders(r, "bounds.alphas")) {
    if (alphas->empty()) r.fail("bounds.alphas", "needs at least one order");
    b.alphas = *alphas;
  }
  const auto positive = [&](const char* key, double& out, bool allow_zero) {
    if (auto v = r.number(key)) {
      if (!(allow_zero ? *v >= 0 : *v > 0))
        r.fail(key, allow_zero ? "must be >= 0" : "must be > 0");
      out = *v;
    }
  };
  positive("bounds.lambda", b.lambda, true);
  positive("bounds.beta", b.beta, true);
  positive("bounds.S_g", b.sensitivity, true);
  positive("bounds.L", b.lipschitz, true);
  positive("bounds.D", b.diameter, false);
  positive("bounds.eps_norm", b.eps_norm, true);
  b.custom = read_custom_bounds(r);
  b.exact_verdicts = r.boolean("bounds.exact_verdicts").value_or(true);
  // Names in bounds.audit and bounds.expect_violated must be built-in or custom bounds.
  const auto known = [&](const std::string& name) {
    for (const auto& info : bounds::bound_catalogue())
      if (info.name == name) return true;
    for (const auto& c : b.custom)
      if (c.name == name) return true;
    return false;
  };
  const std::pair<const char*, std::vector<std::string>*> lists[] = {
      {"bounds.audit", &b.audit},
      {"bounds.expect_violated", &b.expect_violated},
      {"bounds.expect_valid_exact", &b.expect_valid_exact}};
  for (const auto& [key, list] : lists) {
    const auto names = r.strings(key);
    if (!names) continue;
    for (std::size_t i = 0; i < names->size(); ++i) {
      const std::string& name = (*names)[i];
      if (!known(name)) {
        throw InputError(r.display(key) + "[" + std::to_string(i) + "]", "\"" + name + "\"",
                         "is not a built-in or custom bound (rdpaudit bounds FILE lists them)");
      }
    }
    *list = *names;
  }
  check_expectations(b, r);
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
}

Scenario read_scenario(const toml::table& doc, const std::map<std::string, Reader::Swept>& swept,
                       long trajectories, const TrajectorySource& source) {
  Reader r(doc, swept);
  // The [experiment] table is read once for the whole file; mark its keys as known here.
  for (const char* k : {"experiment.name", "experiment.description", "experiment.seed",
                        "experiment.trajectories", "experiment.sweep"}) {
    if (r.has(k)) {
      if (std::string(k) == "experiment.seed" || std::string(k) == "experiment.trajectories") {
        r.integer(k);
      } else {
        r.string(k);
      }
    }
  }
  Scenario s;
  read_model(s, r);
  read_data(s, r);
  read_adjacency(s, r);
  read_training(s, r);
  read_crafted_gradient(s, r);  // a formula is evaluated at every step t < T
  read_noise(s, r);
  read_init(s, r);
  read_tally(s, r);
  read_bounds(s, r);
  read_estimate(s, r, trajectories);
  read_profile(s, r);
  r.reject_unused();
  check_scenario_limits(s, r, trajectories, source);
  return s;
}

std::string stem(const std::string& path) {
  auto slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  auto dot = base.rfind('.');
  return dot == std::string::npos ? base : base.substr(0, dot);
}

}  // namespace

ExperimentSpec parse_experiment(const std::string& text, const std::string& source_name,
                                const Overrides& overrides) {
  toml::table doc;
  try {
    doc = toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    throw InputError(source_name + ":" + std::to_string(where.line) + ":" +
                     std::to_string(where.column) +
                     ": TOML syntax error: " + std::string(e.description()));
  }

  ExperimentSpec spec;
  spec.source_path = source_name;
  spec.config_text = text;
  spec.config_sha256 = sha256_hex(text);

  Reader r(doc);
  spec.name = r.string("experiment.name").value_or(stem(source_name));
  spec.description = r.string("experiment.description").value_or("");
  const long seed = r.require_integer("experiment.seed", "random seed >= 0");
  if (seed < 0) r.fail("experiment.seed", "must be >= 0");
  spec.seed = overrides.seed.value_or(static_cast<std::uint64_t>(seed));
  const long m = r.require_integer("experiment.trajectories", "trajectories per dataset >= 1");
  TrajectorySource source;
  source.key = overrides.trajectories ? "--trajectories" : "experiment.trajectories";
  source.scale = overrides.scale;
  source.simulated = overrides.simulated;
  const long unscaled = overrides.trajectories.value_or(m);
  if (unscaled < 1) {
    if (overrides.trajectories)
      throw InputError("--trajectories", std::to_string(unscaled), "must be >= 1");
    r.fail("experiment.trajectories", "must be >= 1");
  }
  if (!(overrides.scale > 0.0 && overrides.scale <= 1e6)) {
    throw InputError("--scale", fmt::format("{}", overrides.scale), "must be in (0, 10^6]");
  }
  // Checked in double before rounding: 2^63 - 1 trajectories x --scale 10 overflowed a long.
  const double scaled = static_cast<double>(unscaled) * overrides.scale;
  if (scaled > kMaxTrajectories) {
    throw InputError(
        overrides.scale != 1.0 ? "--scale" : source.key,
        overrides.scale != 1.0 ? fmt::format("{}", overrides.scale) : std::to_string(unscaled),
        fmt::format("{} x {} = {:.4g} trajectories per dataset; at most 10^12", unscaled,
                    overrides.scale, scaled));
  }
  spec.trajectories = std::lround(scaled);
  if (spec.trajectories < 1) {
    throw InputError("--scale", fmt::format("{}", overrides.scale),
                     fmt::format("leaves {} x {:g} < 0.5 trajectories per dataset from {} = {}; "
                                 "need --scale >= {:.3g}",
                                 unscaled, overrides.scale, source.key, unscaled, 0.5 / unscaled));
  }
  spec.sweep_mode = r.string("experiment.sweep").value_or("product");
  if (spec.sweep_mode != "product" && spec.sweep_mode != "zip") {
    r.fail("experiment.sweep", "must be \"product\" or \"zip\"");
  }

  const auto axes = find_sweep_axes(doc);
  std::size_t count = 1;
  for (const auto& a : axes) {
    spec.swept_keys.push_back(a.key);
    if (spec.sweep_mode == "zip") {
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

  for (std::size_t c = 0; c < count; ++c) {
    // The scenario reads each swept key's element through the Reader; copying the document
    // per point instead made the expansion quadratic (issue 13, item 13).
    std::map<std::string, Reader::Swept> swept;
    std::vector<SweepValue> point;
    std::size_t rest = c;
    // Product order: the last swept key varies fastest.
    for (std::size_t a = axes.size(); a-- > 0;) {
      std::size_t i = c;
      if (spec.sweep_mode == "product") {
        i = rest % axes[a].values->size();
        rest /= axes[a].values->size();
      }
      const toml::node* v = axes[a].values->get(i);
      swept[axes[a].key] = {static_cast<int>(i), v};
      if (const auto* str = v->as_string()) {
        point.insert(point.begin(), {axes[a].key, kNaN, str->get()});
      } else {
        const double x = *v->value<double>();
        point.insert(point.begin(), {axes[a].key, x, fmt::format("{:g}", x)});
      }
    }
    Scenario s = read_scenario(doc, swept, spec.trajectories, source);
    s.index = static_cast<int>(c);
    s.sweep_point = std::move(point);
    spec.scenarios.push_back(std::move(s));
  }
  if (source.simulated) check_run_memory(spec, source);
  return spec;
}

ExperimentSpec load_experiment(const std::string& path, const Overrides& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("experiment file", path, "cannot be opened");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_experiment(text.str(), path, overrides);
}

}  // namespace rdpaudit::config
