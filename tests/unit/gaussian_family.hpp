// A privacy-profile family with known truth, shared by the Gaussian-DP tests: the counts a
// threshold family would hold for P = N(mu, 1) against P' = N(0, 1).
#pragma once

#include <cmath>
#include <cstdint>

#include "rdpaudit/estimate/profile.hpp"

namespace rdpaudit::test {

/// The family's counts are the expected counts of n draws each (rounded): cuts at -4 .. 4 + mu
/// in steps of 1/4, F = {score >= c} (P has more there).
inline estimate::ProfileCounts gaussian_family(double mu, std::uint64_t n) {
  const auto phi = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  estimate::ProfileCounts c;
  c.method = "profile-cp";
  c.n_p = c.n_q = n;
  for (double cut = -4.0; cut <= 4.0 + mu; cut += 0.25) {
    c.cuts.push_back(cut);
    c.p.push_back(static_cast<std::uint64_t>(std::llround(static_cast<double>(n) * phi(cut - mu))));
    c.q.push_back(static_cast<std::uint64_t>(std::llround(static_cast<double>(n) * phi(cut))));
    c.forward_below.push_back(false);
  }
  return c;
}

}  // namespace rdpaudit::test
