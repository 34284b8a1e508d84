// Estimator 3: learn a score s(x) ~ log p(x)/p'(x) on the selection split, then use it as a
// fixed 1-D projection of the held-out samples, on which the histogram plug-in and the
// rigorous bound run. By data processing R_alpha(s(P)||s(P')) <= R_alpha(P||P') for any fixed
// s, so a poor score costs power, never validity. This is how d > 2 is audited.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rdpaudit/estimate/types.hpp"

namespace rdpaudit::estimate {

/// A learned score; larger means more typical of P than of P'.
class RatioModel {
 public:
  virtual ~RatioModel() = default;
  /// Estimated log p(x)/p'(x) at one point of dimension dim().
  virtual double score(const double* x) const = 0;
  virtual std::size_t dim() const = 0;
  virtual std::string name() const = 0;
  /// Scores of every row (parallel). Throws InternalError for a dimension mismatch.
  std::vector<double> scores(const SampleView& x) const;
};

struct LogisticOptions {
  enum class Features {
    kPolynomial,  ///< all monomials of the standardised coordinates up to `degree`
    kSpline,      ///< natural cubic splines per coordinate (linear beyond the outer knots:
                  ///< no turning back in the tails, where large orders live) + pairwise products
  };
  Features features = Features::kSpline;
  int degree = 2;                           ///< polynomial total degree
  int knots = 8;                            ///< spline knots per coordinate (pooled quantiles)
  double ridge = 1e-6;                      ///< L2 penalty on the non-constant coefficients
  std::size_t max_train_per_side = 200000;  ///< first rows of each side used for fitting (fewer
                                            ///< with many features: a 64 MB design matrix)
  int max_iterations = 50;                  ///< Newton steps
};

/// L2-penalised logistic regression of "P vs P'" with the two classes weighted equally, fitted
/// by Newton's method with a backtracking line search (Eigen). With equal class weights the
/// fitted logit estimates log p/p' itself.
std::unique_ptr<RatioModel> fit_logistic_ratio(const SampleView& p, const SampleView& q,
                                               const LogisticOptions& options = {});

struct KdeOptions {
  std::size_t grid = 0;           ///< grid points per axis; 0: 2048 in 1-D, 160 in 2-D
  double bandwidth_factor = 1.0;  ///< times Scott's rule sd * n^(-1/(d+4)) per axis
  std::size_t max_train_per_side = 2000000;
};

/// Binned kernel density ratio in 1-D or 2-D: both samples are binned (linear binning) on one
/// grid over the pooled range, smoothed with a Gaussian kernel, and the score is
/// log((f_P + e) / (f_P' + e)) with e the density of half a sample under one kernel (no
/// infinities, negligible where there are samples),
/// interpolated (multi-)linearly and held constant beyond the grid.
std::unique_ptr<RatioModel> fit_kde_ratio(const SampleView& p, const SampleView& q,
                                          const KdeOptions& options = {});

}  // namespace rdpaudit::estimate
