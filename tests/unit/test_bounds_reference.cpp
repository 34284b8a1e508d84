// Every built-in bound against the independent mpmath re-implementation
// python/reference/bounds_reference.py (tests/data/bounds_reference*.csv): values to 1e-9
// relative, and the same verdict on applicability.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "rdpaudit/bounds/bounds.hpp"
#include "rdpaudit/bounds/conversion.hpp"

using namespace rdpaudit::bounds;

namespace {

constexpr double kRelTol = 1e-9;

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string field;
  while (std::getline(ss, field, sep)) out.push_back(field);
  if (!line.empty() && line.back() == sep) out.emplace_back();
  return out;
}

/// Rows of a CSV file, header first, comment lines (#) skipped.
std::vector<std::vector<std::string>> read_csv(const std::string& name) {
  const std::string path = std::string(RDPAUDIT_SOURCE_DIR) + "/tests/data/" + name;
  std::ifstream in(path);
  REQUIRE(in.good());
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    rows.push_back(split(line, ','));
  }
  return rows;
}

double num(const std::string& s) {
  return std::stod(s);
}  // accepts "inf" and "nan"

struct Point {
  Params params;
  std::vector<double> alphas;
};

std::map<std::string, Point> load_points() {
  const auto rows = read_csv("bounds_reference_points.csv");
  const std::vector<std::string> header = rows.at(0);
  std::map<std::string, Point> points;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    std::map<std::string, std::string> f;
    for (std::size_t c = 0; c < header.size(); ++c) f[header[c]] = rows[i].at(c);
    Point pt;
    Params& p = pt.params;
    p.loss = rdpaudit::config::parse_loss(f["loss"], "loss");
    p.scheme = rdpaudit::config::parse_scheme(f["scheme"], "scheme");
    p.init = parse_init(f["init"]);
    p.eta = num(f["eta"]);
    p.step_std = num(f["step_std"]);
    p.lambda = num(f["lambda"]);
    p.beta = num(f["beta"]);
    p.S_g = num(f["S_g"]);
    p.L = num(f["L"]);
    p.D = num(f["D"]);
    p.n = std::stol(f["n"]);
    p.b = std::stol(f["b"]);
    p.q = num(f["q"]);  // Poisson rate, nan for the other schemes
    p.K = std::stol(f["K"]);
    p.T = std::stol(f["T"]);
    p.j0 = std::stol(f["j0"]);
    p.feature_clip = num(f["feature_clip"]);
    p.eps_norm = num(f["eps_norm"]);
    for (const std::string& a : split(f["alphas"], ';')) pt.alphas.push_back(num(a));
    points.emplace(f["point"], pt);
  }
  return points;
}

double rel_dev(double got, double want) {
  return std::fabs(got - want) / std::max(std::fabs(want), 1e-300);
}

}  // namespace

TEST_CASE("every bound agrees with the mpmath reference to 1e-9 relative", "[bounds][reference]") {
  const auto points = load_points();
  REQUIRE(points.size() >= 20);
  const auto rows = read_csv("bounds_reference.csv");
  REQUIRE(rows.at(0) ==
          std::vector<std::string>{"point", "bound", "quantity", "alpha", "status", "value"});
  double max_dev = 0.0;
  std::string max_where;
  std::size_t n_values = 0, n_na = 0, n_eps = 0;
  std::set<std::string> seen;  // point|bound|alpha of every rdp row
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const Point& pt = points.at(r.at(0));
    const std::string& bound = r.at(1);
    const std::string& quantity = r.at(2);
    const double alpha = num(r.at(3));
    const bool ok = r.at(4) == "ok";
    const std::string where = r.at(0) + " " + bound + " " + quantity + " alpha=" + r.at(3);
    INFO(where);
    if (quantity == "rdp") {
      seen.insert(r.at(0) + "|" + bound + "|" + r.at(3));
      const BoundValue v = evaluate_bound(bound, pt.params, alpha);
      INFO("C++ reason: " << v.not_applicable << " / reference: " << r.at(5));
      REQUIRE(v.applicable() == ok);
      if (!ok) {
        CHECK_FALSE(v.not_applicable.empty());
        ++n_na;
        continue;
      }
      REQUIRE(std::isfinite(*v.value));
      const double dev = rel_dev(*v.value, num(r.at(5)));
      CHECK(dev <= kRelTol);
      if (dev > max_dev) max_dev = dev, max_where = where;
      ++n_values;
    } else {
      std::vector<double> curve;
      for (double a : pt.alphas) curve.push_back(*evaluate_bound(bound, pt.params, a).value);
      const EpsilonDelta e = quantity == "eps_mironov" ? epsilon_mironov(pt.alphas, curve, 1e-5)
                                                       : epsilon_improved(pt.alphas, curve, 1e-5);
      CHECK(e.alpha == alpha);
      const double dev = rel_dev(e.epsilon, num(r.at(5)));
      CHECK(dev <= kRelTol);
      if (dev > max_dev) max_dev = dev, max_where = where;
      ++n_eps;
    }
  }
  // The reference covers the whole catalogue at every point and order.
  for (const auto& [name, pt] : points) {
    for (const BoundInfo& b : bound_catalogue()) {
      for (double a : pt.alphas) {
        std::ostringstream key;
        key << name << "|" << b.name << "|";
        // alphas are written with Python's repr, e.g. "10.0", "256.5"
        std::string text = std::to_string(a);
        text.erase(text.find_last_not_of('0') + 1);
        if (text.back() == '.') text += '0';
        key << text;
        INFO("missing reference row " << key.str());
        CHECK(seen.count(key.str()) == 1);
      }
    }
  }
  std::cout << "bounds reference: " << points.size() << " points, " << n_values << " RDP values, "
            << n_na << " not-applicable verdicts, " << n_eps
            << " (epsilon, delta) values; max relative deviation " << max_dev << " at " << max_where
            << "\n";
}
