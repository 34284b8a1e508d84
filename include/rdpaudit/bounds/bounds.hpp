// rdpaudit's analytic Renyi-DP bounds for the last iterate of noisy SGD: the catalogue, and
// evaluation with every bound's preconditions checked.  This is the header callers need.
//
//   rdpaudit::bounds::Params p = ...;            // params.hpp: one scenario, documented fields
//   auto values = rdpaudit::bounds::evaluate_all(p, {2, 10, 15});
//   for (const auto& v : values)                 // every catalogue bound at every alpha
//     if (v.applicable()) use(v.name, v.alpha, *v.value); else report(v.not_applicable);
//
// A bound whose preconditions the scenario does not meet is never a number: its BoundValue
// has no value and a human-readable reason.  Invalid input (eta <= 0, b > n, alpha <= 1, ...)
// throws rdpaudit::InputError instead.  Everything is a pure function of its arguments.
//
// Related headers: ye_shokri.hpp / blog.hpp / mechanisms.hpp (the bare formulas),
// conversion.hpp (RDP -> (epsilon, delta)), loss.hpp (lambda, beta, S_g, L of a loss),
// custom.hpp (user formulas).  docs/bounds.md documents every bound.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rdpaudit/bounds/custom.hpp"
#include "rdpaudit/bounds/params.hpp"

namespace rdpaudit::bounds {

struct BoundInfo {
  std::string name;    ///< stable identifier (results files, CSV, CLI)
  std::string source;  ///< citation with theorem and equation numbers
  Kind kind;
  std::string applies_to;  ///< schemes and assumptions, one line
  /// The neighbouring relation the source's statement assumes.
  Adjacency adjacency = Adjacency::kReplaceOne;
};

/// Every built-in bound, in a fixed order.
const std::vector<BoundInfo>& bound_catalogue();

/// One built-in bound at one order.  Throws InputError for an unknown name or invalid input.
BoundValue evaluate_bound(std::string_view name, const Params& p, double alpha);

/// The relation a bound assumes: the catalogue's for a built-in bound; a custom formula is
/// written for the scenario at hand, so it takes the scenario's relation.
Adjacency bound_adjacency(std::string_view name, Adjacency scenario);

/// For check/report: empty when the bound assumes the scenario's neighbouring relation,
/// otherwise one sentence saying how they differ and what that means for a verdict, e.g.
///   "mtz19_poisson_composition assumes add_remove neighbours, the audited pair is
///    replace_one: a replace-one divergence may exceed it without contradicting its source"
/// absent: record i0 is left out of D' (config::NeighbouringPair::absent), so an add/remove
/// pair is no replace-one pair.
std::string adjacency_mismatch(std::string_view name, Adjacency bound, Adjacency scenario,
                               bool absent = false);

/// Every built-in bound (catalogue order), then every custom bound, each at every alpha
/// (alphas in the order given).  Validates p and every alpha first.
std::vector<BoundValue> evaluate_all(const Params& p, const std::vector<double>& alphas,
                                     const std::vector<CustomBound>& custom = {});

}  // namespace rdpaudit::bounds
