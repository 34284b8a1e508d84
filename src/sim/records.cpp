#include "records.hpp"

#include <Eigen/Core>
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

BatchDraws draws_of(const Scenario& s, const DataView& data) {
  if (sums_records(s) && data.crafted_index < 0) {
    if (auto distinguished = distinguished_records(data.x, data.labels, data.n, data.p))
      return BatchDraws(s, std::move(*distinguished));
  }
  return BatchDraws(s);
}

}  // namespace detail

BatchDraws batch_draws(const config::Scenario& s, Dataset dataset) {
  return detail::draws_of(
      s, detail::records_of(s, dataset == kDPrime || dataset == kPilotDPrime).view);
}

}  // namespace rdpaudit::sim
