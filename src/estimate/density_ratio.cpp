#include "rdpaudit/estimate/density_ratio.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <string>

#include "rdpaudit/core/error.hpp"
#include "rdpaudit/estimate/numeric.hpp"

namespace rdpaudit::estimate {

std::vector<double> RatioModel::scores(const SampleView& x) const {
  if (x.dim != dim()) {
    throw InternalError("scores.dim", std::to_string(x.dim),
                        "the model was fitted in " + std::to_string(dim()) + " dimensions");
  }
  std::vector<double> out(x.rows);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(x.rows); ++i) {
    out[static_cast<std::size_t>(i)] = score(x.row(static_cast<std::size_t>(i)));
  }
  return out;
}

namespace {

void check_pair(const SampleView& p, const SampleView& q, const char* who) {
  if (p.rows < 2 || q.rows < 2 || p.dim != q.dim || p.dim < 1) {
    throw InternalError(std::string(who) + ".samples",
                        std::to_string(p.rows) + " x " + std::to_string(p.dim) + " and " +
                            std::to_string(q.rows) + " x " + std::to_string(q.dim),
                        "need at least 2 samples of each side, of one dimension >= 1");
  }
}

// ---- features ---------------------------------------------------------------------------

class FeatureMap {
 public:
  FeatureMap(const SampleView& p, const SampleView& q, std::size_t np, std::size_t nq,
             const LogisticOptions& o)
      : dim_(p.dim), opt_(o) {
    mean_.assign(dim_, 0.0);
    sd_.assign(dim_, 0.0);
    for (std::size_t c = 0; c < dim_; ++c) {
      std::vector<double> v;
      v.reserve(np + nq);
      for (std::size_t i = 0; i < np; ++i) v.push_back(p.row(i)[c]);
      for (std::size_t i = 0; i < nq; ++i) v.push_back(q.row(i)[c]);
      long double m = 0.0L, m2 = 0.0L;
      for (double x : v) m += x;
      m /= static_cast<long double>(v.size());
      for (double x : v) m2 += (x - m) * (x - m);
      mean_[c] = static_cast<double>(m);
      sd_[c] =
          std::max(static_cast<double>(std::sqrt(m2 / static_cast<long double>(v.size()))), 1e-300);
      if (o.features == LogisticOptions::Features::kSpline) {
        std::sort(v.begin(), v.end());
        std::vector<double> k;
        for (int j = 0; j < o.knots; ++j) {
          // knots at quantiles 0.5/K .. 1-0.5/K, standardised
          const double level = (j + 0.5) / o.knots;
          k.push_back((sorted_quantile(v, level) - mean_[c]) / sd_[c]);
        }
        k.erase(std::unique(k.begin(), k.end()), k.end());
        knots_.push_back(k);
      }
    }
    if (o.features == LogisticOptions::Features::kPolynomial) {
      // exponent vectors with total degree <= degree
      std::vector<int> e(dim_, 0);
      enumerate(0, o.degree, e);
    }
  }

  std::size_t size() const {
    if (opt_.features == LogisticOptions::Features::kPolynomial) return exponents_.size();
    std::size_t n = 1;
    for (const auto& k : knots_) n += 1 + (k.size() >= 3 ? k.size() - 2 : 0);
    return n + dim_ * (dim_ - 1) / 2;
  }

  void eval(const double* x, double* out) const {
    constexpr std::size_t kStack = 16;
    double z_stack[kStack];
    std::vector<double> z_heap(dim_ > kStack ? dim_ : 0);
    double* z = dim_ > kStack ? z_heap.data() : z_stack;
    for (std::size_t c = 0; c < dim_; ++c) z[c] = (x[c] - mean_[c]) / sd_[c];
    std::size_t f = 0;
    if (opt_.features == LogisticOptions::Features::kPolynomial) {
      for (const auto& e : exponents_) {
        double v = 1.0;
        for (std::size_t c = 0; c < dim_; ++c) {
          for (int t = 0; t < e[c]; ++t) v *= z[c];
        }
        out[f++] = v;
      }
      return;
    }
    out[f++] = 1.0;
    for (std::size_t c = 0; c < dim_; ++c) {
      out[f++] = z[c];
      const auto& k = knots_[c];
      if (k.size() < 3) continue;
      // Natural cubic spline basis (Hastie, Tibshirani & Friedman, ESL eq. 5.4-5.5):
      // N_{j+2} = d_j - d_{K-1}, d_j(x) = ((x - k_j)_+^3 - (x - k_K)_+^3) / (k_K - k_j).
      const std::size_t kk = k.size();
      auto dfun = [&](std::size_t j) {
        auto cube = [](double v) { return v > 0.0 ? v * v * v : 0.0; };
        return (cube(z[c] - k[j]) - cube(z[c] - k[kk - 1])) / (k[kk - 1] - k[j]);
      };
      const double last = dfun(kk - 2);
      for (std::size_t j = 0; j + 2 < kk; ++j) out[f++] = dfun(j) - last;
    }
    for (std::size_t a = 0; a < dim_; ++a) {
      for (std::size_t b = a + 1; b < dim_; ++b) out[f++] = z[a] * z[b];
    }
  }

 private:
  void enumerate(std::size_t c, int left, std::vector<int>& e) {
    if (c == dim_) {
      exponents_.push_back(e);
      return;
    }
    for (int t = 0; t <= left; ++t) {
      e[c] = t;
      enumerate(c + 1, left - t, e);
    }
    e[c] = 0;
  }

  std::size_t dim_;
  LogisticOptions opt_;
  std::vector<double> mean_, sd_;
  std::vector<std::vector<double>> knots_;
  std::vector<std::vector<int>> exponents_;
};

class LogisticRatio : public RatioModel {
 public:
  LogisticRatio(FeatureMap f, Eigen::VectorXd beta, std::size_t dim, std::string name)
      : features_(std::move(f)), beta_(std::move(beta)), dim_(dim), name_(std::move(name)) {}
  double score(const double* x) const override {
    constexpr Eigen::Index kStack = 64;
    double phi_stack[kStack];
    std::vector<double> phi_heap(beta_.size() > kStack ? static_cast<std::size_t>(beta_.size())
                                                       : 0);
    double* phi = beta_.size() > kStack ? phi_heap.data() : phi_stack;
    features_.eval(x, phi);
    double s = 0.0;
    for (Eigen::Index f = 0; f < beta_.size(); ++f) s += phi[f] * beta_(f);
    return s;
  }
  std::size_t dim() const override { return dim_; }
  std::string name() const override { return name_; }

 private:
  FeatureMap features_;
  Eigen::VectorXd beta_;
  std::size_t dim_;
  std::string name_;
};

double log1p_exp(double t) {
  return t > 0 ? t + std::log1p(std::exp(-t)) : std::log1p(std::exp(t));
}

}  // namespace

std::unique_ptr<RatioModel> fit_logistic_ratio(const SampleView& p, const SampleView& q,
                                               const LogisticOptions& o) {
  check_pair(p, q, "logistic");
  if (o.degree < 1 || o.knots < 0 || o.max_iterations < 1 || !(o.ridge >= 0.0)) {
    throw InternalError("logistic",
                        "degree " + std::to_string(o.degree) + ", knots " + std::to_string(o.knots),
                        "need degree >= 1, knots >= 0, max_iterations >= 1, ridge >= 0");
  }
  std::size_t np = std::min(p.rows, o.max_train_per_side);
  std::size_t nq = std::min(q.rows, o.max_train_per_side);
  FeatureMap fm(p, q, np, nq, o);
  const auto nf = static_cast<Eigen::Index>(fm.size());
  // The design matrix is rows x features doubles: at most kDesignDoubles (64 MB), so that the
  // selection phase stays O(pilot) in memory at d = 8 too (spline features and their pairwise
  // products: ~85 features there; d <= 2 keeps every row up to max_train_per_side).
  constexpr std::size_t kDesignDoubles = 8'000'000;
  const std::size_t cap = std::max<std::size_t>(20000, kDesignDoubles / (2 * fm.size()));
  np = std::min(np, cap);
  nq = std::min(nq, cap);
  const auto n = static_cast<Eigen::Index>(np + nq);
  Eigen::MatrixXd x(n, nf);
  Eigen::VectorXd y(n), w(n);
  std::vector<double> phi(static_cast<std::size_t>(nf));
  for (Eigen::Index i = 0; i < n; ++i) {
    const bool is_p = static_cast<std::size_t>(i) < np;
    const double* row =
        is_p ? p.row(static_cast<std::size_t>(i)) : q.row(static_cast<std::size_t>(i) - np);
    fm.eval(row, phi.data());
    for (Eigen::Index f = 0; f < nf; ++f) x(i, f) = phi[static_cast<std::size_t>(f)];
    y(i) = is_p ? 1.0 : 0.0;
    w(i) = is_p ? 0.5 / static_cast<double>(np) : 0.5 / static_cast<double>(nq);
  }
  Eigen::VectorXd pen = Eigen::VectorXd::Constant(nf, o.ridge);
  pen(0) = 0.0;  // the constant feature (first in both maps) is not penalised
  auto objective = [&](const Eigen::VectorXd& b) {
    const Eigen::VectorXd t = x * b;
    double s = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) s += w(i) * (log1p_exp(t(i)) - y(i) * t(i));
    return s + 0.5 * b.dot(pen.asDiagonal() * b);
  };
  Eigen::VectorXd beta = Eigen::VectorXd::Zero(nf);
  double f_old = objective(beta);
  for (int it = 0; it < o.max_iterations; ++it) {
    const Eigen::VectorXd t = x * beta;
    Eigen::VectorXd r(n), h(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      const double s = 1.0 / (1.0 + std::exp(-t(i)));
      r(i) = w(i) * (s - y(i));
      h(i) = w(i) * s * (1.0 - s);
    }
    const Eigen::VectorXd grad = x.transpose() * r + pen.asDiagonal() * beta;
    // X^T diag(h) X as a symmetric rank update of sqrt(h) X (h >= 0): far faster than a
    // general product for a tall, thin X.
    const Eigen::MatrixXd xs = x.array().colwise() * h.array().sqrt();
    Eigen::MatrixXd hess = Eigen::MatrixXd::Zero(nf, nf);
    hess.selfadjointView<Eigen::Lower>().rankUpdate(xs.transpose());
    hess = hess.selfadjointView<Eigen::Lower>();
    hess.diagonal() += pen + Eigen::VectorXd::Constant(nf, 1e-12);
    const Eigen::VectorXd step = hess.ldlt().solve(grad);
    // Newton decrement: the objective (about log 2 at the start) can fall by at most about
    // grad . step / 2 more; stop when that is negligible.
    const double decrement = grad.dot(step);
    if (!(decrement > 1e-13)) break;
    double scale = 1.0, f_new = f_old;
    Eigen::VectorXd trial = beta;
    for (int ls = 0; ls < 30; ++ls) {
      trial = beta - scale * step;
      f_new = objective(trial);
      if (f_new <= f_old - 1e-4 * scale * decrement) break;
      scale *= 0.5;
    }
    if (!(f_new < f_old)) break;
    beta = trial;
    f_old = f_new;
  }
  const std::string name = o.features == LogisticOptions::Features::kSpline
                               ? "logistic-spline"
                               : "logistic-poly" + std::to_string(o.degree);
  return std::make_unique<LogisticRatio>(std::move(fm), std::move(beta), p.dim, name);
}

namespace {

class KdeRatio : public RatioModel {
 public:
  KdeRatio(std::vector<double> lo, std::vector<double> step, std::vector<std::size_t> n,
           std::vector<double> log_ratio)
      : lo_(std::move(lo)), step_(std::move(step)), n_(std::move(n)), lr_(std::move(log_ratio)) {}
  double score(const double* x) const override {
    // (multi-)linear interpolation, clamped at the grid
    std::size_t i0[2] = {0, 0};
    double fr[2] = {0.0, 0.0};
    for (std::size_t c = 0; c < n_.size(); ++c) {
      const double u = std::clamp((x[c] - lo_[c]) / step_[c], 0.0, static_cast<double>(n_[c] - 1));
      i0[c] = std::min(static_cast<std::size_t>(u), n_[c] - 2);
      fr[c] = u - static_cast<double>(i0[c]);
    }
    if (n_.size() == 1) return (1.0 - fr[0]) * lr_[i0[0]] + fr[0] * lr_[i0[0] + 1];
    const std::size_t ny = n_[1];
    auto at = [&](std::size_t i, std::size_t j) { return lr_[i * ny + j]; };
    return (1.0 - fr[0]) * ((1.0 - fr[1]) * at(i0[0], i0[1]) + fr[1] * at(i0[0], i0[1] + 1)) +
           fr[0] * ((1.0 - fr[1]) * at(i0[0] + 1, i0[1]) + fr[1] * at(i0[0] + 1, i0[1] + 1));
  }
  std::size_t dim() const override { return n_.size(); }
  std::string name() const override { return "kde"; }

 private:
  std::vector<double> lo_, step_;
  std::vector<std::size_t> n_;
  std::vector<double> lr_;
};

}  // namespace

std::unique_ptr<RatioModel> fit_kde_ratio(const SampleView& p, const SampleView& q,
                                          const KdeOptions& o) {
  check_pair(p, q, "kde");
  if (p.dim > 2)
    throw InternalError("kde.dim", std::to_string(p.dim),
                        "the binned KDE ratio is for 1-D and 2-D");
  if (!(o.bandwidth_factor > 0.0)) {
    throw InternalError("kde.bandwidth_factor", std::to_string(o.bandwidth_factor), "must be > 0");
  }
  const std::size_t dim = p.dim;
  const std::size_t g = o.grid > 0 ? o.grid : (dim == 1 ? 2048 : 160);
  if (g < 4) throw InternalError("kde.grid", std::to_string(g), "must be >= 4");
  const std::size_t np = std::min(p.rows, o.max_train_per_side),
                    nq = std::min(q.rows, o.max_train_per_side);
  std::vector<double> lo(dim), step(dim), h(dim);
  std::vector<std::size_t> n(dim, g);
  for (std::size_t c = 0; c < dim; ++c) {
    double mn = p.row(0)[c], mx = mn;
    long double s = 0.0L, s2 = 0.0L;
    auto visit = [&](const SampleView& v, std::size_t rows) {
      for (std::size_t i = 0; i < rows; ++i) {
        const double x = v.row(i)[c];
        mn = std::min(mn, x);
        mx = std::max(mx, x);
        s += x;
        s2 += static_cast<long double>(x) * x;
      }
    };
    visit(p, np);
    visit(q, nq);
    const double tot = static_cast<double>(np + nq);
    const double sd =
        std::sqrt(std::max(0.0, static_cast<double>(s2 / tot - (s / tot) * (s / tot))));
    h[c] = o.bandwidth_factor * std::max(sd, 1e-300) *
           std::pow(tot / 2.0, -1.0 / (static_cast<double>(dim) + 4.0));
    lo[c] = mn - 3.0 * h[c];
    step[c] = (mx + 3.0 * h[c] - lo[c]) / static_cast<double>(g - 1);
  }
  const std::size_t ny = dim == 2 ? g : 1;
  auto binned = [&](const SampleView& v, std::size_t rows) {
    std::vector<double> grid(g * ny, 0.0);
    for (std::size_t i = 0; i < rows; ++i) {
      std::size_t i0[2] = {0, 0};
      double fr[2] = {0.0, 0.0};
      for (std::size_t c = 0; c < dim; ++c) {
        const double u =
            std::clamp((v.row(i)[c] - lo[c]) / step[c], 0.0, static_cast<double>(g - 1));
        i0[c] = std::min(static_cast<std::size_t>(u), g - 2);
        fr[c] = u - static_cast<double>(i0[c]);
      }
      if (dim == 1) {
        grid[i0[0]] += 1.0 - fr[0];
        grid[i0[0] + 1] += fr[0];
      } else {
        grid[i0[0] * ny + i0[1]] += (1.0 - fr[0]) * (1.0 - fr[1]);
        grid[i0[0] * ny + i0[1] + 1] += (1.0 - fr[0]) * fr[1];
        grid[(i0[0] + 1) * ny + i0[1]] += fr[0] * (1.0 - fr[1]);
        grid[(i0[0] + 1) * ny + i0[1] + 1] += fr[0] * fr[1];
      }
    }
    gaussian_smooth(grid, g, ny, h[0] / step[0], dim == 2 ? h[1] / step[1] : 0.0);
    return grid;
  };
  const std::vector<double> fp = binned(p, np), fq = binned(q, nq);
  // Floor: half a sample spread over one kernel (its peak height times a grid cell), so the
  // log never sees 0 far out. Half a sample per grid *cell* would bias the tails: at 2.5 sd
  // with 2e5 samples and 2048 cells a cell holds ~4 smoothed samples, and +0.5 moved the
  // log-ratio by +0.08.
  constexpr double kSqrtTwoPi = 2.5066282746310002;
  double floor_count = 0.5;
  for (std::size_t c = 0; c < dim; ++c) floor_count *= step[c] / (kSqrtTwoPi * h[c]);
  std::vector<double> lr(fp.size());
  for (std::size_t i = 0; i < lr.size(); ++i) {
    lr[i] = std::log((fp[i] + floor_count) / static_cast<double>(np)) -
            std::log((fq[i] + floor_count) / static_cast<double>(nq));
  }
  return std::make_unique<KdeRatio>(lo, step, n, lr);
}

}  // namespace rdpaudit::estimate
