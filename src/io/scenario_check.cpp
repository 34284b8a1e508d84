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

// A grid of orders: finite, above `floor` (or at it where `at_floor`), strictly increasing,
// below `ceiling` where finite.
void check_grid(const Group& g, const std::string& name, const std::vector<double>& x, double floor,
                bool at_floor, double ceiling, const std::string& what) {
  for (std::size_t i = 0; i < x.size(); ++i) {
    const bool above = at_floor ? x[i] >= floor : x[i] > floor;
    if (!std::isfinite(x[i]) || !above || !(x[i] < ceiling)) g.fail(name, num(x[i]), what);
    if (i > 0 && !(x[i] > x[i - 1]))
      g.fail(name, fmt::format("{} after {}", num(x[i]), num(x[i - 1])), "strictly increasing");
  }
}

// The scenario's bound table: orders > 1, increasing, a value per (bound, order). The values
// themselves are a bound's, as computed (NaN: not applicable; any number a custom formula
// gives).
void check_bound_table(const Group& b) {
  check_grid(b, "alphas", b.read_doubles("alphas"), 1.0, false, INFINITY, "finite orders > 1");
  const auto names = b.read_strings("names");
  expect_shape(b, "values", {names.size(), b.read_doubles("alphas").size()});
  if (b.read_strings("reasons").size() != names.size())
    b.fail("reasons", fmt::format("{} rows", b.read_strings("reasons").size()),
           fmt::format("{} rows, one per bound", names.size()));
}

// The claims: deltas in (0, 1), increasing; an eps per (claim, delta), >= 0 or +inf (NaN:
// not applicable); mu > 0 or NaN (not a Gaussian-DP claim).
void check_claim_table(const Group& c) {
  const auto deltas = c.read_doubles("deltas");
  check_grid(c, "deltas", deltas, 0.0, false, 1.0, "deltas in (0, 1)");
  const auto names = c.read_strings("names");
  expect_shape(c, "values", {names.size(), deltas.size()});
  for (double v : c.read_doubles("values"))
    if (v < 0 || v == -INFINITY) c.fail("values", num(v), "eps >= 0, +inf or NaN (not applicable)");
  expect_shape(c, "mu", {names.size()});
  for (double m : c.read_doubles("mu"))
    if (!(std::isnan(m) || (m > 0 && std::isfinite(m))))
      c.fail("mu", num(m), "a finite mu > 0, or NaN (not a Gaussian-DP claim)");
  for (const char* column : {"kinds", "sources", "reasons"}) {
    const auto n = c.read_strings(column).size();
    if (n != names.size())
      c.fail(column, fmt::format("{} rows", n),
             fmt::format("{} rows, one per claim", names.size()));
  }
}

// The privacy profiles: eps grid >= 0 and increasing, deltas in (0, 1); per row a direction
// and brackets lower <= value <= upper with delta in [0, 1] (upper +inf: none), eps >= 0.
void check_profile_table(const Group& p) {
  const auto eps = p.read_doubles("epsilons");
  const auto deltas = p.read_doubles("deltas");
  check_grid(p, "epsilons", eps, 0.0, true, INFINITY, "finite eps >= 0");
  check_grid(p, "deltas", deltas, 0.0, false, 1.0, "deltas in (0, 1)");
  const auto rows = p.read_strings("method").size();
  for (const char* column : {"interval", "direction"}) {
    const auto n = std::string(column) == "direction" ? p.read_ints(column).size()
                                                      : p.read_strings(column).size();
    if (n != rows) p.fail(column, fmt::format("{} rows", n), fmt::format("{} rows", rows));
  }
  for (std::int64_t d : p.read_ints("direction"))
    if (d != 0 && d != 1) p.fail("direction", std::to_string(d), "0 or 1");
  const auto bracket = [&](const char* what, std::size_t columns, double top) {
    const std::string v = std::string(what) + "_value", lo = std::string(what) + "_lower",
                      hi = std::string(what) + "_upper";
    for (const std::string* name : {&v, &lo, &hi}) expect_shape(p, *name, {rows, columns});
    const auto value = p.read_doubles(v), lower = p.read_doubles(lo), upper = p.read_doubles(hi);
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (!(lower[i] >= 0 && lower[i] <= top))
        p.fail(lo, num(lower[i]), fmt::format("in [0, {}]", top));
      if (!(upper[i] >= lower[i]))
        p.fail(hi, num(upper[i]), fmt::format("at least the lower end {}", num(lower[i])));
      if (!(value[i] >= lower[i] && value[i] <= upper[i] && value[i] <= top))
        p.fail(v, num(value[i]),
               fmt::format("within [{}, {}]", num(lower[i]), num(std::min(upper[i], top))));
    }
  };
  bracket("delta", eps.size(), 1.0);
  bracket("epsilon", deltas.size(), INFINITY);
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
  const Group est = g.open_group("estimates");
  check_estimates(est);
  if (g.has("bounds")) check_bound_table(g.open_group("bounds"));
  if (g.has("claims")) check_claim_table(g.open_group("claims"));
  if (est.has("profile")) check_profile_table(est.open_group("profile"));
}

}  // namespace rdpaudit::io
