// Cells of a score and their counts: the one binning of the counting phase. The plot
// histograms of the results file (one per coordinate, a projection, a 2-D joint) and the
// estimators' score cells are all cells of this kind, counted by the same lookup.
//
// The selection phase (estimate/selection.hpp) chooses, on a pilot, a score of the last
// iterate (the coordinate itself in 1-D, a learned log-likelihood ratio above) and the edges
// of its cells. The counting phase then sends every trajectory of the run through that fixed
// map into integer counts, inside the simulation loop: memory is O(cells) however many
// trajectories are counted, and counts add exactly, so the merge over threads (and, later,
// ranks, parts and checkpoints) gives the same numbers in any order.
//
// Edges e_0 < ... < e_{m-1} give m+1 cells: cell 0 = (-inf, e_0), cell i = [e_{i-1}, e_i),
// cell m = [e_{m-1}, +inf); NaN falls in the last cell (cell_of below: the rule's definition).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace rdpaudit::tally {

/// The cell of x: the number of edges <= x (NaN: the last cell). A binary search, the
/// definition CellIndex::cell is tested against; for one-off lookups.
std::size_t cell_of(const std::vector<double>& edges, double x);

/// Constant-time cell lookup for arbitrary strictly increasing finite edges: a uniform bucket
/// table over [e_0, e_{m-1}] gives a starting cell, a short scan corrects it, so the answer
/// is exactly the number of edges <= x whatever the rounding of the bucket.
class CellIndex {
 public:
  CellIndex() = default;
  /// Throws std::invalid_argument unless `edges` is non-empty, finite, strictly increasing.
  explicit CellIndex(std::vector<double> edges);

  std::size_t cell(double x) const {
    if (x != x) return edges_.size();  // NaN
    const double u = (x - lo_) * inv_width_;
    // !(u > 0) also catches NaN: an infinite x with a single edge (inv_width_ = 0) gives
    // inf * 0; the scan below corrects any start.
    std::size_t i = !(u > 0.0)          ? 0
                    : u >= last_bucket_ ? start_.back()
                                        : start_[static_cast<std::size_t>(u)];
    while (i > 0 && x < edges_[i - 1]) --i;
    while (i < edges_.size() && x >= edges_[i]) ++i;
    return i;
  }
  std::size_t cells() const { return edges_.size() + 1; }
  const std::vector<double>& edges() const { return edges_; }

 private:
  std::vector<double> edges_;
  double lo_ = 0.0, inv_width_ = 0.0, last_bucket_ = 0.0;
  std::vector<std::uint32_t> start_;  ///< per bucket: the cell of its lower end
};

/// bins + 1 equally spaced edges from lo to hi (bins + 2 cells with the under- and overflow):
/// interpolated as lo (1 - i / bins) + hi (i / bins), finite for any finite lo < hi, even when
/// hi - lo overflows. Throws std::invalid_argument unless lo < hi are finite, bins >= 1 and
/// the edges come out strictly increasing.
std::vector<double> uniform_edges(double lo, double hi, int bins);

/// A score of the last iterate, applied to every counted trajectory. Must be a pure
/// function of theta (it is called from every thread).
using ScoreFunction = std::function<double(const double* theta)>;

/// One score's cells and the counts of one dataset's trajectories in them.
struct ScoreCells {
  std::string name;  ///< the score, e.g. "identity", "logistic-ratio"
  ScoreFunction score;
  CellIndex index;
  std::vector<std::uint64_t> counts;  ///< index.cells() entries

  ScoreCells() = default;
  ScoreCells(std::string score_name, ScoreFunction f, std::vector<double> edges);
  void add(const double* theta) { ++counts[index.cell(score(theta))]; }
  /// Adds another tally of the same cells (throws std::invalid_argument otherwise).
  void merge(const ScoreCells& other);
  std::uint64_t total() const;
};

/// Cells of two coordinates of the last iterate (the 2-D plot histogram): cell (i, j) of
/// x-cell i and y-cell j is counts[i * y.cells() + j].
struct JointCells {
  int coord_x = 0, coord_y = 1;
  CellIndex x, y;
  std::vector<std::uint64_t> counts;

  JointCells() = default;
  JointCells(int cx, int cy, std::vector<double> edges_x, std::vector<double> edges_y);
  void add(const double* theta) {
    ++counts[x.cell(theta[coord_x]) * y.cells() + y.cell(theta[coord_y])];
  }
  void merge(const JointCells& other);  ///< throws std::invalid_argument for other cells
};

/// The cells of coordinate k (score theta[k]).
ScoreCells coordinate_cells(int k, std::vector<double> edges);

/// Adds `other`'s counts to `into` cell by cell (same length, else std::invalid_argument).
void add_counts(std::vector<std::uint64_t>& into, const std::vector<std::uint64_t>& other);

}  // namespace rdpaudit::tally
