// How much memory this process may use: the machine's physical memory, or less where a limit
// is set (ulimit -v, ulimit -d). Validation compares a run's estimated needs with it, so that
// a run that cannot fit is refused before it starts.
#pragma once

#include <cstdint>

namespace rdpaudit {

/// Bytes: min(physical memory, RLIMIT_AS, RLIMIT_DATA); 0 when none can be read.
std::uint64_t memory_limit();

}  // namespace rdpaudit
