// One dataset's records as the kernels read them, and the batch draws that follow from them.
// Internal to src/sim/.
#pragma once

#include <vector>

#include "rdpaudit/config/scenario.hpp"
#include "rdpaudit/sim/batches.hpp"
#include "rdpaudit/sim/loss.hpp"

namespace rdpaudit::sim::detail {

/// One dataset's records, flattened row-major for the kernels.
struct DatasetRecords {
  std::vector<double> x;
  std::vector<int> labels;
  std::vector<double> crafted;  ///< the crafted record's gradients of D, row-major
  DataView view;
};

/// The records of D (prime false) or D' (prime true).
DatasetRecords records_of(const config::Scenario& s, bool prime);

/// The draws of the dataset's schedules: where the loss needs only the batch's multiset of
/// rows and no record is crafted (its batches must say whether they hold it), records that
/// copy one background row are interchangeable, and the schemes that can draw only what the
/// few others do (BatchDraws) do so.
BatchDraws draws_of(const config::Scenario& s, const DataView& data);

}  // namespace rdpaudit::sim::detail
