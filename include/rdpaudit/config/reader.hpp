// Strict, key-tracking access to a parsed TOML document: every read names its key path,
// type and range errors raise InputError, and keys nobody read are reported as unknown.
#pragma once

#include <toml++/toml.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rdpaudit::config {

/// Every real number read from a file is 0 or has a magnitude in [kMinMagnitude,
/// kMaxMagnitude]; so must the per-step noise std and the a-priori size of the iterates.
inline constexpr double kMinMagnitude = 1e-100;
inline constexpr double kMaxMagnitude = 1e100;

class Reader {
 public:
  /// One swept key at one scenario: the list position and that element of the list.
  struct Swept {
    int index;
    const toml::node* value;
  };
  /// `swept` maps a swept key path to the element this scenario takes: reads of that path
  /// see the element instead of the list (the document is not copied per scenario, so a
  /// sweep expands in time linear in its size), and a bad value is reported as e.g.
  /// training.eta[2].
  Reader(const toml::table& root, std::map<std::string, Swept> swept = {});

  bool has(const std::string& path) const;
  std::optional<double> number(const std::string& path);
  /// A TOML integer (64 bits). A float is refused ("must be an integer"), except a whole one
  /// in a swept list, which may mix 2 and 2.0.
  std::optional<long> integer(const std::string& path);
  /// An integer in [lo, hi], checked in 64 bits before the caller narrows it (4294967297 is
  /// refused, never wrapped to 1); `expected` is the message, e.g. "must be in [0, 10^5]".
  std::optional<long> integer_in(const std::string& path, long lo, long hi,
                                 const std::string& expected);
  std::optional<std::string> string(const std::string& path);
  std::optional<bool> boolean(const std::string& path);
  std::optional<std::vector<double>> vector(const std::string& path);
  std::optional<std::vector<std::vector<double>>> matrix(const std::string& path);
  std::optional<std::vector<long>> integer_vector(const std::string& path);
  std::optional<std::vector<std::string>> strings(const std::string& path);

  /// An array of tables ([[path]]), marked as read; the caller checks each table's keys.
  const toml::array* table_array(const std::string& path);

  double require_number(const std::string& path, const std::string& what);
  long require_integer(const std::string& path, const std::string& what);
  std::string require_string(const std::string& path, const std::string& what);

  /// Throws InputError(path as displayed, the value in the file, expected).
  [[noreturn]] void fail(const std::string& path, const std::string& expected) const;
  /// Key path as shown to the user (with [i] for swept keys).
  std::string display(const std::string& path) const;
  /// The value at `path` as written in TOML (or "<missing>").
  std::string text(const std::string& path) const;

  /// Raises InputError for the first key in the document that no read touched, with the
  /// closest key the reads asked for ("did you mean noise.sigma2?") when one is close.
  void reject_unused() const;

  /// Raises InputError for the first key in the document that no read touched and that is a
  /// likely misspelling of a key the reads asked for and did not find (edit distance <= 2, a
  /// transposition counting 1: `sigam2` for `sigma2`, `[trainig]` for `[training]`). Called
  /// when a read failed, so that "noise = <missing>" is not reported for `noise.sigam2`.
  void reject_misspelt() const;

 private:
  const toml::node* node(const std::string& path) const;
  /// The key the reads asked for that `path` (in the document, unread) most likely misspells;
  /// empty when none is within the distance.
  std::string closest_asked(const std::string& path) const;
  const toml::table& root_;
  std::map<std::string, Swept> swept_;
  std::set<std::string> used_;
  mutable std::set<std::string> asked_;  ///< every path looked up, found or not
};

/// Optimal-string-alignment distance: insertions, deletions, substitutions and transpositions
/// of adjacent characters, each 1.
std::size_t edit_distance(const std::string& a, const std::string& b);

/// Dotted keys and table headers nest at most this many levels (rdpaudit's own keys nest 3).
inline constexpr int kMaxKeyDepth = 64;

/// Parses TOML text; a syntax error, or a key nested deeper than kMaxKeyDepth, is an
/// InputError naming `source_name`:line:column. The depth is checked on the text before
/// toml++ sees it: a 10^5-part dotted key (a.a.....a = 1) built a table 10^5 deep, whose
/// recursive destruction overflowed the stack (SIGSEGV).
toml::table parse_toml(const std::string& text, const std::string& source_name);

/// The value of a TOML number (integer or float) as a double; empty for any other node.
/// toml++'s own value<double>() is empty for an integer that a double cannot hold exactly
/// (|i| > 2^53), so a range's max of 2^53 + 1 read through it became "empty".
std::optional<double> number_value(const toml::node& n);

}  // namespace rdpaudit::config
