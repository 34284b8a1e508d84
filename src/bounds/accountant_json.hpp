// The JSON an accountant command reads and writes (docs/bounds.md, "Auditing your own
// accountant"): a writer for strings and numbers and a small parser of whole documents with
// messages that say where the text went wrong. Private to src/bounds/.
#pragma once

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rdpaudit/bounds/params.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::bounds::detail {

/// ["a", "b"]: a command line as a message shows it.
std::string quoted_list(const std::vector<std::string>& v);

/// The whole of `cell` as a number (strtod's syntax), nothing when it is not one or overflows:
/// a CSV cell of a values file, a JSON number.
inline std::optional<double> parse_number(const std::string& cell) {
  if (cell.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(cell.c_str(), &end);
  if (end != cell.c_str() + cell.size() || errno == ERANGE) return std::nullopt;
  return v;
}

inline std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    const auto u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (u < 0x20) {
      out += fmt::format("\\u{:04x}", u);
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

/// A number as JSON; NaN and the infinities have no JSON spelling: null.
inline std::string json_number(double v) {
  return std::isfinite(v) ? fmt::format("{}", v) : "null";
}

struct Json {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject } type = Type::kNull;
  double number = 0;
  std::string text;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;
};

class JsonParser {
 public:
  explicit JsonParser(const std::string& text) : s_(text) {}

  Json document() {
    Json v = value(0);
    skip();
    if (i_ != s_.size()) fail("text after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    std::size_t line = 1, col = 1;
    for (std::size_t k = 0; k < i_ && k < s_.size(); ++k) {
      if (s_[k] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw std::runtime_error(fmt::format("not JSON: {} at line {}, column {}", what, line, col));
  }
  void skip() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
      ++i_;
  }
  bool word(const char* w) {
    const std::size_t n = std::strlen(w);
    if (s_.compare(i_, n, w) != 0) return false;
    i_ += n;
    return true;
  }
  Json value(int depth) {
    if (depth > 64) fail("nesting deeper than 64");
    skip();
    if (i_ == s_.size()) fail("unexpected end");
    Json v;
    const char c = s_[i_];
    if (c == '{') {
      v.type = Json::Type::kObject;
      ++i_;
      skip();
      if (i_ < s_.size() && s_[i_] == '}') {
        ++i_;
        return v;
      }
      for (;;) {
        skip();
        if (i_ == s_.size() || s_[i_] != '"') fail("expected a string key");
        std::string k = string();
        skip();
        if (i_ == s_.size() || s_[i_] != ':') fail("expected ':'");
        ++i_;
        v.members.emplace_back(std::move(k), value(depth + 1));
        skip();
        if (i_ < s_.size() && s_[i_] == ',') {
          ++i_;
          continue;
        }
        if (i_ < s_.size() && s_[i_] == '}') {
          ++i_;
          return v;
        }
        fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      v.type = Json::Type::kArray;
      ++i_;
      skip();
      if (i_ < s_.size() && s_[i_] == ']') {
        ++i_;
        return v;
      }
      for (;;) {
        v.items.push_back(value(depth + 1));
        skip();
        if (i_ < s_.size() && s_[i_] == ',') {
          ++i_;
          continue;
        }
        if (i_ < s_.size() && s_[i_] == ']') {
          ++i_;
          return v;
        }
        fail("expected ',' or ']'");
      }
    }
    if (c == '"') {
      v.type = Json::Type::kString;
      v.text = string();
      return v;
    }
    if (word("null")) return v;
    if (word("true") || word("false")) {
      v.type = Json::Type::kBool;
      return v;
    }
    // Python's json module writes NaN, Infinity and -Infinity for the non-finite floats.
    v.type = Json::Type::kNumber;
    if (word("NaN")) {
      v.number = kNaN;
      return v;
    }
    if (word("Infinity")) {
      v.number = kInf;
      return v;
    }
    if (word("-Infinity")) {
      v.number = -kInf;
      return v;
    }
    const std::size_t start = i_;
    while (i_ < s_.size() && std::strchr("+-0123456789.eE", s_[i_]) != nullptr) ++i_;
    const std::string token = s_.substr(start, i_ - start);
    const auto n = parse_number(token);
    if (token.empty() || !n || token.find_first_of("0123456789") == std::string::npos) {
      i_ = start;
      fail("unexpected character");
    }
    v.number = *n;
    return v;
  }
  std::string string() {
    ++i_;  // the opening quote
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      if (s_[i_] == '\\') {
        ++i_;
        if (i_ == s_.size()) break;
        const char e = s_[i_];
        if (e == 'u') {
          i_ += 4;  // kept as '?': no key or value of the output needs more
          out += '?';
        } else {
          out += e == 'n'   ? '\n'
                 : e == 't' ? '\t'
                 : e == 'r' ? '\r'
                 : e == 'b' ? '\b'
                 : e == 'f' ? '\f'
                            : e;
        }
      } else {
        out += s_[i_];
      }
      ++i_;
    }
    if (i_ >= s_.size()) fail("unterminated string");
    ++i_;
    return out;
  }

  const std::string& s_;
  std::size_t i_ = 0;
};

inline const char* type_name(Json::Type t) {
  switch (t) {
    case Json::Type::kNull:
      return "null";
    case Json::Type::kBool:
      return "a boolean";
    case Json::Type::kNumber:
      return "a number";
    case Json::Type::kString:
      return "a string";
    case Json::Type::kArray:
      return "an array";
    case Json::Type::kObject:
      return "an object";
  }
  return "?";
}

}  // namespace rdpaudit::bounds::detail
