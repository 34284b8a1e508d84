// The counted data of a results file's scenario read back and checked, as the audit's cells
// are: counts are whole numbers >= 0 that add up to the trajectories counted, every edge list
// is finite and strictly increasing with one cell more than edges, shapes agree with the
// dimension, moments are finite, and the estimates table is whole (NaN only in rows marked not
// informative). `check`, `report` and `plot` refuse a file that fails (exit 2) before using
// any of it.
#pragma once

#include <cstdint>

#include "rdpaudit/io/hdf5.hpp"

namespace rdpaudit::io {

/// Throws InputError naming the file and the object that is wrong. `trajectories`: the root's
/// count per dataset and scenario (each tally must hold exactly that many).
void check_scenario_data(const Group& scenario, std::int64_t trajectories);

}  // namespace rdpaudit::io
