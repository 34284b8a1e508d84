// The audited statements of one scenario, one table per quantity: the Renyi bounds at the
// audited orders (stored as bounds/ in the results), and the (eps, delta) claims at the
// audited deltas (claims/). One shape for both: rows (bounds or claims) x orders.
#pragma once

#include <string>
#include <vector>

#include "rdpaudit/audit/cell.hpp"
#include "rdpaudit/bounds/params.hpp"
#include "rdpaudit/config/scenario.hpp"

namespace rdpaudit::audit {

/// What a table's orders are: Renyi orders alpha, the deltas of (eps, delta) claims, or the
/// one order of a Gaussian-DP claim's mu (the pair's trade-off curve; order 0).
enum class Quantity { kRenyi, kEpsilonDelta, kGdp };

/// values is names x orders, row-major; NaN where a row does not apply (reasons says why).
struct AuditTable {
  Quantity quantity = Quantity::kRenyi;
  std::vector<double> orders;  ///< alphas (Renyi) or deltas (claims)
  std::vector<std::string> names, kinds, sources, reasons;
  std::vector<Expectation> expect;
  std::vector<double> values;
  /// Claims only: per row, the claimed Gaussian-DP mu of a GDP claim (whose values are then
  /// the eps(delta) of mu-GDP), NaN for every other row.
  std::vector<double> mu;
  double value(std::size_t row, std::size_t order) const {
    return values[row * orders.size() + order];
  }
};
using BoundTable = AuditTable;
using ClaimTable = AuditTable;

/// The bounds named in bounds.audit (default: every built-in and custom bound) at the audited
/// orders (BoundsSpec::alphas, resolved by config/).
/// The expectation of a bound its file says nothing about: "informative" for an
/// approximation and for a baseline whose neighbouring relation (`bound`) is not the audited
/// pair's (`pair`), "holds" otherwise (theorems, derivations, custom bounds).
Expectation default_expectation(bounds::Kind kind, config::Adjacency bound, config::Adjacency pair);

/// What the file states for bound `name` of kind `kind` (config::stated_expectation), else the
/// default of its kind.
Expectation expectation_of(const config::Scenario& s, const std::string& name, bounds::Kind kind);

BoundTable audited_bounds(const config::Scenario& s);

/// The (eps, delta) claims of one scenario at profile.deltas ([profile] on): first each
/// audited Renyi bound's consequence (profile.conversions; Canonne, Kamath & Steinke 2020,
/// Proposition 12, minimised over the bound's audited orders: valid at any order, so a valid
/// Renyi bound's conversion is a valid claim), then each audited built-in profile bound
/// (bounds/profile_bounds.hpp: its own eps(delta), kind "profile theorem"), then the user's
/// claims. values is names x
/// deltas (the claimed eps); NaN where a claim does not apply. A Gaussian-DP claim's row holds
/// eps(delta) of mu-GDP (bounds::gdp::epsilon: the exact profile of mu-GDP, implied by it).
ClaimTable audited_claims(const config::Scenario& s, const BoundTable& renyi);

/// The kind of a built-in profile bound's row: "profile " + its Kind's name ("profile theorem").
std::string profile_kind(bounds::Kind k);

/// The Gaussian-DP claims of a claim table: one row per row of `claims` with a finite mu, one
/// order (0), values the claimed mu. Its rows share their names (and so their /audit/bounds
/// row) with their (eps, delta) rows.
AuditTable gdp_claims(const ClaimTable& claims);

}  // namespace rdpaudit::audit
