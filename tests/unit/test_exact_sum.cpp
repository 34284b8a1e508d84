// Exact sums of doubles (tally/exact_sum.hpp): the same bits for any order and any split of
// the additions, and the right value where it can be computed independently.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "rdpaudit/tally/exact_sum.hpp"

using rdpaudit::tally::ExactSum;

namespace {

ExactSum sum_of(const std::vector<double>& xs) {
  ExactSum s;
  for (double x : xs) s.add(x);
  return s;
}

}  // namespace

TEST_CASE("an exact sum does not depend on the order or the split of its additions",
          "[tally][exact]") {
  std::mt19937_64 gen(7);
  std::normal_distribution<double> normal;
  std::uniform_int_distribution<int> exponent(-60, 60);
  std::vector<double> xs;
  for (int i = 0; i < 20000; ++i) xs.push_back(std::ldexp(normal(gen), exponent(gen)));
  xs.push_back(std::numeric_limits<double>::denorm_min());
  xs.push_back(-std::numeric_limits<double>::max() / 4);
  xs.push_back(std::numeric_limits<double>::max() / 4);
  const ExactSum reference = sum_of(xs);
  // A double accumulator gives order-dependent bits here (the test would be empty otherwise).
  double forward = 0, backward = 0;
  for (double x : xs) forward += x;
  for (auto it = xs.rbegin(); it != xs.rend(); ++it) backward += *it;
  CHECK(forward != backward);
  for (int trial = 0; trial < 5; ++trial) {
    std::shuffle(xs.begin(), xs.end(), gen);
    // Split into uneven parts, summed separately and merged in a shuffled order.
    std::vector<ExactSum> parts(7);
    for (std::size_t i = 0; i < xs.size(); ++i) parts[(i * i) % parts.size()].add(xs[i]);
    std::shuffle(parts.begin(), parts.end(), gen);
    ExactSum merged;
    for (const auto& p : parts) merged.merge(p);
    CHECK(merged == reference);
    CHECK(merged.value() == reference.value());
    CHECK(ExactSum::from_limbs(merged.limbs().data()) == reference);
  }
}

TEST_CASE("an exact sum has the right value", "[tally][exact]") {
  // Integers and dyadic fractions: every partial sum is exact in double, so the double sum
  // is the truth.
  std::mt19937_64 gen(3);
  std::uniform_int_distribution<std::int64_t> n(-(1LL << 40), 1LL << 40);
  ExactSum s;
  double truth = 0;
  for (int i = 0; i < 1000; ++i) {
    const double x = std::ldexp(static_cast<double>(n(gen)), -8);
    s.add(x);
    truth += x;
  }
  CHECK(s.value() == truth);
  // Cancellation a double accumulator gets wrong: 1e16 + 1 - 1e16 = 1 (double: 0 or 2).
  ExactSum c;
  for (double x : {1e16, 1.0, -1e16}) c.add(x);
  CHECK(c.value() == 1.0);
  // Negative totals, subnormals, and zero.
  ExactSum neg;
  for (double x : {-3.5, 1.25, -0.0, 0.0}) neg.add(x);
  CHECK(neg.value() == -2.25);
  ExactSum tiny;
  tiny.add(std::numeric_limits<double>::denorm_min());
  tiny.add(std::numeric_limits<double>::denorm_min());
  CHECK(tiny.value() == 2 * std::numeric_limits<double>::denorm_min());
  CHECK(ExactSum().value() == 0.0);
  // Many additions pass the carry propagation (every 2^29) without losing anything.
  ExactSum many;
  for (int i = 0; i < (1 << 20); ++i) many.add(0.75);
  CHECK(many.value() == 0.75 * (1 << 20));
  CHECK_THROWS_AS(many.add(std::numeric_limits<double>::infinity()), std::invalid_argument);
  CHECK_THROWS_AS(many.add(std::nan("")), std::invalid_argument);
}
