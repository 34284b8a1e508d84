// The subsampled-Gaussian RDP and the RDP -> (epsilon, delta) conversions against numbers
// published in the test files of TensorFlow Privacy and Google's dp_accounting.  Each check
// uses the tolerance of the test it comes from.
//
// [TFM]  tensorflow/models, research/differential_privacy/privacy_accountant/python/
//        rdp_accountant_test.py (the original RDP accountant; signed MTZ series, Mironov
//        2017 Prop. 3 conversion).
// [TFP]  tensorflow/privacy, tensorflow_privacy/privacy/analysis/rdp_accountant_test.py.
// [DPA]  google/differential-privacy, python/dp_accounting/dp_accounting/rdp/
//        rdp_privacy_accountant_test.py.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "rdpaudit/bounds/conversion.hpp"
#include "rdpaudit/bounds/mechanisms.hpp"

using namespace rdpaudit::bounds;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

std::vector<double> mtz_curve(double q, double z, double steps, const std::vector<double>& a) {
  std::vector<double> out;
  for (double x : a) out.push_back(steps * mtz_poisson_rdp(q, z, x));
  return out;
}

}  // namespace

TEST_CASE("MTZ sampled Gaussian: [TFM] test_compute_rdp", "[bounds][published]") {
  // compute_rdp(0.1, 2, 10, 5) = 0.07737 (assertAlmostEqual places=5)
  CHECK_THAT(10.0 * mtz_poisson_rdp(0.1, 2.0, 5.0), WithinAbs(0.07737, 0.5e-5));
  // compute_rdp(0.01, 2.5, 50, [1.5, 2.5, 5, 50, 100]) (places=5)
  const std::vector<double> orders{1.5, 2.5, 5, 50, 100};
  const std::vector<double> want{0.00065, 0.001085, 0.00218075, 0.023846, 167.416307};
  const auto got = mtz_curve(0.01, 2.5, 50, orders);
  for (std::size_t i = 0; i < orders.size(); ++i) {
    INFO("alpha = " << orders[i]);
    CHECK_THAT(got[i], WithinAbs(want[i], 0.5e-5));
  }
}

TEST_CASE("MTZ sampled Gaussian: [DPA] test_compute_rdp_poisson_sampled_gaussian",
          "[bounds][published]") {
  // q = 0.01, noise multiplier 2.5, 50 steps; [DPA] checks np.allclose(rtol=1e-4).
  const std::vector<double> orders{1.5, 2.5, 5, 50, 100};
  const std::vector<double> want{6.70579741e-04, 1.08548710e-03, 2.18075656e-03, 2.38460375e-02,
                                 1.67416308e02};
  const auto got = mtz_curve(0.01, 2.5, 50, orders);
  // Integer orders: the binomial sum, printed to 9 digits.
  for (std::size_t i = 2; i < orders.size(); ++i) {
    INFO("alpha = " << orders[i]);
    CHECK_THAT(got[i], WithinRel(want[i], 5e-9));
  }
  // Fractional orders: dp_accounting's current _compute_log_a_frac adds the magnitudes of
  // the alternating terms of the Section 3.3 series (log_add for every term), which bounds A
  // from above; the signed series ([TFM]: 0.00065, 0.001085) and our mpmath quadrature of
  // the definition (python/reference) give the exact, smaller value.
  for (std::size_t i = 0; i < 2; ++i) {
    INFO("alpha = " << orders[i]);
    CHECK(got[i] <= want[i]);
    CHECK_THAT(got[i], WithinRel(want[i], 0.05));
  }
}

TEST_CASE("WBK sampling without replacement: [TFP] test_compute_rdp_sequence_without_replacement",
          "[bounds][published]") {
  // compute_rdp_sample_without_replacement(0.01, 2.5, 50, orders), assertSequenceAlmostEqual
  // delta=1e-5.  TF Privacy evaluates WBK's Theorem 27 (a strengthening of Theorem 9 for the
  // Gaussian) for integer orders <= 256 and exactly Theorem 9 above 256; at orders in (1, 2)
  // both interpolate to the order-2 value, where the two theorems coincide.
  const std::vector<double> orders{1.001, 1.5, 2.5, 5, 50, 100, 256, 512, 1024};
  const std::vector<double> want{0.003470,   0.003470,   0.004638,   0.0087633, 0.098474,
                                 167.766388, 792.838516, 1817.35871, 3865.55029};
  for (std::size_t i = 0; i < orders.size(); ++i) {
    const double got = 50.0 * wbk_swor_rdp(0.01, 2.5, orders[i]);
    INFO("alpha = " << orders[i] << ": " << got);
    const bool same_theorem = orders[i] < 2.0 || orders[i] > 256.0;
    if (same_theorem) {
      CHECK_THAT(got, WithinAbs(want[i], 1e-5));
    } else {
      CHECK(got >= want[i] - 1e-5);  // Theorem 9 is the weaker of the two
    }
  }
}

TEST_CASE(
    "Mironov 2017 Prop. 3 conversion: [TFM] test_get_privacy_spent and "
    "test_compute_privacy_loss",
    "[bounds][published]") {
  std::vector<double> orders;
  for (int a = 2; a <= 32; ++a) orders.push_back(a);
  const auto e = epsilon_mironov(orders, mtz_curve(0.01, 4.0, 10000, orders), 1e-5);
  CHECK_THAT(e.epsilon, WithinAbs(1.258575, 0.5e-5));
  CHECK(e.alpha == 20.0);

  const std::vector<double> grid{1.25, 1.5, 1.75, 2.,  2.5, 3.,  4.,  5.,  6.,  7.,  8.,
                                 10.,  12., 14.,  16., 20., 24., 28., 32., 64., 256.};
  auto rdp = mtz_curve(0.01, 4.0, 10000, grid);
  const auto more = mtz_curve(0.1, 2.0, 100, grid);
  for (std::size_t i = 0; i < grid.size(); ++i) rdp[i] += more[i];
  const auto c = epsilon_mironov(grid, rdp, 1e-5);
  CHECK_THAT(c.epsilon, WithinAbs(3.276237, 0.5e-5));
  CHECK(c.alpha == 8.0);
}

TEST_CASE("Mironov 2017 Prop. 3 with fractional orders: [TFP] test_check_composition",
          "[bounds][published]") {
  // [TFP] keeps the old-conversion answer in a comment ("These tests use the old RDP ->
  // approx DP conversion": eps 8.509656, places=5, opt_order 2.5).
  const std::vector<double> grid{1.25, 1.5, 1.75, 2.,  2.5, 3.,  4.,  5.,  6.,  7.,  8.,
                                 10.,  12., 14.,  16., 20., 24., 28., 32., 64., 256.};
  auto rdp = mtz_curve(1e-4, 0.4, 40000, grid);
  const auto more = mtz_curve(0.1, 2.0, 100, grid);
  for (std::size_t i = 0; i < grid.size(); ++i) rdp[i] += more[i];
  const auto c = epsilon_mironov(grid, rdp, 1e-5);
  CHECK_THAT(c.epsilon, WithinAbs(8.509656, 0.5e-5));
  CHECK(c.alpha == 2.5);
  CHECK(epsilon_improved(grid, rdp, 1e-5).epsilon <= 8.509656);  // [TFP]'s current assertion
}

TEST_CASE("Improved conversion (Canonne-Kamath-Steinke / Asoodeh): [TFP] and [DPA]",
          "[bounds][published]") {
  // Constant RDP 1.1 at orders 2..32, delta = 1e-5 -> 1.32783806176 at order 32 (places=7).
  std::vector<double> orders;
  for (int a = 2; a <= 32; ++a) orders.push_back(a);
  const auto e = epsilon_improved(orders, std::vector<double>(orders.size(), 1.1), 1e-5);
  CHECK_THAT(e.epsilon, WithinAbs(1.32783806176, 0.5e-7));
  CHECK(e.alpha == 32.0);
  // Gaussian with noise multiplier 4.530877117 "chosen to obtain exactly (1, 1e-6)-DP" over
  // orders 1.001 .. 99.999 in steps of 0.001 (places=7).
  std::vector<double> fine, rdp;
  for (int i = 1001; i < 100000; ++i) {
    fine.push_back(0.001 * i);
    rdp.push_back(mtz_poisson_rdp(1.0, 4.530877117, fine.back()));
  }
  CHECK_THAT(epsilon_improved(fine, rdp, 1e-6).epsilon, WithinAbs(1.0, 0.5e-7));
}
