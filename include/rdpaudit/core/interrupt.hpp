// Nothing half-written after an interrupt: while a file is being written to a temporary path,
// SIGINT and SIGTERM remove that path before the process ends (with the signal's own status).
#pragma once

#include <string>

namespace rdpaudit {

/// Removes `path` if SIGINT or SIGTERM arrives before forget_on_interrupt(); one path at a
/// time (the results file of the run). Installs the handlers on first use.
void remove_on_interrupt(const std::string& path);

/// The path is finished (renamed) or already removed: the signals end the process as usual.
void forget_on_interrupt();

/// While a run can checkpoint: the first SIGINT or SIGTERM only sets stop_requested() (the
/// counting loop stops at once, a checkpoint is written and the run ends with a message
/// saying how to resume); a second one ends the process as above.
void stop_gracefully_on_interrupt(bool on);
bool stop_requested();

}  // namespace rdpaudit
