#include "rdpaudit/estimate/exact.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "rdpaudit/core/error.hpp"

namespace rdpaudit::estimate {

void GaussianMixture::check(const std::string& key) const {
  if (dim < 1) throw InputError(key + ".dim", "0", "must be >= 1");
  const std::size_t k = weights.size();
  if (k == 0) throw InputError(key + ".weights", "[]", "need at least one component");
  if (means.size() != k * dim) {
    throw InputError(key + ".means", std::to_string(means.size()) + " numbers",
                     "need components * dim = " + std::to_string(k * dim));
  }
  if (covariance.size() != dim * dim) {
    throw InputError(key + ".covariance", std::to_string(covariance.size()) + " numbers",
                     "need dim * dim = " + std::to_string(dim * dim));
  }
  double total = 0.0;
  for (std::size_t j = 0; j < k; ++j) {
    if (!(weights[j] >= 0.0) || !std::isfinite(weights[j])) {
      throw InputError(key + ".weights[" + std::to_string(j) + "]", std::to_string(weights[j]),
                       "must be finite and >= 0");
    }
    total += weights[j];
  }
  if (!(total > 0.0)) throw InputError(key + ".weights", "sum 0", "need a positive total weight");
  for (std::size_t i = 0; i < means.size(); ++i) {
    if (!std::isfinite(means[i])) {
      throw InputError(key + ".means[" + std::to_string(i) + "]", std::to_string(means[i]),
                       "must be finite");
    }
  }
  Eigen::Map<const Eigen::MatrixXd> c(covariance.data(), static_cast<Eigen::Index>(dim),
                                      static_cast<Eigen::Index>(dim));
  if (!c.allFinite() ||
      (c - c.transpose()).cwiseAbs().maxCoeff() > 1e-12 * c.cwiseAbs().maxCoeff()) {
    throw InputError(key + ".covariance", "not symmetric", "must be a finite symmetric matrix");
  }
  Eigen::LLT<Eigen::MatrixXd> llt(c);
  if (llt.info() != Eigen::Success) {
    throw InputError(key + ".covariance", "not positive definite", "must be positive definite");
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

namespace {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// Components in whitened coordinates (identity covariance), with log weights; zero-weight
// components dropped.
struct Whitened {
  std::vector<double> log_w;
  Eigen::MatrixXd u;  // components x dim
};

Whitened whiten(const GaussianMixture& m, const Eigen::MatrixXd& chol_l) {
  const auto d = static_cast<Eigen::Index>(m.dim);
  double total = 0.0;
  for (double w : m.weights) total += w;
  std::vector<std::size_t> keep;
  for (std::size_t j = 0; j < m.components(); ++j) {
    if (m.weights[j] > 0.0) keep.push_back(j);
  }
  Whitened out;
  out.u.resize(static_cast<Eigen::Index>(keep.size()), d);
  for (std::size_t r = 0; r < keep.size(); ++r) {
    const std::size_t j = keep[r];
    out.log_w.push_back(std::log(m.weights[j] / total));
    Eigen::Map<const Eigen::VectorXd> mean(m.means.data() + j * m.dim, d);
    out.u.row(static_cast<Eigen::Index>(r)) =
        chol_l.triangularView<Eigen::Lower>().solve(mean).transpose();
  }
  return out;
}

struct Axis {
  double lo = 0.0, step = 1.0;
  std::size_t points = 1;  // odd, so the grid of twice the step shares both ends
  double at(std::size_t i) const { return lo + step * static_cast<double>(i); }
};

// log sum_j exp(log_w_j - |x - u_j|^2 / 2) (the common constant of N(0, I) is dropped: it
// cancels in R_alpha).
double log_density_direct(const Whitened& w, const double* x, std::size_t dim) {
  const auto k = static_cast<Eigen::Index>(w.log_w.size());
  double mx = kNegInf;
  std::vector<double> t(static_cast<std::size_t>(k));
  for (Eigen::Index j = 0; j < k; ++j) {
    double r2 = 0.0;
    for (std::size_t c = 0; c < dim; ++c) {
      const double dlt = x[c] - w.u(j, static_cast<Eigen::Index>(c));
      r2 += dlt * dlt;
    }
    t[static_cast<std::size_t>(j)] = w.log_w[static_cast<std::size_t>(j)] - 0.5 * r2;
    mx = std::max(mx, t[static_cast<std::size_t>(j)]);
  }
  long double s = 0.0L;
  for (double v : t) s += std::exp(static_cast<long double>(v - mx));
  return mx + static_cast<double>(std::log(s));
}

// Log density on the grid (row-major over the axes).
std::vector<double> log_density_grid(const Whitened& w, const std::vector<Axis>& axes) {
  const std::size_t dim = axes.size();
  if (dim == 1) {
    std::vector<double> out(axes[0].points);
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t g = 0; g < static_cast<std::ptrdiff_t>(out.size()); ++g) {
      const double x = axes[0].at(static_cast<std::size_t>(g));
      out[static_cast<std::size_t>(g)] = log_density_direct(w, &x, 1);
    }
    return out;
  }
  // 2-D: exp(-|x-u|^2/2) factorises over the axes, so the density on the grid is the matrix
  // product EA * EB^T with EA(g, j) = w_j exp(-(x_g - u_j0)^2/2 - a_g) and
  // EB(h, j) = exp(-(y_h - u_j1)^2/2 - b_h), scaled per row by their maxima a_g, b_h.
  // Where the product underflows (every component far in one axis or the other), the point
  // is recomputed directly in the log domain.
  const auto k = static_cast<Eigen::Index>(w.log_w.size());
  const auto gx = static_cast<Eigen::Index>(axes[0].points),
             gy = static_cast<Eigen::Index>(axes[1].points);
  Eigen::MatrixXd ea(gx, k), eb(gy, k);
  Eigen::VectorXd ma(gx), mb(gy);
  for (Eigen::Index g = 0; g < gx; ++g) {
    const double x = axes[0].at(static_cast<std::size_t>(g));
    for (Eigen::Index j = 0; j < k; ++j) {
      ea(g, j) = w.log_w[static_cast<std::size_t>(j)] - 0.5 * (x - w.u(j, 0)) * (x - w.u(j, 0));
    }
    ma(g) = ea.row(g).maxCoeff();
    ea.row(g) = (ea.row(g).array() - ma(g)).exp();
  }
  for (Eigen::Index h = 0; h < gy; ++h) {
    const double y = axes[1].at(static_cast<std::size_t>(h));
    for (Eigen::Index j = 0; j < k; ++j) eb(h, j) = -0.5 * (y - w.u(j, 1)) * (y - w.u(j, 1));
    mb(h) = eb.row(h).maxCoeff();
    eb.row(h) = (eb.row(h).array() - mb(h)).exp();
  }
  const RowMatrix s = ea * eb.transpose();
  std::vector<double> out(static_cast<std::size_t>(gx * gy));
#pragma omp parallel for schedule(static)
  for (Eigen::Index g = 0; g < gx; ++g) {
    for (Eigen::Index h = 0; h < gy; ++h) {
      const double v = s(g, h);
      double ld;
      if (v > 1e-250) {
        ld = ma(g) + mb(h) + std::log(v);
      } else {
        const double x[2] = {axes[0].at(static_cast<std::size_t>(g)),
                             axes[1].at(static_cast<std::size_t>(h))};
        ld = log_density_direct(w, x, 2);
      }
      out[static_cast<std::size_t>(g * gy + h)] = ld;
    }
  }
  return out;
}

// log of the trapezoidal sums of exp(t) over the grid and over the grid of twice the step
// (every other point along each axis), with the largest boundary term relative to the total.
// Terms more than 75 below the largest are skipped (each < e^-75 of it: at most 1e-25 of the
// sum on grids of up to 1e7 points), so large orders, whose mass is a small part of the grid,
// cost little more than a pass of comparisons.
struct GridSum {
  double log_sum = kNegInf;   // all points
  double log_sum2 = kNegInf;  // every other point
  double boundary = kNegInf;  // log(max boundary term / total)
};

template <class Term>
GridSum grid_sum(const std::vector<Axis>& axes, Term term) {
  const std::size_t nx = axes[0].points, ny = axes.size() == 2 ? axes[1].points : 1;
  double mx = kNegInf, mb = kNegInf;
  for (std::size_t i = 0; i < nx; ++i) {
    const bool edge_row = i == 0 || i + 1 == nx;
    for (std::size_t j = 0; j < ny; ++j) {
      const double t = term(i * ny + j);
      mx = std::max(mx, t);
      if (edge_row || (ny > 1 && (j == 0 || j + 1 == ny))) mb = std::max(mb, t);
    }
  }
  GridSum out;
  if (!std::isfinite(mx)) return out;
  const double cut = mx - 75.0;
  long double s = 0.0L, s2 = 0.0L;
  for (std::size_t i = 0; i < nx; ++i) {
    for (std::size_t j = 0; j < ny; ++j) {
      const double t = term(i * ny + j);
      if (t < cut) continue;
      const double v = std::exp(t - mx);
      s += v;
      if (i % 2 == 0 && j % 2 == 0) s2 += v;
    }
  }
  out.log_sum = mx + static_cast<double>(std::log(s));
  out.log_sum2 = mx + static_cast<double>(std::log(s2));
  out.boundary = mb - out.log_sum;
  return out;
}

}  // namespace

std::vector<Estimate> exact_renyi(const GaussianMixture& p, const GaussianMixture& q,
                                  const std::vector<double>& alphas, const ExactOptions& options,
                                  const std::string& method) {
  p.check("exact.p");
  q.check("exact.q");
  check_alphas(alphas, "exact.alphas");
  if (p.dim != q.dim || p.dim > 2) {
    throw InputError("exact.dim", std::to_string(p.dim) + " and " + std::to_string(q.dim),
                     "quadrature needs equal dimensions of 1 or 2");
  }
  const std::size_t dim = p.dim;
  for (std::size_t i = 0; i < p.covariance.size(); ++i) {
    const double scale = std::max(std::abs(p.covariance[i]), std::abs(q.covariance[i]));
    if (std::abs(p.covariance[i] - q.covariance[i]) > 1e-12 * std::max(scale, 1e-300)) {
      throw InputError("exact.covariance", "P and P' differ",
                       "quadrature here needs one covariance common to all components of both");
    }
  }
  if (!(options.step > 0.0 && options.step <= 1.0)) {
    throw InputError("exact.step", std::to_string(options.step), "must lie in (0, 1]");
  }
  const auto d = static_cast<Eigen::Index>(dim);
  const Eigen::MatrixXd cov = Eigen::Map<const Eigen::MatrixXd>(p.covariance.data(), d, d);
  const Eigen::MatrixXd chol_l = cov.llt().matrixL();
  const Whitened wp = whiten(p, chol_l), wq = whiten(q, chol_l);
  const double a_max = *std::max_element(alphas.begin(), alphas.end());

  std::vector<Axis> axes(dim);
  std::vector<double> lo(dim), hi(dim);
  std::size_t total_points = 1;
  for (std::size_t c = 0; c < dim; ++c) {
    const auto cc = static_cast<Eigen::Index>(c);
    const double p_min = wp.u.col(cc).minCoeff(), p_max = wp.u.col(cc).maxCoeff();
    const double q_min = wq.u.col(cc).minCoeff(), q_max = wq.u.col(cc).maxCoeff();
    // Centres a m_i + (1-a) m'_j of the tilted law, both directions, a in (1, a_max].
    lo[c] = std::min({p_min, q_min, a_max * p_min - (a_max - 1.0) * q_max,
                      a_max * q_min - (a_max - 1.0) * p_max});
    hi[c] = std::max({p_max, q_max, a_max * p_max - (a_max - 1.0) * q_min,
                      a_max * q_max - (a_max - 1.0) * p_min});
    const double rp = 0.5 * (p_max - p_min), rq = 0.5 * (q_max - q_min);
    axes[c].step = options.step / std::sqrt(1.0 + a_max * (rp * rp + rq * rq));
  }

  std::vector<Estimate> out;
  std::vector<double> lp, lq;
  std::vector<char> tail_bad;
  for (int attempt = 0; attempt < 5; ++attempt) {
    const double pad = 10.0 * std::pow(2.0, attempt);
    total_points = 1;
    for (std::size_t c = 0; c < dim; ++c) {
      axes[c].lo = lo[c] - pad;
      auto n = static_cast<std::size_t>(std::ceil((hi[c] - lo[c] + 2.0 * pad) / axes[c].step)) + 1;
      if (n % 2 == 0) ++n;
      axes[c].points = n;
      total_points *= n;
    }
    if (total_points > options.max_points) {
      out.clear();
      for (double a : alphas) {
        for (int dir : {kForward, kBackward}) {
          out.push_back(uninformative(
              a, dir, method,
              "the quadrature grid would need " + std::to_string(total_points) +
                  " points (max_points = " + std::to_string(options.max_points) + ")"));
        }
      }
      return out;
    }
    lp = log_density_grid(wp, axes);
    lq = log_density_grid(wq, axes);
    out.assign(alphas.size() * 2, Estimate{});
    tail_bad.assign(out.size(), 0);
    const GridSum np = grid_sum(axes, [&](std::size_t g) { return lp[g]; });
    const GridSum nq = grid_sum(axes, [&](std::size_t g) { return lq[g]; });
#pragma omp parallel for schedule(dynamic)
    for (std::ptrdiff_t k = 0; k < static_cast<std::ptrdiff_t>(out.size()); ++k) {
      const double a = alphas[static_cast<std::size_t>(k) / 2];
      const int dir = static_cast<int>(k % 2);
      const std::vector<double>& la = dir == kForward ? lp : lq;
      const std::vector<double>& lb = dir == kForward ? lq : lp;
      const GridSum& na = dir == kForward ? np : nq;
      const GridSum& nb = dir == kForward ? nq : np;
      auto term = [&](std::size_t g) { return a * la[g] + (1.0 - a) * lb[g]; };
      const GridSum fine = grid_sum(axes, term);
      const double r = (fine.log_sum - a * na.log_sum - (1.0 - a) * nb.log_sum) / (a - 1.0);
      const double r2 = (fine.log_sum2 - a * na.log_sum2 - (1.0 - a) * nb.log_sum2) / (a - 1.0);
      const double err = std::abs(r - r2) + 1e-14 * (1.0 + std::abs(r));
      if (fine.boundary > std::log(options.tail_tolerance))
        tail_bad[static_cast<std::size_t>(k)] = 1;
      Estimate& e = out[static_cast<std::size_t>(k)];
      e.alpha = a;
      e.direction = dir;
      e.method = method;
      e.value = std::max(r, 0.0);
      e.lower = std::max(r - err, 0.0);
      e.upper = std::max(r, 0.0) + err;
      e.interval = "numerical error bracket of the quadrature";
      e.informative = std::isfinite(r);
      if (!e.informative)
        e = uninformative(a, dir, method, "quadrature produced a non-finite value");
    }
    if (std::find(tail_bad.begin(), tail_bad.end(), 1) == tail_bad.end()) return out;
  }
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (tail_bad[k]) {
      out[k] = uninformative(
          out[k].alpha, out[k].direction, method,
          "the tilted mass did not fit in the quadrature grid after widening it 4 times");
    }
  }
  return out;
}

}  // namespace rdpaudit::estimate
