// The experiment as every command reads it: config/ reads and checks the file, then the checks
// that need the bound catalogue and the formula compiler run here (config/ knows no bound).
#pragma once

#include <string>

#include "rdpaudit/bounds/accountant.hpp"
#include "rdpaudit/config/load.hpp"
#include "rdpaudit/config/scenario.hpp"

namespace rdpaudit::bounds {

/// Names in bounds.audit, bounds.expect_violated, bounds.expect_valid_exact are built-in or
/// custom bounds, names in profile.expect_violated their conversions; every custom bound
/// compiles; every claim formula compiles and gives a finite eps at every delta of every
/// scenario. Throws InputError naming the key and value as the file writes them.
void check_experiment(const config::ExperimentSpec& spec);

/// config::parse_experiment, then resolve_accountant_values (reads every custom bound's
/// values_file; runs every custom bound's command once, lists it or uses its recorded output,
/// as `commands` allows: by default a command is refused), then check_experiment.
config::ExperimentSpec parse_experiment(const std::string& text, const std::string& source_name,
                                        const config::Overrides& overrides = {},
                                        const CommandPolicy& commands = {});

/// config::load_experiment, then resolve_accountant_values, then check_experiment.
config::ExperimentSpec load_experiment(const std::string& path,
                                       const config::Overrides& overrides = {},
                                       const CommandPolicy& commands = {});

}  // namespace rdpaudit::bounds
