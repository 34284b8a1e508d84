#include "rdpaudit/io/scenario_check.hpp"

#include <fmt/core.h>

#include <cmath>
#include <string>
#include <vector>

#include "rdpaudit/config/scenario.hpp"

namespace rdpaudit::io {

namespace {

std::string num(double x) {
  return fmt::format("{}", x);
}

// Edges of one score: finite and strictly increasing (the cells' invariant, tally/cells.hpp).
void check_edges(const Group& g, const std::string& name, const double* e, std::size_t n) {
  if (n == 0) g.fail(name, "no edges", "at least one edge");
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(e[i])) g.fail(name, num(e[i]), "finite edges");
    if (i > 0 && !(e[i] > e[i - 1]))
      g.fail(name, fmt::format("{} after {}", num(e[i]), num(e[i - 1])),
             "strictly increasing edges");
  }
}

// Counts of one histogram: whole numbers >= 0 adding up to the trajectories counted.
void check_counts(const Group& g, const std::string& name, const double* c, std::size_t n,
                  std::int64_t trajectories) {
  double total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!(c[i] >= 0.0) || c[i] != std::floor(c[i]) || c[i] > 1e15)
      g.fail(name, num(c[i]), "counts are whole numbers >= 0");
    total += c[i];
  }
  if (total != static_cast<double>(trajectories))
    g.fail(name, fmt::format("counts adding up to {}", num(total)),
           fmt::format("every one of the {} trajectories counted in one cell", trajectories));
}

Shape expect_shape(const Group& g, const std::string& name, const Shape& want) {
  const Shape got = g.shape_of(name);
  if (got != want) {
    const auto text = [](const Shape& s) {
      std::string out;
      for (auto n : s) out += (out.empty() ? "" : " x ") + std::to_string(n);
      return out.empty() ? std::string("a scalar") : out;
    };
    g.fail(name, text(got), "shape " + text(want));
  }
  return got;
}

// One histogram: its edges (1-D), and the counts of D and D' in edges + 1 cells.
void check_histogram(const Group& bin, const std::string& edges_name, const Group& d,
                     const Group& dp, const std::string& counts_name, std::int64_t n) {
  const std::vector<double> edges = bin.read_doubles(edges_name);
  check_edges(bin, edges_name, edges.data(), edges.size());
  for (const Group* side : {&d, &dp}) {
    expect_shape(*side, counts_name, {edges.size() + 1});
    const std::vector<double> counts = side->read_doubles(counts_name);
    check_counts(*side, counts_name, counts.data(), counts.size(), n);
  }
}

void check_tally_group(const Group& t, int dim, std::int64_t trajectories) {
  const std::int64_t n = t.read_int_attr("trajectories");
  if (n != trajectories)
    t.fail("@trajectories", std::to_string(n),
           fmt::format("the trajectories counted per dataset, {} (/@trajectories)", trajectories));
  const auto d = static_cast<std::uint64_t>(dim);
  expect_shape(t, "mean", {d});
  expect_shape(t, "covariance", {d, d});
  for (const char* name : {"mean", "covariance"}) {
    for (double x : t.read_doubles(name))
      if (!std::isfinite(x)) t.fail(name, num(x), "finite moments");
  }
}

void check_estimates(const Group& e) {
  const auto method = e.read_strings("method");
  const auto direction = e.read_ints("direction");
  const auto alpha = e.read_doubles("alpha");
  const auto value = e.read_doubles("value");
  const auto lower = e.read_doubles("lower");
  const auto upper = e.read_doubles("upper");
  const auto informative = e.read_ints("informative");
  const auto interval = e.read_strings("interval");
  const auto reason = e.read_strings("reason");
  const std::size_t rows = method.size();
  const std::pair<const char*, std::size_t> columns[] = {
      {"direction", direction.size()}, {"alpha", alpha.size()},
      {"value", value.size()},         {"lower", lower.size()},
      {"upper", upper.size()},         {"informative", informative.size()},
      {"interval", interval.size()},   {"reason", reason.size()}};
  for (const auto& [name, size] : columns) {
    if (size != rows)
      e.fail(name, fmt::format("{} rows", size), fmt::format("{} rows, one per estimate", rows));
  }
  for (std::size_t i = 0; i < rows; ++i) {
    if (direction[i] != 0 && direction[i] != 1)
      e.fail("direction", std::to_string(direction[i]), "0 or 1");
    if (!(alpha[i] > 1.0 && std::isfinite(alpha[i])))
      e.fail("alpha", num(alpha[i]), "an order > 1");
    if (informative[i] != 0 && informative[i] != 1)
      e.fail("informative", std::to_string(informative[i]), "0 or 1");
    if (informative[i] == 0) continue;  // no evidence: its numbers mean nothing
    if (!std::isfinite(value[i])) e.fail("value", num(value[i]), "finite in an informative row");
    if (!std::isfinite(lower[i])) e.fail("lower", num(lower[i]), "finite in an informative row");
    if (std::isnan(upper[i]) || upper[i] == -INFINITY)
      e.fail("upper", num(upper[i]), "a number or +inf (one-sided) in an informative row");
  }
}

}  // namespace

void check_scenario_data(const Group& g, std::int64_t trajectories) {
  const std::int64_t dim = g.read_int_attr("dim");
  if (dim < 1 || dim > config::kMaxDim)
    g.fail("@dim", std::to_string(dim), fmt::format("a dimension in [1, {}]", config::kMaxDim));
  const auto d = static_cast<std::uint64_t>(dim);
  const Group bin = g.open_group("binning");
  const Group dg = g.open_group("D");
  const Group dp = g.open_group("Dprime");
  check_tally_group(dg, static_cast<int>(dim), trajectories);
  check_tally_group(dp, static_cast<int>(dim), trajectories);
  // Coordinates: dim rows of edges, dim rows of counts with one cell more.
  const Shape edges_shape = bin.shape_of("coordinate_edges");
  if (edges_shape.size() != 2 || edges_shape[0] != d || edges_shape[1] < 1)
    bin.fail("coordinate_edges", "another shape", fmt::format("{} rows of edges", dim));
  const std::vector<double> edges = bin.read_doubles("coordinate_edges");
  const std::uint64_t width = edges_shape[1];
  for (std::uint64_t k = 0; k < d; ++k)
    check_edges(bin, "coordinate_edges", edges.data() + k * width, width);
  for (const Group* side : {&dg, &dp}) {
    expect_shape(*side, "coordinate_counts", {d, width + 1});
    const std::vector<double> counts = side->read_doubles("coordinate_counts");
    for (std::uint64_t k = 0; k < d; ++k)
      check_counts(*side, "coordinate_counts", counts.data() + k * (width + 1), width + 1,
                   trajectories);
  }
  if (dim > 1) {
    check_histogram(bin, "projection_edges", dg, dp, "projection_counts", trajectories);
    const std::vector<double> x = bin.read_doubles("joint_edges_x");
    const std::vector<double> y = bin.read_doubles("joint_edges_y");
    check_edges(bin, "joint_edges_x", x.data(), x.size());
    check_edges(bin, "joint_edges_y", y.data(), y.size());
    for (const Group* side : {&dg, &dp}) {
      expect_shape(*side, "joint_counts", {x.size() + 1, y.size() + 1});
      const std::vector<double> counts = side->read_doubles("joint_counts");
      check_counts(*side, "joint_counts", counts.data(), counts.size(), trajectories);
    }
  }
  // The estimators' score cells (format 2.1 on): every counted trajectory in each.
  if (bin.has_attr("score_names")) {
    const auto names = bin.read_string_attrs("score_names");
    for (std::size_t i = 0; i < names.size(); ++i)
      check_histogram(bin, fmt::format("score_edges_{}", i), dg, dp,
                      fmt::format("score_counts_{}", i), trajectories);
  }
  check_estimates(g.open_group("estimates"));
}

}  // namespace rdpaudit::io
