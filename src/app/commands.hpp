// The subcommands of the rdpaudit CLI. Each returns the process exit status and throws
// InputError for bad input (main prints it and exits 2).
#pragma once

#include <string>
#include <vector>

#include "rdpaudit/audit/verdict.hpp"
#include "rdpaudit/config/load.hpp"

namespace rdpaudit::app {

struct RunArgs {
  std::string file, output;
  int threads = 0;
  double scale = 1.0;  ///< multiplies trajectories, and with them the default pilot (--scale)
  config::Overrides overrides;
  std::string command_line;
  /// Sequential audit: count in rounds doubling from experiment.trajectories up to
  /// max_trajectories, test at each look (level spent over the planned looks), stop when
  /// every cell is decided (a not-rejected cell: bound >= decided_margin x the estimate).
  bool until_decided = false;
  std::int64_t max_trajectories = 0;
  double decided_margin = 2.0;
};
int run_command(const RunArgs& args);

struct BoundsArgs {
  std::string file;
  std::vector<double> alphas;  ///< empty: the file's bounds.alphas, else the default table
  double delta = 0;            ///< > 0: also print epsilon(delta) of every bound
  double epsilon = -1;         ///< >= 0: also print delta(epsilon) of every bound
  bool show_reasons = true;
  bool csv = false;  ///< machine-readable rows instead of tables
};
int bounds_command(const BoundsArgs& args);

struct CheckArgs {
  std::string file;
  bool cells = false;      ///< also list violated cells and cells with a note
  bool all_cells = false;  ///< list every cell
};
int check_command(const CheckArgs& args);
int report_command(const std::string& file);
/// Runs python/plots/audit_plots.py with /usr/bin/python3 (or $RDPAUDIT_PYTHON).
int plot_command(const std::string& file, const std::string& out_dir);

/// The per-bound verdict table shared by check, report and run.
void print_bound_table(const audit::AuditResult& a);
/// One line: the level, the Holm family's size and the count of cells in each verdict.
void print_audit_counts(const audit::AuditResult& a);
/// The close cells (not rejected by a small margin), smallest margin first, at most `limit`.
void print_close_cells(const audit::AuditResult& a, std::size_t limit);
/// The strongest evidence of each violated bound.
void print_evidence(const audit::AuditResult& a);

/// "key=value key=value" of a scenario's sweep point, or "-".
std::string describe_point(const config::Scenario& s);

}  // namespace rdpaudit::app
