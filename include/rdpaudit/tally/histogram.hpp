// Fixed-bin histograms with exact integer counts. Bin 0 is the underflow (x < lo) and bin
// bins+1 the overflow (x >= hi), so the total count always equals the number of samples.
#pragma once

#include <cstdint>
#include <vector>

namespace rdpaudit::tally {

struct Axis {
  double lo = 0, hi = 1;
  int bins = 1;

  /// Bin index in [0, bins + 1] (0: underflow, bins + 1: overflow; NaN counts as overflow).
  int index(double x) const {
    if (x < lo) return 0;
    if (!(x < hi)) return bins + 1;
    const int i = 1 + static_cast<int>((x - lo) * (bins / (hi - lo)));
    return i > bins ? bins : i;  // guard rounding at the upper edge
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
