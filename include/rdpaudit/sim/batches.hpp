// Mini-batch schedules of every scheme the sources use, drawn from a trajectory's own
// batch stream so the schedule is a pure function of (seed, scenario, dataset, trajectory).
#pragma once

#include <vector>

#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/rng/philox.hpp"

namespace rdpaudit::sim {

class BatchSchedule {
 public:
  /// `fixed_order` is the record order of the fixed-order scheme (shared, read-only).
  BatchSchedule(const config::Scenario& s, const std::vector<int>& fixed_order,
                rng::Stream& stream);

  /// Indices of the batch of the next step (steps 0, 1, 2, ... in order); valid until the
  /// next call.
  const int* next(int& count);

  /// 1 / normaliser of the summed gradient: 1/b, or 1/(q n) for Poisson.
  double inverse_normaliser() const { return inv_norm_; }

 private:
  void shuffle();

  config::BatchScheme scheme_;
  int n_, b_;
  long per_epoch_;
  long step_in_epoch_ = 0;
  double q_, log1m_q_, inv_norm_;
  rng::Stream& stream_;
  const std::vector<int>& fixed_order_;
  std::vector<int> order_;  ///< permutation / working array of this trajectory
};

/// The fixed-order scheme's record order: records in index order, with the differing record
/// swapped into the first slot of batch j0.
std::vector<int> fixed_order(const config::Scenario& s);

}  // namespace rdpaudit::sim
