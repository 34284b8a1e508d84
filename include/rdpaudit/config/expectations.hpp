// What each audited bound is expected to be found: a custom bound's own `expect`, else the
// lists bounds.expect_violated and bounds.expect_valid_exact, else "holds". Two sources that
// say different things are refused when the file is read, naming both keys: `check` must
// test what the file says, never a silently chosen one of two contradicting statements.
#pragma once

#include <string>

#include "rdpaudit/config/reader.hpp"
#include "rdpaudit/config/scenario.hpp"

namespace rdpaudit::config {

/// Throws InputError naming both keys when a bound is in both lists, or when a custom bound's
/// written `expect` differs from the list that names it.
void check_expectations(const BoundsSpec& b, const Reader& r);

/// The expectation of the bound `name` (built-in or custom).
Expectation expectation_of(const BoundsSpec& b, const std::string& name);

}  // namespace rdpaudit::config
