#include "rdpaudit/exact/gaussian_mixture.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <string>

#include "rdpaudit/core/error.hpp"
#include "rdpaudit/exact/mixture_quadrature.hpp"

namespace rdpaudit::exact {

void GaussianMixture::check(const std::string& key) const {
  if (dim < 1) throw InternalError(key + ".dim", "0", "must be >= 1");
  const std::size_t k = weights.size();
  if (k == 0) throw InternalError(key + ".weights", "[]", "need at least one component");
  if (means.size() != k * dim) {
    throw InternalError(key + ".means", std::to_string(means.size()) + " numbers",
                        "need components * dim = " + std::to_string(k * dim));
  }
  if (covariance.size() != dim * dim) {
    throw InternalError(key + ".covariance", std::to_string(covariance.size()) + " numbers",
                        "need dim * dim = " + std::to_string(dim * dim));
  }
  double total = 0.0;
  for (std::size_t j = 0; j < k; ++j) {
    if (!(weights[j] >= 0.0) || !std::isfinite(weights[j])) {
      throw InternalError(key + ".weights[" + std::to_string(j) + "]", std::to_string(weights[j]),
                          "must be finite and >= 0");
    }
    total += weights[j];
  }
  if (!(total > 0.0))
    throw InternalError(key + ".weights", "sum 0", "need a positive total weight");
  if (!scales.empty() && scales.size() != k) {
    throw InternalError(key + ".scales", std::to_string(scales.size()) + " numbers",
                        "need one per component (" + std::to_string(k) + ") or none");
  }
  for (std::size_t j = 0; j < scales.size(); ++j) {
    if (!(scales[j] > 0.0) || !std::isfinite(scales[j])) {
      throw InternalError(key + ".scales[" + std::to_string(j) + "]", std::to_string(scales[j]),
                          "must be finite and > 0");
    }
  }
  for (std::size_t i = 0; i < means.size(); ++i) {
    if (!std::isfinite(means[i])) {
      throw InternalError(key + ".means[" + std::to_string(i) + "]", std::to_string(means[i]),
                          "must be finite");
    }
  }
  Eigen::Map<const Eigen::MatrixXd> c(covariance.data(), static_cast<Eigen::Index>(dim),
                                      static_cast<Eigen::Index>(dim));
  if (!c.allFinite() ||
      (c - c.transpose()).cwiseAbs().maxCoeff() > 1e-12 * c.cwiseAbs().maxCoeff()) {
    throw InternalError(key + ".covariance", "not symmetric", "must be a finite symmetric matrix");
  }
  Eigen::LLT<Eigen::MatrixXd> llt(c);
  if (llt.info() != Eigen::Success) {
    throw InternalError(key + ".covariance", "not positive definite", "must be positive definite");
  }
}

GaussianMixture gaussian(const std::vector<double>& mean, const std::vector<double>& covariance) {
  GaussianMixture g;
  g.dim = mean.size();
  g.weights = {1.0};
  g.means = mean;
  g.covariance = covariance;
  return g;
}

std::vector<estimate::Estimate> exact_renyi(const GaussianMixture& p, const GaussianMixture& q,
                                            const std::vector<double>& alphas,
                                            const ExactOptions& options,
                                            const std::string& method) {
  using namespace quadrature;
  const Eigen::MatrixXd chol_l = common_cholesky(p, q, options);
  estimate::check_alphas(alphas, "exact.alphas");
  const Whitened wp = whiten(p, chol_l), wq = whiten(q, chol_l);
  const double a_max = *std::max_element(alphas.begin(), alphas.end());

  std::vector<estimate::Estimate> out;
  std::vector<char> fits;
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::size_t points = 0;
    const std::vector<Axis> axes = grid_axes(wp, wq, a_max, options, attempt, points);
    if (points > options.max_points) {
      return uninformative_all(alphas, method,
                               "the quadrature grid would need " + std::to_string(points) +
                                   " points (max_points = " + std::to_string(options.max_points) +
                                   ")");
    }
    const std::vector<double> lp = log_density_grid(wp, axes), lq = log_density_grid(wq, axes);
    const GridSum np = grid_sum(axes, lp), nq = grid_sum(axes, lq);
    out.assign(alphas.size() * 2, estimate::Estimate{});
    fits.assign(out.size(), 1);
#pragma omp parallel for schedule(dynamic) if (points * out.size() > kParallelWork)
    for (std::ptrdiff_t k = 0; k < static_cast<std::ptrdiff_t>(out.size()); ++k) {
      const double a = alphas[static_cast<std::size_t>(k) / 2];
      const int dir = static_cast<int>(k % 2);
      const OrderValue v = dir == estimate::kForward
                               ? renyi_on_grid(axes, lp, lq, np, nq, a, options)
                               : renyi_on_grid(axes, lq, lp, nq, np, a, options);
      fits[static_cast<std::size_t>(k)] = v.fits ? 1 : 0;
      estimate::Estimate& e = out[static_cast<std::size_t>(k)];
      e.alpha = a;
      e.direction = dir;
      e.method = method;
      e.value = std::max(v.value, 0.0);
      e.lower = std::max(v.value - v.error, 0.0);
      e.upper = std::max(v.value, 0.0) + v.error;
      e.interval = "numerical error bracket of the quadrature";
      e.informative = std::isfinite(v.value);
      if (!e.informative)
        e = estimate::uninformative(a, dir, method, "quadrature produced a non-finite value");
    }
    if (std::find(fits.begin(), fits.end(), 0) == fits.end()) return out;
  }
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (!fits[k]) {
      out[k] = estimate::uninformative(
          out[k].alpha, out[k].direction, method,
          "the tilted mass did not fit in the quadrature grid after widening it 4 times");
    }
  }
  return out;
}

}  // namespace rdpaudit::exact
