#include "rdpaudit/core/activity.hpp"

#include <vector>

namespace rdpaudit {

namespace {

std::vector<std::string>& stack() {
  static std::vector<std::string> s;
  return s;
}

std::string& detail() {
  static std::string d;
  return d;
}

}  // namespace

Activity::Activity(std::string what) {
  stack().push_back(std::move(what));
}

Activity::~Activity() {
  stack().pop_back();
}

std::string current_activity() {
  std::string out = stack().empty() ? std::string("starting") : stack().back();
  if (!detail().empty()) out += " (" + detail() + ")";
  return out;
}

void set_activity_detail(const std::string& d) {
  detail() = d;
}

}  // namespace rdpaudit
