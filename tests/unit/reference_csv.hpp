// The mpmath reference tables under tests/data (quantity,arguments,value; arguments separated
// by ';'), as the tests against independent evaluations read them.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace reference_csv {

struct Row {
  std::string quantity;
  std::vector<double> args;
  double value;
};

inline std::vector<double> split_numbers(const std::string& text) {
  std::vector<double> out;
  std::stringstream ss(text);
  std::string field;
  while (std::getline(ss, field, ';')) out.push_back(std::stod(field));
  return out;
}

/// The rows of tests/data/`file` whose quantity is `quantity` (at least one).
inline std::vector<Row> rows(const std::string& file, const std::string& quantity) {
  std::ifstream in(std::string(RDPAUDIT_SOURCE_DIR) + "/tests/data/" + file);
  REQUIRE(in.good());
  std::vector<Row> out;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      REQUIRE(line == "quantity,arguments,value");
      header = false;
      continue;
    }
    const auto c1 = line.find(',');
    const auto c2 = line.find(',', c1 + 1);
    Row r{line.substr(0, c1), split_numbers(line.substr(c1 + 1, c2 - c1 - 1)),
          std::stod(line.substr(c2 + 1))};
    if (r.quantity == quantity) out.push_back(r);
  }
  REQUIRE_FALSE(out.empty());
  return out;
}

inline double rel_dev(double got, double want) {
  return std::fabs(got - want) / std::max(std::fabs(want), 1e-300);
}

/// Runs `f` on every row of `quantity` in `file`, checks the relative deviation against `tol`
/// and prints the largest.
template <typename F>
void check(const std::string& file, const std::string& quantity, double tol, F&& f) {
  double worst = 0.0;
  std::string where;
  for (const Row& r : rows(file, quantity)) {
    std::ostringstream args;
    for (double a : r.args) args << a << ' ';
    INFO(quantity << "(" << args.str() << ")");
    const double got = f(r.args);
    const double dev = rel_dev(got, r.value);
    CHECK(dev <= tol);
    if (dev > worst) worst = dev, where = args.str();
  }
  std::cout << quantity << ": max relative deviation from mpmath " << worst << " at " << where
            << "\n";
}

}  // namespace reference_csv
