// The exact engine's vectorised accumulation (src/exact/kernel.cpp: tiles of sources and
// blocks of targets in AVX-512 or AVX2) against the scalar loop over sources: the same
// operations in the same order on every target, so the same bits, for each kind of source the
// engine sends (cells through a shared Toeplitz table, cells through the lattice tables of
// another slope, atoms, clusters of a location mixture), grids whose size is not a multiple of
// the lanes, and the R_alpha brackets built on them; and D''s law as D's reflected where the
// pair is symmetric (docs/exact-laws.md, "Speed").
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "exact_support.hpp"
#include "rdpaudit/exact/chain.hpp"

using rdpaudit::config::BatchScheme;
using rdpaudit::config::LossKind;
using namespace rdpaudit::exact;
using rdpaudit::test::blog_chain;

namespace {

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

void check_same_law(const CellLaw& a, const CellLaw& b) {
  REQUIRE(a.cells == b.cells);
  CHECK(same_bits(a.mass_lo, b.mass_lo));
  CHECK(same_bits(a.mass_hi, b.mass_hi));
  CHECK(same_bits(a.moment_lo, b.moment_lo));
  CHECK(same_bits(a.moment_hi, b.moment_hi));
  CHECK(same_bits(a.second_lo, b.second_lo));
  CHECK(same_bits(a.second_hi, b.second_hi));
  REQUIRE(a.points.size() == b.points.size());
  for (std::size_t i = 0; i < a.points.size(); ++i) {
    CHECK(same_bits(a.points[i].mass.lo, b.points[i].mass.lo));
    CHECK(same_bits(a.points[i].mass.hi, b.points[i].mass.hi));
  }
  CHECK(same_bits(a.outside.lo, b.outside.lo));
  CHECK(same_bits(a.outside.hi, b.outside.hi));
}

/// Checks `same` on both ends of both directions' brackets of every row of `a` and `b` (the
/// R_alpha brackets of two evolutions of one chain, at the same orders).
template <typename Same>
void check_rows_agree(const std::vector<RenyiBracketRow>& a, const std::vector<RenyiBracketRow>& b,
                      Same same) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("alpha " << a[i].alpha);
    CHECK(same(a[i].forward.lo, b[i].forward.lo));
    CHECK(same(a[i].forward.hi, b[i].forward.hi));
    CHECK(same(a[i].backward.lo, b[i].backward.lo));
    CHECK(same(a[i].backward.hi, b[i].backward.hi));
  }
}

/// Evolves the chain with and without the vectorised accumulation and compares every bound
/// of both laws and the R_alpha brackets, bit for bit.
void check_paths_agree(const ChainSpec& c, EngineOptions o) {
  o.renyi.propagate.vectorised = false;
  const ChainLaws scalar = evolve_pair(c, o);
  o.renyi.propagate.vectorised = true;
  const ChainLaws vector = evolve_pair(c, o);
  // the comparison must see mass in many cells (not an empty law on both paths)
  int spread = 0;
  for (double m : vector.d.last.mass_lo) spread += m > 1e-12;
  CHECK(spread >= 100);
  check_same_law(scalar.d.last, vector.d.last);
  check_same_law(scalar.dprime.last, vector.dprime.last);
  const std::vector<double> alphas = {2, 8, 16};
  const auto rs = renyi_brackets(scalar.d, scalar.dprime, alphas, o.renyi);
  const auto rv = renyi_brackets(vector.d, vector.dprime, alphas, o.renyi);
  REQUIRE(rs.size() == rv.size());
  check_rows_agree(rs, rv, [](double x, double y) { return same_bits(x, y); });
}

}  // namespace

TEST_CASE("exact engine: the vectorised accumulation gives the scalar loop's bits",
          "[exact][kernel]") {
  EngineOptions o;
  SECTION("the blog's chain, b = 2 (two cases through one Toeplitz pass), 500 cells") {
    // 500 cells: not a multiple of 8, so the last block of targets takes the scalar lanes;
    // T = 60 reaches the steps whose reach is chosen by the floor (a law over the whole grid)
    o.cells_per_sd = 10;
    check_paths_agree(blog_chain(2, 60), o);
  }
  SECTION("the blog's chain, b = n (one case), 2002 cells") {
    o.cells_per_sd = 40;
    ChainSpec c = blog_chain(10, 6);
    c.clamp_hi = 1.001;  // 2002 cells: a remainder of 2 lanes
    check_paths_agree(c, o);
  }
  SECTION("a projected quadratic chain (slope 0.9: the lattice tables), from a Gaussian start") {
    ChainSpec c = blog_chain(2, 12);
    c.loss = LossKind::kQuadratic;
    c.lambda = 1;
    c.eta = 0.1;
    c.step_std = 0.1;
    c.record_d = 0;
    c.record_dprime = 1;
    c.init_std = 0.2;
    o.cells_per_sd = 15;
    check_paths_agree(c, o);
  }
  SECTION("an unprojected location mixture (clusters as sources)") {
    ChainSpec c = blog_chain(2, 8);
    c.loss = LossKind::kQuadratic;
    c.lambda = 1;
    c.eta = 0.02;
    c.step_std = 0.4;
    c.record_d = 0;
    c.record_dprime = 4;
    c.clamp_lo = -std::numeric_limits<double>::infinity();
    c.clamp_hi = std::numeric_limits<double>::infinity();
    o.cells_per_sd = 20;
    check_paths_agree(c, o);
  }
}

TEST_CASE("exact engine: D' as D reflected, where the pair is symmetric, and only there",
          "[exact][kernel]") {
  EngineOptions o;
  o.cells_per_sd = 10;
  ChainSpec c = blog_chain(2, 40);
  const auto evolve = [&](bool mirror) {
    o.renyi.propagate.mirror = mirror;
    return evolve_pair(c, o);
  };
  SECTION("the blog's pair: D' reflected equals D' evolved up to rounding") {
    const ChainLaws evolved = evolve(false), mirrored = evolve(true);
    const CellLaw &a = evolved.dprime.last, &b = mirrored.dprime.last;
    REQUIRE(a.cells == b.cells);
    double worst = 0;
    for (std::size_t k = 0; k < a.mass_lo.size(); ++k) {
      worst = std::max(worst, std::fabs(a.mass_lo[k] - b.mass_lo[k]));
      worst = std::max(worst, std::fabs(a.mass_hi[k] - b.mass_hi[k]));
    }
    CHECK(worst <= 1e-14);
    // and D' is not D (the comparison is not of two copies of one law)
    double apart = 0;
    for (std::size_t k = 0; k < a.mass_lo.size(); ++k)
      apart = std::max(apart, std::fabs(a.mass_lo[k] - evolved.d.last.mass_lo[k]));
    CHECK(apart > 1e-3);
    for (int i = 0; i < 2; ++i)
      CHECK(std::fabs(a.points[i].mass.lo - b.points[i].mass.lo) <= 1e-14);
    const std::vector<double> alphas = {2, 8, 16};
    const auto re = renyi_brackets(evolved.d, evolved.dprime, alphas, o.renyi);
    const auto rm = renyi_brackets(mirrored.d, mirrored.dprime, alphas, o.renyi);
    check_rows_agree(re, rm, [](double x, double y) { return y == Approx(x).epsilon(1e-10); });
  }
  SECTION("a pair that is not symmetric is evolved both ways: the same bits") {
    SECTION("D' not D's reflection") {
      c.record_dprime = -0.5;
    }
    SECTION("theta_0 off centre") {
      c.init_mean = 0.1;
    }
    SECTION("the interval off centre") {
      c.clamp_lo = -0.9;
    }
    const ChainLaws evolved = evolve(false), mirrored = evolve(true);
    check_same_law(evolved.dprime.last, mirrored.dprime.last);
  }
}
