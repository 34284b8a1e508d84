// What the simulator keeps of the last iterates of one dataset: histograms (1-D per
// coordinate; for d > 1 also a 1-D projection and a 2-D histogram of the first two
// coordinates), moments, and optionally the first raw_cap raw samples. Memory does not grow
// with the number of trajectories beyond the raw-sample cap.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <string>
#include <vector>

#include "rdpaudit/tally/cells.hpp"
#include "rdpaudit/tally/exact_sum.hpp"

namespace rdpaudit::tally {

/// Where the bins are. Chosen before the counted trajectories are drawn (from the file or
/// from an independent pilot run), so it is a fixed post-processing of the samples.
/// Every histogram is cells of tally/cells.hpp (one lookup, one convention: under- and
/// overflow cells at the ends), here with zero counts.
struct Binning {
  int dim = 1;
  std::vector<ScoreCells> coordinate;  ///< one per coordinate, equal bins
  Eigen::VectorXd direction;           ///< unit vector of the projection (d > 1)
  ScoreCells projection;               ///< cells of <direction, theta> (d > 1)
  JointCells joint;                    ///< 2-D cells of (theta_0, theta_1) (d > 1)
  Eigen::VectorXd shift;               ///< moments are accumulated around this point
  std::string source;                  ///< "pilot" or "file"
  /// The estimators' score cells (estimate/selection.hpp), chosen on the pilot, with zero
  /// counts: every counted trajectory falls into each of them.
  std::vector<ScoreCells> scores;
};

/// Sums of c = theta - shift and of c c^T (upper triangle) over the counted trajectories,
/// exact (tally/exact_sum.hpp): like the counts, they add up to the same bits in any order,
/// so a run split over threads, ranks, parts or checkpoints gives the numbers of one run.
struct MomentSums {
  std::int64_t count = 0;
  int dim = 1;
  std::vector<ExactSum> sum;    ///< d entries
  std::vector<ExactSum> outer;  ///< d (d + 1) / 2 entries: (i, j), i <= j, row by row

  explicit MomentSums(int d = 1)
      : dim(d),
        sum(static_cast<std::size_t>(d)),
        outer(static_cast<std::size_t>(d * (d + 1) / 2)) {}
  void add(const double* theta, const Eigen::VectorXd& shift);
  void merge(const MomentSums& other);
  Eigen::VectorXd sum_value() const;
  Eigen::MatrixXd outer_value() const;  ///< the symmetric d x d matrix
};

struct Tally {
  Binning binning;
  std::vector<ScoreCells> coordinate;
  std::vector<ScoreCells> scores;  ///< one per estimator score, as in binning.scores
  ScoreCells projection;           ///< d > 1 only
  JointCells joint;                ///< d > 1 only
  MomentSums moments;
  /// Raw last iterates of the trajectories raw_first ... raw_first + raw_cap - 1 (those below
  /// tally.raw_samples among the counted ones), row-major, by trajectory id.
  std::int64_t raw_first = 0;
  std::int64_t raw_cap = 0;
  std::vector<double> raw;

  Tally() = default;
  Tally(const Binning& b, std::int64_t raw_capacity);

  /// Histograms and score cells (moments and raw samples are handled by the simulator's
  /// reduction): integer counts, merged in any order with the same result.
  void add_to_histograms(const double* theta);
  void merge_histograms(const Tally& other);
  /// Adds the tally of the trajectories that follow this one's (counts, moments, raw rows:
  /// other's raw rows must start where this one's end when both have some).
  void append(const Tally& other);

  Eigen::VectorXd mean() const;
  Eigen::MatrixXd covariance() const;  ///< unbiased (divides by count - 1)
};

/// Bins from pilot samples of D and D' (rows = samples): per coordinate the pooled range
/// widened by `margin` of its width on each side; the projection direction is the unit
/// vector of mean(D') - mean(D) (e_1 when the means coincide).
Binning binning_from_pilot(const Eigen::MatrixXd& pilot_d, const Eigen::MatrixXd& pilot_dprime,
                           int bins, int bins_2d, double margin = 0.25);

/// Bins over a fixed range given in the experiment file (same range for every coordinate);
/// the projection direction and its range still come from the pilot samples.
Binning binning_from_range(double lo, double hi, const Eigen::MatrixXd& pilot_d,
                           const Eigen::MatrixXd& pilot_dprime, int bins, int bins_2d);

}  // namespace rdpaudit::tally
