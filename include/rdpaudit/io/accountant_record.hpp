// The record of every accountant command a run used ([[bounds.custom]] `command`): what it was,
// the SHA-256 of the files it names, what it was given and what it answered, so that the audit
// of its values can be reproduced from the results file alone (docs/results-format.md).
#pragma once

#include <vector>

#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/io/hdf5.hpp"

namespace rdpaudit::io {

/// Writes /accountants/<k> (k = 0, 1, ... in the order of the custom bounds) under `root`:
/// bound, command, directory, files, files_sha256, input, output and how ("ran": this process
/// ran it; "recorded": read from the checkpoint or part files it continues); nothing when
/// there is no run.
void write_accountant_records(const Group& root, const std::vector<config::AccountantRun>& runs);

/// What write_accountant_records wrote (empty when `root` has no /accountants).
std::vector<config::AccountantRun> read_accountant_records(const Group& root);

}  // namespace rdpaudit::io
