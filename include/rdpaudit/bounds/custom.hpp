// User-defined bounds: a formula string over named scenario parameters, compiled with
// muparser, plus optional applicability conditions.
//
// Names a formula may use (all doubles; see params.hpp for the conventions):
//   alpha, eta, sigma2 (= alg1_sigma2), lambda, beta, S_g, L, D, n, b, K, T, j0,
//   q (= b/n; Poisson: the simulated rate), sigma_mul (= alg2_sigma_mul), blog_sigma, step_std,
//   C (the per-example clip norm, model.clip_norm) and z (the noise multiplier of Opacus and
//   dp_accounting, relative to C); C and z are NaN where the scenario has no clip
// (for Poisson, b is the normaliser q*n, whole or not), plus muparser's functions and operators
// (sqrt, exp, log, ln, min, max, ^, ?:, &&, ||, <, ...; note that in muparser `log` is the base-10
// logarithm and `ln` the natural one).
#pragma once

#include <string>
#include <vector>

#include "rdpaudit/bounds/params.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::bounds {

/// A formula that does not compile.  what() names the bound, the formula (or which
/// condition), the position (0-based character index) and the offending token, e.g.
///   custom bound "mine": unknown name "foo" at position 6 in formula "alpha*foo+1"; the
///   names a formula may use are alpha, eta, ...
class FormulaError : public InputError {
 public:
  /// `hint` is appended as is (e.g. "; the names a formula may use are ...").
  FormulaError(std::string bound, std::string where, std::string formula, int position,
               std::string token, const std::string& problem, const std::string& hint = "");

  const std::string& bound() const { return bound_; }
  const std::string& where() const { return where_; }  ///< "formula" or "condition 2"
  const std::string& formula() const { return formula_; }
  int position() const { return position_; }  ///< 0-based; -1 if muparser gives none
  const std::string& token() const { return token_; }

 private:
  std::string bound_;
  std::string where_;
  std::string formula_;
  int position_;
  std::string token_;
};

struct CustomBoundSpec {
  std::string name;     ///< must not clash with a built-in bound name
  std::string formula;  ///< upper bound on R_alpha
  /// Each condition must evaluate to a nonzero number (not NaN) for the bound to apply;
  /// otherwise the value is "not applicable" with the condition named as the reason.
  std::vector<std::string> conditions{};
  std::string source = "custom formula";
  /// Tabulated instead (an accountant's values; formula empty): values[i] at alphas[i], NaN
  /// where the accountant gives none. Conditions still apply.
  bool tabulated = false;
  std::vector<double> alphas{}, values{};
};

class CustomBound {
 public:
  /// Compiles the formula and every condition; throws FormulaError (unknown name, syntax
  /// error) or InputError (empty or built-in name).
  explicit CustomBound(CustomBoundSpec spec);

  const CustomBoundSpec& spec() const { return spec_; }
  const std::string& name() const { return spec_.name; }

  /// Evaluates at one scenario and order.  Not applicable when a condition is 0 or NaN, or the
  /// formula gives NaN (the reason names which; z or C where the scenario has no clip), or a
  /// tabulated bound has no value at alpha.  Thread-safe (each call uses its own parser).
  BoundValue evaluate(const Params& p, double alpha) const;

  /// The names a formula may use, in the order listed above.
  static const std::vector<std::string>& variable_names();

 private:
  CustomBoundSpec spec_;
};

/// A claimed epsilon of an (eps, delta) claim (profile.claims[i].formula): a formula of
/// `delta` and the names above except alpha. Throws FormulaError when it does not compile.
class ClaimFormula {
 public:
  ClaimFormula(std::string name, std::string formula);
  /// The claimed eps at this scenario and delta, as the formula gives it (NaN, inf included).
  double evaluate(const Params& p, double delta) const;

 private:
  std::string name_, formula_;
};

}  // namespace rdpaudit::bounds
