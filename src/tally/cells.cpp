#include "rdpaudit/tally/cells.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace rdpaudit::tally {

CellIndex::CellIndex(std::vector<double> edges) : edges_(std::move(edges)) {
  if (edges_.empty()) throw std::invalid_argument("CellIndex: no edges");
  for (std::size_t i = 0; i < edges_.size(); ++i) {
    if (!std::isfinite(edges_[i]) || (i > 0 && !(edges_[i] > edges_[i - 1])))
      throw std::invalid_argument("CellIndex: edges must be finite and strictly increasing");
  }
  // About four buckets per cell: the scan after the lookup is one or two steps.
  const std::size_t buckets = std::min<std::size_t>(1u << 16, 4 * edges_.size() + 1);
  lo_ = edges_.front();
  const double width = edges_.back() - edges_.front();
  inv_width_ = width > 0.0 ? static_cast<double>(buckets) / width : 0.0;
  last_bucket_ = static_cast<double>(buckets);
  start_.resize(buckets + 1);
  std::size_t i = 0;
  for (std::size_t b = 0; b <= buckets; ++b) {
    const double x = lo_ + static_cast<double>(b) / inv_width_;
    while (i < edges_.size() && x >= edges_[i]) ++i;
    start_[b] = static_cast<std::uint32_t>(i);
    if (inv_width_ == 0.0) break;
  }
  if (inv_width_ == 0.0) start_.assign(1, 0);  // one edge: every lookup starts at cell 0
}

ScoreCells::ScoreCells(std::string score_name, ScoreFunction f, std::vector<double> edges)
    : name(std::move(score_name)), score(std::move(f)), index(std::move(edges)) {
  counts.assign(index.cells(), 0);
}

void ScoreCells::merge(const ScoreCells& other) {
  if (other.index.edges() != index.edges() || other.name != name)
    throw std::invalid_argument("ScoreCells::merge: different cells");
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] += other.counts[i];
}

std::uint64_t ScoreCells::total() const {
  return std::accumulate(counts.begin(), counts.end(), std::uint64_t{0});
}

}  // namespace rdpaudit::tally
