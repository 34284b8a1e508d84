// Built-in bounds on the privacy profile itself, eps(delta) and delta(eps), for statements that
// have no Renyi form (the catalogue of bounds.hpp holds R_alpha bounds, whose profiles the audit
// derives by conversion). A profile bound is audited like an (eps, delta) claim: its eps(delta)
// at profile.deltas, in both directions, in the run's Holm family, decided exactly where the
// exact profile is known (audit/table.hpp, docs/methods.md section 5).
//
// The entries: Feldman & Shenfeld 2025 (arXiv 2502.08202), Theorem 4.1, first part, for the
// Gaussian randomizer of one step (allocation.hpp), training.scheme = "random_allocation"; and
// the last-iterate heuristic of Steinke et al. 2025 (last_iterate_heuristic.hpp), kind
// "heuristic", Poisson sampling, add/remove.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rdpaudit/bounds/bounds.hpp"
#include "rdpaudit/bounds/params.hpp"

namespace rdpaudit::bounds {

/// Every built-in profile bound, in a fixed order (name, source, kind, applicability, the
/// neighbouring relation of its source).
const std::vector<BoundInfo>& profile_catalogue();

/// One profile bound at one point of the profile: eps at a delta, or delta at an eps.
struct ProfileValue {
  std::string name, source;
  Kind kind = Kind::kTheorem;
  Adjacency adjacency = Adjacency::kAddRemove;
  double at = kNaN;             ///< the delta (epsilon_bounds) or the eps (delta_bounds)
  std::optional<double> value;  ///< the bound (eps may be +inf); empty = not applicable
  std::string not_applicable;   ///< why, when value is empty
  bool applicable() const { return value.has_value(); }
};

/// The orders over which a profile bound converts an RDP term (the Poisson term of Theorem
/// 4.1): 1.1 ... 10.9 in steps of 0.1, 11 ... 64 (as `rdpaudit bounds --delta`), then
/// 64 * 2^(k/4) rounded, k = 1 ... 32 (76, 91, 108, 128, ..., 16384): at small eps the best
/// order is large and falls between dp_accounting's 128, 256, 512, 1024.
const std::vector<double>& profile_orders();

/// Every profile bound's eps(delta) at each delta in (0, 1) (bound-major: all deltas of the
/// first bound, then the next). Validates p and the deltas (InputError naming the value).
std::vector<ProfileValue> epsilon_bounds(const Params& p, const std::vector<double>& deltas);

/// Every profile bound's delta(eps) at each eps >= 0 (bound-major).
std::vector<ProfileValue> delta_bounds(const Params& p, const std::vector<double>& epsilons);

}  // namespace rdpaudit::bounds
