#include <cmath>
#include <optional>
#include <vector>

#include "rdpaudit/config/presets.hpp"
#include "rdpaudit/config/tables.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::config {

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
    // The logistic loss with add/remove neighbours: D' lacks record i0 (read_adjacency), so
    // there is no replacement record to give.
    const bool absent = s.loss == LossKind::kLogistic && r.has("data.adjacency") &&
                        r.string("data.adjacency").value_or("") == "add_remove";
    if (absent) {
      for (const char* key : {"data.replacement", "data.replacement_label"}) {
        if (r.has(key)) {
          r.fail(key,
                 "data.adjacency = \"add_remove\" with model.loss = \"logistic\" leaves record "
                 "i0 out of D': there is no replacement record (remove this key, or use "
                 "data.adjacency = \"replace_one\")");
        }
      }
    }
    auto rep = absent ? std::optional<std::vector<double>>(std::vector<double>(p, 0.0))
                      : r.vector("data.replacement");
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
      const long rl = absent ? 0 : r.require_integer("data.replacement_label", "label of x'_i0");
      if (rl < 0 || rl >= s.classes) {
        r.fail("data.replacement_label", "must be in [0, " + std::to_string(s.classes - 1) + "]");
      }
      s.data.replacement_label = static_cast<int>(rl);
    }
  }
  // Algorithm 2, feature clipping (logistic): x <- x / ||x|| * min(||x||, L). DP-SGD's
  // per-example clip (linear): the record is its gradient g, which does not depend on theta,
  // so clipping it once here is clipping it at every step.
  const double bound = s.loss == LossKind::kLogistic ? s.feature_clip
                       : s.loss == LossKind::kLinear ? s.clip_norm
                                                     : kInf;
  if (std::isfinite(bound)) {
    for (int i = 0; i < s.data.n(); ++i) clip_to_norm(s.data.points.row(i), bound);
    clip_to_norm(s.data.replacement, bound);
  }
}

namespace {

// A pair is add/remove by its records when one side of the differing record contributes
// nothing to any gradient sum: only a linear-loss record with g = 0 does (a quadratic or
// logistic record always has a gradient). Every such pair is also a replacement of record i0.
bool pair_is_add_remove(const Scenario& s) {
  if (s.data.crafted) return true;  // a crafted record against its absence
  if (s.loss != LossKind::kLinear) return false;
  return s.data.points.row(s.data.differing_index).isZero(0) || s.data.replacement.isZero(0);
}

}  // namespace

void read_adjacency(Scenario& s, Reader& r) {
  const bool add_remove = pair_is_add_remove(s);
  s.data.adjacency = add_remove ? Adjacency::kAddRemove : Adjacency::kReplaceOne;
  if (!r.has("data.adjacency")) return;
  s.data.adjacency = pick_enum(r, "data.adjacency", adjacency_names(), "the neighbouring relation");
  if (s.data.adjacency != Adjacency::kAddRemove || add_remove) return;
  if (s.loss == LossKind::kLogistic) {
    // DP-SGD's relation for a loss with a per-example clip: D' is D without record i0 (its
    // gradient is in no sum of D'; the schemes keep their normaliser, NeighbouringPair::absent).
    s.data.absent = true;
    s.data.replacement.setZero();
    s.data.replacement_label = 0;
    return;
  }
  const char* instead =
      "; DP-SGD's add/remove pair, a record whose clipped gradient has norm C against its "
      "absence, is model.loss = \"linear\" with model.clip_norm = C and data.preset = "
      "\"linear_worst_case\" or \"crafted_gradient\", or model.loss = \"logistic\" with "
      "model.clip_norm = C (record i0 left out of D')";
  r.fail("data.adjacency",
         std::string("both records of the pair have a gradient (record i0 is replaced, a "
                     "replace_one pair); add_remove needs x_i0 or x'_i0 to contribute no "
                     "gradient (model.loss = \"linear\" with a zero record)") +
             instead);
}

}  // namespace rdpaudit::config
