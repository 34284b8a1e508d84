// The bounds added from the literature after the two sources: WBK 2019 Theorem 27, Gaussian
// DP's consequences, Feldman & Shenfeld's random-allocation bound.  Each against the
// independent mpmath evaluation python/reference/literature_reference.py
// (tests/data/literature_reference.csv), against published numbers where there are any, and
// with its preconditions.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "rdpaudit/bounds/allocation.hpp"
#include "rdpaudit/bounds/bounds.hpp"
#include "rdpaudit/bounds/gdp.hpp"
#include "rdpaudit/bounds/mechanisms.hpp"
#include "reference_csv.hpp"

using namespace rdpaudit::bounds;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace bounds_test {
Params figure_params(BatchScheme scheme, long K, long j0);  // test_bounds_known_answers.cpp
}  // namespace bounds_test

namespace {

using reference_csv::Row;

/// The rows of literature_reference.csv whose quantity is `quantity`.
std::vector<Row> reference(const std::string& quantity) {
  return reference_csv::rows("literature_reference.csv", quantity);
}

template <typename F>
void check_against_reference(const std::string& quantity, double tol, F&& f) {
  reference_csv::check("literature_reference.csv", quantity, tol, std::forward<F>(f));
}

}  // namespace

TEST_CASE("WBK Theorem 27 against the mpmath evaluation to 1e-10 relative",
          "[bounds][literature][wbk27]") {
  check_against_reference("wbk27_rdp", 1e-10, [](const std::vector<double>& a) {
    return wbk_swor_gaussian_rdp(a[0], a[1], a[2]);
  });
  // The forward differences themselves: log Delta^l to 1e-12 absolute (Delta to 1e-12
  // relative), both where the binomial sum is used and where it cancels and is integrated.
  double worst = 0.0;
  for (const Row& r : reference("wbk27_log_fdiff")) {
    const long l = static_cast<long>(r.args[1]);
    const double got = wbk_log_forward_differences(r.args[0], l).back();
    INFO("z = " << r.args[0] << ", l = " << r.args[1] << ": " << got << " vs " << r.value);
    CHECK(std::fabs(got - r.value) <= 1e-12 * std::max(1.0, std::fabs(r.value)));
    worst = std::max(worst, std::fabs(got - r.value) / std::max(1.0, std::fabs(r.value)));
  }
  std::cout << "wbk27_log_fdiff: max deviation of log Delta " << worst << "\n";
}

TEST_CASE("WBK Theorem 27: TensorFlow Privacy's published values", "[bounds][literature][wbk27]") {
  // tensorflow/privacy rdp_accountant_test.py, test_compute_rdp_sequence_without_replacement:
  // compute_rdp_sample_without_replacement(0.01, 2.5, 50, orders), delta = 1e-5.
  const std::vector<double> orders{1.001, 1.5, 2.5, 5, 50, 100, 512, 1024};
  const std::vector<double> want{0.003470, 0.003470,   0.004638,   0.0087633,
                                 0.098474, 167.766388, 1817.35871, 3865.55029};
  for (std::size_t i = 0; i < orders.size(); ++i) {
    INFO("alpha = " << orders[i]);
    CHECK_THAT(50.0 * wbk_swor_gaussian_rdp(0.01, 2.5, orders[i]), WithinAbs(want[i], 1e-5));
  }
  // At alpha = 256 the same test prints 792.838516, which neither Theorem 27 evaluated exactly
  // (mpmath: 792.974427366, python/reference/wbk_theorem27.py) nor the same algorithm in double
  // precision reproduces (the largest term, q^256 2 e^{255 eps(256)}, is the plain branch, which
  // the value undercuts by log 2 in the CGF).  Ours is the exact value.
  CHECK_THAT(50.0 * wbk_swor_gaussian_rdp(0.01, 2.5, 256), WithinAbs(792.974427366, 1e-8));
}

TEST_CASE("WBK Theorem 27: never above Theorem 9, equal to it where it must be",
          "[bounds][literature][wbk27]") {
  for (double q : {0.001, 0.04, 0.3, 0.9}) {
    for (double z : {0.4, 1.0, 3.0, 30.0}) {
      for (double a : {1.5, 2.0, 3.0, 7.0, 20.0, 64.0, 300.0}) {
        INFO("q = " << q << ", z = " << z << ", alpha = " << a);
        const double t27 = wbk_swor_gaussian_rdp(q, z, a);
        const double t9 = wbk_swor_rdp(q, z, a);
        CHECK(t27 >= 0.0);
        CHECK(t27 <= t9 * (1.0 + 1e-12));
        // alpha <= 2: only the i = 2 term, which is Theorem 9's.
        if (a <= 2.0) CHECK_THAT(t27, WithinRel(t9, 1e-13));
      }
    }
  }
  // Far more noise than signal: the forward branch wins and Theorem 27 is much tighter; at the
  // Figure 2 setting (q = 0.04, z = 10, T = 5000) 1.637 against Theorem 9's 10.96 at alpha 10.
  CHECK_THAT(5000.0 * wbk_swor_gaussian_rdp(0.04, 10.0, 10.0), WithinRel(1.6365780749, 1e-9));
  CHECK(5000.0 * wbk_swor_rdp(0.04, 10.0, 10.0) > 10.9);
  // Limits.
  CHECK(wbk_swor_gaussian_rdp(0.0, 1.0, 5.0) == 0.0);
  CHECK(wbk_swor_gaussian_rdp(1.0, 2.0, 5.0) == gaussian_rdp(2.0, 5.0));
  CHECK(wbk_swor_gaussian_rdp(0.1, INFINITY, 5.0) == 0.0);
  CHECK(std::isinf(wbk_swor_gaussian_rdp(0.1, 0.0, 5.0)));
  CHECK_THROWS(wbk_swor_gaussian_rdp(1.5, 1.0, 5.0));
  CHECK_THROWS(wbk_swor_gaussian_rdp(0.1, 1.0, 1.0));
  CHECK_THROWS(wbk_log_forward_differences(1.0, 3));
  CHECK_THROWS(wbk_swor_gaussian_cgf(0.1, 1.0, 9, wbk_log_forward_differences(1.0, 8)));
  // Increasing in q and in alpha, decreasing in z.
  CHECK(wbk_swor_gaussian_rdp(0.02, 2.0, 16.0) < wbk_swor_gaussian_rdp(0.04, 2.0, 16.0));
  CHECK(wbk_swor_gaussian_rdp(0.02, 2.0, 16.0) < wbk_swor_gaussian_rdp(0.02, 2.0, 17.0));
  CHECK(wbk_swor_gaussian_rdp(0.02, 2.0, 16.0) > wbk_swor_gaussian_rdp(0.02, 2.5, 16.0));
}

TEST_CASE("wbk19_thm27_swor_gaussian in the catalogue", "[bounds][literature][wbk27]") {
  Params p = bounds_test::figure_params(BatchScheme::kSampleWithoutReplacement, 200, 0);
  REQUIRE(p.T == 5000);
  const BoundValue v = evaluate_bound("wbk19_thm27_swor_gaussian", p, 10.0);
  REQUIRE(v.applicable());
  CHECK(v.kind == Kind::kTheorem);
  CHECK(v.adjacency == Adjacency::kReplaceOne);
  // T steps of the Gaussian with z = s / (eta S_g / b).
  CHECK_THAT(*v.value,
             WithinRel(5000.0 * wbk_swor_gaussian_rdp(0.04, step_noise_ratio(p), 10.0), 1e-15));
  CHECK(*v.value < *evaluate_bound("wbk19_swor_composition", p, 10.0).value);
  // Projection and a crafted gradient that changes with the step do not matter (adaptive
  // composition, then post-processing); any other scheme does.
  p.D = 3.0;
  p.not_one_loss = "the crafted gradient changes with the step t";
  CHECK(evaluate_bound("wbk19_thm27_swor_gaussian", p, 10.0).applicable());
  for (BatchScheme s : {BatchScheme::kPoisson, BatchScheme::kShufflePartition,
                        BatchScheme::kShuffleEachEpoch, BatchScheme::kFixedOrder}) {
    Params o = p;
    o.scheme = s;
    o.T = o.K * (o.n / o.b);
    if (s == BatchScheme::kPoisson) o.q = 0.04;
    const BoundValue na = evaluate_bound("wbk19_thm27_swor_gaussian", o, 10.0);
    INFO(rdpaudit::config::to_string(s));
    CHECK_FALSE(na.applicable());
    CHECK_THAT(na.not_applicable, Contains("scheme " + std::string(rdpaudit::config::to_string(s)) +
                                           " is not covered") &&
                                      Contains("fixed size drawn without replacement"));
  }
}

TEST_CASE("Gaussian DP: delta(eps), its inverse and the Renyi consequence",
          "[bounds][literature][gdp]") {
  check_against_reference("gdp_delta", 1e-10,
                          [](const std::vector<double>& a) { return gdp::delta(a[0], a[1]); });
  check_against_reference("gdp_epsilon", 1e-10,
                          [](const std::vector<double>& a) { return gdp::epsilon(a[0], a[1]); });
  CHECK(gdp::rdp(0.5, 3.0) == 3.0 * 0.25 / 2.0);
  // delta(mu, 0) = total variation = 2 Phi(mu/2) - 1.
  CHECK_THAT(gdp::delta(1.0, 0.0), WithinRel(std::erf(0.5 / std::sqrt(2.0)), 1e-14));
  CHECK(gdp::delta(0.0, 1.0) == 0.0);
  CHECK(gdp::delta(INFINITY, 1.0) == 1.0);
  CHECK(gdp::epsilon(0.1, 0.5) == 0.0);  // delta(0.1, 0) = 0.0399 < 0.5
  CHECK_THROWS(gdp::delta(-1.0, 1.0));
  CHECK_THROWS(gdp::epsilon(1.0, 0.0));
  // The Gaussian mechanism (noise multiplier z) is 1/z-GDP: its RDP alpha/(2 z^2).
  CHECK_THAT(gdp::rdp(1.0 / 4.0, 7.0), WithinRel(gaussian_rdp(4.0, 7.0), 1e-15));
}

TEST_CASE("Feldman & Shenfeld Theorem 4.1: the Poisson rate and the delta bound",
          "[bounds][literature][allocation]") {
  check_against_reference("allocation_rate", 1e-12, [](const std::vector<double>& a) {
    return allocation::poisson_rate(static_cast<long>(a[0]), a[1], a[2]);
  });
  const std::vector<double> orders = [] {
    std::vector<double> v;
    for (int a = 2; a <= 64; ++a) v.push_back(a);
    return v;
  }();
  auto delta_of = [&](const std::vector<double>& a) {
    return allocation::gaussian_delta(a[0], static_cast<long>(a[1]), a[2], a[3], a[4], orders);
  };
  check_against_reference("allocation_delta", 1e-9,
                          [&](const std::vector<double>& a) { return delta_of(a).delta; });
  check_against_reference("allocation_delta_poisson", 1e-9,
                          [&](const std::vector<double>& a) { return delta_of(a).poisson; });
  check_against_reference("allocation_delta_local", 1e-10,
                          [&](const std::vector<double>& a) { return delta_of(a).local; });

  // eta > 1/t and -> 1/t as t grows (the "(1 + o(1)) k/t" of the abstract, k = 1).
  double previous = INFINITY;
  for (long t : {1000L, 100000L, 10000000L, 1000000000L}) {
    const double ratio = allocation::poisson_rate(t, 0.5, 1e-6) * static_cast<double>(t);
    CHECK(ratio > 1.0);
    CHECK(ratio < previous);
    previous = ratio;
  }
  CHECK(previous < 1.001);
  // gamma capped at 1 - 1/t: eta = 1 (no amplification left).
  CHECK(allocation::poisson_rate(4, 3.0, 1e-10) == 1.0);
  CHECK_THROWS(allocation::poisson_rate(0, 0.5, 1e-6));
  CHECK_THROWS(allocation::poisson_rate(10, 0.0, 1e-6));
  CHECK_THROWS(allocation::poisson_rate(10, 0.5, 1.0));
  const auto d = allocation::gaussian_delta(5.0, 1000, 1.0, 0.5, 1e-8, orders);
  CHECK(d.delta == d.poisson + d.local + d.tail);
  CHECK(d.rate == allocation::poisson_rate(1000, 0.5, 1e-8));
  CHECK(d.tail == 1e-8);
}
