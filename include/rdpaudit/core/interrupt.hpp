// Nothing half-written after an interrupt: while a file is being written to a temporary path,
// SIGINT and SIGTERM remove that path before the process ends (with the signal's own status).
#pragma once

#include <string>

namespace rdpaudit {

/// Removes `path` if SIGINT or SIGTERM arrives before forget_on_interrupt(slot); a few paths
/// at a time (the results file of a run and its checkpoint, written while the results file is
/// open). Returns the slot; -1 when every slot is taken (the path is then not removed).
/// Installs the handlers on first use.
int remove_on_interrupt(const std::string& path);

/// The slot's path is finished (renamed) or already removed.
void forget_on_interrupt(int slot);

/// While a program rdpaudit started runs in its own process group `pgid` (an accountant
/// command): SIGINT or SIGTERM kills that group (SIGKILL) before anything else, so that no
/// program outlives the run that started it. 0: none runs.
void kill_group_on_interrupt(int pgid);

/// While a run can checkpoint: the first SIGINT or SIGTERM only sets stop_requested() (the
/// counting loop stops at once, a checkpoint is written and the run ends with a message
/// saying how to resume); a second one ends the process as above.
void stop_gracefully_on_interrupt(bool on);
bool stop_requested();

}  // namespace rdpaudit
