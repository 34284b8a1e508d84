// The Gaussian-DP parameter of the audited pair: a certified lower bound from the counted
// profile family, and the exact value where the last iterate's law is known.
//
// mu-GDP forces P(S) <= Phi(Phi^{-1}(P'(S)) + mu) for every set S, in both orders
// (bounds/gdp.hpp), so each set S excludes every mu below Phi^{-1}(P(S)) - Phi^{-1}(P'(S)).
//   * certified: with P(F) >= p_lo and P'(F) <= q_hi for every set F of the profile family
//     (estimate::profile_certified_sets, one Bonferroni event of probability >= 1 - miss),
//     mu_lo = max(0, max_F Phi^{-1}(p_lo) - Phi^{-1}(q_hi)) excludes mu-GDP for every mu < mu_lo.
//     It is the largest mu the certificate excludes: a set excludes exactly the mu below its
//     own value, and no (eps, delta) summary of the same sets excludes more.
//   * exact: from the exact privacy profile, mu-GDP implies (eps, delta(mu, eps))-DP in both
//     directions, so every eps gives mu >= gdp::mu_from_delta(eps, delta_exact(eps)); the
//     maximum over an eps grid and both directions is a lower bound on the pair's exact mu,
//     equal to it at every eps for a Gaussian pair N(m, s^2), N(m', s^2) (mu = |m - m'| / s).
#pragma once

#include <vector>

#include "rdpaudit/estimate/exact_profile.hpp"
#include "rdpaudit/estimate/profile.hpp"

namespace rdpaudit::audit {

/// The certified lower bound mu_lo on the pair's GDP parameter from a profile family, valid
/// with probability >= 1 - family_miss (on the event of the family's certified profile).
double certified_mu_lower(const estimate::ProfileCounts& c, double family_miss);

/// The same without the certificate (frequencies for probabilities): diagnostic only.
double plugin_mu(const estimate::ProfileCounts& c);

/// max over `epsilons` (each >= 0) and both directions of gdp::mu_from_delta(eps, delta(eps)),
/// `forward` the exact profile of (P, P'), `backward` that of (P', P): a lower bound on the
/// exact mu of the pair, exact for a Gaussian pair at any eps.
double exact_mu_on_grid(const estimate::ExactProfile& forward,
                        const estimate::ExactProfile& backward,
                        const std::vector<double>& epsilons);

}  // namespace rdpaudit::audit
