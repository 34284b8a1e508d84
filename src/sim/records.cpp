#include "records.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <utility>

#include "loss_dispatch.hpp"
#include "rdpaudit/sim/simulate.hpp"

namespace rdpaudit::sim {

namespace detail {

using config::Scenario;

DatasetRecords records_of(const Scenario& s, bool prime) {
  DatasetRecords r;
  const auto& data = s.data;
  const int n = data.n(), p = static_cast<int>(data.points.cols());
  r.x.resize(static_cast<std::size_t>(n) * p);
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < p; ++k) {
      r.x[static_cast<std::size_t>(i) * p + k] =
          (prime && i == data.differing_index) ? data.replacement(k) : data.points(i, k);
    }
  }
  r.labels = data.labels;
  if (prime && !r.labels.empty()) r.labels[data.differing_index] = data.replacement_label;
  r.view = DataView{r.x.data(), r.labels.empty() ? nullptr : r.labels.data(), n, p};
  if (prime && data.absent) r.view.absent_index = data.differing_index;
  if (data.crafted) {  // g_t in D; absent (no gradient) in D'
    const Eigen::MatrixXd& g = data.crafted_gradient;
    r.view.crafted_index = data.differing_index;
    r.view.crafted_rows = g.rows();
    if (!prime) {
      r.crafted.resize(static_cast<std::size_t>(g.size()));
      Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          r.crafted.data(), g.rows(), g.cols()) = g;
      r.view.crafted = r.crafted.data();
    }
  }
  return r;
}

CountedSums::CountedSums(const BatchDraws& draws, const DataView& data, int d)
    : draws_(&draws), x_(data.x) {
  const std::vector<int>& dist = draws.distinguished;
  for (std::size_t j = 0; j < dist.size(); ++j) {
    if (dist[j] == data.crafted_index) crafted_bit_ = static_cast<int>(j);
  }
  table_.assign(static_cast<std::size_t>(d), 0.0);  // row 0
  rows_ = 1;
  zero_background_ = true;
  if (draws.background.empty()) return;
  background_ = data.x + static_cast<long>(draws.background.front()) * d;
  if (std::all_of(background_, background_ + d, [](double v) { return v == 0.0; })) return;
  zero_background_ = false;
  rows_ = std::min<long>(static_cast<long>(draws.background.size()) + 1, kMaxRows / d);
  table_.assign(static_cast<std::size_t>(rows_ * d), 0.0);
  for (long k = 1; k < rows_; ++k) {
    for (int c = 0; c < d; ++c) {
      table_[static_cast<std::size_t>(k * d + c)] =
          table_[static_cast<std::size_t>((k - 1) * d + c)] + background_[c];
    }
  }
}

BatchDraws draws_of(const Scenario& s, const DataView& data) {
  const bool counted = scheme_traits(s.scheme).counted;
  if (!sums_records(s) || (data.crafted_index >= 0 && !counted)) return BatchDraws(s);
  auto distinguished = distinguished_records(data.x, data.labels, data.n, data.p);
  if (!distinguished) return BatchDraws(s);
  std::vector<int>& dist = *distinguished;
  if (data.crafted_index >= 0) {
    // Counted schemes: the crafted record's inclusion is drawn like a distinguished
    // record's, so a batch says whether it holds it, whatever its row (zeros) copies.
    const auto at = std::lower_bound(dist.begin(), dist.end(), data.crafted_index);
    if (at == dist.end() || *at != data.crafted_index) {
      if (dist.size() == static_cast<std::size_t>(kMaxDistinguished)) return BatchDraws(s);
      dist.insert(at, data.crafted_index);
    }
  }
  // Background rows of zeros add exactly nothing to a sum (0.0 + 0.0 = 0.0, and x + 0.0 = x
  // but for x = -0.0, which no sum starting from 0.0 reaches): under a loss that ignores the
  // batch's size their number changes no bit.
  bool inert = false;
  if (gradient_ignores_count(s) && static_cast<int>(dist.size()) < data.n) {
    int row = 0;
    while (std::binary_search(dist.begin(), dist.end(), row)) ++row;
    const double* x = data.x + static_cast<long>(row) * data.p;
    inert = std::all_of(x, x + data.p, [](double v) { return v == 0.0; });
  }
  return BatchDraws(s, std::move(dist), inert);
}

}  // namespace detail

BatchDraws batch_draws(const config::Scenario& s, Dataset dataset) {
  return detail::draws_of(s, detail::records_of(s, rng::is_dprime(dataset)).view);
}

}  // namespace rdpaudit::sim
