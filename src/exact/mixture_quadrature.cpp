#include "rdpaudit/exact/mixture_quadrature.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <string>

#include "rdpaudit/core/error.hpp"

namespace rdpaudit::exact::quadrature {

namespace {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// log sum_j exp(log_w_j - |x - u_j|^2 / (2 scale_j)).
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
    const auto jj = static_cast<std::size_t>(j);
    t[jj] = w.log_w[jj] - r2 * w.inv_two_scale[jj];
    mx = std::max(mx, t[jj]);
  }
  if (!std::isfinite(mx)) return kNegInf;
  // exp in double (each term <= 1, relative error 1e-16), summed in long double: the
  // long-double exp cost 55 % of a Rao-Blackwell run and bought nothing measurable.
  long double s = 0.0L;
  for (double v : t) s += std::exp(v - mx);
  return mx + static_cast<double>(std::log(s));
}

// Terms more than 75 below the largest are skipped (each < e^-75 of it: at most 1e-25 of the
// sum on grids of up to 1e7 points), so large orders, whose mass is a small part of the grid,
// cost little more than a pass of comparisons.
template <class Term>
GridSum grid_sum_of(const std::vector<Axis>& axes, Term term) {
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

Eigen::MatrixXd common_cholesky(const GaussianMixture& p, const GaussianMixture& q,
                                const ExactOptions& options) {
  p.check("exact.p");
  q.check("exact.q");
  if (p.dim != q.dim || p.dim > 2) {
    throw InternalError("exact.dim", std::to_string(p.dim) + " and " + std::to_string(q.dim),
                        "quadrature needs equal dimensions of 1 or 2");
  }
  for (std::size_t i = 0; i < p.covariance.size(); ++i) {
    const double scale = std::max(std::abs(p.covariance[i]), std::abs(q.covariance[i]));
    if (std::abs(p.covariance[i] - q.covariance[i]) > 1e-12 * std::max(scale, 1e-300)) {
      throw InternalError("exact.covariance", "P and P' differ",
                          "quadrature here needs one base covariance common to both (components "
                          "may scale it by their `scales`)");
    }
  }
  if (!(options.step > 0.0 && options.step <= 1.0)) {
    throw InternalError("exact.step", std::to_string(options.step), "must lie in (0, 1]");
  }
  const auto d = static_cast<Eigen::Index>(p.dim);
  const Eigen::MatrixXd cov = Eigen::Map<const Eigen::MatrixXd>(p.covariance.data(), d, d);
  return cov.llt().matrixL();
}

Whitened whiten(const GaussianMixture& m, const Eigen::MatrixXd& chol_l, std::size_t first,
                std::size_t count) {
  const auto d = static_cast<Eigen::Index>(m.dim);
  double total = 0.0;
  for (double w : m.weights) total += w;
  std::vector<std::size_t> keep;
  for (std::size_t j = first; j < first + count; ++j) {
    if (m.weights[j] > 0.0) keep.push_back(j);
  }
  Whitened out;
  out.u.resize(static_cast<Eigen::Index>(keep.size()), d);
  out.min_scale = kNegInf;
  out.max_scale = kNegInf;
  bool any = false;
  for (std::size_t r = 0; r < keep.size(); ++r) {
    const std::size_t j = keep[r];
    const double scale = m.scales.empty() ? 1.0 : m.scales[j];
    out.log_w.push_back(std::log(m.weights[j] / total) -
                        0.5 * static_cast<double>(m.dim) * std::log(scale));
    out.inv_two_scale.push_back(0.5 / scale);
    out.min_scale = any ? std::min(out.min_scale, scale) : scale;
    out.max_scale = any ? std::max(out.max_scale, scale) : scale;
    any = true;
    Eigen::Map<const Eigen::VectorXd> mean(m.means.data() + j * m.dim, d);
    out.u.row(static_cast<Eigen::Index>(r)) =
        chol_l.triangularView<Eigen::Lower>().solve(mean).transpose();
  }
  if (!any) out.min_scale = out.max_scale = 1.0;
  return out;
}

std::vector<Axis> grid_axes(const Whitened& p, const Whitened& q, double a_max,
                            const ExactOptions& options, int attempt, std::size_t& points) {
  const auto dim = static_cast<std::size_t>(p.u.cols());
  const double s_min = std::min(p.min_scale, q.min_scale);
  const double s_max = std::max(p.max_scale, q.max_scale);
  std::vector<Axis> axes(dim);
  points = 1;
  for (std::size_t c = 0; c < dim; ++c) {
    const auto cc = static_cast<Eigen::Index>(c);
    const double p_min = p.u.col(cc).minCoeff(), p_max = p.u.col(cc).maxCoeff();
    const double q_min = q.u.col(cc).minCoeff(), q_max = q.u.col(cc).maxCoeff();
    // Centres a m_i + (1-a) m'_j of the tilted law, both directions, a in (1, a_max].
    const double lo = std::min({p_min, q_min, a_max * p_min - (a_max - 1.0) * q_max,
                                a_max * q_min - (a_max - 1.0) * p_max});
    const double hi = std::max({p_max, q_max, a_max * p_max - (a_max - 1.0) * q_min,
                                a_max * q_max - (a_max - 1.0) * p_min});
    // The narrowest scale of p^a q^(1-a): the curvature of a log p - (a-1) log q is at most
    // (a/s_min - (a-1)/s_max) from the components' own widths (1 when all are equal) plus
    // a r^2/s_min^2 from the spread r of the means.
    const double rp = 0.5 * (p_max - p_min), rq = 0.5 * (q_max - q_min);
    const double curvature =
        1.0 + (a_max - 1.0) * (1.0 - s_min / s_max) + a_max * (rp * rp + rq * rq) / s_min;
    axes[c].step = options.step * std::sqrt(s_min) / std::sqrt(curvature);
    const double pad = 10.0 * std::pow(2.0, attempt) * std::sqrt(s_max);
    axes[c].lo = lo - pad;
    auto n = static_cast<std::size_t>(std::ceil((hi - lo + 2.0 * pad) / axes[c].step)) + 1;
    if (n % 2 == 0) ++n;
    axes[c].points = n;
    points *= n;
  }
  return axes;
}

std::vector<double> log_density_grid(const Whitened& w, const std::vector<Axis>& axes) {
  const std::size_t dim = axes.size();
  if (dim == 1) {
    std::vector<double> out(axes[0].points);
    // Threads only for work worth a parallel region (a busy machine makes idle threads
    // spin: small regions ran 4x slower with two threads than with one).
    const bool big = out.size() * w.log_w.size() > kParallelWork;
#pragma omp parallel for schedule(static) if (big)
    for (std::ptrdiff_t g = 0; g < static_cast<std::ptrdiff_t>(out.size()); ++g) {
      const double x = axes[0].at(static_cast<std::size_t>(g));
      out[static_cast<std::size_t>(g)] = log_density_direct(w, &x, 1);
    }
    return out;
  }
  // 2-D: exp(-|x-u|^2/(2 s)) factorises over the axes, so the density on the grid is the
  // matrix product EA * EB^T with EA(g, j) = w_j exp(-(x_g - u_j0)^2/(2 s_j) - a_g) and
  // EB(h, j) = exp(-(y_h - u_j1)^2/(2 s_j) - b_h), scaled per row by their maxima a_g, b_h.
  // Where the product underflows (every component far in one axis or the other), the point
  // is recomputed directly in the log domain.
  const auto k = static_cast<Eigen::Index>(w.log_w.size());
  const auto gx = static_cast<Eigen::Index>(axes[0].points),
             gy = static_cast<Eigen::Index>(axes[1].points);
  if (k == 0) return std::vector<double>(static_cast<std::size_t>(gx * gy), kNegInf);
  Eigen::MatrixXd ea(gx, k), eb(gy, k);
  Eigen::VectorXd ma(gx), mb(gy);
  for (Eigen::Index g = 0; g < gx; ++g) {
    const double x = axes[0].at(static_cast<std::size_t>(g));
    for (Eigen::Index j = 0; j < k; ++j) {
      const auto jj = static_cast<std::size_t>(j);
      ea(g, j) = w.log_w[jj] - (x - w.u(j, 0)) * (x - w.u(j, 0)) * w.inv_two_scale[jj];
    }
    ma(g) = ea.row(g).maxCoeff();
    ea.row(g) = (ea.row(g).array() - ma(g)).exp();
  }
  for (Eigen::Index h = 0; h < gy; ++h) {
    const double y = axes[1].at(static_cast<std::size_t>(h));
    for (Eigen::Index j = 0; j < k; ++j) {
      eb(h, j) = -(y - w.u(j, 1)) * (y - w.u(j, 1)) * w.inv_two_scale[static_cast<std::size_t>(j)];
    }
    mb(h) = eb.row(h).maxCoeff();
    eb.row(h) = (eb.row(h).array() - mb(h)).exp();
  }
  const RowMatrix s = ea * eb.transpose();
  std::vector<double> out(static_cast<std::size_t>(gx * gy));
#pragma omp parallel for schedule(static) if (out.size() > kParallelWork / 16)
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

GridSum grid_sum(const std::vector<Axis>& axes, const std::vector<double>& t) {
  return grid_sum_of(axes, [&](std::size_t g) { return t[g]; });
}

OrderValue renyi_on_grid(const std::vector<Axis>& axes, const std::vector<double>& la,
                         const std::vector<double>& lb, const GridSum& na, const GridSum& nb,
                         double a, const ExactOptions& options) {
  const GridSum fine =
      grid_sum_of(axes, [&](std::size_t g) { return a * la[g] + (1.0 - a) * lb[g]; });
  OrderValue out;
  out.value = (fine.log_sum - a * na.log_sum - (1.0 - a) * nb.log_sum) / (a - 1.0);
  const double coarse = (fine.log_sum2 - a * na.log_sum2 - (1.0 - a) * nb.log_sum2) / (a - 1.0);
  out.error = std::abs(out.value - coarse) + 1e-14 * (1.0 + std::abs(out.value));
  out.fits = !(fine.boundary > std::log(options.tail_tolerance));
  return out;
}

std::vector<estimate::Estimate> uninformative_all(const std::vector<double>& alphas,
                                                  const std::string& method,
                                                  const std::string& reason) {
  std::vector<estimate::Estimate> out;
  for (double a : alphas) {
    for (int dir : {estimate::kForward, estimate::kBackward})
      out.push_back(estimate::uninformative(a, dir, method, reason));
  }
  return out;
}

}  // namespace rdpaudit::exact::quadrature
