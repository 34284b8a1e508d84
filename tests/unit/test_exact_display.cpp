// An exact bracket wider than the engine's width target is never displayed as one "exact"
// value (issue 34, item 4): it is shown as the bracket, and an uncertified upper end says so.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "rdpaudit/audit/cell.hpp"

namespace rdpaudit {
namespace {

using Catch::Matchers::Contains;

TEST_CASE("a sharp exact bracket shows its value, a wide one the bracket", "[audit][display]") {
  CHECK(audit::exact_is_sharp(NAN, NAN));  // a closed form: no bracket
  CHECK(audit::exact_is_sharp(1.0, 1.0 + 0.9e-3));
  CHECK_FALSE(audit::exact_is_sharp(1.0, 1.0 + 1.1e-3));
  CHECK_FALSE(audit::exact_is_sharp(0.0, 0.00365));
  CHECK_FALSE(audit::exact_is_sharp(0.5, INFINITY));
  CHECK(audit::exact_text(0.3906, 0.39062, 0.39063) == "0.39062");
  // The case that was shown as "exact 0.001826", 4.7 times the truth.
  const std::string wide = audit::exact_text(0.0, 0.001826, 0.00365);
  CHECK(wide == "in [0, 0.00365]");
  CHECK_THAT(audit::exact_text(0.0, 0.001826, 0.00365, false),
             Contains("in [0, 0.00365]") && Contains("upper end not certified"));
}

}  // namespace
}  // namespace rdpaudit
