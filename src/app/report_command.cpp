// `rdpaudit report RESULTS.h5`: a readable summary of a run: what was run, how long each
// scenario took, and the audit per bound and per scenario.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "commands.hpp"
#include "rdpaudit/io/results_reader.hpp"

namespace rdpaudit::app {

int report_command(const std::string& file) {
  const io::ResultsSummary s = io::read_results(file);
  fmt::print("experiment   {}\n", s.experiment_name);
  if (!s.description.empty()) fmt::print("description  {}\n", s.description);
  fmt::print("config       {}\n", s.config_path);
  fmt::print("created      {} by rdpaudit {} ({}), {} thread(s)\n", s.created_utc, s.tool_version,
             s.git_hash, s.threads);
  fmt::print("command      {}\n", s.command_line);
  fmt::print("format       {}.{}\n", s.format_major, s.format_minor);
  fmt::print("trajectories {} per dataset and scenario\n\n", s.trajectories);

  // Per scenario: the largest estimate and lower bound over both directions at each order.
  std::map<std::pair<int, double>, std::pair<double, double>> best;
  for (const auto& c : s.audit.cells) {
    auto& v = best.try_emplace({c.scenario, c.alpha}, NAN, 0.0).first->second;
    if (!std::isnan(c.estimate))
      v.first = std::isnan(v.first) ? c.estimate : std::max(v.first, c.estimate);
    v.second = std::max(v.second, c.lower);
  }
  fmt::print("{:>4}  {:<36} {:>8}  {}\n", "#", "sweep point", "seconds",
             "R_alpha: estimate [simultaneous lower bound], larger direction");
  double total = 0;
  for (const auto& sc : s.scenarios) {
    std::string cols;
    for (const auto& [key, v] : best) {
      if (key.first != sc.index) continue;
      cols += fmt::format("  a={:g}: {:.4g} [{:.3g}]", key.second, v.first, v.second);
    }
    fmt::print("{:>4}  {:<36} {:>8.2f} {}\n", sc.index, sc.sweep_point, sc.seconds, cols);
    total += sc.seconds;
  }
  fmt::print("total simulation time {:.1f} s\n\n", total);
  if (!s.has_audit) {
    fmt::print("no audit in this file (format {}.{})\n", s.format_major, s.format_minor);
    return 0;
  }
  fmt::print("audit: family-wise level {:g}, Holm over {} tested cells, {} violated\n\n",
             s.audit.level, s.audit.hypotheses, s.audit.violated_cells());
  print_bound_table(s.audit);
  for (const auto& b : s.audit.bounds) {
    if (!b.evidence.empty()) fmt::print("\n{} violated: {}\n", b.name, b.evidence);
  }
  fmt::print("\n{} bound(s) not as expected (rdpaudit check exits non-zero on them)\n",
             s.audit.unexpected());
  return 0;
}

}  // namespace rdpaudit::app
