#include "rdpaudit/search/spec.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>

#include "rdpaudit/config/reader.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::search {
namespace {

// Keys config reads as integers; a search over one of them moves in whole steps and writes
// TOML integers.
bool integer_key(const std::string& key) {
  static const std::set<std::string> keys = {"model.dim",
                                             "model.features",
                                             "model.classes",
                                             "training.batch_size",
                                             "training.epochs",
                                             "training.steps",
                                             "training.differing_batch",
                                             "data.n",
                                             "data.differing_index",
                                             "tally.bins",
                                             "tally.bins_2d",
                                             "tally.pilot_trajectories",
                                             "tally.raw_samples",
                                             "experiment.seed",
                                             "experiment.trajectories"};
  return keys.count(key) > 0;
}

std::string written(const toml::node* n) {
  if (!n) return "<missing>";
  if (const auto* str = n->as_string()) return "\"" + str->get() + "\"";  // as the file writes it
  std::ostringstream os;
  n->visit([&os](const auto& v) { os << v; });
  return os.str();
}

// Every number of a search file (integers beyond 2^53 included).
double num(const toml::node& n) {
  return config::number_value(n).value_or(std::numeric_limits<double>::quiet_NaN());
}

[[noreturn]] void fail(const std::string& key, const toml::node* n, const std::string& expected) {
  throw InputError(key, written(n), expected);
}

double number(const toml::table& t, const std::string& name, const std::string& key) {
  const toml::node* n = t.get(name);
  if (!n || !n->is_number()) fail(key, n, "must be a number");
  const double v = num(*n);
  if (!std::isfinite(v)) fail(key, n, "must be finite");
  return v;
}

void check_keys(const toml::table& t, const std::string& where,
                const std::set<std::string>& known) {
  for (const auto& [k, v] : t) {
    if (!known.count(std::string(k.str()))) {
      std::string list;
      for (const auto& s : known) list += (list.empty() ? "" : ", ") + s;
      fail(where + "." + std::string(k.str()), &v, "unknown key; known: " + list);
    }
  }
}

Param read_param(const toml::table& t, const std::string& where, const toml::table& doc) {
  check_keys(t, where, {"key", "min", "max", "points", "integer", "values", "formula", "radius"});
  Param p;
  const toml::node* key = t.get("key");
  if (!key || !key->is_string() || key->value<std::string>()->empty())
    fail(where + ".key", key, "must be an experiment key, e.g. \"training.differing_batch\"");
  p.key = *key->value<std::string>();
  if (p.key.rfind("search.", 0) == 0 || p.key.rfind("experiment.", 0) == 0 ||
      p.key.find('.') == std::string::npos) {
    fail(where + ".key", key,
         "must be a key of the experiment's tables (model, data, training, noise, init, ...), "
         "not of [experiment] or [search]");
  }
  if (const auto open = p.key.find('['); open != std::string::npos) {
    const std::string index = p.key.substr(open + 1);
    const bool whole = index.size() >= 2 && index.back() == ']' &&
                       index.find_first_not_of("0123456789") == index.size() - 1 &&
                       index.size() <= 8 && p.key.rfind('.') < open;
    const toml::node* list = doc.at_path(p.key.substr(0, open)).node();
    if (!whole || !list || !list->is_array() ||
        std::stol(index) >= static_cast<long>(list->as_array()->size()))
      fail(where + ".key", key,
           "an element key[k] must name an element of a list the file gives, e.g. "
           "\"init.mean[0]\"");
  }
  const toml::node* current = doc.at_path(p.key).node();
  p.integer_key = integer_key(p.key) || (current && current->is_integer());
  if (const toml::node* i = t.get("integer")) {
    if (!i->is_boolean()) fail(where + ".integer", i, "must be true or false");
    p.integer_key = p.integer_key || *i->value<bool>();
  }
  if (const toml::node* r = t.get("radius")) {
    // A direction in the plane: the parameter is an angle in degrees.
    if (!r->is_number() || !(num(*r) > 0) || !std::isfinite(num(*r)) || num(*r) > 1e100)
      fail(where + ".radius", r,
           "must be a number in (0, 1e100]: the length of the 2-vector radius (cos x, sin x) "
           "the key is set to, x the parameter's angle in degrees");
    if (t.contains("formula") || t.contains("integer"))
      fail(where + (t.contains("formula") ? ".formula" : ".integer"),
           t.get(t.contains("formula") ? "formula" : "integer"),
           "a direction (radius) takes an angle in degrees: no formula, no integer");
    if (current && !(current->is_array() && current->as_array()->size() == 2))
      fail(where + ".key", key,
           "a direction (radius) sets a 2-vector: the file must give the key two numbers "
           "(model.dim = 2), e.g. data.gradient = [1.0, 0.0]");
    p.radius = num(*r);
    p.integer_key = false;
  }
  p.axis.integer = p.integer_key;
  const bool listed = t.contains("values");
  if (listed) {
    for (const char* other : {"min", "max", "points", "formula"}) {
      if (t.contains(other))
        fail(where + "." + other, t.get(other), "give either values or a range (min, max)");
    }
    const toml::array* a = t.get("values")->as_array();
    if (!a || a->empty())
      fail(where + ".values", t.get("values"), "must be a non-empty list of values");
    const bool textual = a->get(0)->is_string();
    const bool vectors = a->get(0)->is_array();
    if (vectors && p.radius > 0)
      fail(where + ".values", t.get("values"),
           "with radius, the values are angles in degrees (numbers), not vectors");
    for (std::size_t i = 0; i < a->size(); ++i) {
      const toml::node* v = a->get(i);
      const std::string k = fmt::format("{}.values[{}]", where, i);
      if (vectors) {
        // A list of vectors (directions given as unit vectors, or any vectors of the key).
        const toml::array* vec = v->as_array();
        if (!vec || vec->empty())
          fail(k, v, "must be a non-empty list of numbers, as values[0] is");
        std::vector<double> x;
        for (std::size_t c = 0; c < vec->size(); ++c) {
          const toml::node* e = vec->get(c);
          if (!e->is_number() || !std::isfinite(num(*e)))
            fail(fmt::format("{}[{}]", k, c), e, "must be a finite number");
          x.push_back(num(*e));
        }
        if (!p.vectors.empty() && x.size() != p.vectors.front().size())
          fail(k, v, fmt::format("must have {} numbers, as values[0] has", p.vectors[0].size()));
        p.vectors.push_back(std::move(x));
        p.axis.list.push_back(static_cast<double>(i));
        continue;
      }
      if (textual) {
        if (!v->is_string()) fail(k, v, "must be a string, as values[0] is");
        p.texts.push_back(*v->value<std::string>());
        p.axis.list.push_back(static_cast<double>(i));
      } else {
        if (!v->is_number()) fail(k, v, "must be a number (or every value a string)");
        const double x = num(*v);
        if (!std::isfinite(x)) fail(k, v, "must be finite");
        if (p.integer_key && x != std::round(x))
          fail(k, v, fmt::format("{} is an integer key: the value must be whole", p.key));
        p.axis.list.push_back(x);
      }
    }
    if (textual || vectors) p.integer_key = false;
    p.axis.integer = p.integer_key;
    return p;
  }
  if (!t.contains("min") || !t.contains("max")) {
    fail(where + (t.contains("min") ? ".max" : ".min"), nullptr,
         "give a range (min and max, optionally points) or a list of values");
  }
  p.axis.min = number(t, "min", where + ".min");
  p.axis.max = number(t, "max", where + ".max");
  if (p.axis.max < p.axis.min) {
    fail(where + ".max", t.get("max"),
         fmt::format("empty range: must be >= {}.min = {}", where, written(t.get("min"))));
  }
  if (p.integer_key) {
    for (const char* end : {"min", "max"}) {
      const double v = number(t, end, where + "." + end);
      if (v != std::round(v))
        fail(where + "." + end, t.get(end),
             fmt::format("{} takes whole numbers: the range's ends must be whole", p.key));
    }
  }
  if (const toml::node* n = t.get("points")) {
    if (!n->is_integer() || *n->value<long>() < 1 || *n->value<long>() > 10000)
      fail(where + ".points", n, "must be an integer in [1, 10000]");
    p.axis.points = static_cast<int>(*n->value<long>());
  } else {
    p.axis.points =
        p.integer_key ? static_cast<int>(std::min(5.0, p.axis.max - p.axis.min + 1)) : 5;
  }
  if (p.axis.max == p.axis.min) p.axis.points = 1;
  if (const toml::node* f = t.get("formula")) {
    if (!f->is_string() || f->value<std::string>()->find("{}") == std::string::npos)
      fail(where + ".formula", f,
           "must be a string with {} where the parameter's value goes, e.g. "
           "\"abs(t/{} - rint(t/{})) < 0.001\"");
    p.formula = *f->value<std::string>();
    p.integer_key = false;  // the key takes the formula (a string)
  }
  return p;
}

}  // namespace

std::string to_string(ObjectiveKind k) {
  switch (k) {
    case ObjectiveKind::kRenyi:
      return "renyi";
    case ObjectiveKind::kRatio:
      return "ratio";
    case ObjectiveKind::kDelta:
      return "delta";
  }
  return "?";
}

Spec read_spec(const toml::table& doc) {
  const toml::node* node = doc.get("search");
  if (!node || !node->is_table())
    fail("search", node,
         "rdpaudit search needs a [search] table: params (the free keys and their ranges), "
         "objective, budget (docs/experiments.md)");
  const toml::table& t = *node->as_table();
  check_keys(t, "search",
             {"params", "objective", "alpha", "bound", "epsilon", "direction", "budget",
              "tolerance", "evaluator", "pilot_trajectories"});
  Spec spec;
  const toml::array* params = t.contains("params") ? t.get("params")->as_array() : nullptr;
  if (!params || params->empty())
    fail("search.params", t.get("params"),
         "must list at least one free parameter, e.g. [{key = \"training.differing_batch\", "
         "min = 0, max = 24}]");
  std::set<std::string> keys;
  for (std::size_t i = 0; i < params->size(); ++i) {
    const std::string where = fmt::format("search.params[{}]", i);
    const toml::table* pt = params->get(i)->as_table();
    if (!pt) fail(where, params->get(i), "must be a table {key = ..., min = ..., max = ...}");
    spec.params.push_back(read_param(*pt, where, doc));
    if (!keys.insert(spec.params.back().key).second)
      fail(where + ".key", pt->get("key"), "the key is already a parameter of the search");
  }

  const toml::node* obj = t.get("objective");
  const std::string objective = obj && obj->is_string() ? *obj->value<std::string>() : "";
  if (objective == "renyi") {
    spec.objective = ObjectiveKind::kRenyi;
  } else if (objective == "ratio") {
    spec.objective = ObjectiveKind::kRatio;
  } else if (objective == "delta") {
    spec.objective = ObjectiveKind::kDelta;
  } else {
    fail("search.objective", obj,
         "must be \"renyi\" (R_alpha at search.alpha), \"ratio\" (R_alpha / search.bound) or "
         "\"delta\" (delta at search.epsilon)");
  }
  const std::set<std::string> unused =
      spec.objective == ObjectiveKind::kDelta
          ? std::set<std::string>{"alpha", "bound"}
          : (spec.objective == ObjectiveKind::kRenyi ? std::set<std::string>{"bound", "epsilon"}
                                                     : std::set<std::string>{"epsilon"});
  for (const auto& k : unused) {
    if (t.contains(k))
      fail("search." + k, t.get(k),
           fmt::format("is not read by search.objective = \"{}\"", objective));
  }
  if (spec.objective != ObjectiveKind::kDelta) {
    const toml::node* a = t.get("alpha");
    if (!a) fail("search.alpha", a, "orders > 1 (a number or a list) for the objective");
    if (a->is_number()) {
      spec.alphas.push_back(num(*a));
    } else if (const toml::array* arr = a->as_array(); arr && !arr->empty()) {
      for (std::size_t i = 0; i < arr->size(); ++i) {
        if (!arr->get(i)->is_number())
          fail(fmt::format("search.alpha[{}]", i), arr->get(i), "must be a number > 1");
        spec.alphas.push_back(num(*arr->get(i)));
      }
    } else {
      fail("search.alpha", a, "orders > 1 (a number or a non-empty list)");
    }
    for (double x : spec.alphas) {
      if (!(x > 1 && x <= 1e4)) fail("search.alpha", a, "orders must be in (1, 10^4]");
    }
  }
  if (spec.objective == ObjectiveKind::kRatio) {
    const toml::node* b = t.get("bound");
    if (!b || !b->is_string() || b->value<std::string>()->empty())
      fail("search.bound", b,
           "the bound the ratio R_alpha / bound is taken of (a built-in name, see `rdpaudit "
           "bounds`, or a [[bounds.custom]] name)");
    spec.bound = *b->value<std::string>();
  }
  if (spec.objective == ObjectiveKind::kDelta) {
    spec.epsilon = number(t, "epsilon", "search.epsilon");
    if (!(spec.epsilon >= 0)) fail("search.epsilon", t.get("epsilon"), "must be >= 0");
  }
  if (const toml::node* d = t.get("direction")) {
    const std::string dir = d->is_string() ? *d->value<std::string>() : "";
    if (dir != "both" && dir != "forward" && dir != "backward")
      fail("search.direction", d,
           "must be \"both\" (default), \"forward\" (P || P') or \"backward\" (P' || P)");
    spec.forward = dir != "backward";
    spec.backward = dir != "forward";
  }
  const toml::node* budget = t.get("budget");
  if (!budget || !budget->is_integer() || *budget->value<long>() < 1 ||
      *budget->value<long>() > 100000)
    fail("search.budget", budget, "the number of evaluations, an integer in [1, 10^5]");
  spec.budget = *budget->value<long>();
  std::vector<Axis> axes;
  for (const Param& p : spec.params) axes.push_back(p.axis);
  const long grid = grid_size(axes);
  if (grid > spec.budget)
    fail("search.budget", budget,
         fmt::format("the grid of search.params has {} points: the budget must cover it (or "
                     "fewer points)",
                     grid));
  if (t.contains("tolerance")) {
    spec.tolerance = number(t, "tolerance", "search.tolerance");
    if (!(spec.tolerance > 0 && spec.tolerance < 1))
      fail("search.tolerance", t.get("tolerance"), "must be in (0, 1): a fraction of a range");
  }
  if (const toml::node* e = t.get("evaluator")) {
    const std::string v = e->is_string() ? *e->value<std::string>() : "";
    if (v == "auto") {
      spec.evaluator = Evaluator::kAuto;
    } else if (v == "exact") {
      spec.evaluator = Evaluator::kExact;
    } else if (v == "sampled") {
      spec.evaluator = Evaluator::kSampled;
    } else {
      fail("search.evaluator", e,
           "must be \"auto\" (default: exact when the exact engines cover every grid point, "
           "else sampled), \"exact\" or \"sampled\"");
    }
  }
  if (const toml::node* n = t.get("pilot_trajectories")) {
    if (!n->is_integer() || *n->value<long>() < 1000 || *n->value<long>() > 100000000)
      fail("search.pilot_trajectories", n,
           "trajectories per dataset of a sampled evaluation: an integer in [1000, 10^8]");
    spec.pilot_trajectories = *n->value<long>();
  }
  return spec;
}

std::vector<double> Param::vector_at(double x) const {
  if (!vectors.empty()) return vectors.at(static_cast<std::size_t>(x));
  constexpr double kPi = 3.14159265358979323846;
  // Whole multiples of 90 degrees exactly: a direction along an axis has a zero coordinate,
  // which the exact engines' one-axis reduction needs (cos 90 degrees is 6e-17 otherwise).
  const double turns = x / 90.0;
  if (turns == std::round(turns)) {
    const long q = ((static_cast<long>(std::round(turns)) % 4) + 4) % 4;
    const double c[4] = {1.0, 0.0, -1.0, 0.0}, sn[4] = {0.0, 1.0, 0.0, -1.0};
    return {radius * c[q], radius * sn[q]};
  }
  return {radius * std::cos(x * kPi / 180.0), radius * std::sin(x * kPi / 180.0)};
}

std::string to_string(Evaluator e) {
  switch (e) {
    case Evaluator::kAuto:
      return "auto";
    case Evaluator::kExact:
      return "exact";
    case Evaluator::kSampled:
      return "sampled";
  }
  return "?";
}

std::string value_text(const Param& p, double x) {
  if (!p.texts.empty()) return p.texts.at(static_cast<std::size_t>(x));
  if (p.vector_valued()) {
    std::string list;
    for (double v : p.vector_at(x)) list += fmt::format("{}{}", list.empty() ? "" : ", ", v);
    return (p.radius > 0 ? fmt::format("{} deg: ", x) : std::string()) + "[" + list + "]";
  }
  const std::string number =
      p.axis.integer ? fmt::format("{}", static_cast<long>(std::llround(x))) : fmt::format("{}", x);
  if (p.formula.empty()) return number;
  std::string out = p.formula;
  for (std::size_t at = out.find("{}"); at != std::string::npos; at = out.find("{}", at)) {
    out.replace(at, 2, number);
    at += number.size();
  }
  return out;
}

toml::table point_document(const toml::table& doc, const Spec& spec, const std::vector<double>& x) {
  toml::table out = doc;
  out.erase("search");
  for (std::size_t i = 0; i < spec.params.size(); ++i) {
    const Param& p = spec.params[i];
    toml::table* t = &out;
    std::string rest = p.key;
    for (auto dot = rest.find('.'); dot != std::string::npos; dot = rest.find('.')) {
      const std::string name = rest.substr(0, dot);
      rest = rest.substr(dot + 1);
      toml::node* n = t->get(name);
      if (!n) n = &t->insert_or_assign(name, toml::table{}).first->second;
      if (!n->is_table())
        throw InputError(fmt::format("search.params[{}].key", i), p.key,
                         name + " is not a table of the experiment file");
      t = n->as_table();
    }
    // "key[k]": element k of a list the file gives (a coordinate of init.mean, data.gradient).
    if (const auto open = rest.find('['); open != std::string::npos) {
      const std::string name = rest.substr(0, open);
      const long k = std::stol(rest.substr(open + 1));
      toml::array* a = t->get(name) ? t->get(name)->as_array() : nullptr;
      if (!a || k >= static_cast<long>(a->size()))
        throw InputError(fmt::format("search.params[{}].key", i), p.key,
                         "names an element of a list the file does not give");
      if (p.vector_valued()) {
        toml::array v;
        for (double c : p.vector_at(x[i])) v.push_back(c);
        a->replace(a->begin() + k, std::move(v));
      } else if (p.integer_key) {
        a->replace(a->begin() + k, static_cast<std::int64_t>(std::llround(x[i])));
      } else {
        a->replace(a->begin() + k, x[i]);
      }
    } else if (p.vector_valued()) {
      toml::array v;
      for (double c : p.vector_at(x[i])) v.push_back(c);
      t->insert_or_assign(rest, std::move(v));
    } else if (!p.texts.empty() || !p.formula.empty()) {
      t->insert_or_assign(rest, value_text(p, x[i]));
    } else if (p.integer_key) {
      t->insert_or_assign(rest, static_cast<std::int64_t>(std::llround(x[i])));
    } else {
      t->insert_or_assign(rest, x[i]);
    }
  }
  return out;
}

std::string to_text(const toml::table& doc) {
  std::ostringstream os;
  os << toml::toml_formatter(doc);
  return os.str() + "\n";
}

}  // namespace rdpaudit::search
