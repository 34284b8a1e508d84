// The audit (docs/methods.md, "The audit"): cells and verdicts (cell.hpp), the audited tables
// of a scenario (table.hpp) and the auditor that decides a run's cells together (auditor.hpp).
#pragma once

#include "rdpaudit/audit/auditor.hpp"
#include "rdpaudit/audit/cell.hpp"
#include "rdpaudit/audit/table.hpp"
