#include "rdpaudit/config/reader.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "rdpaudit/core/error.hpp"

namespace rdpaudit::config {

namespace {

// Values are echoed in messages at most this long: a 10^4-element data.points used to be
// printed whole.
constexpr std::size_t kMaxEcho = 80;

std::string capped(std::string raw, const toml::node& n) {
  std::string text;  // toml++ prints long arrays over several lines: one line, single spaces
  for (const char c : raw) {
    const bool space = c == '\n' || c == ' ' || c == '\t';
    if (!space || (!text.empty() && text.back() != ' ')) text += space ? ' ' : c;
  }
  if (text.size() <= kMaxEcho) return text;
  text.resize(kMaxEcho - 20);
  if (const auto* arr = n.as_array())
    return text + " ... (" + std::to_string(arr->size()) + " values)";
  return text + " ...";
}

std::string node_text(const toml::node& n) {
  std::ostringstream os;
  if (const auto* s = n.as_string()) {
    os << '"' << s->get() << '"';
  } else if (const auto* f = n.as_floating_point()) {
    const double v = f->get();
    os << (v == std::floor(v) && std::fabs(v) < 1e15 ? fmt::format("{:.1f}", v)
                                                     : fmt::format("{}", v));
  } else if (n.is_table()) {
    os << "(a table)";
  } else {
    n.visit([&os](const auto& v) { os << v; });
  }
  return capped(os.str(), n);
}

// rdpaudit computes in double precision: squares and sums of squares of up to 10^9 steps and
// 10^8 trajectories stay finite and normal for magnitudes in [1e-100, 1e100] (docs/experiments.md,
// "Limits"). 1e308 read as a length made bin widths inf and edges NaN.
bool in_range(double v) {
  const double a = std::fabs(v);
  return std::isfinite(v) && (a == 0 || (a >= kMinMagnitude && a <= kMaxMagnitude));
}

constexpr const char* kRangeText = "must be finite: 0 or of magnitude in [1e-100, 1e100]";

bool as_double(const toml::node& n, double& out) {
  const std::optional<double> v = number_value(n);
  if (v) out = *v;
  return v.has_value();
}

void collect_keys(const toml::table& t, const std::string& prefix, std::vector<std::string>& out) {
  for (const auto& [k, v] : t) {
    const std::string path =
        prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (const auto* sub = v.as_table()) {
      collect_keys(*sub, path, out);
    } else {
      out.push_back(path);
    }
  }
}

}  // namespace

Reader::Reader(const toml::table& root, std::map<std::string, Swept> swept)
    : root_(root), swept_(std::move(swept)) {}

const toml::node* Reader::node(const std::string& path) const {
  asked_.insert(path);
  const auto it = swept_.find(path);
  return it != swept_.end() ? it->second.value : root_.at_path(path).node();
}

bool Reader::has(const std::string& path) const {
  return node(path) != nullptr;
}

std::string Reader::display(const std::string& path) const {
  const auto it = swept_.find(path);
  return it == swept_.end() ? path : path + "[" + std::to_string(it->second.index) + "]";
}

std::string Reader::text(const std::string& path) const {
  const auto* n = node(path);
  return n ? node_text(*n) : "<missing>";
}

void Reader::fail(const std::string& path, const std::string& expected) const {
  throw InputError(display(path), text(path), expected);
}

std::optional<double> Reader::number(const std::string& path) {
  const auto* n = node(path);
  if (!n) return std::nullopt;
  used_.insert(path);
  double v = 0;
  if (!as_double(*n, v)) fail(path, "must be a number");
  if (!in_range(v)) fail(path, kRangeText);
  return v;
}

std::optional<long> Reader::integer(const std::string& path) {
  const auto* n = node(path);
  if (!n) return std::nullopt;
  used_.insert(path);
  if (const auto* i = n->as_integer()) return static_cast<long>(i->get());
  // A swept list may mix 2 and 2.0; accept floats that are whole numbers there.
  double v = 0;
  const bool whole =
      as_double(*n, v) && std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9e15;
  if (whole && swept_.count(path)) return static_cast<long>(v);
  fail(path, whole ? fmt::format("must be an integer (write {:.0f}, not a float)", v)
                   : std::string("must be an integer"));
}

std::optional<long> Reader::integer_in(const std::string& path, long lo, long hi,
                                       const std::string& expected) {
  const auto v = integer(path);
  if (v && (*v < lo || *v > hi)) fail(path, expected);
  return v;
}

std::optional<std::string> Reader::string(const std::string& path) {
  const auto* n = node(path);
  if (!n) return std::nullopt;
  used_.insert(path);
  if (const auto* s = n->as_string()) return s->get();
  fail(path, "must be a string");
}

std::optional<bool> Reader::boolean(const std::string& path) {
  const auto* n = node(path);
  if (!n) return std::nullopt;
  used_.insert(path);
  if (const auto* b = n->as_boolean()) return b->get();
  fail(path, "must be true or false");
}

std::optional<std::vector<double>> Reader::vector(const std::string& path) {
  const auto* n = node(path);
  if (!n) return std::nullopt;
  used_.insert(path);
  const auto* arr = n->as_array();
  if (!arr) fail(path, "must be an array of numbers");
  std::vector<double> out;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    double v = 0;
    if (!as_double(*arr->get(i), v)) {
      throw InputError(display(path) + "[" + std::to_string(i) + "]", node_text(*arr->get(i)),
                       "must be a number");
    }
    if (!in_range(v))
      throw InputError(display(path) + "[" + std::to_string(i) + "]", node_text(*arr->get(i)),
                       kRangeText);
    out.push_back(v);
  }
  return out;
}

std::optional<std::vector<long>> Reader::integer_vector(const std::string& path) {
  const auto* n = node(path);
  if (!n) return std::nullopt;
  used_.insert(path);
  const auto* arr = n->as_array();
  if (!arr) fail(path, "must be an array of integers");
  std::vector<long> out;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const auto* v = arr->get(i)->as_integer();
    if (!v) {
      throw InputError(display(path) + "[" + std::to_string(i) + "]", node_text(*arr->get(i)),
                       "must be an integer");
    }
    out.push_back(static_cast<long>(v->get()));
  }
  return out;
}

std::optional<std::vector<std::string>> Reader::strings(const std::string& path) {
  const auto* n = node(path);
  if (!n) return std::nullopt;
  used_.insert(path);
  const auto* arr = n->as_array();
  if (!arr) fail(path, "must be an array of strings");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const auto* v = arr->get(i)->as_string();
    if (!v) {
      throw InputError(display(path) + "[" + std::to_string(i) + "]", node_text(*arr->get(i)),
                       "must be a string");
    }
    out.push_back(v->get());
  }
  return out;
}

std::optional<std::vector<std::vector<double>>> Reader::matrix(const std::string& path) {
  const auto* n = node(path);
  if (!n) return std::nullopt;
  used_.insert(path);
  const auto* arr = n->as_array();
  if (!arr) fail(path, "must be an array of arrays of numbers");
  std::vector<std::vector<double>> out;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const std::string row_key = display(path) + "[" + std::to_string(i) + "]";
    const auto* row = arr->get(i)->as_array();
    if (!row) throw InputError(row_key, node_text(*arr->get(i)), "must be an array of numbers");
    std::vector<double> r;
    for (std::size_t j = 0; j < row->size(); ++j) {
      double v = 0;
      if (!as_double(*row->get(j), v)) {
        throw InputError(row_key + "[" + std::to_string(j) + "]", node_text(*row->get(j)),
                         "must be a number");
      }
      if (!in_range(v))
        throw InputError(row_key + "[" + std::to_string(j) + "]", node_text(*row->get(j)),
                         kRangeText);
      r.push_back(v);
    }
    out.push_back(std::move(r));
  }
  return out;
}

const toml::array* Reader::table_array(const std::string& path) {
  const auto* n = node(path);
  if (!n) return nullptr;
  used_.insert(path);
  const auto* arr = n->as_array();
  if (!arr || !arr->is_array_of_tables())
    fail(path, "must be an array of tables ([[" + path + "]])");
  return arr;
}

double Reader::require_number(const std::string& path, const std::string& what) {
  if (auto v = number(path)) return *v;
  throw InputError(display(path), "<missing>", "required: " + what);
}

long Reader::require_integer(const std::string& path, const std::string& what) {
  if (auto v = integer(path)) return *v;
  throw InputError(display(path), "<missing>", "required: " + what);
}

std::string Reader::require_string(const std::string& path, const std::string& what) {
  if (auto v = string(path)) return *v;
  throw InputError(display(path), "<missing>", "required: " + what);
}

void Reader::reject_unused() const {
  std::vector<std::string> keys;
  collect_keys(root_, "", keys);
  for (const auto& k : keys) {
    if (used_.count(k)) continue;
    // Name the keys that were read in the same table, to point at a likely typo.
    const auto dot = k.rfind('.');
    const std::string table = dot == std::string::npos ? "" : k.substr(0, dot);
    std::string known;
    for (const auto& u : used_) {
      const auto udot = u.rfind('.');
      if ((udot == std::string::npos ? "" : u.substr(0, udot)) == table) {
        known += (known.empty() ? "" : ", ") + u.substr(udot + 1);
      }
    }
    const std::string closest = closest_asked(k);
    throw InputError(
        display(k), text(k),
        "unknown key, or not used with this configuration" +
            (closest.empty() ? std::string() : "; did you mean " + closest + "?") +
            (known.empty() ? std::string() : "; keys read in [" + table + "]: " + known));
  }
}

void Reader::reject_misspelt() const {
  std::vector<std::string> keys;
  collect_keys(root_, "", keys);
  for (const auto& k : keys) {
    if (used_.count(k)) continue;
    const std::string closest = closest_asked(k);
    if (closest.empty()) continue;
    throw InputError(display(k), text(k), "unknown key; did you mean " + closest + "?");
  }
}

std::string Reader::closest_asked(const std::string& path) const {
  std::string best;
  std::size_t best_distance = 3;  // at most 2 edits
  for (const std::string& asked : asked_) {
    if (asked == path || root_.at_path(asked).node() != nullptr) continue;  // found: not misspelt
    // Short names need a closer match: one edit for names of up to 4 characters.
    const std::size_t limit = std::min(asked.size(), path.size()) <= 4 ? 1 : 2;
    const std::size_t d = edit_distance(asked, path);
    if (d <= limit && d < best_distance) {
      best = asked;
      best_distance = d;
    }
  }
  return best;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  if (n > 200 || m > 200) return std::max(n, m);  // no typo of a key is that long
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

namespace {

// The line and column of text[i], both from 1.
std::string where(const std::string& source, const std::string& text, std::size_t i) {
  std::size_t line = 1, start = 0;
  for (std::size_t k = 0; k < i; ++k) {
    if (text[k] == '\n') {
      ++line;
      start = k + 1;
    }
  }
  return source + ":" + std::to_string(line) + ":" + std::to_string(i - start + 1);
}

// The index just past a string that opens at text[i] (a quote), or text.size() if unclosed
// (toml++ reports that). Basic strings honour backslash escapes; multi-line ones span lines.
std::size_t skip_string(const std::string& text, std::size_t i) {
  const char q = text[i];
  const bool multi = text.compare(i, 3, std::string(3, q)) == 0;
  std::size_t k = i + (multi ? 3 : 1);
  while (k < text.size()) {
    if (q == '"' && text[k] == '\\') {
      k += 2;
      continue;
    }
    if (!multi && text[k] == '\n') return k;
    if (multi ? text.compare(k, 3, std::string(3, q)) == 0 : text[k] == q)
      return k + (multi ? 3 : 1);
    ++k;
  }
  return text.size();
}

bool key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == ' ' ||
         c == '\t';
}

// Counts the dots of each run of key characters, quoted parts included (strings and comments
// are skipped; any other character ends the run), and rejects a run of more than kMaxKeyDepth.
void check_key_depth(const std::string& text, const std::string& source) {
  int dots = 0;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '"' || c == '\'') {
      i = skip_string(text, i);
    } else if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '.') {
      if (++dots > kMaxKeyDepth)
        throw InputError(
            fmt::format("{}: a dotted key or table header nests more than {} "
                        "levels (rdpaudit's keys nest at most 3)",
                        where(source, text, i), kMaxKeyDepth));
      ++i;
    } else {
      if (!key_char(c)) dots = 0;
      ++i;
    }
  }
}

}  // namespace

toml::table parse_toml(const std::string& text, const std::string& source_name) {
  check_key_depth(text, source_name);
  try {
    return toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    const auto& at = e.source().begin;
    throw InputError(fmt::format("{}:{}:{}: TOML syntax error: {}", source_name, at.line, at.column,
                                 std::string(e.description())));
  }
}

std::optional<double> number_value(const toml::node& n) {
  if (const auto* f = n.as_floating_point()) return f->get();
  if (const auto* i = n.as_integer()) return static_cast<double>(i->get());
  return std::nullopt;
}

}  // namespace rdpaudit::config
