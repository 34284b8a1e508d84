// `rdpaudit report RESULTS.h5`: a readable summary of a run: what was run, how long each
// scenario took, and the audit per bound and per scenario.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "commands.hpp"
#include "rdpaudit/io/results_reader.hpp"

namespace rdpaudit::app {

namespace {

// The pair's Gaussian-DP mu per scenario ([profile] runs, format 2.5): certified from the
// samples, and exact where the law is known (with the eps of a grid's supremum, and whether mu
// was still growing at the grid's end, where the exact value is only a lower bound).
void print_gdp(const io::ResultsSummary& s) {
  bool any = false;
  for (const auto& sc : s.scenarios)
    any |= !std::isnan(sc.mu_certified) || !std::isnan(sc.mu_exact);
  if (!any) return;
  fmt::print("{:>4}  {:<36} {:>12} {:>12}  {}\n", "#", "sweep point", "mu certified", "mu exact",
             "(Gaussian DP of the pair: T(P, P') >= G_mu)");
  for (const auto& sc : s.scenarios) {
    std::string where;
    if (!std::isnan(sc.mu_exact_epsilon))
      where = fmt::format("  sup over the eps grid at eps = {:g}{}", sc.mu_exact_epsilon,
                          sc.mu_exact_at_grid_end
                              ? " (the grid's last usable eps, mu still growing there: the "
                                "exact mu is at least this)"
                              : "");
    fmt::print("{:>4}  {:<36} {:>12} {:>12}{}\n", sc.index, sc.sweep_point,
               value_text(sc.mu_certified), value_text(sc.mu_exact), where);
  }
  fmt::print("\n");
}

}  // namespace

int report_command(const std::string& file, bool csv) {
  const io::ResultsSummary s = io::read_results(file);
  if (csv) {
    std::vector<std::string> points;
    for (const auto& sc : s.scenarios) points.push_back(sc.sweep_point);
    print_cells_csv(s.audit, points);
    return 0;
  }
  fmt::print("experiment   {}\n", s.experiment_name);
  if (!s.description.empty()) fmt::print("description  {}\n", s.description);
  fmt::print("config       {}\n", s.config_path);
  fmt::print("created      {} by rdpaudit {} ({}), {} thread(s)\n", s.created_utc, s.tool_version,
             s.git_hash, s.threads);
  fmt::print("command      {}\n", s.command_line);
  fmt::print("format       {}.{}\n", s.format_major, s.format_minor);
  fmt::print("trajectories {} per dataset and scenario\n\n", s.trajectories);

  // Per scenario and order: the direction with the larger point estimate (the larger lower
  // bound where neither has an estimate), its estimate and its simultaneous lower bound, so
  // that both numbers always come from the same direction.
  struct Direction {
    double estimate = NAN, lower = 0.0;
  };
  std::map<std::pair<int, double>, std::array<Direction, 2>> at;
  for (const auto& c : s.audit.cells) {
    if (c.is_claim() || c.gdp) continue;  // (eps, delta) and mu claims: no order
    auto& d = at[{c.scenario, c.alpha}][static_cast<std::size_t>(c.direction)];
    if (!std::isnan(c.estimate)) d.estimate = c.estimate;
    d.lower = std::max(d.lower, c.lower);
  }
  const auto larger = [](const std::array<Direction, 2>& d) -> std::size_t {
    if (!std::isnan(d[0].estimate) || !std::isnan(d[1].estimate)) {
      if (std::isnan(d[1].estimate)) return 0;
      if (std::isnan(d[0].estimate)) return 1;
      return d[1].estimate > d[0].estimate ? 1 : 0;
    }
    return d[1].lower > d[0].lower ? 1 : 0;
  };
  fmt::print("{:>4}  {:<36} {:>8}  {}\n", "#", "sweep point", "seconds",
             "R_alpha: estimate [simultaneous lower bound] of the larger direction (> P||P', < "
             "P'||P)");
  double total = 0;
  for (const auto& sc : s.scenarios) {
    std::string cols;
    for (const auto& [key, d] : at) {
      if (key.first != sc.index) continue;
      const std::size_t k = larger(d);
      cols += fmt::format("  a={:g}: {} [{}] {}", key.second, value_text(d[k].estimate),
                          value_text(d[k].lower), k == 0 ? ">" : "<");
    }
    fmt::print("{:>4}  {:<36} {:>8.2f} {}\n", sc.index, sc.sweep_point, sc.seconds, cols);
    total += sc.seconds;
  }
  fmt::print("total simulation time {:.1f} s\n\n", total);
  print_gdp(s);
  {
    std::vector<std::string> points;
    for (const auto& sc : s.scenarios) points.push_back(sc.sweep_point);
    print_last_iterate_eps(s.audit, points);
  }
  if (!s.has_audit) {
    fmt::print("no audit in this file (format {}.{})\n", s.format_major, s.format_minor);
    return 0;
  }
  print_audit_counts(s.audit);
  print_bound_table(s.audit);
  print_evidence(s.audit);
  print_close_cells(s.audit, 10);
  fmt::print("\n{} bound(s) not as expected (rdpaudit check exits non-zero on them)\n",
             s.audit.unexpected());
  return 0;
}

}  // namespace rdpaudit::app
