// Reading a results file back (rdpaudit check / report): the run's description, one line per
// scenario, and the audit's verdicts, in the types the audit wrote them from.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "rdpaudit/audit/verdict.hpp"
#include "rdpaudit/config/vocabulary.hpp"

namespace rdpaudit::io {

struct ScenarioLine {
  std::int64_t index = 0;
  std::string sweep_point;  ///< "key=value key=value" of its swept keys, "-" if none
  double seconds = 0.0;     ///< simulation time
  /// The pair's neighbouring relation (data.adjacency). Files written before the attribute
  /// existed could only hold replace-one pairs. With bounds::bound_adjacency and
  /// bounds::adjacency_mismatch this says where a bound's relation differs from the pair's.
  config::Adjacency adjacency = config::Adjacency::kReplaceOne;
  /// The pair's Gaussian-DP mu from estimates/gdp (format 2.5, [profile] runs; NaN without):
  /// the largest certified lower bound over the scores, the larger exact value over the two
  /// directions and the eps where that supremum was attained (NaN for a closed form), and
  /// whether it was attained at the grid's last usable eps (mu still growing there).
  double mu_certified = std::numeric_limits<double>::quiet_NaN();
  double mu_exact = std::numeric_limits<double>::quiet_NaN();
  double mu_exact_epsilon = std::numeric_limits<double>::quiet_NaN();
  bool mu_exact_at_grid_end = false;
};

struct ResultsSummary {
  std::string path, experiment_name, description, created_utc, tool_version, git_hash, command_line,
      config_path;
  std::int64_t format_major = 0, format_minor = 0, threads = 0, trajectories = 0;
  std::vector<ScenarioLine> scenarios;
  bool has_audit = false;  ///< false for files before format 1.2
  audit::AuditResult audit;
};

/// Reads `path`. Throws InputError naming the path or the missing object when it is not an
/// rdpaudit results file of a supported major version.
ResultsSummary read_results(const std::string& path);

}  // namespace rdpaudit::io
