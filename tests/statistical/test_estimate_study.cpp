// The estimator study: bias of the plug-in, coverage and power of the rigorous bound, over
// many seeded replications of the known-truth cases. Hidden from ctest (tag [.study]);
// python/studies/estimate_study.py runs it and writes the tables under docs/studies/.
//
// Environment (all optional):
//   RDPAUDIT_STUDY_CASES  comma-separated case names (default: all of known_truth_cases())
//   RDPAUDIT_STUDY_N      samples per side (default 100000)
//   RDPAUDIT_STUDY_REPS   replications (default 20)
//   RDPAUDIT_STUDY_FIRST  first replication index, i.e. seed (default 1)
//   RDPAUDIT_STUDY_BOOT   bootstrap replicates of the plug-in (default 100)
// Output, one line each (CSV):
//   R,case,n,rep,method,alpha,direction,truth,value,lower,upper,informative   (reported orders)
//   S,case,n,rep,method,all_covered,informative_count,total_count              (whole grid)
#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "test_estimate_support.hpp"

using namespace rdpaudit::estimate;
using namespace rdpaudit::exact;

namespace {

std::string env(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : fallback;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

}  // namespace

TEST_CASE("estimator study (run by python/studies/estimate_study.py)", "[.study]") {
  const auto n = static_cast<std::size_t>(std::stod(env("RDPAUDIT_STUDY_N", "100000")));
  const int reps = std::stoi(env("RDPAUDIT_STUDY_REPS", "20"));
  const int first = std::stoi(env("RDPAUDIT_STUDY_FIRST", "1"));
  const auto boot = static_cast<std::size_t>(std::stoi(env("RDPAUDIT_STUDY_BOOT", "100")));
  std::vector<testing::Case> cases;
  const auto names = split(env("RDPAUDIT_STUDY_CASES", ""));
  if (names.empty()) {
    cases = testing::known_truth_cases();
  } else {
    for (const auto& name : names) cases.push_back(testing::known_truth_case(name));
  }
  const std::vector<double> alphas = default_alpha_grid();
  const std::vector<double> reported = {1.1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64};
  const auto all_cases = testing::known_truth_cases();
  for (const testing::Case& c : cases) {
    std::uint32_t scenario = 0;
    while (all_cases[scenario].name != c.name) ++scenario;
    const std::vector<Estimate> truth = exact_renyi(c.p, c.q, alphas);
    auto truth_of = [&](double a, int d) {
      for (const Estimate& t : truth) {
        if (t.alpha == a && t.direction == d) return t.value;
      }
      return -1.0;
    };
    for (int rep = first; rep < first + reps; ++rep) {
      const auto est =
          testing::run_replication(c, n, static_cast<std::uint64_t>(rep), scenario, alphas, boot);
      std::map<std::string, std::array<std::size_t, 3>>
          simul;  // covered-all flag, informative, total
      for (const Estimate& e : est) {
        const double t = truth_of(e.alpha, e.direction);
        auto& s = simul.emplace(e.method, std::array<std::size_t, 3>{1, 0, 0}).first->second;
        if (e.lower > t) s[0] = 0;
        s[1] += e.informative ? 1 : 0;
        s[2] += 1;
        for (double r : reported) {
          if (std::abs(r - e.alpha) < 1e-9) {
            std::printf("R,%s,%zu,%d,%s,%g,%d,%.10g,%.10g,%.10g,%.10g,%d\n", c.name.c_str(), n, rep,
                        e.method.c_str(), e.alpha, e.direction, t, e.value, e.lower, e.upper,
                        e.informative ? 1 : 0);
          }
        }
      }
      for (const auto& [method, s] : simul) {
        std::printf("S,%s,%zu,%d,%s,%zu,%zu,%zu\n", c.name.c_str(), n, rep, method.c_str(), s[0],
                    s[1], s[2]);
      }
      std::fflush(stdout);
    }
  }
  SUCCEED();
}
