#include "rdpaudit/audit/table.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "rdpaudit/bounds/bounds.hpp"
#include "rdpaudit/bounds/conversion.hpp"
#include "rdpaudit/bounds/custom.hpp"
#include "rdpaudit/bounds/gdp.hpp"
#include "rdpaudit/bounds/profile_bounds.hpp"
#include "rdpaudit/bounds/scenario.hpp"
#include "rdpaudit/config/expectations.hpp"
#include "rdpaudit/config/profile.hpp"

namespace rdpaudit::audit {

std::string profile_kind(bounds::Kind k) {
  return "profile " + std::string(bounds::kind_name(k));
}

Expectation default_expectation(bounds::Kind kind, config::Adjacency bound,
                                config::Adjacency pair) {
  // An approximation is not claimed to bound anything, and a baseline for another relation
  // than the pair's may be exceeded without contradicting its source: reported, never
  // failing a check unless the file asks (bounds.expect_holds, expect_violated, ...).
  // A heuristic is expected to fail for some loss: never expected to hold by default.
  if (kind == bounds::Kind::kApproximation || kind == bounds::Kind::kHeuristic)
    return Expectation::kInformative;
  if (kind == bounds::Kind::kBaseline && bound != pair) return Expectation::kInformative;
  return Expectation::kHolds;
}

Expectation expectation_of(const config::Scenario& s, const std::string& name, bounds::Kind kind) {
  if (const auto stated = config::stated_expectation(s.bounds, name)) return *stated;
  return default_expectation(kind, bounds::bound_adjacency(name, s.data.adjacency),
                             s.data.adjacency);
}

BoundTable audited_bounds(const config::Scenario& s) {
  BoundTable t;
  t.quantity = Quantity::kRenyi;
  t.orders = s.bounds.alphas;
  const bounds::ScenarioBounds sb = bounds::bounds_of(s);
  const std::vector<bounds::BoundValue> values = bounds::evaluate_scenario(sb, t.orders);
  const auto& audit = s.bounds.audit;
  const std::size_t a_count = t.orders.size();
  for (std::size_t i = 0; i < values.size(); i += a_count) {
    const bounds::BoundValue& first = values[i];
    if (!audit.empty() && std::find(audit.begin(), audit.end(), first.name) == audit.end())
      continue;
    t.names.push_back(first.name);
    t.kinds.emplace_back(bounds::kind_name(first.kind));
    t.sources.push_back(first.source);
    t.expect.push_back(expectation_of(s, first.name, first.kind));
    std::string reason;
    for (std::size_t k = 0; k < a_count; ++k) {
      const bounds::BoundValue& v = values[i + k];
      t.values.push_back(v.applicable() ? *v.value : kNaN);
      if (!v.applicable() && reason.empty()) reason = v.not_applicable;
    }
    t.reasons.push_back(reason);
  }
  return t;
}

ClaimTable audited_claims(const config::Scenario& s, const BoundTable& renyi) {
  ClaimTable t;
  t.quantity = Quantity::kEpsilonDelta;
  const config::ProfileSpec& spec = s.profile;
  if (!spec.enabled) return t;
  t.orders = spec.deltas;
  // A conversion is expected what its bound is by default: informative for an informative
  // bound; profile.expect_violated says otherwise.
  const auto expected = [&](const std::string& name, Expectation of_bound) {
    if (std::find(spec.expect_violated.begin(), spec.expect_violated.end(), name) !=
        spec.expect_violated.end())
      return Expectation::kViolated;
    return of_bound == Expectation::kInformative ? Expectation::kInformative : Expectation::kHolds;
  };
  for (std::size_t b = 0; spec.conversions && b < renyi.names.size(); ++b) {
    // Orders where the bound applies; a negative value (itself violated exactly) is no
    // Renyi bound to convert.
    std::vector<double> alphas, rdp;
    for (std::size_t a = 0; a < renyi.orders.size(); ++a) {
      const double v = renyi.value(b, a);
      if (v >= 0.0) alphas.push_back(renyi.orders[a]), rdp.push_back(v);
    }
    t.names.push_back(config::conversion_name(renyi.names[b]));
    t.kinds.emplace_back("conversion");
    t.sources.push_back("Canonne, Kamath & Steinke 2020, Prop. 12, of " + renyi.names[b]);
    t.expect.push_back(expected(t.names.back(), renyi.expect[b]));
    t.reasons.push_back(alphas.empty() ? "the Renyi bound applies at no audited order (" +
                                             renyi.reasons[b] + ")"
                                       : std::string());
    for (double delta : t.orders) {
      t.values.push_back(alphas.empty() ? kNaN
                                        : bounds::epsilon_improved(alphas, rdp, delta).epsilon);
    }
  }
  const bounds::ScenarioBounds sb = bounds::bounds_of(s);
  // The built-in profile bounds (bounds/profile_bounds.hpp): eps(delta) itself, audited as a
  // claim; bounds.audit selects them with the Renyi bounds, bounds.expect_* set what they
  // are expected to do.
  const auto& audit = s.bounds.audit;
  const std::vector<bounds::ProfileValue> profile = bounds::epsilon_bounds_of(sb, t.orders);
  for (std::size_t i = 0; i < profile.size(); i += t.orders.size()) {
    const bounds::ProfileValue& first = profile[i];
    if (!audit.empty() && std::find(audit.begin(), audit.end(), first.name) == audit.end())
      continue;
    t.names.push_back(first.name);
    t.kinds.push_back(profile_kind(first.kind));
    t.sources.push_back(first.source);
    t.expect.push_back(expectation_of(s, first.name, first.kind));
    t.reasons.push_back(first.not_applicable);
    for (std::size_t d = 0; d < t.orders.size(); ++d) {
      const bounds::ProfileValue& v = profile[i + d];
      t.values.push_back(v.applicable() ? *v.value : kNaN);
    }
  }
  t.mu.assign(t.names.size(), kNaN);
  for (const config::ClaimText& c : spec.claims) {
    const bool gdp = !std::isnan(c.mu);
    t.names.push_back(c.name);
    t.kinds.emplace_back(gdp ? "gdp claim" : "claim");
    t.sources.push_back(gdp ? fmt::format("mu = {:g} (Gaussian DP, Dong, Roth & Su 2022); eps at "
                                          "each delta: its exact profile",
                                          c.mu)
                        : c.formula.empty() ? "claimed eps at each delta"
                                            : "formula " + c.formula);
    t.expect.push_back(c.expect);
    t.reasons.emplace_back();
    t.mu.push_back(c.mu);
    std::unique_ptr<bounds::ClaimFormula> f;
    if (!c.formula.empty()) f = std::make_unique<bounds::ClaimFormula>(c.name, c.formula);
    for (std::size_t d = 0; d < t.orders.size(); ++d) {
      // mu-GDP implies (eps, delta(mu, eps))-DP at every eps (bounds/gdp.hpp), so eps(delta)
      // <= the eps where the GDP profile reaches delta.
      t.values.push_back(gdp ? bounds::gdp::epsilon(c.mu, t.orders[d])
                         : f ? f->evaluate(sb.params, t.orders[d])
                             : c.epsilons[d]);
    }
  }
  return t;
}

AuditTable gdp_claims(const ClaimTable& claims) {
  AuditTable t;
  t.quantity = Quantity::kGdp;
  t.orders = {0.0};
  for (std::size_t b = 0; b < claims.mu.size(); ++b) {
    if (std::isnan(claims.mu[b])) continue;
    t.names.push_back(claims.names[b]);
    t.kinds.push_back(claims.kinds[b]);
    t.sources.push_back(claims.sources[b]);
    t.expect.push_back(claims.expect[b]);
    t.reasons.push_back(claims.reasons[b]);
    t.values.push_back(claims.mu[b]);
    t.mu.push_back(claims.mu[b]);
  }
  return t;
}

}  // namespace rdpaudit::audit
