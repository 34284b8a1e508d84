// The exact engine's chain for a gradient formula (model.loss = "gradient_formula"): each
// batch case's update map theta -> theta - eta / norm (others g(theta, background) +
// [in] g(theta, record)) as a MapCase whose enclosure over a cell comes from the interval
// extension of g and dg/dtheta (docs/exact-laws.md, "Maps that are not affine"). Internal to
// exact/.
#pragma once

#include <string>

#include "rdpaudit/exact/chain.hpp"

namespace rdpaudit::exact::detail {

/// Parses the scenario's formula into c.formula and checks what the enclosures need: every
/// value and derivative enclosure over the projection's interval [clamp_lo, clamp_hi] is
/// finite at each record value (so over every cell of it), and the engine's reading agrees
/// with muparser's at 257 points of that interval. False with `why` otherwise.
bool prepare_formula(ChainSpec& c, const std::string& text, std::string& why);

/// The map case of a batch with the differing record in or out and `others` other records,
/// normalised by `norm` (b, or q n under Poisson), with probability `weight`.
MapCase formula_case(const ChainSpec& c, bool d_prime, bool in, double others, double norm,
                     double weight);

}  // namespace rdpaudit::exact::detail
