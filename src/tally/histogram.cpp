#include "rdpaudit/tally/histogram.hpp"

#include <numeric>
#include <stdexcept>

namespace rdpaudit::tally {

std::vector<double> Axis::edges() const {
  std::vector<double> e(static_cast<std::size_t>(bins) + 1);
  for (int i = 0; i <= bins; ++i) e[i] = lo + (hi - lo) * i / bins;
  return e;
}

void Histogram1D::merge(const Histogram1D& other) {
  if (other.counts.size() != counts.size()) throw std::logic_error("Histogram1D::merge: shape");
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] += other.counts[i];
}

std::int64_t Histogram1D::total() const {
  return std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
}

void Histogram2D::merge(const Histogram2D& other) {
  if (other.counts.size() != counts.size()) throw std::logic_error("Histogram2D::merge: shape");
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] += other.counts[i];
}

}  // namespace rdpaudit::tally
