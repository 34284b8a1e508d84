#include "rdpaudit/core/activity.hpp"

#include <exception>
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

std::string& failure() {
  static std::string f;
  return f;
}

}  // namespace

Activity::Activity(std::string what) : exceptions_(std::uncaught_exceptions()) {
  stack().push_back(std::move(what));
}

Activity::~Activity() {
  if (std::uncaught_exceptions() > exceptions_ && failure().empty()) failure() = current_activity();
  stack().pop_back();
}

std::string current_activity() {
  std::string out = stack().empty() ? std::string("starting") : stack().back();
  if (!detail().empty()) out += " (" + detail() + ")";
  return out;
}

std::string failed_activity() {
  return failure().empty() ? current_activity() : failure();
}

void set_activity_detail(const std::string& d) {
  if (d.empty() && std::uncaught_exceptions() > 0) return;  // the failure's context stays
  detail() = d;
}

}  // namespace rdpaudit
