// Custom bounds given by an accountant's values instead of a formula ([[bounds.custom]]
// `values`, `values_file`, `command`; docs/bounds.md section 5): the values resolved per
// scenario and order, the JSON exchanged with a command, and the command's run.
#pragma once

#include <string>
#include <vector>

#include "rdpaudit/bounds/custom.hpp"
#include "rdpaudit/config/scenario.hpp"

namespace rdpaudit::bounds {

/// The CustomBoundSpec of one [[bounds.custom]] table at a scenario whose audited orders are
/// `alphas`: its formula, or its values (tabulated at `alphas`), with a source that says
/// where the values came from.
CustomBoundSpec custom_bound_spec(const config::CustomBoundText& c,
                                  const std::vector<double>& alphas);

/// Fills every scenario's custom bounds' `values` from their `values_file` (matched by the
/// swept keys and alpha) and `command` (run once for the whole experiment, every scenario in
/// one JSON document; each run is recorded in spec.accountant_runs). Throws InputError naming
/// the key, and the command with the first lines of its stderr, on any problem. Idempotent
/// only in the sense that it runs each command again: call it once per loaded experiment.
void resolve_accountant_values(config::ExperimentSpec& spec);

/// The JSON document written on the stdin of custom bound `bound`'s command (docs/bounds.md).
std::string accountant_input_json(const config::ExperimentSpec& spec, std::size_t bound);

/// Parses a command's output {"values": [[v, ...], ...]}: one row per scenario, one number
/// (or null, NaN: not applicable; Infinity) per order. Throws std::runtime_error saying what
/// is wrong (the caller adds the command).
std::vector<std::vector<double>> parse_accountant_output(const std::string& text,
                                                         std::size_t scenarios, std::size_t orders);

/// What a command did: its exit status (-1: killed by a signal or never started), whether
/// it was killed at the time-out, what it wrote.
struct CommandResult {
  int status = -1;
  bool timed_out = false;
  std::string start_error;  ///< non-empty: the program could not be started (why)
  std::string out, err;
};

/// Runs argv (argv[0] looked up in PATH when it has no '/') in `directory`, writes `input`
/// on its stdin, collects stdout and stderr, and kills its process group after `timeout_s`.
CommandResult run_accountant_command(const std::vector<std::string>& argv,
                                     const std::string& directory, const std::string& input,
                                     double timeout_s);

}  // namespace rdpaudit::bounds
