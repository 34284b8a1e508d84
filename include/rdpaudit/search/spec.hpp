// The [search] table of an experiment file (docs/experiments.md, "Searching for the worst
// adversary"): the adversary's free parameters as experiment keys with their ranges, the
// objective and the budget; and the experiment file of one search point (the file with the
// point's values substituted and [search] removed), which config reads like any other.
#pragma once

#include <toml++/toml.h>

#include <string>
#include <vector>

#include "rdpaudit/search/method.hpp"

namespace rdpaudit::search {

enum class ObjectiveKind { kRenyi, kRatio, kDelta };

/// One free parameter: an experiment key and the values it may take.
struct Param {
  std::string key;                 ///< the experiment key it sets, e.g. "training.differing_batch"
  Axis axis;                       ///< the coordinate the method moves
  std::vector<std::string> texts;  ///< a list of strings: the values (axis.list = indices)
  std::string formula;             ///< a string key set from a number: "{}" replaced by it
  bool integer_key = false;        ///< written to the file as a TOML integer
};

struct Spec {
  std::vector<Param> params;
  ObjectiveKind objective = ObjectiveKind::kRenyi;
  std::vector<double> alphas;  ///< renyi, ratio
  std::string bound;           ///< ratio: R_alpha / this bound
  double epsilon = 0.0;        ///< delta: delta(epsilon)
  bool forward = true, backward = true;
  long budget = 0;
  double tolerance = 1e-3;
};

/// Reads and checks the [search] table of `doc` (InputError naming search.* keys as written:
/// an empty range, points < 1, an empty list, a budget < 1 or below the grid, an unknown key).
/// Whether a value is inside its key's domain is left to config, which reads every point.
Spec read_spec(const toml::table& doc);

/// The value of parameter `p` at coordinate `x` as written in the experiment file.
std::string value_text(const Param& p, double x);

/// The experiment document of one point: `doc` without [search], each parameter's key set to
/// its value at `x` (tables created where missing).
toml::table point_document(const toml::table& doc, const Spec& spec, const std::vector<double>& x);

/// TOML text of a document (toml++'s formatter).
std::string to_text(const toml::table& doc);

std::string to_string(ObjectiveKind k);

}  // namespace rdpaudit::search
