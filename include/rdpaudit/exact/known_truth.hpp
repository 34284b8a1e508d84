// Laws with a known R_alpha, used to measure the estimators: closed forms and the Gaussian
// mixtures of the quadratic-loss last iterate.
#pragma once

#include <vector>

#include "rdpaudit/exact/gaussian_mixture.hpp"
#include "rdpaudit/sim/mixture.hpp"

namespace rdpaudit::exact {

/// R_alpha(N(m1, S) || N(m2, S)) = alpha * (m1 - m2)^T S^-1 (m1 - m2) / 2, given the squared
/// Mahalanobis distance (mu^2 / s^2 in 1-D).
double gaussian_pair_renyi(double mahalanobis_sq, double alpha);

/// The sampled Gaussian mechanism: R_alpha((1-rate) N(0, s^2) + rate N(mu, s^2) || N(0, s^2))
/// for integer alpha >= 2, by the binomial expansion (Mironov, Talwar & Zhang 2019, Sec. 3.3):
///   exp((alpha-1) R) = sum_k C(alpha, k) (1-rate)^(alpha-k) rate^k exp(k (k-1) mu^2 / (2 s^2)),
/// summed in the log domain. `shift` is mu / s (a Mahalanobis norm in d dimensions).
double sampled_gaussian_renyi(double rate, double shift, int alpha);

/// The paper's Figure 2 setting (Ye & Shokri, Algorithm 1 with the quadratic loss
/// l(theta; x) = lambda/2 (theta - x)^2, "shuffle and partition": one partition kept for all
/// epochs), with the worst-case pair x_i = 0 for all i and x'_{i0} = S_g / lambda.
struct QuadraticLossSetting {
  double lambda = 1.0;       ///< strong convexity of the loss
  double sensitivity = 4.0;  ///< S_g, sensitivity of the total gradient
  int n = 50;                ///< data set size
  int batch = 2;             ///< b; n / b batches per epoch
  double eta = 0.02;         ///< step size
  double sigma2 = 4.0;       ///< Algorithm 1's sigma^2: per-step noise std s = sqrt(2 eta sigma^2)
  int epochs = 1;            ///< K
  double theta0 = 0.0;       ///< deterministic start
};

/// The laws of theta_K: P under D (one Gaussian) and P' under D' (n/b equally weighted
/// components, one per batch index j holding i0). With a = 1 - eta lambda, m = n / b steps per
/// epoch and T = K m steps, the update theta <- a theta + eta lambda xbar_B + s z is affine:
///   theta_K = a^T theta0 + sum_t a^(T-1-t) (eta lambda xbar_{B_t} + s z_t),
/// so given j the mean shifts by (eta S_g / b) sum_k a^(T-1-(k m + j)) and the variance is
/// s^2 sum_{t<T} a^(2t) under both. Throws InternalError for invalid settings (n / b not an
/// integer >= 2, non-positive step or noise, a outside (0, 1)).
struct MixturePair {
  GaussianMixture p;  ///< law of theta_K under D
  GaussianMixture q;  ///< law of theta_K under D'
};
MixturePair quadratic_loss_last_iterate(const QuadraticLossSetting& setting);

/// The simulator's last-iterate mixture as a GaussianMixture (covariance variance * I, per
/// component scales where the batch size is random).
GaussianMixture to_gaussian_mixture(const sim::LastIterateMixture& m);

}  // namespace rdpaudit::exact
