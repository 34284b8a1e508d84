// The simulated last iterate's mean and variance against a known truth, shared by the
// statistical tests of the simulator (test_sim_moments.cpp, test_interchangeable_records.cpp).
#pragma once

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

namespace rdpaudit::testing {

struct Moments {
  double mean = 0, second = 0;  // E[theta], E[theta^2]
  double variance() const { return second - mean * mean; }
};

// |estimate - truth| < 5 standard errors: a correct simulator fails this with probability
// ~6e-7 per comparison; a wrong mean/variance by a few % fails it surely at 10^6 samples.
inline void check_against_closed_form(const std::vector<double>& x, const Moments& truth) {
  const double m = static_cast<double>(x.size());
  double mean = 0;
  for (double v : x) mean += v;
  mean /= m;
  double m2 = 0, m4 = 0;
  for (double v : x) {
    const double c = v - mean;
    m2 += c * c;
    m4 += c * c * c * c;
  }
  m2 /= (m - 1);
  m4 /= m;
  const double se_mean = std::sqrt(m2 / m);
  const double se_var = std::sqrt((m4 - m2 * m2) / m);
  INFO("mean " << mean << " vs " << truth.mean << " (se " << se_mean << ")");
  INFO("variance " << m2 << " vs " << truth.variance() << " (se " << se_var << ")");
  CHECK(std::fabs(mean - truth.mean) < 5 * se_mean);
  CHECK(std::fabs(m2 - truth.variance()) < 5 * se_var);
}

}  // namespace rdpaudit::testing
