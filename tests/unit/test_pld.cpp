// The PLD accountant (bounds/pld.hpp): its bracket holds the exact Gaussian composition (GDP),
// the exact single step (quadrature), dp_accounting's published value, and lies below RDP.
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "rdpaudit/bounds/conversion.hpp"
#include "rdpaudit/bounds/gdp.hpp"
#include "rdpaudit/bounds/mechanisms.hpp"
#include "rdpaudit/bounds/pld.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/estimate/types.hpp"

namespace pld = rdpaudit::bounds::pld;

namespace {

double relative_width(const pld::Interval& r) {
  return r.upper > 0.0 ? (r.upper - r.lower) / r.upper : 0.0;
}

constexpr double kPi = 3.14159265358979323846;

double normal_pdf(double x, double mean, double sd) {
  const double u = (x - mean) / sd;
  return std::exp(-0.5 * u * u) / (sd * std::sqrt(2.0 * kPi));
}

/// The hockey-stick divergence of one ordered pair by quadrature of (p - e^eps q)_+ over x,
/// split where p - e^eps q changes sign (found by bisection, not by the accountant's formulas).
double hockey_by_quadrature(double q, double z, double eps, bool remove) {
  const double a = std::exp(eps);
  auto mix = [&](double x) {
    return (1.0 - q) * normal_pdf(x, 0.0, z) + q * normal_pdf(x, 1.0, z);
  };
  auto g = [&](double x) {
    const double p = remove ? mix(x) : normal_pdf(x, 0.0, z);
    const double qq = remove ? normal_pdf(x, 0.0, z) : mix(x);
    return p - a * qq;
  };
  // remove: g > 0 above one point, add: below one point (the density ratio is monotone);
  // bisection on the sign of g in [-30 z, 30 z + 1], where neither density underflows.
  double lo = -30.0 * z, hi = 30.0 * z + 1.0;
  if (!(g(remove ? hi : lo) > 0.0)) return 0.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    if ((g(mid) > 0.0) == remove) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  const double x0 = 0.5 * (lo + hi);
  using GK = boost::math::quadrature::gauss_kronrod<double, 61>;
  double sum = 0.0;
  // integrate on pieces of width z away from x0 so that the Gaussian bumps are resolved
  const double a0 = remove ? x0 : -40.0 * z;
  const double b0 = remove ? 40.0 * z + 1.0 : x0;
  const int pieces = 40;
  for (int i = 0; i < pieces; ++i) {
    const double s = a0 + (b0 - a0) * i / pieces, e = a0 + (b0 - a0) * (i + 1) / pieces;
    sum += GK::integrate([&](double x) { return std::max(0.0, g(x)); }, s, e, 8, 1e-13);
  }
  return sum;
}

}  // namespace

TEST_CASE("PLD: the T-fold Gaussian brackets the exact GDP value, width <= 1e-3", "[bounds][pld]") {
  for (double z : {0.6, 1.0, 2.0, 5.0}) {
    for (long T : {1L, 10L, 1000L, 10000L}) {
      for (double delta : {1e-5, 1e-3}) {
        const double exact = rdpaudit::bounds::gdp::epsilon(std::sqrt(double(T)) / z, delta);
        const pld::Interval r = pld::epsilon_gaussian(z, T, delta);
        INFO("z=" << z << " T=" << T << " delta=" << delta << " exact=" << exact << " [" << r.lower
                  << ", " << r.upper << "] h=" << r.discretisation);
        CHECK(r.lower <= exact);
        CHECK(exact <= r.upper);
        CHECK(relative_width(r) <= 1e-3);
      }
    }
  }
}

TEST_CASE("PLD: delta(eps) of the Gaussian brackets the exact GDP profile", "[bounds][pld]") {
  for (double z : {0.8, 2.0}) {
    for (long T : {1L, 100L}) {
      for (double eps : {0.5, 2.0}) {
        const double exact = rdpaudit::bounds::gdp::delta(std::sqrt(double(T)) / z, eps);
        const pld::Interval r = pld::delta_gaussian(z, T, eps);
        INFO("z=" << z << " T=" << T << " eps=" << eps << " exact=" << exact << " [" << r.lower
                  << ", " << r.upper << "]");
        CHECK(r.lower <= exact);
        CHECK(exact <= r.upper);
        CHECK(relative_width(r) <= 1e-3);
      }
    }
  }
}

TEST_CASE("PLD: one step of the subsampled Gaussian brackets its delta by quadrature",
          "[bounds][pld]") {
  for (double q : {0.01, 0.1, 0.5}) {
    for (double z : {0.8, 2.0}) {
      for (double eps : {0.05, 0.5, 2.0}) {
        const double exact =
            std::max(hockey_by_quadrature(q, z, eps, true), hockey_by_quadrature(q, z, eps, false));
        const pld::Interval r =
            pld::delta_poisson_gaussian(q, z, 1, eps, pld::Adjacency::kAddRemove);
        INFO("q=" << q << " z=" << z << " eps=" << eps << " quadrature=" << exact << " [" << r.lower
                  << ", " << r.upper << "]");
        CHECK(r.lower <= exact * (1 + 1e-9));
        CHECK(exact <= r.upper * (1 + 1e-9));
        if (exact > 1e-12) CHECK(relative_width(r) <= 1e-3);
      }
    }
  }
}

TEST_CASE("PLD: one step's eps(1e-5) brackets the mpmath reference", "[bounds][pld]") {
  // python/studies/pld_reference.py (mpmath quadrature of (p - e^eps q)_+, 50 digits):
  // {q, z, exact eps(delta = 1e-5)} of one add/remove step.
  const double cases[][3] = {
      {0.001, 0.8, 0.0217070881841},
      {0.001, 1.1, 0.00666572589538},
      {0.001, 2.0, 0.00150679402327},
      {0.001, 5.0, 0.000301082187785},
      {0.004266666667, 0.8, 0.170847569889},
      {0.004266666667, 1.1, 0.048341667083},
      {0.004266666667, 2.0, 0.00992703230909},
      {0.004266666667, 5.0, 0.00203395383165},
      {0.01, 0.8, 0.483326135784},
      {0.01, 1.1, 0.142290688192},
      {0.01, 2.0, 0.0282590839572},
      {0.01, 5.0, 0.00572828480327},
      {0.1, 0.8, 2.72743364943},
      {0.1, 1.1, 1.35902900034},
      {0.1, 2.0, 0.369036690287},
      {0.1, 5.0, 0.0792706634057},
  };
  for (const auto& c : cases) {
    const pld::Interval r =
        pld::epsilon_poisson_gaussian(c[0], c[1], 1, 1e-5, pld::Adjacency::kAddRemove);
    INFO("q=" << c[0] << " z=" << c[1] << " exact=" << c[2] << " [" << r.lower << ", " << r.upper
              << "]");
    CHECK(r.lower <= c[2] * (1 + 1e-11));
    CHECK(c[2] <= r.upper * (1 + 1e-11));
    CHECK(relative_width(r) <= 1e-3);
  }
}

TEST_CASE("PLD: the Opacus MNIST example holds dp_accounting's eps 1.1339", "[bounds][pld]") {
  // q = 256/60000, z = 1.1, 3516 steps, delta = 1e-5: dp_accounting's PLD accountant reports
  // eps ~ 1.1339 (Opacus' PRV accountant 1.1440, RDP 1.2813).
  const pld::Interval r =
      pld::epsilon_poisson_gaussian(256.0 / 60000.0, 1.1, 3516, 1e-5, pld::Adjacency::kAddRemove);
  INFO("[" << r.lower << ", " << r.upper << "] h=" << r.discretisation);
  CHECK(r.lower <= 1.13395);
  CHECK(r.upper >= 1.13385);
  CHECK(relative_width(r) <= 1e-3);
}

TEST_CASE("PLD: the RDP composition bound is never below the PLD lower end", "[bounds][pld]") {
  using namespace rdpaudit::bounds;
  const std::vector<double> alphas = rdpaudit::estimate::default_alpha_grid({128.0, 256.0});
  for (double q : {1e-3, 0.01, 0.1}) {
    for (double z : {0.8, 1.1, 2.0}) {
      for (long T : {1L, 100L, 3516L}) {
        std::vector<double> rdp;
        for (double a : alphas) rdp.push_back(double(T) * mtz_poisson_rdp(q, z, a));
        const double e_rdp = epsilon_improved(alphas, rdp, 1e-5).epsilon;
        const pld::Interval r =
            pld::epsilon_poisson_gaussian(q, z, T, 1e-5, pld::Adjacency::kAddRemove);
        INFO("q=" << q << " z=" << z << " T=" << T << " rdp=" << e_rdp << " pld=[" << r.lower
                  << ", " << r.upper << "]");
        CHECK(e_rdp >= r.lower);
      }
    }
  }
}

TEST_CASE("PLD: replace-one without sampling is the Gaussian with z/2, bad input throws",
          "[bounds][pld]") {
  const pld::Interval a =
      pld::epsilon_poisson_gaussian(1.0, 2.0, 10, 1e-5, pld::Adjacency::kReplaceOne);
  const pld::Interval b = pld::epsilon_gaussian(1.0, 10, 1e-5);
  CHECK(a.lower == b.lower);
  CHECK(a.upper == b.upper);
  const pld::Interval c =
      pld::epsilon_poisson_gaussian(1.0, 2.0, 10, 1e-5, pld::Adjacency::kAddRemove);
  const pld::Interval d = pld::epsilon_gaussian(2.0, 10, 1e-5);
  CHECK(c.upper == d.upper);
  using pld::Adjacency;
  CHECK_THROWS_AS(pld::epsilon_poisson_gaussian(0.1, 1.0, 10, 1e-5, Adjacency::kReplaceOne),
                  rdpaudit::InputError);
  CHECK_THROWS_AS(pld::epsilon_poisson_gaussian(0.0, 1.0, 10, 1e-5, Adjacency::kAddRemove),
                  rdpaudit::InputError);
  CHECK_THROWS_AS(pld::epsilon_poisson_gaussian(1.5, 1.0, 10, 1e-5, Adjacency::kAddRemove),
                  rdpaudit::InputError);
  CHECK_THROWS_AS(pld::epsilon_poisson_gaussian(0.1, 0.0, 10, 1e-5, Adjacency::kAddRemove),
                  rdpaudit::InputError);
  CHECK_THROWS_AS(pld::epsilon_poisson_gaussian(0.1, 1.0, 0, 1e-5, Adjacency::kAddRemove),
                  rdpaudit::InputError);
  CHECK_THROWS_AS(pld::epsilon_poisson_gaussian(0.1, 1.0, 10, 0.0, Adjacency::kAddRemove),
                  rdpaudit::InputError);
  CHECK_THROWS_AS(pld::epsilon_poisson_gaussian(0.1, 1.0, 10, 1.0, Adjacency::kAddRemove),
                  rdpaudit::InputError);
  CHECK_THROWS_AS(pld::delta_poisson_gaussian(0.1, 1.0, 10, -1.0, Adjacency::kAddRemove),
                  rdpaudit::InputError);
  CHECK_THROWS_AS(pld::epsilon_gaussian(std::nan(""), 10, 1e-5), rdpaudit::InputError);
}

// The figures of docs/pld.md: test_unit "[pld_table]" (hidden from the default run).
TEST_CASE("PLD: table of brackets and times", "[.][pld_table]") {
  std::printf("%10s %5s %6s %14s %14s %10s %10s %8s\n", "q", "z", "T", "lower", "upper",
              "rel.width", "h", "seconds");
  for (double q : {1e-3, 256.0 / 60000.0, 0.01, 0.1}) {
    for (double z : {0.8, 1.1, 2.0, 5.0}) {
      for (long T : {1L, 100L, 3516L, 10000L}) {
        const auto t0 = std::chrono::steady_clock::now();
        const pld::Interval r =
            pld::epsilon_poisson_gaussian(q, z, T, 1e-5, pld::Adjacency::kAddRemove);
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%10.6g %5.2g %6ld %14.8g %14.8g %10.3g %10.3g %8.3f\n", q, z, T, r.lower,
                    r.upper, relative_width(r), r.discretisation, s);
        std::fflush(stdout);
      }
    }
  }
}

TEST_CASE("PLD: a noise multiplier near 0 gives the trivial bracket, not a grid beyond memory",
          "[pld]") {
  // z = 1.1e-12 (a fuzzed opacus_mnist): one step's privacy loss reaches e^(4e23), beyond
  // double's range; the accountant asked for a vector of that length (exit 1).
  const auto e =
      pld::epsilon_poisson_gaussian(256.0 / 60000, 1.1e-12, 3516, 1e-5, pld::Adjacency::kAddRemove);
  CHECK(e.lower == 0.0);
  CHECK(std::isinf(e.upper));
  const auto d =
      pld::delta_poisson_gaussian(256.0 / 60000, 1.1e-12, 3516, 1.0, pld::Adjacency::kAddRemove);
  CHECK(d.lower == 0.0);
  CHECK(d.upper == 1.0);
}
