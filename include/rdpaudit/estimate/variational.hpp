// Estimator 2b: a rigorous lower bound on R_alpha from Hoelder's inequality and one Bernstein
// interval per order and direction ("rigorous-bernstein").
//
// Why a second rigorous method: the partition + Clopper-Pearson bound (rigorous.hpp) pays for
// every cell's interval separately, and for small divergences (the Figure 2 laws, R_2 ~ 4e-4)
// that caps it near 0.6 of the truth at 10^7 samples per side (docs/methods.md, "Ceiling of
// the construction"). A smooth test function pays once.
//
// The inequality (Hoelder with exponents alpha and alpha/(alpha-1), for any measurable g):
//   E_P[e^{(alpha-1) g}] = E_Q[(p/q) e^{(alpha-1) g}]
//                       <= E_Q[(p/q)^alpha]^{1/alpha} E_Q[e^{alpha g}]^{(alpha-1)/alpha},
// so with m_P = E_P[e^{(alpha-1) g}], m_Q = E_Q[e^{alpha g}] and beta = alpha/(alpha-1):
//   R_alpha(P||Q) >= beta log m_P - log m_Q,                                            (H)
// with equality at g = log(p/q) (the variational form of Birrell, Dupuis, Katsoulakis,
// Rey-Bellet & Wang 2021, in this scaling). If m_P - k m_Q >= l > 0 for some k > 0, then
// beta log m_P - log m_Q >= min_{m > 0} [beta log(k m + l) - log m], attained at
// m = l (alpha-1)/k, which gives
//   R_alpha(P||Q) >= log(l)/(alpha-1) + alpha log(alpha)/(alpha-1) - log(alpha-1) + log k.  (C)
// (C) is tight when k = (alpha-1) m_P / (alpha m_Q) and l = m_P - k m_Q. So one lower
// confidence bound l on the contrast m_P - k m_Q, a difference of two independent means,
// suffices: its width adds the two sides' noise in quadrature, where bounding m_P and m_Q
// separately would add the widths and split the level.
//
// The interval (no asymptotics): X_i = e^{(alpha-1) g} on the n_P samples of P, Y_j =
// e^{alpha g} on the n_Q samples of Q, g clipped so both are bounded with known ranges R_X,
// R_Y. The contrast estimate Xbar - k Ybar is a sum of n_P + n_Q independent terms, each at
// most R_X/n_P or k R_Y/n_Q below its mean. Bernstein's inequality (Boucheron, Lugosi &
// Massart 2013, Theorem 2.10) with variance proxy v = s_X^2/n_P + k^2 s_Y^2/n_Q and
// b = max(R_X/n_P, k R_Y/n_Q) gives, with probability >= 1 - d_m,
//   m_P - k m_Q >= Xbar - k Ybar - sqrt(2 v ln(1/d_m)) - b ln(1/d_m)/3,
// where s_X, s_Y are upper confidence bounds on the standard deviations (Maurer & Pontil 2009,
// Theorem 10: sd <= sqrt(V_n) + R sqrt(2 ln(1/d_v)/(n-1)) with probability >= 1 - d_v, V_n
// the unbiased sample variance). Per order and direction the miss probability d splits as
// d_m = 0.9 d and d_v = 0.05 d for each side.
//
// Recipe: as for the partition bound, g is chosen on an independent selection split: for each
// order and direction, among test functions g = c h(clamp(i, lo, hi)) on the fine cells i
// (h: the cells' positions, i.e. the coordinate or a learned log-ratio score, so g is linear
// in it, which is exact for a Gaussian pair; scale c; clip cells lo, hi), the one whose bound
// forecast on the selection split (evaluation-sized widths) is largest, found by coordinate
// ascent over c, lo and hi, and k from the same selection moments. The evaluation split then
// gives the certificate of each order and direction: its means, variances and counts, from
// which the bound is recomputed at any level.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rdpaudit/estimate/rigorous.hpp"

namespace rdpaudit::estimate {

struct VariationalOptions {
  /// Family-wise confidence over all orders and both directions (Bonferroni over them).
  double confidence = 0.95;
  /// Scale multipliers tried, relative to the selection split's least-squares scale.
  std::vector<double> scale_factors = {0.25, 0.35, 0.5,  0.6,  0.7, 0.8, 0.9,
                                       1.0,  1.1,  1.25, 1.45, 1.7, 2.0};
  /// Clip cuts tried at each end: cells beyond a cut holding fewer than this many forecast
  /// evaluation samples (both sides together) share the value of the cut cell (0: no clip).
  std::vector<double> clip_counts = {0.0, 16.0, 128.0, 1024.0, 8192.0};
};

/// Lower bound (C) of one certificate when its contrast interval misses with probability
/// `miss` in (0, 1] (split as in the file comment); 0 when the contrast bound is not positive
/// or (C) is negative. Valid for this order and direction with probability >= 1 - miss.
double contrast_lower_bound(const ContrastCertificate& c, double miss);

/// The bound (see the file comment) for every order and both directions, at the family-wise
/// level options.confidence (each order and direction at (1 - confidence) / (2 |alphas|)).
/// Result: method `method`, one estimate per order and direction (value: the plug-in of (H)
/// on the evaluation split at the chosen g; lower: the bound; upper = +infinity), and the
/// certificates in `contrasts`. Throws InternalError for inconsistent cells or options.
RigorousResult variational_lower_bound(
    const OrderedCells& cells, const std::vector<double>& alphas,
    const VariationalOptions& options = {},
    const std::string& method = config::to_string(config::Row::kRigorousBernstein));

}  // namespace rdpaudit::estimate
