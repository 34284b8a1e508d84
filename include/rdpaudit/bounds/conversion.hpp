// RDP -> (epsilon, delta)-DP, minimised over a grid of orders.
#pragma once

#include <vector>

namespace rdpaudit::bounds {

struct EpsilonDelta {
  double epsilon;  ///< the smallest epsilon over the grid (+inf if every order gives +inf)
  double alpha;    ///< the order that attains it (the first one on ties)
};

/// Mironov 2017, Proposition 3: (alpha, r)-RDP implies (r + log(1/delta)/(alpha - 1), delta)-DP.
EpsilonDelta epsilon_mironov(const std::vector<double>& alphas, const std::vector<double>& rdp,
                             double delta);

/// Canonne, Kamath, Steinke 2020 (Proposition 12) = Asoodeh et al. 2021:
///   epsilon = r + log((alpha-1)/alpha) - (log delta + log alpha) / (alpha - 1),
/// minimised over the grid and clamped at 0 (a negative value carries no information).
EpsilonDelta epsilon_improved(const std::vector<double>& alphas, const std::vector<double>& rdp,
                              double delta);

struct DeltaEpsilon {
  double delta;  ///< the smallest delta over the grid, at most 1
  double alpha;  ///< the order that attains it (the first one on ties)
};

/// Mironov 2017, Proposition 3 solved for delta at a given epsilon >= 0:
///   delta = exp((alpha - 1)(r - epsilon)), minimised over the grid, capped at 1.
DeltaEpsilon delta_mironov(const std::vector<double>& alphas, const std::vector<double>& rdp,
                           double epsilon);

/// Canonne, Kamath, Steinke 2020 (Proposition 12) solved for delta (the inverse of
/// epsilon_improved at each order):
///   log delta = (alpha-1)(r - epsilon) + (alpha-1) log((alpha-1)/alpha) - log alpha,
/// minimised over the grid, capped at 1.
DeltaEpsilon delta_improved(const std::vector<double>& alphas, const std::vector<double>& rdp,
                            double epsilon);

}  // namespace rdpaudit::bounds
