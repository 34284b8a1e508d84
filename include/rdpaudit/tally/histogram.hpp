// Fixed-bin histograms with exact integer counts. Bin 0 is the underflow (x < lo) and bin
// bins+1 the overflow (x >= hi), so the total count always equals the number of samples.
#pragma once

#include <cstdint>
#include <vector>

namespace rdpaudit::tally {

struct Axis {
  double lo = 0, hi = 1;
  int bins = 1;

  /// Bin index in [0, bins + 1] (0: underflow, bins + 1: overflow; NaN counts as overflow),
  /// for any x and any axis: never outside the counts.
  int index(double x) const {
    if (x < lo) return 0;
    if (!(x < hi)) return bins + 1;
    const double u = (x - lo) * (bins / (hi - lo));  // >= 0, or NaN
    // u >= bins: rounding at the upper edge. NaN: a range wider than the largest double
    // (hi - lo = inf makes u = inf * 0); such an axis miscounts but never writes outside
    // the counts, and u is never converted to int out of range (undefined behaviour).
    if (!(u < bins)) return bins;
    return 1 + static_cast<int>(u);
  }
  /// bins + 1 edges, edges[0] = lo, edges[bins] = hi.
  std::vector<double> edges() const;
};

struct Histogram1D {
  Axis axis;
  std::vector<std::int64_t> counts;  ///< bins + 2 entries

  Histogram1D() = default;
  explicit Histogram1D(const Axis& a) : axis(a), counts(static_cast<std::size_t>(a.bins) + 2, 0) {}
  void add(double x) { ++counts[static_cast<std::size_t>(axis.index(x))]; }
  void merge(const Histogram1D& other);
  std::int64_t total() const;
};

struct Histogram2D {
  Axis x, y;
  std::vector<std::int64_t> counts;  ///< (x.bins + 2) * (y.bins + 2), x-major

  Histogram2D() = default;
  Histogram2D(const Axis& ax, const Axis& ay)
      : x(ax), y(ay), counts(static_cast<std::size_t>(ax.bins + 2) * (ay.bins + 2), 0) {}
  void add(double u, double v) {
    ++counts[static_cast<std::size_t>(x.index(u)) * (y.bins + 2) + y.index(v)];
  }
  void merge(const Histogram2D& other);
};

}  // namespace rdpaudit::tally
