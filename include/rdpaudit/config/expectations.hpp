// What each audited bound is expected to be found: a custom bound's own `expect`, else the
// lists bounds.expect_holds, bounds.expect_violated and bounds.expect_valid_exact, else the
// default of its kind (audit::default_expectation: "holds" for a theorem, "informative" for an
// approximation and for a baseline of another neighbouring relation). Two sources that
// say different things are refused when the file is read, naming both keys: `check` must
// test what the file says, never a silently chosen one of two contradicting statements.
#pragma once

#include <optional>
#include <string>

#include "rdpaudit/config/reader.hpp"
#include "rdpaudit/config/scenario.hpp"

namespace rdpaudit::config {

/// Throws InputError naming both keys when a bound is in both lists, or when a custom bound's
/// written `expect` differs from the list that names it.
void check_expectations(const BoundsSpec& b, const Reader& r);

/// The expectation the file states for the bound `name` (built-in or custom); none when it
/// states none (the caller applies the bound kind's default).
std::optional<Expectation> stated_expectation(const BoundsSpec& b, const std::string& name);

}  // namespace rdpaudit::config
