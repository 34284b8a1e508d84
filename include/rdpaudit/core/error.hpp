// Errors that reach the user. Every input problem names where it is (the key path),
// what was found and what was expected, in the style
//   training.eta = -0.1 (must be > 0)
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

}  // namespace rdpaudit
