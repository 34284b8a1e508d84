// The number of Monte Carlo trajectories of the exact engine's Monte Carlo checks: the test's own
// default, or RDPAUDIT_EXACT_MC_N where set (a one-off run at 10^7, docs/exact-laws.md §6).
#pragma once

#include <cstdlib>
#include <string>

namespace rdpaudit::test {

inline long exact_mc_trajectories(long default_n) {
  const char* v = std::getenv("RDPAUDIT_EXACT_MC_N");
  if (v == nullptr || *v == '\0') return default_n;
  const long n = std::stol(std::string(v));
  return n > 0 ? n : default_n;
}

}  // namespace rdpaudit::test
