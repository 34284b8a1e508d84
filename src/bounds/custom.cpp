#include "rdpaudit/bounds/custom.hpp"

#include <fmt/format.h>
#include <muParser.h>

#include <array>
#include <cctype>
#include <cmath>
#include <utility>

#include "rdpaudit/bounds/bounds.hpp"
#include "rdpaudit/bounds/profile_bounds.hpp"
#include "rdpaudit/config/noise.hpp"

namespace rdpaudit::bounds {
namespace {

constexpr std::size_t kNumVars = 19;

/// Storage for the variables a parser reads; the parser keeps pointers into it.
struct Env {
  std::array<double, kNumVars> v{};

  void fill(const Params& p, double alpha) {
    v = {alpha,
         p.eta,
         alg1_sigma2(p),
         p.lambda,
         p.missing_constants.empty() ? p.beta : kNaN,  // unknown: a formula naming it is NaN
         p.S_g,
         p.missing_constants.empty() ? p.L : kNaN,
         p.D,
         static_cast<double>(p.n),
         batch_normaliser(p),  // Poisson: q*n, whole or not
         static_cast<double>(p.K),
         static_cast<double>(p.T),
         static_cast<double>(p.j0),
         sampling_rate(p),
         alg2_sigma_mul(p),
         blog_sigma(p),
         p.step_std,
         p.clip_norm,
         std::isnan(p.clip_norm) ? kNaN
                                 : config::noise_multiplier_from_step_std(
                                       p.step_std, p.eta, p.clip_norm, batch_normaliser(p))};
  }
};

const std::array<const char*, kNumVars> kNames{
    "alpha", "eta", "sigma2", "lambda", "beta",      "S_g",        "L",        "D", "n", "b",
    "K",     "T",   "j0",     "q",      "sigma_mul", "blog_sigma", "step_std", "C", "z"};

/// True when `expr` names `name` as a whole identifier.
bool uses(const std::string& expr, const std::string& name) {
  const auto ident = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  };
  for (std::size_t i = expr.find(name); i != std::string::npos; i = expr.find(name, i + 1)) {
    const std::size_t end = i + name.size();
    if ((i == 0 || !ident(expr[i - 1])) && (end == expr.size() || !ident(expr[end]))) return true;
  }
  return false;
}

constexpr const char* kNoClip =
    "C and z are not defined: the scenario has no per-example clip (model.clip_norm)";

/// Why a formula gave NaN or a condition failed: the names it uses that the scenario does not
/// define (" (...)"), or "".
std::string undefined_names(const Params& p, const std::string& expr) {
  std::string why;
  if (std::isnan(p.clip_norm) && (uses(expr, "C") || uses(expr, "z"))) why = kNoClip;
  if (!p.missing_constants.empty() && (uses(expr, "beta") || uses(expr, "L"))) {
    why += (why.empty() ? "beta and L are not defined: " : "; beta and L are not defined: ") +
           p.missing_constants;
  }
  return why.empty() ? "" : " (" + why + ")";
}

/// Position of the first comma outside parentheses (-1 if none).
int top_level_comma(const std::string& expr) {
  int depth = 0;
  for (std::size_t i = 0; i < expr.size(); ++i) {
    if (expr[i] == '(') ++depth;
    if (expr[i] == ')') --depth;
    if (expr[i] == ',' && depth == 0) return static_cast<int>(i);
  }
  return -1;
}

/// Evaluates `expr` with the values in `env`; translates muparser errors.
///
/// The names are muparser *constants*, not variables: muparser's `=`, `+=`, ... assign to
/// variables, so with variables `step_std = 1` would compile, overwrite step_std and return 1
/// (a bound silently replaced). Assignment to a constant does not compile. A comma-separated
/// list (several results, muparser keeps the last) is not one expression either.
/// `first` names env.v[0]: "alpha" for a Renyi bound, "delta" for an (eps, delta) claim.
double run(const std::string& bound, const std::string& where, const std::string& expr,
           const Env& env, const char* first = "alpha") {
  mu::Parser parser;
  try {
    for (std::size_t i = 0; i < kNumVars; ++i)
      parser.DefineConst(i == 0 ? first : kNames[i], env.v[i]);
    parser.SetExpr(expr);
    const double value = parser.Eval();
    if (parser.GetNumResults() != 1) {
      throw FormulaError(bound, where, expr, top_level_comma(expr), ",",
                         "a comma-separated list is not one expression");
    }
    return value;
  } catch (const mu::Parser::exception_type& e) {
    const int len = static_cast<int>(expr.size());
    int pos = static_cast<int>(e.GetPos());
    if (pos > len) pos = len;
    const std::string token = e.GetToken();
    std::string problem, hint;
    if (e.GetCode() == mu::ecUNASSIGNABLE_TOKEN && !token.empty()) {
      problem = fmt::format("unknown name \"{}\"", token);
      hint = std::string("; the names a formula may use are ") + first;
      for (std::size_t i = 1; i < kNumVars; ++i) hint += std::string(", ") + kNames[i];
      hint += ", and muparser's functions";
    } else if (e.GetCode() == mu::ecUNEXPECTED_OPERATOR && token == "=") {
      problem =
          "assignment is not allowed (a formula is an expression of the names; "
          "compare with ==)";
    } else {
      problem = fmt::format("syntax error ({})", e.GetMsg());
    }
    throw FormulaError(bound, where, expr, pos, token, problem, hint);
  }
}

}  // namespace

FormulaError::FormulaError(std::string bound, std::string where, std::string formula, int position,
                           std::string token, const std::string& problem, const std::string& hint)
    : InputError(fmt::format("custom bound \"{}\": {}{} in {} \"{}\"{}", bound, problem,
                             position >= 0 ? fmt::format(" at position {}", position) : "", where,
                             formula, hint)),
      bound_(std::move(bound)),
      where_(std::move(where)),
      formula_(std::move(formula)),
      position_(position),
      token_(std::move(token)) {}

CustomBound::CustomBound(CustomBoundSpec spec) : spec_(std::move(spec)) {
  if (spec_.name.empty()) throw InputError("custom bound: the name is empty");
  for (const auto* list : {&bound_catalogue(), &profile_catalogue()}) {
    for (const BoundInfo& info : *list) {
      if (info.name != spec_.name) continue;
      throw InputError(
          fmt::format("custom bound \"{}\": the name is taken by a built-in bound", spec_.name));
    }
  }
  Env env;
  env.v.fill(1.5);
  if (spec_.tabulated) {
    if (!spec_.formula.empty() || spec_.alphas.size() != spec_.values.size())
      throw InternalError("CustomBound: a tabulated bound has no formula and one value per order");
  } else {
    run(spec_.name, "formula", spec_.formula, env);
  }
  for (std::size_t i = 0; i < spec_.conditions.size(); ++i) {
    run(spec_.name, fmt::format("condition {}", i + 1), spec_.conditions[i], env);
  }
}

BoundValue CustomBound::evaluate(const Params& p, double alpha) const {
  validate(p);
  validate_alpha(alpha);
  // A custom formula is written for the scenario at hand: it assumes the pair's relation.
  BoundValue out{spec_.name, spec_.source, Kind::kCustom, p.adjacency, alpha, std::nullopt, ""};
  Env env;
  env.fill(p, alpha);
  for (std::size_t i = 0; i < spec_.conditions.size(); ++i) {
    const double c = run(spec_.name, fmt::format("condition {}", i + 1), spec_.conditions[i], env);
    // NaN (ln(-1), 0/0) is no more true than 0: the condition cannot be decided, so the
    // bound does not apply, as a formula that gives NaN.
    if (c == 0.0 || std::isnan(c)) {
      out.not_applicable +=
          fmt::format("{}condition {} \"{}\" {}{}", out.not_applicable.empty() ? "" : "; ", i + 1,
                      spec_.conditions[i], std::isnan(c) ? "evaluates to NaN" : "is false",
                      undefined_names(p, spec_.conditions[i]));
    }
  }
  if (!out.not_applicable.empty()) return out;
  if (spec_.tabulated) {
    for (std::size_t i = 0; i < spec_.alphas.size(); ++i) {
      if (spec_.alphas[i] != alpha) continue;
      if (std::isnan(spec_.values[i])) {
        out.not_applicable = fmt::format("{} gives no value at alpha = {:g}", spec_.source, alpha);
      } else {
        out.value = spec_.values[i];
      }
      return out;
    }
    out.not_applicable = fmt::format(
        "{} gives values at the orders of bounds.alphas only, not at "
        "alpha = {:g}",
        spec_.source, alpha);
    return out;
  }
  const double v = run(spec_.name, "formula", spec_.formula, env);
  if (std::isnan(v)) {
    out.not_applicable = fmt::format("formula \"{}\" evaluates to NaN{}", spec_.formula,
                                     undefined_names(p, spec_.formula));
  } else {
    out.value = v;
  }
  return out;
}

ClaimFormula::ClaimFormula(std::string name, std::string formula)
    : name_(std::move(name)), formula_(std::move(formula)) {
  Env env;
  env.v.fill(1.5);
  env.v[0] = 1e-5;
  run(name_, "formula", formula_, env, "delta");
}

double ClaimFormula::evaluate(const Params& p, double delta) const {
  validate(p);
  Env env;
  env.fill(p, delta);
  return run(name_, "formula", formula_, env, "delta");
}

const std::vector<std::string>& CustomBound::variable_names() {
  static const std::vector<std::string> names(kNames.begin(), kNames.end());
  return names;
}

}  // namespace rdpaudit::bounds
