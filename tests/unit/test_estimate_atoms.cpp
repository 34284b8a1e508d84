// Point masses in the plug-in's cells (estimate/cells.hpp): found in pilot values, given a cell
// of their own, kept as a group of their own, and not taken for an unreached tail when they
// end the samples; a continuous tail that the samples do not reach stays uninformative.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "rdpaudit/estimate/cells.hpp"
#include "rdpaudit/estimate/histogram.hpp"

using namespace rdpaudit::estimate;

namespace {

/// Draws of N(mean, 1) clamped to [-r, r] the way the simulator projects (x r / |x|).
std::vector<double> clamped_normal(std::size_t n, double mean, double r, unsigned seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> z(mean, 1.0);
  std::vector<double> out(n);
  for (double& x : out) {
    x = z(g);
    if (x * x > r * r) x = x * (r / std::sqrt(x * x));
  }
  return out;
}

}  // namespace

TEST_CASE("point masses: found where the pilot repeats a value, none in a continuous law",
          "[estimate][atoms]") {
  const auto p = clamped_normal(20000, 0.0, 1.5, 1), q = clamped_normal(20000, 0.5, 1.5, 2);
  const auto points = find_point_masses(p, q);
  REQUIRE(points.size() == 2);
  CHECK(points[0].first <= -1.5);
  CHECK(-1.5 < points[0].second);
  CHECK(points[1].first <= 1.5);
  CHECK(1.5 < points[1].second);
  for (const auto& [lo, hi] : points) CHECK(is_point_cell(lo, hi));
  // every clamped draw falls in a point cell
  for (double x : p) {
    if (std::fabs(x) < 1.5 * (1 - 1e-12)) continue;
    CHECK(((points[0].first <= x && x < points[0].second) ||
           (points[1].first <= x && x < points[1].second)));
  }
  CHECK(find_point_masses(clamped_normal(20000, 0, 1e9, 3), clamped_normal(20000, 1, 1e9, 4))
            .empty());
  // fewer repeats than asked: no point mass
  CHECK(find_point_masses({1.0, 1.0, 2.0}, {1.0}, 4).empty());
  CHECK(find_point_masses({1.0, 1.0, 2.0}, {1.0}, 3).size() == 1);
}

TEST_CASE("point cells: inserted into the edges, recognised, and nothing else changes",
          "[estimate][atoms]") {
  const std::vector<double> edges = {-2, -1, 0, 1, 2};
  CHECK(with_point_cells(edges, {}) == edges);
  CHECK(point_cells_of(edges).empty());
  const double lo = std::nextafter(1.0, 0.0), hi = std::nextafter(1.0, 2.0);
  const auto with = with_point_cells(edges, {{lo, hi}});
  // the edge 1 inside the point cell is replaced by the cell's two ends
  CHECK(with == std::vector<double>{-2, -1, 0, lo, hi, 2});
  CHECK(point_cells_of(with) == std::vector<std::size_t>{4});
}

TEST_CASE("merge keeping points: a resolved atom stays alone, sparse stretches join it",
          "[estimate][atoms]") {
  // cells 0..5; cell 4 is an atom; cell 5 (beyond it) is empty
  CellCounts c{{30, 30, 30, 30, 50, 0}, {30, 30, 30, 30, 60, 0}};
  const Grouping g = merge_sparse_keeping_points(c, {}, 40, {4}, 40);
  CHECK(g.groups == 3);
  CHECK(g.group == std::vector<std::uint32_t>{0, 0, 1, 1, 2, 2});
  // an atom below the floor is an ordinary cell: merge_sparse itself
  const Grouping plain = merge_sparse_keeping_points(c, {}, 60, {4}, 60);
  const Grouping reference = merge_sparse(c, {}, 60);
  CHECK(plain.group == reference.group);
  CHECK(plain.groups == reference.groups);
  // the atom's own floor may lie below the order's: 50 and 60 samples hold it at 10
  const Grouping own = merge_sparse_keeping_points(c, {}, 60, {4}, 10);
  CHECK(own.group == std::vector<std::uint32_t>{0, 0, 1, 1, 2, 2});
  // a sparse stretch before the first atom joins it
  CellCounts d{{5, 50, 30, 30}, {5, 50, 30, 30}};
  const Grouping h = merge_sparse_keeping_points(d, {}, 40, {1}, 40);
  CHECK(h.group == std::vector<std::uint32_t>{0, 0, 1, 1});
}

TEST_CASE("plug-in: an atom at the end is a cell, a continuous tail left unreached is not",
          "[estimate][atoms]") {
  // A two-cell-atom pair: P puts 30 % on the atom, P' 5 %; the rest identical and spread
  // over 20 cells. The atom holds the whole divergence.
  CellCounts c;
  for (int i = 0; i < 20; ++i) {
    c.p.push_back(3500);
    c.q.push_back(4750);
  }
  c.p.push_back(30000);  // the atom, last cell with samples
  c.q.push_back(5000);
  c.p.push_back(0);  // the overflow beyond it: empty on both sides
  c.q.push_back(0);
  PluginOptions o;
  o.bootstrap_replicates = 0;
  const auto with = histogram_plugin(c, {2.0, 8.0}, o, nullptr, {}, "histogram-plugin", {20});
  const auto without = histogram_plugin(c, {2.0, 8.0}, o, nullptr, {});
  std::vector<double> p, q;
  for (std::size_t i = 0; i < c.size(); ++i) {
    p.push_back(static_cast<double>(c.p[i]));
    q.push_back(static_cast<double>(c.q[i]));
  }
  for (std::size_t k = 0; k < with.size(); ++k) {
    INFO("alpha " << with[k].alpha << " direction " << with[k].direction << ": "
                  << without[k].reason);
    CHECK(with[k].informative);
    // forward, the tilted mass sits on the atom: taken for a tail without the point cell;
    // backward it is spread over the 20 cells and the atom's share is negligible
    if (with[k].direction == kForward) CHECK_FALSE(without[k].informative);
    const double truth = with[k].direction == kForward ? discrete_renyi(p, q, with[k].alpha)
                                                       : discrete_renyi(q, p, with[k].alpha);
    CHECK(with[k].value == Approx(truth).epsilon(1e-12));
  }
  // Samples beyond the atom: its group is no longer an atom alone, and the tail check applies.
  c.p.back() = 3;
  c.q.back() = 0;
  const auto beyond = histogram_plugin(c, {8.0}, o, nullptr, {}, "histogram-plugin", {20});
  CHECK_FALSE(beyond[0].informative);
}
