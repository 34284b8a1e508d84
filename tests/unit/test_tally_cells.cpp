// The counting phase's cells: the constant-time lookup gives exactly the cell of
// tally::cell_of (the number of edges <= x) for any edges and any value, edges themselves
// and NaN included, and counts merge by addition.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "rdpaudit/estimate/cells.hpp"
#include "rdpaudit/rng/stream.hpp"
#include "rdpaudit/tally/cells.hpp"

using namespace rdpaudit;

TEST_CASE("CellIndex finds the same cell as a binary search, edges and NaN included",
          "[tally][cells]") {
  rng::Stream r({3, 0, rng::kD, 0, rng::Purpose::kTest});
  for (int rep = 0; rep < 60; ++rep) {
    // Edges of very uneven spacing: quantile-like bulk plus far tails, 1 to ~4000 of them.
    std::vector<double> edges;
    const int m = 1 + rep * 67;
    for (int i = 0; i < m; ++i)
      edges.push_back(r.normal() * (1.0 + (rep % 7)) * (i % 13 == 0 ? 50 : 1));
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    const tally::CellIndex index(edges);
    REQUIRE(index.cells() == edges.size() + 1);
    for (int k = 0; k < 20000; ++k) {
      double x = r.normal() * 100.0;
      if (k % 5 == 0) x = edges[static_cast<std::size_t>(k) % edges.size()];  // on an edge
      if (k % 7 == 0) x = std::nextafter(edges[static_cast<std::size_t>(k) % edges.size()], -1e300);
      REQUIRE(index.cell(x) == tally::cell_of(edges, x));
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    CHECK(index.cell(nan) == tally::cell_of(edges, nan));
    CHECK(index.cell(-std::numeric_limits<double>::infinity()) == 0);
    CHECK(index.cell(std::numeric_limits<double>::infinity()) == edges.size());
  }
  CHECK_THROWS(tally::CellIndex({1.0, 1.0}));
  CHECK_THROWS(tally::CellIndex(std::vector<double>{}));
}

TEST_CASE("ScoreCells count through their score and merge by addition", "[tally][cells]") {
  tally::ScoreCells a("identity", [](const double* t) { return t[0]; }, {0.0, 1.0});
  tally::ScoreCells b = a;
  for (double x : {-1.0, 0.0, 0.5, 1.0, 2.0}) a.add(&x);
  for (double x : {0.25, 3.0}) b.add(&x);
  a.merge(b);
  CHECK(a.counts == std::vector<std::uint64_t>{1, 3, 3});
  CHECK(a.total() == 7);
  tally::ScoreCells other("identity", [](const double* t) { return t[0]; }, {0.0, 2.0});
  CHECK_THROWS(a.merge(other));
}
