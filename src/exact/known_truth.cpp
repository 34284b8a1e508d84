#include "rdpaudit/exact/known_truth.hpp"

#include <cmath>
#include <string>

#include "rdpaudit/core/error.hpp"
#include "rdpaudit/estimate/numeric.hpp"

namespace rdpaudit::exact {

double gaussian_pair_renyi(double mahalanobis_sq, double alpha) {
  return alpha * mahalanobis_sq / 2.0;
}

double sampled_gaussian_renyi(double rate, double shift, int alpha) {
  if (!(rate >= 0.0 && rate <= 1.0)) {
    throw InternalError("sampled_gaussian.rate", std::to_string(rate), "must lie in [0, 1]");
  }
  if (alpha < 2)
    throw InternalError("sampled_gaussian.alpha", std::to_string(alpha), "must be an integer >= 2");
  std::vector<double> terms;
  for (int k = 0; k <= alpha; ++k) {
    if ((k > 0 && rate == 0.0) || (k < alpha && rate == 1.0)) continue;
    const double log_binom =
        std::lgamma(alpha + 1.0) - std::lgamma(k + 1.0) - std::lgamma(alpha - k + 1.0);
    const double log_rates = (k > 0 ? k * std::log(rate) : 0.0) +
                             (alpha - k > 0 ? (alpha - k) * std::log1p(-rate) : 0.0);
    terms.push_back(log_binom + log_rates + 0.5 * k * (k - 1.0) * shift * shift);
  }
  return estimate::log_sum_exp(terms) / (alpha - 1.0);
}

MixturePair quadratic_loss_last_iterate(const QuadraticLossSetting& s) {
  if (s.batch < 1 || s.n % s.batch != 0 || s.n / s.batch < 2) {
    throw InternalError("quadratic_loss.batch", std::to_string(s.batch),
                        "n / b must be an integer >= 2 (n = " + std::to_string(s.n) + ")");
  }
  if (!(s.eta > 0.0) || !(s.sigma2 > 0.0) || !(s.lambda > 0.0) || s.epochs < 1) {
    throw InternalError("quadratic_loss",
                        "eta " + std::to_string(s.eta) + ", sigma2 " + std::to_string(s.sigma2) +
                            ", lambda " + std::to_string(s.lambda) + ", epochs " +
                            std::to_string(s.epochs),
                        "need eta, sigma2, lambda > 0 and epochs >= 1");
  }
  const double a = 1.0 - s.eta * s.lambda;
  if (!(a > 0.0 && a < 1.0)) {
    throw InternalError("quadratic_loss.eta", std::to_string(s.eta),
                        "need 0 < 1 - eta * lambda < 1");
  }
  const int m = s.n / s.batch;
  const long long steps = static_cast<long long>(s.epochs) * m;
  const double noise_var = 2.0 * s.eta * s.sigma2;
  // sum_{t<T} a^(2t) = (1 - a^(2T)) / (1 - a^2)
  const double var =
      noise_var * (1.0 - std::pow(a, 2.0 * static_cast<double>(steps))) / (1.0 - a * a);
  const double start = std::pow(a, static_cast<double>(steps)) * s.theta0;
  const double per_step = s.eta * s.sensitivity / s.batch;  // eta * lambda * (S_g / lambda) / b
  MixturePair out;
  out.p = gaussian({start}, {var});
  out.q.dim = 1;
  out.q.covariance = {var};
  for (int j = 0; j < m; ++j) {
    double shift = 0.0;
    for (int k = 0; k < s.epochs; ++k) {
      shift += std::pow(a, static_cast<double>(steps - 1 - (static_cast<long long>(k) * m + j)));
    }
    out.q.weights.push_back(1.0 / m);
    out.q.means.push_back(start + per_step * shift);
  }
  return out;
}

GaussianMixture to_gaussian_mixture(const sim::LastIterateMixture& m) {
  GaussianMixture g;
  g.dim = static_cast<std::size_t>(m.dim);
  g.weights = m.weights;
  g.means = m.means;
  g.scales = m.scales;
  g.covariance.assign(g.dim * g.dim, 0.0);
  for (std::size_t k = 0; k < g.dim; ++k) g.covariance[k * g.dim + k] = m.variance;
  return g;
}

}  // namespace rdpaudit::exact
