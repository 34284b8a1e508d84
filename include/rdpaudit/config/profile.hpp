// The [profile] table of an experiment file: the privacy-profile grids and the (eps, delta)
// claims audited against the certified profile (docs/experiments.md, "[profile]").
#pragma once

#include "rdpaudit/config/reader.hpp"
#include "rdpaudit/config/scenario.hpp"

namespace rdpaudit::config {

/// Reads [profile] into s.profile (after [bounds] and [estimate]: claim formulas are
/// evaluated at the scenario's parameters, so that `validate` finds a non-finite claim).
/// Throws InputError naming the key as written: a delta outside (0, 1), an eps grid that is
/// not increasing or not finite and >= 0, a claim without exactly one of epsilon and formula,
/// an epsilon list of another length than profile.deltas, a formula that does not compile or
/// is not finite at some delta, a duplicate claim name.
void read_profile(Scenario& s, Reader& r);

/// The name of a Renyi bound's (eps, delta) consequence as an audited row.
std::string conversion_name(const std::string& bound);

}  // namespace rdpaudit::config
