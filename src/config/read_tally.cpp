#include "rdpaudit/config/tables.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::config {

void read_tally(Scenario& s, Reader& r) {
  s.bins = static_cast<int>(
      r.integer_in("tally.bins", 2, 1'000'000, "must be in [2, 10^6]").value_or(512));
  s.bins_2d = static_cast<int>(
      r.integer_in("tally.bins_2d", 2, 4096, "must be in [2, 4096]").value_or(128));
  if (auto range = r.vector("tally.range")) {
    if (range->size() != 2 || !((*range)[0] < (*range)[1]))
      r.fail("tally.range", "must be [lo, hi] with lo < hi");
    s.has_range = true;
    s.range_lo = (*range)[0];
    s.range_hi = (*range)[1];
  }
  s.pilot_trajectories = r.integer("tally.pilot_trajectories").value_or(20000);
  if (s.pilot_trajectories < 100 || s.pilot_trajectories > 100'000'000) {
    r.fail("tally.pilot_trajectories", "must be in [100, 10^8]");
  }
  s.raw_cap = r.integer("tally.raw_samples").value_or(0);
  if (s.raw_cap < 0 || s.raw_cap > 100'000'000) r.fail("tally.raw_samples", "must be in [0, 10^8]");
}

}  // namespace rdpaudit::config
