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

/// What may happen to a custom bound's `command` (docs/bounds.md section 5, "Consent"): an
/// experiment file or a part file can come from someone else, so rdpaudit runs the program it
/// names only when the user says so.
enum class CommandUse {
  kRefuse,    ///< a command is an input error naming the key and how to consent (the default)
  kList,      ///< record the command and its files' SHA-256 without running it (validate)
  kRun,       ///< run it (consent: --allow-commands or RDPAUDIT_ALLOW_COMMANDS=1)
  kRecorded,  ///< use the output recorded with the same command and input (merge, resume)
};

struct CommandPolicy {
  CommandUse use = CommandUse::kRefuse;
  /// kRecorded: the runs recorded in the file being continued or merged.
  std::vector<config::AccountantRun> recorded;
};

/// kRun when `flag` is set or the environment has RDPAUDIT_ALLOW_COMMANDS=1, else `otherwise`.
CommandPolicy consent_from(bool flag, CommandUse otherwise = CommandUse::kRefuse);

/// The text that says how to consent, for messages.
extern const char* const kConsentHint;

/// Fills every scenario's custom bounds' `values` from their `values_file` (matched by the
/// swept keys and alpha) and `command` (run once for the whole experiment, every scenario in
/// one JSON document, as `policy` allows; each run or listing is recorded in
/// spec.accountant_runs). Throws InputError naming the key, and the command with the first
/// lines of its stderr, on any problem. Runs each command again when called again: call it
/// once per loaded experiment.
void resolve_accountant_values(config::ExperimentSpec& spec, const CommandPolicy& policy);

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
/// on its stdin, collects stdout and stderr, and kills its process group after `timeout_s`
/// or when SIGINT or SIGTERM ends rdpaudit (core/interrupt.hpp).
CommandResult run_accountant_command(const std::vector<std::string>& argv,
                                     const std::string& directory, const std::string& input,
                                     double timeout_s);

}  // namespace rdpaudit::bounds
