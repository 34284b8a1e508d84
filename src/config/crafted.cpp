#include "rdpaudit/config/crafted.hpp"

#include <fmt/format.h>
#include <muParser.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "rdpaudit/config/formula.hpp"
#include "rdpaudit/config/tables.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::config {

namespace {

constexpr const char* kFormulaKey = "data.gradient_formula";
constexpr const char* kNamesText =
    "the formula may use t (step, 0 ... T-1), k (coordinate, "
    "0 ... d-1), T, d and muparser's functions";

/// Names a formula reads: the step, the coordinate, the number of steps, the dimension.
struct FormulaVars {
  std::array<double, 4> v{};  // t, k, T, d
  static constexpr std::array<const char*, 4> kNames{"t", "k", "T", "d"};
};

// g_t[k] for every step and coordinate: the table the simulator and the exact mixture read.
Eigen::MatrixXd evaluate_formula(const std::string& text, const Scenario& s, Reader& r) {
  const double values = static_cast<double>(s.steps) * s.dim;
  if (values > kMaxCraftedValues) {
    r.fail(kFormulaKey, fmt::format("needs T * d = {} * {} = {:.3g} per-step values, at most "
                                    "10^7 (fewer training steps, or a constant data.gradient)",
                                    s.steps, s.dim, values));
  }
  FormulaVars vars;
  mu::Parser parser;
  for (std::size_t i = 0; i < FormulaVars::kNames.size(); ++i)
    parser.DefineVar(FormulaVars::kNames[i], &vars.v[i]);
  parser.SetExpr(text);
  vars.v[2] = static_cast<double>(s.steps);
  vars.v[3] = s.dim;
  Eigen::MatrixXd table;
  try {
    table.resize(s.steps, s.dim);
  } catch (const std::bad_alloc&) {
    throw ResourceError(fmt::format(
        "out of memory for the crafted gradient table of {} (T x d = {} x {} doubles, {:.3g} "
        "MB; every scenario of a sweep holds its own): fewer training steps or scenarios, or a "
        "constant data.gradient",
        r.display(kFormulaKey), s.steps, s.dim, values * 8e-6));
  }
  for (long t = 0; t < s.steps; ++t) {
    vars.v[0] = static_cast<double>(t);
    for (int k = 0; k < s.dim; ++k) {
      vars.v[1] = k;
      const double g = parser.Eval();
      // Finite and at most 1e100, as every number in a file: squares and sums over 10^9
      // steps stay finite.
      if (!std::isfinite(g) || std::fabs(g) > kMaxMagnitude) {
        r.fail(kFormulaKey,
               fmt::format("gives {} at t = {}, k = {}; the gradient must be finite, of "
                           "magnitude at most 1e100, at every step",
                           g, t, k));
      }
      table(t, k) = g;
    }
  }
  return table;
}

}  // namespace

void read_crafted_gradient(Scenario& s, Reader& r) {
  if (!s.data.crafted) return;
  const bool vector = r.has("data.gradient"), formula = r.has(kFormulaKey);
  if (vector == formula) {
    r.fail(vector ? kFormulaKey : "data.gradient",
           "give exactly one of data.gradient (d numbers, every step) and "
           "data.gradient_formula (a formula in t, k, T, d) for data.preset = "
           "\"crafted_gradient\"");
  }
  if (vector) {
    const auto g = *r.vector("data.gradient");
    if (static_cast<int>(g.size()) != s.dim) {
      r.fail("data.gradient", fmt::format("needs d = {} numbers (model.dim), one per "
                                          "coordinate of the gradient",
                                          s.dim));
    }
    s.data.crafted_gradient =
        Eigen::Map<const Eigen::RowVectorXd>(g.data(), static_cast<Eigen::Index>(g.size()));
  } else {
    s.data.crafted_formula = r.require_string(kFormulaKey, "a formula in t, k, T, d");
    check_formula(s.data.crafted_formula, kFormulaKey,
                  {FormulaVars::kNames.begin(), FormulaVars::kNames.end()}, kNamesText, r);
    s.data.crafted_gradient = evaluate_formula(s.data.crafted_formula, s, r);
  }
  // model.clip_norm (linear loss): DP-SGD clips the record's gradient at every step.
  if (std::isfinite(s.clip_norm)) {
    for (Eigen::Index t = 0; t < s.data.crafted_gradient.rows(); ++t)
      clip_to_norm(s.data.crafted_gradient.row(t), s.clip_norm);
  }
}

}  // namespace rdpaudit::config
