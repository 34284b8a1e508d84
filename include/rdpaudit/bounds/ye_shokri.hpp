// The Renyi-DP bounds of Ye & Shokri, "Differentially Private Learning Needs Hidden State (Or
// Much Faster Convergence)" (NeurIPS 2022; /work/shared/seeds/hidden-state-paper.txt), each
// exactly as the paper states it.  These are the bare formulas: they do NOT check the
// theorems' preconditions.  bounds.hpp wraps each one with its preconditions; call that.
//
// Notation as in the paper, in terms of Params (params.hpp):
//   sigma^2 = alg1_sigma2(p) = s^2/(2 eta);  N = n/b -> floor(n/b) (footnote 3);
//   h = floor(n/(2b)) = floor(N/2);  r = (1 - eta lambda)^2;
//   A(alpha) = alpha eta S_g^2 / (4 sigma^2 b^2)   (Lemma 3.2, Eq. (70): one Gaussian step).
// Every function is evaluated in log space or with expm1 where cancellation or overflow could
// occur; tested finite and non-NaN for alpha up to 1024 and K up to 1e5 epochs.
#pragma once

#include "rdpaudit/bounds/params.hpp"

namespace rdpaudit::bounds::ye_shokri {

/// A(alpha) = alpha eta S_g^2 / (4 sigma^2 b^2): RDP of one step that touches the differing
/// record (Gaussian mechanism, sensitivity eta S_g/b, noise variance 2 eta sigma^2; Eq. (70)).
double gaussian_step_term(const Params& p, double alpha);

/// eps_0^j(alpha) = prefactor (1-eta lambda)^{2(j-1)} / sum_{s=0}^{j-1} (1-eta lambda)^{2s},
/// j >= 1 (Theorem 3.3, Eq. (99)); Theorems 3.3/4.2 use prefactor = A(alpha), Corollary 5.3
/// uses 2 alpha / sigma_mul^2 (Eq. (13)).
double eps0(double prefactor, double eta, double lambda, long j);

/// The K-dependent first term of Eqs. (3), (5), (12):
///   eps_0^h(alpha) (1 - r^{(K-1)(N-h)}) / (1 - r^{N-h}).
double epoch_term(double prefactor, double eta, double lambda, long N, long K);

/// Theorem 2.1 (naive extension of Chourasia et al.):
///   alpha S_g^2 / (lambda sigma^2 b^2) (1 - e^{-lambda eta K / 2}).
double thm2_1(const Params& p, double alpha);

/// Theorem 3.3, Eq. (3): epoch_term + eps_0^{N - j0}(alpha), batch j0 in 0..N-1.
double thm3_3(const Params& p, double alpha, long j0);

/// Theorem 4.2, Eq. (5): epoch_term + 1/(alpha-1) log Avg_{0<=j0<N} e^{(alpha-1) eps_0^{N-j0}},
/// the log-average-exp evaluated with the shift by its largest term (exact, no overflow).
double thm4_2(const Params& p, double alpha);

/// Theorem 4.2 with footnote 4's "shifted approximation" AS PRINTED for the second term:
///   eps_0^1 + log Avg_{j0} e^{(alpha-1)(eps_0^{N-j0} - eps_0^1)}
/// (no 1/(alpha-1) before the log; it differs from Eq. (5) and can be negative -- see
/// docs/bounds.md).  Kept so that audits can show the difference.
double thm4_2_footnote4_as_printed(const Params& p, double alpha);

/// Theorem 4.3, Eq. (6): log(S_K^0(alpha)) / (alpha-1) with the recursion
///   S_k^{j+1} = (b/n) e^{(alpha-1) A(alpha)} S_k^j + (1 - b/n) (S_k^j)^{(1-eta lambda)^2},
/// S_0^0 = 1, run for K epochs of N steps, carried as log S.
double thm4_3(const Params& p, double alpha);

/// Theorem D.4, Eq. (80): A (K-1)/N + A/(N - j0)   (b/n -> 1/floor(n/b), footnote 3).
double thmD4(const Params& p, double alpha, long j0);

/// Theorem D.5 (Balle et al. 2019, Thm 5, as translated by the paper) composed over K epochs,
/// Section D.6: first batch  A/(N-1) g^{N/2} K;  last batch  A/(N-1) g^{N/2} (K-1) + A,
/// with g = 1 - 2 eta beta lambda / (beta + lambda).
double thmD5_composed(const Params& p, double alpha, bool last_batch);

/// Theorem D.6, Eq. (112): alpha eta S_g^2 / (2 sigma^2 n^2) sum_{k=1}^K (1 - eta lambda/2)^k.
double thmD6(const Params& p, double alpha);

/// Theorem D.7 (Chourasia et al. 2021, Cor. 1), Eq. (127):
///   alpha S_g^2 / (lambda sigma^2 n^2) (1 - e^{-lambda eta K / 2}).
double thmD7(const Params& p, double alpha);

/// Corollary 5.3, Eqs. (12)-(13): eps_norm + the structure of Eq. (5) with
/// eps_0^j = 2 alpha / sigma_mul^2 (1-eta lambda)^{2(j-1)} / sum_s (1-eta lambda)^{2s}.
double cor5_3(const Params& p, double alpha);

/// Figure 2 caption, composition baseline "derived from Section 3.3 of Mironov et al. 2019":
///   (b/n) A(alpha) K.
double fig2_composition(const Params& p, double alpha);

}  // namespace rdpaudit::bounds::ye_shokri
