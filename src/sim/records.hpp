// One dataset's records as the kernels read them, and the batch draws that follow from them.
// Internal to src/sim/.
#pragma once

#include <algorithm>
#include <cstdint>
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

/// By_distinguished counted schemes (BatchDraws::Counted): the record sum of the batch of `others`
/// background records followed by the distinguished ones of `mask`, as sum_records forms it
/// over BatchSchedule::next()'s indices, at O(1) in n: from a table of the sums of the first k
/// background rows (0.0, then one row added at a time; up to kMaxRows doubles, the rows past
/// it added one by one), one row of zeros where those rows are zeros (every such sum is 0.0).
class CountedSums {
 public:
  static constexpr long kMaxRows = 32768;
  CountedSums() = default;
  /// `draws` must outlive the object; d: the record width.
  CountedSums(const BatchDraws& draws, const DataView& data, int d);
  /// Where the crafted record is among the distinguished ones (its mask bit); 0 if none.
  int crafted_bit() const { return crafted_bit_; }
  template <int D>
  void sum(int others, std::uint32_t mask, double* out) const {
    // Row k of the table (row 0: zeros; one row of zeros only where the background row is
    // zeros, every sum of it 0.0), then the rows past the table one by one.
    const long k = others < rows_ ? others : rows_ - 1;
    for (int c = 0; c < D; ++c) out[c] = table_[static_cast<std::size_t>(k * D + c)];
    if (!zero_background_) {
      for (long i = k; i < others; ++i) {
        for (int c = 0; c < D; ++c) out[c] += background_[c];
      }
    }
    for (std::uint32_t left = mask; left != 0; left &= left - 1) {  // ascending j
      const int j = __builtin_ctz(left);
      const double* x =
          x_ + static_cast<long>(draws_->distinguished[static_cast<std::size_t>(j)]) * D;
      for (int c = 0; c < D; ++c) out[c] += x[c];
    }
  }

 private:
  const BatchDraws* draws_ = nullptr;
  const double* x_ = nullptr;           ///< the records, d per row
  const double* background_ = nullptr;  ///< the background row
  std::vector<double> table_;           ///< row k: the sum of k background rows
  long rows_ = 1;                       ///< rows of table_
  bool zero_background_ = true;         ///< the background row is zeros (or there is none)
  int crafted_bit_ = 0;
};

/// The records of D (prime false) or D' (prime true).
DatasetRecords records_of(const config::Scenario& s, bool prime);

/// The draws of the dataset's schedules: where the loss needs only the batch's multiset of
/// rows and no record is crafted (its batches must say whether they hold it), records that
/// copy one background row are interchangeable, and the schemes that can draw only what the
/// few others do (BatchDraws) do so.
BatchDraws draws_of(const config::Scenario& s, const DataView& data);

}  // namespace rdpaudit::sim::detail
