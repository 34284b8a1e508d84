#include "rdpaudit/bounds/experiment.hpp"

#include <fmt/core.h>

#include <cmath>
#include <utility>

#include "rdpaudit/bounds/accountant.hpp"
#include "rdpaudit/bounds/bounds.hpp"
#include "rdpaudit/bounds/custom.hpp"
#include "rdpaudit/bounds/profile_bounds.hpp"
#include "rdpaudit/bounds/scenario.hpp"
#include "rdpaudit/config/profile.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::bounds {
namespace {

std::string claim_key(std::size_t i, const std::string& leaf) {
  return "profile.claims[" + std::to_string(i) + "]." + leaf;
}

bool is_bound(const config::BoundsSpec& b, const std::string& name) {
  for (const auto& info : bound_catalogue())
    if (info.name == name) return true;
  for (const auto& info : profile_catalogue())
    if (info.name == name) return true;
  for (const auto& c : b.custom)
    if (c.name == name) return true;
  return false;
}

void check_bounds_table(const config::BoundsSpec& b) {
  // Compiles or throws FormulaError (unknown name, syntax error) or InputError (built-in name).
  for (const auto& c : b.custom) CustomBound(custom_bound_spec(c, b.alphas));
  const std::pair<const char*, const std::vector<std::string>*> lists[] = {
      {"bounds.audit", &b.audit},
      {"bounds.expect_violated", &b.expect_violated},
      {"bounds.expect_valid_exact", &b.expect_valid_exact},
      {"bounds.expect_holds", &b.expect_holds}};
  for (const auto& [key, list] : lists) {
    for (std::size_t i = 0; i < list->size(); ++i) {
      const std::string& name = (*list)[i];
      if (!is_bound(b, name)) {
        throw InputError(std::string(key) + "[" + std::to_string(i) + "]", "\"" + name + "\"",
                         "is not a built-in or custom bound (rdpaudit bounds FILE lists them)");
      }
    }
  }
}

void check_claims(const config::Scenario& s) {
  const config::ProfileSpec& p = s.profile;
  if (p.claims.empty()) return;
  const ScenarioBounds sb = bounds_of(s);
  for (std::size_t i = 0; i < p.claims.size(); ++i) {
    const config::ClaimText& c = p.claims[i];
    for (const auto* list : {&bound_catalogue(), &profile_catalogue()}) {
      for (const BoundInfo& info : *list) {
        if (info.name == c.name)
          throw InputError(claim_key(i, "name"), "\"" + c.name + "\"",
                           "is the name of a built-in bound (its audit row would be shared)");
      }
    }
    if (c.formula.empty()) continue;
    try {
      const ClaimFormula f(c.name, c.formula);
      for (double delta : p.deltas) {
        const double eps = f.evaluate(sb.params, delta);
        if (!std::isfinite(eps)) {
          throw InputError(
              claim_key(i, "formula"), "\"" + c.formula + "\"",
              fmt::format("a finite eps at every delta; it gives {} at delta = "
                          "{:g}{}",
                          eps, delta, s.sweep_point.empty() ? "" : " in a swept scenario"));
        }
      }
    } catch (const FormulaError& e) {
      throw InputError(claim_key(i, "formula"), "\"" + c.formula + "\"",
                       std::string("a formula of delta and the scenario's names: ") + e.what());
    }
  }
}

void check_conversion_names(const config::Scenario& s) {
  const auto& names = s.profile.expect_violated;
  for (std::size_t i = 0; i < names.size(); ++i) {
    bool known = false;
    for (const auto& b : bound_catalogue()) known |= config::conversion_name(b.name) == names[i];
    for (const auto& b : s.bounds.custom) known |= config::conversion_name(b.name) == names[i];
    if (!known) {
      throw InputError("profile.expect_violated[" + std::to_string(i) + "]", "\"" + names[i] + "\"",
                       "the conversion of a bound, \"<bound> (eps, delta)\" (claims say it with "
                       "their own expect)");
    }
  }
}

}  // namespace

void check_experiment(const config::ExperimentSpec& spec) {
  for (const config::Scenario& s : spec.scenarios) {
    check_bounds_table(s.bounds);
    check_claims(s);
    check_conversion_names(s);
  }
}

config::ExperimentSpec parse_experiment(const std::string& text, const std::string& source_name,
                                        const config::Overrides& overrides,
                                        const CommandPolicy& commands) {
  config::ExperimentSpec spec = config::parse_experiment(text, source_name, overrides);
  resolve_accountant_values(spec, commands);
  check_experiment(spec);
  return spec;
}

config::ExperimentSpec load_experiment(const std::string& path, const config::Overrides& overrides,
                                       const CommandPolicy& commands) {
  config::ExperimentSpec spec = config::load_experiment(path, overrides);
  resolve_accountant_values(spec, commands);
  check_experiment(spec);
  return spec;
}

}  // namespace rdpaudit::bounds
