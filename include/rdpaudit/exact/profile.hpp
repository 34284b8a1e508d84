// Privacy-profile brackets of two laws held by the exact engine (docs/exact-laws.md,
// "Privacy profiles").
//
// delta(eps) = sup_S P(S) - e^eps Q(S) = integral (p - e^eps q)_+ (Balle et al. 2018,
// Theorem 1 / Def. 4), bracketed from below by data processing over the engine's pieces (cells,
// atoms, outside mass) with their mass brackets, and from above by the last step's pointwise
// density bounds, bounded between the points by the convexity of log p + y^2 / (2 s^2) and
// integrated in closed form (as the Renyi upper bound; certified), plus the atoms' upper ends
// and, unclamped, P's mass beyond the points (certified where upper_uncertified says so).
// eps(delta) = inf {eps >= 0 : delta(eps) <= delta} is bracketed by bisection on the two ends.
#pragma once

#include <string>
#include <vector>

#include "rdpaudit/exact/renyi.hpp"

namespace rdpaudit::exact {

namespace detail {
struct ProfilePiece;
}

/// The profile brackets of one pair of laws, both directions (forward: P against Q).
class ProfileBrackets {
 public:
  /// `p` and `q` on one grid; the density bounds are computed once here.
  ProfileBrackets(const ExactLaw& p, const ExactLaw& q, const RenyiOptions& options = {});
  /// With density bounds already computed (density_grid of the same laws, e.g. the Renyi
  /// brackets' widened grid: the integral then spans it, and the outside mass is added still).
  /// The laws must outlive this object.
  ProfileBrackets(const ExactLaw& p, const ExactLaw& q, DensityGrid density);
  ProfileBrackets(const ProfileBrackets&);
  ProfileBrackets(ProfileBrackets&&) noexcept;
  ProfileBrackets& operator=(const ProfileBrackets&);
  ProfileBrackets& operator=(ProfileBrackets&&) noexcept;
  ~ProfileBrackets();

  /// [lower, upper] on delta(eps) for eps >= 0 (finite).
  Bracket delta(double epsilon, bool forward) const;
  /// The lower end alone (certified; no density bounds needed).
  double delta_lower(double epsilon, bool forward) const;
  /// The upper end alone (certified between the points by the convexity of log p + y^2 /
  /// (2 s^2); unclamped laws: beyond the grid, the outside mass).
  double delta_upper(double epsilon, bool forward) const;

  /// [lower, upper] on eps(delta) for delta in (0, 1): lower = the largest eps found with
  /// delta_lower(eps) > delta (so eps(delta) >= it), upper = the smallest found with
  /// delta_upper(eps) <= delta (+infinity when none up to 2^20), both by bisection to 1e-12
  /// relative.
  Bracket epsilon(double delta, bool forward) const;

 private:
  const ExactLaw* p_;
  const ExactLaw* q_;
  DensityGrid density_;
  /// per direction, the bounds of the density points' intervals (forward: P against Q)
  std::vector<detail::ProfilePiece> pieces_[2];
  /// per direction, P's mass beyond the points (certified where upper_uncertified is "";
  /// otherwise the upper outside mass)
  double beyond_[2] = {0, 0};
};

/// Certified lower bound on delta(eps) of P against Q from the pieces of two laws on one grid
/// (cells, atoms, outside mass): for S the union of the pieces whose lower P mass exceeds
/// e^eps times their upper Q mass, P(S) - e^eps Q(S) <= delta(eps), with P(S) bounded below
/// by the larger of the sum of S's lower masses and the total minus the other pieces' upper
/// masses (Q(S) above likewise), less the rounding of those sums.
double profile_delta_lower(const CellLaw& p, const CellLaw& q, double epsilon);

/// Whether a law's brackets can hold its exact total: the lower masses (cells, atoms, outside)
/// add up to at most the total and the upper masses to at least it, within 1e-9 of it (the
/// sums' rounding and tighten's allowance). A law that fails was built from case weights that
/// do not sum to 1, or brackets that do not hold: its lower bounds are not bounds; `why` says
/// by how much.
bool brackets_hold_total(const CellLaw& law, std::string& why);

}  // namespace rdpaudit::exact
