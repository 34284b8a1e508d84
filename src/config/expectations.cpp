#include "rdpaudit/config/expectations.hpp"

#include <algorithm>

#include "rdpaudit/core/error.hpp"

namespace rdpaudit::config {

namespace {

struct Listed {
  const char* key;
  Expectation expect;
  const std::vector<std::string>& names;
};

// The position of `name` in `names`, or -1.
long position(const std::vector<std::string>& names, const std::string& name) {
  const auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : static_cast<long>(it - names.begin());
}

std::string element(const Reader& r, const char* key, long i, const std::string& name) {
  return r.display(key) + "[" + std::to_string(i) + "] = \"" + name + "\"";
}

}  // namespace

void check_expectations(const BoundsSpec& b, const Reader& r) {
  const Listed violated{"bounds.expect_violated", Expectation::kViolated, b.expect_violated};
  const Listed valid{"bounds.expect_valid_exact", Expectation::kValidExact, b.expect_valid_exact};
  const Listed holds{"bounds.expect_holds", Expectation::kHolds, b.expect_holds};
  const Listed lists[] = {violated, valid, holds};
  for (std::size_t x = 0; x < 3; ++x) {
    for (std::size_t y = x + 1; y < 3; ++y) {
      for (std::size_t i = 0; i < lists[x].names.size(); ++i) {
        const long j = position(lists[y].names, lists[x].names[i]);
        if (j < 0) continue;
        throw InputError(element(r, lists[x].key, static_cast<long>(i), lists[x].names[i]) +
                         " contradicts " + element(r, lists[y].key, j, lists[y].names[j]) +
                         ": say once what a bound is expected to be found");
      }
    }
  }
  for (std::size_t c = 0; c < b.custom.size(); ++c) {
    const CustomBoundText& bound = b.custom[c];
    if (!bound.expect) continue;
    for (const Listed& list : lists) {
      const long j = position(list.names, bound.name);
      if (j < 0 || *bound.expect == list.expect) continue;
      throw InputError("bounds.custom[" + std::to_string(c) + "].expect = \"" +
                       to_string(*bound.expect) + "\" contradicts " +
                       element(r, list.key, j, bound.name) +
                       ": say what is expected once, in one of the two");
    }
  }
}

std::optional<Expectation> stated_expectation(const BoundsSpec& b, const std::string& name) {
  for (const CustomBoundText& c : b.custom) {
    if (c.name == name && c.expect) return *c.expect;
  }
  if (position(b.expect_violated, name) >= 0) return Expectation::kViolated;
  if (position(b.expect_valid_exact, name) >= 0) return Expectation::kValidExact;
  if (position(b.expect_holds, name) >= 0) return Expectation::kHolds;
  return std::nullopt;
}

}  // namespace rdpaudit::config
