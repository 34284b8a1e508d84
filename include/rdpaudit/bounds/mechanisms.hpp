// RDP of single (subsampled) Gaussian mechanisms, for the composition baselines.
// All of them take the noise multiplier z = noise std / l2-sensitivity.
#pragma once

#include <vector>

namespace rdpaudit::bounds {

/// Gaussian mechanism (Mironov 2017, Corollary 3): alpha / (2 z^2).
double gaussian_rdp(double z, double alpha);

/// Poisson-subsampled Gaussian mechanism (Mironov, Talwar, Zhang 2019, "Renyi Differential
/// Privacy of the Sampled Gaussian Mechanism"), add/remove-one neighbours, sampling rate q:
///   R_alpha = log(A_alpha) / (alpha - 1),  A_alpha = E_{x~N(0,z^2)} [(1-q + q
///   e^{(2x-1)/(2z^2)})^alpha].
/// Integer alpha: the binomial expansion (Section 3.2), A - 1 = sum_{k>=2} C(alpha,k)
/// (1-q)^{alpha-k} q^k (e^{(k^2-k)/(2z^2)} - 1), summed in log space (all terms positive, so
/// tiny values keep full relative precision).  Fractional alpha: the two-sided series of
/// Section 3.3 around z0 = z^2 log(1/q - 1) + 1/2, signed terms in long double, its
/// alternating tail summed with the Cohen-Rodriguez Villegas-Zagier acceleration (log A is
/// accurate to ~1e-19 absolute, so the relative accuracy drops only for RDP below ~1e-9).
/// q = 0 gives 0, q = 1 the plain Gaussian, z = +inf gives 0.
double mtz_poisson_rdp(double q, double z, double alpha);

/// Gaussian mechanism on a subsample of fixed size drawn without replacement, replace-one
/// neighbours, gamma = q = b/n (Wang, Balle, Kasiviswanathan 2019, Theorem 9, with
/// eps(j) = j/(2 z^2) and eps(inf) = inf):
///   (alpha-1) R_alpha <= log(1 + q^2 C(alpha,2) min{4(e^{eps(2)}-1), 2 e^{eps(2)}}
///                            + sum_{j=3}^alpha 2 q^j C(alpha,j) e^{(j-1) eps(j)})
/// for integer alpha; fractional alpha by linear interpolation of (alpha-1) R_alpha between
/// floor(alpha) and ceil(alpha) (their Corollary 10; (alpha-1)R_alpha = 0 at alpha = 1).
/// q = 1 (no subsampling) gives the plain Gaussian.
double wbk_swor_rdp(double q, double z, double alpha);

/// The Gaussian-specific strengthening of Theorem 9 for the same scheme (sampling without
/// replacement, replace-one neighbours, gamma = q = b/n): Wang, Balle, Kasiviswanathan 2019,
/// Theorem 27, in the form Google's dp_accounting evaluates it
/// (rdp_privacy_accountant._compute_rdp_sample_wor_gaussian_int):
///   (alpha-1) R_alpha <= log(1 + sum_{i=2}^alpha q^i C(alpha,i)
///                              min{4 (Delta^{2 floor(i/2)} Delta^{2 ceil(i/2)})^{1/2},
///                                  2 e^{(i-1) eps(i)}})
/// with eps(i) = i/(2 z^2) and Delta^l the l-th forward difference at 0 of
/// j -> e^{(j-1) eps(j)} = e^{j(j-1)/(2 z^2)} (at i = 2 the term is Theorem 9's
/// min{4(e^{eps(2)}-1), 2 e^{eps(2)}}).  Integer alpha of any size (dp_accounting switches to
/// Theorem 9's terms 2 e^{(i-1) eps(i)} above 256 to save time; here every order is exact);
/// fractional alpha by Corollary 10's interpolation of (alpha-1) R_alpha, as wbk_swor_rdp.
/// q = 1 gives the plain Gaussian.  Never larger than wbk_swor_rdp.
double wbk_swor_gaussian_rdp(double q, double z, double alpha);

/// Theorem 27's CGF (alpha-1) R_alpha = log(1 + sum ...) at an integer order alpha >= 1
/// (0 at alpha = 1), 0 < q < 1, 0 < z < inf, from log_delta = wbk_log_forward_differences(z,
/// l) with l >= 2 ceil(alpha/2).
double wbk_swor_gaussian_cgf(double q, double z, long alpha, const std::vector<double>& log_delta);

/// log Delta^l for l = 2, 4, ..., l_max (even): Delta^l is the l-th forward difference at 0 of
/// j -> e^{j(j-1)/(2 z^2)}, which equals E[(Y-1)^l] for Y = e^{X/z - 1/(2z^2)}, X ~ N(0,1).
/// The alternating binomial sum that defines it cancels catastrophically for large z (at
/// z = 1e4, l = 256 it loses about 850 digits), so it is summed in long double only where the
/// sum is at least 1e-3 of its largest term and otherwise E[(Y-1)^l] is integrated
/// numerically (wbk_gaussian.cpp).  Tested against mpmath to 1e-12 in log Delta
/// (tests/data/literature_reference.csv).
std::vector<double> wbk_log_forward_differences(double z, long l_max);

}  // namespace rdpaudit::bounds
