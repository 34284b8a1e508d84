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

/// How a search evaluates its points (search.evaluator): kAuto takes kExact when the exact
/// engines cover every grid point, else kSampled; one search never ranks values of the two.
enum class Evaluator { kAuto, kExact, kSampled };

/// One free parameter: an experiment key and the values it may take.
struct Param {
  std::string key;                 ///< the experiment key it sets, e.g. "training.differing_batch"
  Axis axis;                       ///< the coordinate the method moves
  std::vector<std::string> texts;  ///< a list of strings: the values (axis.list = indices)
  std::string formula;             ///< a string key set from a number: "{}" replaced by it
  bool integer_key = false;        ///< written to the file as a TOML integer
  /// A direction (radius > 0): the coordinate is an angle in degrees and the key is set to
  /// the 2-vector radius (cos x, sin x).
  double radius = 0.0;
  /// A list of vectors (values = [[...], ...]): axis.list holds their indices.
  std::vector<std::vector<double>> vectors;
  bool vector_valued() const { return radius > 0.0 || !vectors.empty(); }
  /// The key's vector at coordinate x (vector_valued() only).
  std::vector<double> vector_at(double x) const;
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
  Evaluator evaluator = Evaluator::kAuto;
  /// Sampled evaluation: trajectories per dataset (half choose the cells, half are counted).
  long pilot_trajectories = 200000;
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
std::string to_string(Evaluator e);

}  // namespace rdpaudit::search
