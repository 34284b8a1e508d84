#include "rdpaudit/bounds/ye_shokri.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

#include "rdpaudit/bounds/logspace.hpp"

namespace rdpaudit::bounds::ye_shokri {
namespace {

using logspace::kNegInf;

/// log r = 2 log|1 - eta lambda|  (r = (1 - eta lambda)^2; -inf when eta lambda = 1).
double log_r(double eta, double lambda) {
  return 2.0 * std::log(std::fabs(1.0 - eta * lambda));
}

/// (1 - r^a) / (1 - r^c) for integers a >= 0, c >= 1, stably (the limit a/c when r = 1).
double geometric_ratio(double lr, double a, double c) {
  if (a == 0.0) return 0.0;
  if (lr == 0.0) return a / c;
  if (lr == kNegInf) return 1.0;
  return std::expm1(a * lr) / std::expm1(c * lr);
}

/// Eq. (5)/(12) for a given eps_0 prefactor.
double shuffle_partition_bound(double prefactor, const Params& p, double alpha) {
  const long N = batches_per_epoch(p);
  std::vector<double> terms;
  terms.reserve(static_cast<std::size_t>(N));
  for (long j0 = 0; j0 < N; ++j0) {  // Avg over 0 <= j0 < n/b of e^{(alpha-1) eps_0^{n/b - j0}}
    terms.push_back((alpha - 1.0) * eps0(prefactor, p.eta, p.lambda, N - j0));
  }
  const double log_avg = logspace::log_sum_exp(terms) - std::log(static_cast<double>(N));
  return epoch_term(prefactor, p.eta, p.lambda, N, p.K) + log_avg / (alpha - 1.0);
}

}  // namespace

double gaussian_step_term(const Params& p, double alpha) {
  const double b = static_cast<double>(p.b);
  return alpha * p.eta * p.S_g * p.S_g / (4.0 * alg1_sigma2(p) * b * b);
}

double eps0(double prefactor, double eta, double lambda, long j) {
  if (j < 1) throw std::invalid_argument("ye_shokri::eps0: j must be >= 1");
  if (j == 1) return prefactor;
  const double lr = log_r(eta, lambda);
  const double jd = static_cast<double>(j);
  if (lr == 0.0) return prefactor / jd;  // r = 1: the sum is j
  if (lr == kNegInf) return 0.0;         // r = 0: (1 - eta lambda)^{2(j-1)} = 0 for j >= 2
  // r^{j-1} / sum_{s<j} r^s = r^{j-1} (1 - r) / (1 - r^j)
  return prefactor * std::exp((jd - 1.0) * lr) * (std::expm1(lr) / std::expm1(jd * lr));
}

double epoch_term(double prefactor, double eta, double lambda, long N, long K) {
  const long h = N / 2;  // floor(n/(2b)) = floor(floor(n/b)/2)
  const double m = static_cast<double>(N - h);
  const double ratio = geometric_ratio(log_r(eta, lambda), static_cast<double>(K - 1) * m, m);
  return ratio == 0.0 ? 0.0 : eps0(prefactor, eta, lambda, h) * ratio;
}

double thm2_1(const Params& p, double alpha) {
  const double b = static_cast<double>(p.b);
  return alpha * p.S_g * p.S_g / (p.lambda * alg1_sigma2(p) * b * b) *
         -std::expm1(-p.lambda * p.eta * static_cast<double>(p.K) / 2.0);
}

double thm3_3(const Params& p, double alpha, long j0) {
  const long N = batches_per_epoch(p);
  const double A = gaussian_step_term(p, alpha);
  return epoch_term(A, p.eta, p.lambda, N, p.K) + eps0(A, p.eta, p.lambda, N - j0);
}

double thm4_2(const Params& p, double alpha) {
  return shuffle_partition_bound(gaussian_step_term(p, alpha), p, alpha);
}

double thm4_2_footnote4_as_printed(const Params& p, double alpha) {
  const long N = batches_per_epoch(p);
  const double A = gaussian_step_term(p, alpha);
  const double e1 = eps0(A, p.eta, p.lambda, 1);
  std::vector<double> terms;
  for (long j0 = 0; j0 < N; ++j0) {
    terms.push_back((alpha - 1.0) * (eps0(A, p.eta, p.lambda, N - j0) - e1));
  }
  // Footnote 4 verbatim: eps_0^1 + log Avg e^{(alpha-1)(eps_0^{n/b-j0} - eps_0^1)}.
  const double second = e1 + logspace::log_sum_exp(terms) - std::log(static_cast<double>(N));
  return epoch_term(A, p.eta, p.lambda, N, p.K) + second;
}

double thm4_3(const Params& p, double alpha) {
  const double q = sampling_rate(p);
  const double log_q = std::log(q);
  const double log_1mq = std::log1p(-q);  // -inf when b = n
  const double c = (alpha - 1.0) * gaussian_step_term(p, alpha);
  const double r = (1.0 - p.eta * p.lambda) * (1.0 - p.eta * p.lambda);
  const double grow = log_q + c;  // log of the factor (b/n) e^{(alpha-1) A}
  const long steps = p.K * batches_per_epoch(p);
  double x = 0.0;  // log S_0^0 = log 1
  for (long t = 0; t < steps; ++t) {
    // log S^{j+1} = log( (b/n) e^{(alpha-1)A} S + (1 - b/n) S^r ),  S^r = e^{r x}
    const double next = logspace::log_add_exp(grow + x, log_1mq + r * x);
    if (next == x) break;  // fixed point reached: every later iterate is the same number
    x = next;
    // Gap between the two terms of the next step.  When grow > 0, x increases every step and
    // the gap (r - 1) x + log(1 - b/n) - grow only decreases; once it is below -800 every
    // remaining step adds grow + log1p(e^gap) = grow up to a relative 1e-300, so the
    // remaining steps are added at once instead of one by one.
    const double gap = log_1mq + r * x - (grow + x);
    if (grow > 0.0 && gap < -800.0) {
      x += static_cast<double>(steps - t - 1) * grow;
      break;
    }
  }
  return x / (alpha - 1.0);
}

double thmD4(const Params& p, double alpha, long j0) {
  const double N = static_cast<double>(batches_per_epoch(p));
  const double A = gaussian_step_term(p, alpha);
  return A * static_cast<double>(p.K - 1) / N + A / (N - static_cast<double>(j0));
}

double thmD5_composed(const Params& p, double alpha, bool last_batch) {
  const double N = static_cast<double>(batches_per_epoch(p));
  const double A = gaussian_step_term(p, alpha);  // = alpha eta S_g^2 / (4 b^2 sigma^2)
  const double g = 1.0 - 2.0 * p.eta * p.beta * p.lambda / (p.beta + p.lambda);
  const double per_epoch = A / (N - 1.0) * std::pow(g, N / 2.0);  // g^{n/(2b)}
  const double K = static_cast<double>(p.K);
  return last_batch ? per_epoch * (K - 1.0) + A : per_epoch * K;
}

double thmD6(const Params& p, double alpha) {
  const double n = static_cast<double>(p.n);
  const double rho = 1.0 - p.eta * p.lambda / 2.0;
  const double K = static_cast<double>(p.K);
  // sum_{k=1}^K rho^k = rho (1 - rho^K) / (1 - rho),  1 - rho = eta lambda / 2
  const double sum = p.lambda == 0.0 ? K : rho * -std::expm1(K * std::log(rho)) / (1.0 - rho);
  return alpha * p.eta * p.S_g * p.S_g / (2.0 * alg1_sigma2(p) * n * n) * sum;
}

double thmD7(const Params& p, double alpha) {
  const double n = static_cast<double>(p.n);
  return alpha * p.S_g * p.S_g / (p.lambda * alg1_sigma2(p) * n * n) *
         -std::expm1(-p.lambda * p.eta * static_cast<double>(p.K) / 2.0);
}

double cor5_3(const Params& p, double alpha) {
  const double sigma_mul = alg2_sigma_mul(p);
  return p.eps_norm + shuffle_partition_bound(2.0 * alpha / (sigma_mul * sigma_mul), p, alpha);
}

double fig2_composition(const Params& p, double alpha) {
  return sampling_rate(p) * gaussian_step_term(p, alpha) * static_cast<double>(p.K);
}

}  // namespace rdpaudit::bounds::ye_shokri
