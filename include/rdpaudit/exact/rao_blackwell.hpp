// The Rao-Blackwellised R_alpha of the last iterate from sampled batch patterns, with an
// interval for its pattern-sampling error.
//
// Where the batch patterns are too many to enumerate, K patterns are sampled and P, P' are
// replaced by the mixtures of their conditional Gaussians, P_K = (1/K) sum_k N(m_k, S_k) and
// P'_K = (1/K) sum_k N(m'_k, S_k). R_alpha(P_K || P'_K) is computed by the quadrature of
// exact_renyi, so its numerical error is ~1e-12; its error as an estimate of R_alpha(P || P')
// is the Monte Carlo error over the patterns (a few % at K = 4096 for sampling without
// replacement), which the interval here states (methods.md section 4).
#pragma once

#include <string>
#include <vector>

#include "rdpaudit/exact/gaussian_mixture.hpp"

namespace rdpaudit::exact {

struct RaoBlackwellOptions {
  /// Jackknife groups: the patterns are split into this many consecutive groups of (nearly)
  /// equal size, and R_alpha is recomputed with each group left out.
  int groups = 16;
  /// Two-sided level of the pattern-sampling interval (Student t with groups - 1 degrees of
  /// freedom on the jackknife standard error).
  double confidence = 0.95;
  /// Largest |jackknife bias| / jackknife se for which the interval is given; above it the
  /// order's value rests on rare patterns and the interval is [0, +infinity) (one-sided).
  double max_bias_ratio = 0.1;
  ExactOptions quadrature;
};

/// R_alpha(P_K || P'_K) and R_alpha(P'_K || P_K) for every order, where component k of p and
/// of q come from the same sampled pattern k (or from independent draws: the pairs must be
/// independent and identically distributed over k). value is the Rao-Blackwellised estimate;
/// [lower, upper] = value -+ (t_{G-1} * se_jackknife + quadrature error), lower clipped at 0:
/// an approximate (asymptotic) confidence interval for R_alpha(P || P') at
/// options.confidence that accounts for the pattern sampling. It is *not* a bracket: the
/// truth lies outside it with probability about 1 - confidence, so nothing may treat it as
/// certain. [0, +infinity) (one-sided, no interval) with fewer than 4 patterns, and where the
/// jackknife bias exceeds max_bias_ratio standard errors (the order's tilted mass sits on
/// patterns too rare for K draws: the value is then typically far too low). The grid is
/// limited to quadrature.max_points / groups points (the group densities are kept).
/// Throws InternalError for unequal component counts, groups < 2 or a level outside (0, 1),
/// and as exact_renyi.
std::vector<estimate::Estimate> rao_blackwell_renyi(const GaussianMixture& p,
                                                    const GaussianMixture& q,
                                                    const std::vector<double>& alphas,
                                                    const RaoBlackwellOptions& options = {});

}  // namespace rdpaudit::exact
