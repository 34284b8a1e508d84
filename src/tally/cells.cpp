#include "rdpaudit/tally/cells.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace rdpaudit::tally {

std::size_t cell_of(const std::vector<double>& edges, double x) {
  if (std::isnan(x)) return edges.size();
  return static_cast<std::size_t>(std::upper_bound(edges.begin(), edges.end(), x) - edges.begin());
}

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
  add_counts(counts, other.counts);
}

std::vector<double> uniform_edges(double lo, double hi, int bins) {
  if (!(std::isfinite(lo) && std::isfinite(hi) && lo < hi) || bins < 1)
    throw std::invalid_argument("uniform_edges: needs finite lo < hi and bins >= 1");
  std::vector<double> e(static_cast<std::size_t>(bins) + 1);
  for (int i = 0; i <= bins; ++i) {
    const double t = static_cast<double>(i) / bins;
    e[i] = lo * (1.0 - t) + hi * t;
  }
  e.front() = lo;
  e.back() = hi;
  for (std::size_t i = 1; i < e.size(); ++i) {
    if (!(e[i] > e[i - 1]))
      throw std::invalid_argument("uniform_edges: range too narrow for its bins");
  }
  return e;
}

ScoreCells coordinate_cells(int k, std::vector<double> edges) {
  return ScoreCells(
      "coordinate " + std::to_string(k), [k](const double* t) { return t[k]; }, std::move(edges));
}

JointCells::JointCells(int cx, int cy, std::vector<double> edges_x, std::vector<double> edges_y)
    : coord_x(cx), coord_y(cy), x(std::move(edges_x)), y(std::move(edges_y)) {
  counts.assign(x.cells() * y.cells(), 0);
}

void JointCells::merge(const JointCells& other) {
  if (other.x.edges() != x.edges() || other.y.edges() != y.edges() || other.coord_x != coord_x ||
      other.coord_y != coord_y)
    throw std::invalid_argument("JointCells::merge: different cells");
  add_counts(counts, other.counts);
}

void add_counts(std::vector<std::uint64_t>& into, const std::vector<std::uint64_t>& other) {
  if (other.size() != into.size()) throw std::invalid_argument("add_counts: different cells");
  for (std::size_t i = 0; i < into.size(); ++i) into[i] += other[i];
}

std::uint64_t ScoreCells::total() const {
  return std::accumulate(counts.begin(), counts.end(), std::uint64_t{0});
}

}  // namespace rdpaudit::tally
