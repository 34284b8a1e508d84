#include "rdpaudit/tally/tally.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace rdpaudit::tally {

void MomentSums::add(const double* theta, const Eigen::VectorXd& shift) {
  // Called once per trajectory: no heap allocation (d <= kMaxDim = 8).
  constexpr Eigen::Index kMax = 8;  // the simulator's largest dimension
  const auto d = shift.size();
  if (d > kMax) throw std::logic_error("MomentSums: dimension above 8");
  double c[kMax];
  for (Eigen::Index k = 0; k < d; ++k) c[k] = theta[k] - shift(k);
  ++count;
  std::size_t o = 0;
  for (Eigen::Index i = 0; i < d; ++i) {
    sum[static_cast<std::size_t>(i)].add(c[i]);
    for (Eigen::Index j = i; j < d; ++j) outer[o++].add(c[i] * c[j]);
  }
}

void MomentSums::merge(const MomentSums& other) {
  if (other.dim != dim) throw std::logic_error("MomentSums::merge: dimension");
  count += other.count;
  for (std::size_t i = 0; i < sum.size(); ++i) sum[i].merge(other.sum[i]);
  for (std::size_t i = 0; i < outer.size(); ++i) outer[i].merge(other.outer[i]);
}

Eigen::VectorXd MomentSums::sum_value() const {
  Eigen::VectorXd v(dim);
  for (int i = 0; i < dim; ++i) v(i) = sum[static_cast<std::size_t>(i)].value();
  return v;
}

Eigen::MatrixXd MomentSums::outer_value() const {
  Eigen::MatrixXd m(dim, dim);
  std::size_t o = 0;
  for (int i = 0; i < dim; ++i) {
    for (int j = i; j < dim; ++j) m(i, j) = m(j, i) = outer[o++].value();
  }
  return m;
}

Tally::Tally(const Binning& b, std::int64_t raw_capacity)
    : binning(b),
      coordinate(b.coordinate),
      scores(b.scores),
      projection(b.projection),
      joint(b.joint),
      moments(b.dim),
      raw_cap(raw_capacity) {}

void Tally::add_to_histograms(const double* theta) {
  const int d = binning.dim;
  for (int k = 0; k < d; ++k) ++coordinate[k].counts[coordinate[k].index.cell(theta[k])];
  for (auto& s : scores) s.add(theta);
  if (d > 1) {
    projection.add(theta);
    joint.add(theta);
  }
}

void Tally::merge_histograms(const Tally& other) {
  for (std::size_t k = 0; k < coordinate.size(); ++k) coordinate[k].merge(other.coordinate[k]);
  for (std::size_t k = 0; k < scores.size(); ++k) scores[k].merge(other.scores[k]);
  if (binning.dim > 1) {
    projection.merge(other.projection);
    joint.merge(other.joint);
  }
}

void Tally::append(const Tally& other) {
  merge_histograms(other);
  moments.merge(other.moments);
  if (other.raw_cap > 0) {
    if (raw_cap > 0 && other.raw_first != raw_first + raw_cap)
      throw std::logic_error("Tally::append: raw rows not contiguous");
    if (raw_cap == 0) raw_first = other.raw_first;
    raw.insert(raw.end(), other.raw.begin(), other.raw.end());
    raw_cap += other.raw_cap;
  }
}

Eigen::VectorXd Tally::mean() const {
  return binning.shift + moments.sum_value() / static_cast<double>(moments.count);
}

Eigen::MatrixXd Tally::covariance() const {
  const double m = static_cast<double>(moments.count);
  const Eigen::VectorXd mu = moments.sum_value() / m;
  return (moments.outer_value() - m * mu * mu.transpose()) / (m - 1.0);
}

namespace {

// The pooled range of the pilot samples widened by `margin` of its width on each side, at
// least 1e-6 of its magnitude wide (all pilot samples equal, or nearly: the bins must stay
// distinct doubles).
std::pair<double, double> widened(double lo, double hi, double margin) {
  const double width = std::max(hi - lo, 1e-6 * std::max({1.0, std::fabs(lo), std::fabs(hi)}));
  return {lo - margin * width, hi + margin * width};
}

std::vector<double> pooled_edges(const Eigen::VectorXd& a, const Eigen::VectorXd& b, int bins,
                                 double margin) {
  const auto [lo, hi] =
      widened(std::min(a.minCoeff(), b.minCoeff()), std::max(a.maxCoeff(), b.maxCoeff()), margin);
  return uniform_edges(lo, hi, bins);
}

ScoreCells projection_cells(const Eigen::VectorXd& direction, std::vector<double> edges) {
  return ScoreCells(
      "projection",
      [u = direction](const double* t) {
        double z = 0;
        for (Eigen::Index k = 0; k < u.size(); ++k) z += u(k) * t[k];
        return z;
      },
      std::move(edges));
}

Binning common(const Eigen::MatrixXd& pd, const Eigen::MatrixXd& pp, int bins, double margin) {
  Binning b;
  b.dim = static_cast<int>(pd.cols());
  const Eigen::VectorXd md = pd.colwise().mean().transpose();
  const Eigen::VectorXd mp = pp.colwise().mean().transpose();
  b.shift = 0.5 * (md + mp);
  b.direction = mp - md;
  if (!(b.direction.norm() > 0)) {
    b.direction = Eigen::VectorXd::Zero(b.dim);
    b.direction(0) = 1.0;
  }
  b.direction.normalize();
  if (b.dim > 1)
    b.projection = projection_cells(b.direction,
                                    pooled_edges(pd * b.direction, pp * b.direction, bins, margin));
  return b;
}

}  // namespace

Binning binning_from_pilot(const Eigen::MatrixXd& pd, const Eigen::MatrixXd& pp, int bins,
                           int bins_2d, double margin) {
  Binning b = common(pd, pp, bins, margin);
  b.source = "pilot";
  for (int k = 0; k < b.dim; ++k)
    b.coordinate.push_back(coordinate_cells(k, pooled_edges(pd.col(k), pp.col(k), bins, margin)));
  if (b.dim > 1) {
    const auto& x = b.coordinate[0].index.edges();
    const auto& y = b.coordinate[1].index.edges();
    b.joint = JointCells(0, 1, uniform_edges(x.front(), x.back(), bins_2d),
                         uniform_edges(y.front(), y.back(), bins_2d));
  }
  return b;
}

Binning binning_from_range(double lo, double hi, const Eigen::MatrixXd& pd,
                           const Eigen::MatrixXd& pp, int bins, int bins_2d) {
  Binning b = common(pd, pp, bins, 0.25);
  b.source = "file";
  for (int k = 0; k < b.dim; ++k)
    b.coordinate.push_back(coordinate_cells(k, uniform_edges(lo, hi, bins)));
  if (b.dim > 1)
    b.joint = JointCells(0, 1, uniform_edges(lo, hi, bins_2d), uniform_edges(lo, hi, bins_2d));
  return b;
}

}  // namespace rdpaudit::tally
