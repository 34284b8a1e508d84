#include "rdpaudit/core/error.hpp"

namespace rdpaudit {

InputError::InputError(std::string key, std::string value, std::string expected)
    : std::runtime_error(key + " = " + value + " (" + expected + ")"),
      key_(std::move(key)),
      value_(std::move(value)),
      expected_(std::move(expected)) {}

InputError::InputError(const std::string& message) : std::runtime_error(message) {}

ResourceError::ResourceError(const std::string& message) : std::runtime_error(message) {}

InternalError::InternalError(const std::string& where) : std::logic_error(where) {}

InternalError::InternalError(const std::string& argument, const std::string& value,
                             const std::string& expected)
    : std::logic_error(argument + " = " + value + " (" + expected + ")") {}

}  // namespace rdpaudit
