// The record of every accountant command a run used ([[bounds.custom]] `command`): what it was,
// the SHA-256 of the files it names, what it was given and what it answered, so that the audit
// of its values can be reproduced from the results file alone (docs/results-format.md).
#pragma once

#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/io/hdf5.hpp"

namespace rdpaudit::io {

/// Writes /accountants/<k> (k = 0, 1, ... in the order of the custom bounds) under `root`;
/// nothing when the experiment runs no command.
void write_accountant_records(const Group& root, const config::ExperimentSpec& spec);

}  // namespace rdpaudit::io
