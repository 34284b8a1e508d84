// The subcommands of the rdpaudit CLI. Each returns the process exit status and throws
// InputError for bad input (main prints it and exits 2).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "rdpaudit/audit/verdict.hpp"
#include "rdpaudit/config/load.hpp"
#include "rdpaudit/estimate/scenario.hpp"
#include "rdpaudit/io/results.hpp"
#include "scenario_pass.hpp"

namespace rdpaudit::app {

struct RunArgs {
  std::string file, output;
  int threads = 0;
  bool allow_commands = false;  ///< --allow-commands: run the file's accountant commands
  double scale = 1.0;  ///< multiplies trajectories, and with them the default pilot (--scale)
  config::Overrides overrides;
  std::string command_line;
  /// Sequential audit: count in rounds doubling from experiment.trajectories up to
  /// max_trajectories, test at each look (level spent over the planned looks), stop when
  /// every cell is decided (a not-rejected cell: bound >= decided_margin x the estimate).
  bool until_decided = false;
  std::int64_t max_trajectories = 0;
  double decided_margin = 2.0;
  /// --part i/N: count the i-th of N shares of every scenario's trajectories and write a part
  /// file for `rdpaudit merge` (1/1: the whole run, a results file).
  int part = 1, parts = 1;
  /// Continue from <output>.ckpt; checkpoints every checkpoint_every seconds (0: only when
  /// interrupted).
  bool resume = false;
  double checkpoint_every = 300;
};
int run_command(const RunArgs& args);

struct MergeArgs {
  std::vector<std::string> parts;
  std::string output, command_line;
  int threads = 0;
};
/// `rdpaudit merge PART... -o OUT`: the results file the unsplit run would have written.
int merge_command(const MergeArgs& args);

/// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv(const std::string& s);

struct SearchArgs {
  std::string file, output, trace;
  int threads = 0;
  bool allow_commands = false;
};
/// `rdpaudit search FILE -o FOUND.toml`: the adversary search of the file's [search] table,
/// evaluated exactly, or by a plug-in on streams of its own where the exact engines do not
/// cover every grid point; writes the found adversary as an experiment file and the trace as CSV
/// (--trace, default FOUND.trace.csv).
int search_command(const SearchArgs& args);

/// Ends a process quietly with `code` (another rank reported the error).
struct QuietExit {
  int code;
};
/// True once a run's ranks work on different shares: an error now is one rank's alone (e.g. a
/// diverged trajectory of its share) and must end every rank; before, every rank meets the
/// same error (the experiment file) and rank 0 alone reports it.
bool errors_are_per_rank();

/// Runs f on every rank; when it throws on any rank, the rank(s) that threw rethrow and the
/// others throw QuietExit{2}, so that no rank waits for the others for ever.
void collective(const std::function<void()>& f);

/// Before any work: `out` must not be a directory (from_option: it came from -o); creates its
/// parent directories. Throws InputError otherwise.
void check_output_path(const std::string& out, bool from_option);

/// The files a run of `spec` reads besides the program itself: the experiment file, every
/// values_file, and every file an accountant command names (resolved as they are read).
std::vector<std::string> input_files(const config::ExperimentSpec& spec);

/// Throws InputError(key, out) when `out` is one of `inputs` (the same path, or the same file
/// by another name): a run never replaces what it reads.
void refuse_reading_as_output(const std::string& out, const std::string& key,
                              const std::vector<std::string>& inputs);

/// The OpenMP threads of this process: `requested` (--threads), or all when 0. Set as the
/// default of every parallel region, the estimation's too, not only the simulation's.
int use_threads(int requested);

/// How a run ended (the results file's root attributes).
struct Outcome {
  std::int64_t counted = 0;
  int looks = 1, looks_planned = 1;
  double level_per_look = 0;
  std::string stop_reason = "single run";
};
/// Writes every scenario, the audit and the outcome, commits the file, and prints the
/// per-scenario summary table (run and merge).
void write_results(io::ResultsWriter& writer, const config::ExperimentSpec& spec,
                   const std::vector<ScenarioRun>& runs,
                   const std::vector<audit::BoundTable>& bounds,
                   const std::vector<audit::ClaimTable>& claims, const audit::AuditResult& verdicts,
                   const Outcome& outcome);

struct BoundsArgs {
  std::string file;
  std::vector<double> alphas;  ///< empty: the file's bounds.alphas, else the default table
  double delta = 0;            ///< > 0: also print epsilon(delta) of every bound
  double epsilon = -1;         ///< >= 0: also print delta(epsilon) of every bound
  bool show_reasons = true;
  bool csv = false;  ///< machine-readable rows instead of tables
  bool allow_commands = false;
};
int bounds_command(const BoundsArgs& args);

struct CheckArgs {
  std::string file;
  bool cells = false;      ///< also list violated cells and cells with a note
  bool all_cells = false;  ///< list every cell
};
int check_command(const CheckArgs& args);
/// The readable summary; with `csv` one CSV row per audit cell instead (print_cells_csv).
int report_command(const std::string& file, bool csv = false);
/// Runs python/plots/audit_plots.py with /usr/bin/python3 (or $RDPAUDIT_PYTHON).
int plot_command(const std::string& file, const std::string& out_dir);

/// The last iterate's exact eps(delta) per scenario and delta of the claims (both directions,
/// a bracket where it is wider than the engine's target), the claims' eps beside it, and one
/// line on what each covers: theta_T of this pair, against what a claim's source states.
/// Nothing where no claim cell has an exact value.
void print_last_iterate_eps(const audit::AuditResult& a,
                            const std::vector<std::string>& sweep_points);
/// The per-bound verdict table shared by check, report and run.
void print_bound_table(const audit::AuditResult& a);
/// One line: the level, the Holm family's size and the count of cells in each verdict.
void print_audit_counts(const audit::AuditResult& a);
/// The close cells (not rejected by a small margin), smallest margin first, at most `limit`.
void print_close_cells(const audit::AuditResult& a, std::size_t limit);
/// The strongest evidence of each violated bound.
void print_evidence(const audit::AuditResult& a);
/// The cells with a violation or a note (every cell with `all`), one line each.
void print_cells(const audit::AuditResult& a, bool all);
/// Every cell as a CSV row, numbers to 17 significant digits, a header line first.
void print_cells_csv(const audit::AuditResult& a, const std::vector<std::string>& sweep_points);
/// The number formats of every table: values to 4 significant digits, ratios to 3; "-" for NaN.
std::string value_text(double x);
std::string ratio_text(double x);

/// "key=value key=value" of a scenario's sweep point, or "-".
std::string describe_point(const config::Scenario& s);

}  // namespace rdpaudit::app
