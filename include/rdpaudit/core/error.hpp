// Errors that reach the user, of two kinds. Every input problem (InputError, exit 2) names where
// it is (the key path as the user writes it), what was found and what was expected, in the style
//   training.eta = -0.1 (must be > 0)
// A resource the machine refused (ResourceError, exit 2: a full disk, memory) names the file or
// what was being allocated. A broken internal contract (InternalError, exit 3) says which one
// and asks for a report.
#pragma once

#include <stdexcept>
#include <string>

namespace rdpaudit {

/// Bad user input (experiment file or command line). `main` prints what() and exits with
/// status 2; nothing is written.
class InputError : public std::runtime_error {
 public:
  InputError(std::string key, std::string value, std::string expected);
  /// A problem that is not tied to one value (e.g. a conflict between keys).
  explicit InputError(const std::string& message);

  const std::string& key() const { return key_; }
  const std::string& value() const { return value_; }
  const std::string& expected() const { return expected_; }

 private:
  std::string key_;
  std::string value_;
  std::string expected_;
};

/// The machine refused what a command needs: a file cannot be written (a full disk, a file
/// size limit, a permission), or memory cannot be allocated. `main` prints what() (which
/// names the file, or what was being allocated) and exits with status 2, like bad input;
/// nothing is left at the output path and a file there before is untouched.
class ResourceError : public std::runtime_error {
 public:
  explicit ResourceError(const std::string& message);
};

/// A broken internal contract: a function of the library called with arguments no experiment
/// file can produce (a bug, not bad input). `main` prints "internal error: <what> (please
/// report)" and exits with status 3. Never names a key the user cannot write.
class InternalError : public std::logic_error {
 public:
  /// `where`: the function or invariant, e.g. "rigorous_lower_bound: min_tail_count >= 1".
  explicit InternalError(const std::string& where);
  /// "<argument> = <value> (<expected>)", the argument named as the code names it.
  InternalError(const std::string& argument, const std::string& value, const std::string& expected);
};

}  // namespace rdpaudit
