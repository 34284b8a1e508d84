// The self-describing results file (layout documented field by field in
// docs/results-format.md). Written to a temporary file and renamed on commit().
#pragma once

#include <memory>
#include <string>

#include "rdpaudit/audit/verdict.hpp"
#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/estimate/scenario.hpp"
#include "rdpaudit/io/hdf5.hpp"
#include "rdpaudit/sim/simulate.hpp"

namespace rdpaudit::io {

inline constexpr const char* kFileType = "rdpaudit-results";
/// Major: readers refuse other majors (layout changes). Minor: additions only.
inline constexpr int kFormatMajor = 2;  // 2: verdicts that keep certain and statistical apart
// 1.1: estimates; 1.2: bounds/, /audit; 1.3: bernstein; 2.1: score cells; 2.2: generator;
// 2.3: scenario groups padded to the width of the largest index, expect "valid_exact".
// 2.4: exact-chain estimate rows, the scenario's exact law in estimates@mixture, the audit
//      cells' exact_method and within_exact_bracket.
// 2.5: Gaussian-DP mu (estimates/gdp, claims/mu, /audit/cells/quantity).
// 2.6: built-in privacy-profile bounds, rows of kind "profile theorem" in claims/ and /audit.
// 2.7: /accountants/K@how (ran, or recorded from parts or a checkpoint).
inline constexpr int kFormatMinor = 7;

/// The group of scenario `index` among `count` (/scenarios/<name>): zero-padded to the width
/// of the largest index, at least 4 digits ("0007"; "00007" among more than 10^4 scenarios),
/// so that the names sort as the numbers do. Files of format 2.2 and before: {:04d} whatever
/// the count (their names sort wrongly above 10^4 scenarios).
std::string scenario_group_name(std::int64_t index, std::int64_t count,
                                std::int64_t format_minor = kFormatMinor);

struct RunInfo {
  std::string command_line;
  int threads = 1;       ///< OpenMP threads per process
  int ranks = 1;         ///< MPI ranks (1 without MPI)
  std::string parallel;  ///< how the run was spread: MPI library and ranks, or merged parts
};

class ResultsWriter {
 public:
  ResultsWriter(const std::string& path, const config::ExperimentSpec& spec, const RunInfo& run);
  void add_scenario(const config::Scenario& s, const sim::ScenarioTallies& t,
                    const estimate::ScenarioEstimates& e, const audit::BoundTable& bounds,
                    const audit::ClaimTable* claims = nullptr);
  /// The run's verdicts (/audit), written once after the last scenario.
  void add_audit(const audit::AuditResult& a);
  /// How the run ended: trajectories counted per dataset and scenario, the looks of a
  /// sequential run (1 otherwise) and why it stopped ("single run", "decided", "budget").
  void add_outcome(std::int64_t counted, int looks, int looks_planned, double level_per_look,
                   const std::string& stop_reason);
  void commit();

 private:
  AtomicFile file_;
  Group scenarios_;
  std::int64_t trajectories_;
  std::int64_t scenario_count_;
};

/// Compiler and library versions, as recorded in every results file.
std::string compiler_version();
std::string library_versions();

}  // namespace rdpaudit::io
