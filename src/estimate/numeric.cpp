#include "rdpaudit/estimate/numeric.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rdpaudit::estimate {

double log_sum_exp(const std::vector<double>& x) {
  if (x.empty()) return -std::numeric_limits<double>::infinity();
  const double m = *std::max_element(x.begin(), x.end());
  if (!std::isfinite(m)) return m;
  // Each term exp(v - m) <= 1 in double (relative error below 2^-52), summed in long double:
  // the log of the sum is as accurate as the terms, and a double exp is several times faster
  // than expl (the plug-in's bootstrap calls this for every resample and order).
  long double s = 0.0L;
  for (double v : x) s += static_cast<long double>(std::exp(v - m));
  return m + static_cast<double>(std::log(s));
}

double bisect_p_value(const std::function<bool(double)>& exceeds) {
  if (!exceeds(1.0)) return 1.0;
  if (exceeds(1e-20)) return 1e-20;
  double lo = std::log(1e-20), hi = 0.0;  // invariant: exceeds(exp(hi)), !exceeds(exp(lo))
  for (int i = 0; i < 40; ++i) {
    const double mid = 0.5 * (lo + hi);
    (exceeds(std::exp(mid)) ? hi : lo) = mid;
  }
  return std::min(1.0, std::exp(hi));
}

double sorted_quantile(const std::vector<double>& sorted, double level) {
  const double pos = level * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + frac * (sorted[hi] - sorted[lo]);
}

namespace {

void select_ranks(std::vector<double>& v, std::size_t lo, std::size_t hi,
                  const std::size_t* r_begin, const std::size_t* r_end,
                  std::map<std::size_t, double>& out) {
  if (r_begin == r_end) return;
  const std::size_t* mid_rank = r_begin + (r_end - r_begin) / 2;
  const auto base = v.begin();
  std::nth_element(base + static_cast<std::ptrdiff_t>(lo),
                   base + static_cast<std::ptrdiff_t>(*mid_rank),
                   base + static_cast<std::ptrdiff_t>(hi));
  out[*mid_rank] = v[*mid_rank];
  select_ranks(v, lo, *mid_rank, r_begin, mid_rank, out);
  select_ranks(v, *mid_rank + 1, hi, mid_rank + 1, r_end, out);
}

}  // namespace

std::map<std::size_t, double> order_statistics(std::vector<double>& values,
                                               std::vector<std::size_t> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  ranks.erase(
      std::remove_if(ranks.begin(), ranks.end(), [&](std::size_t r) { return r >= values.size(); }),
      ranks.end());
  std::map<std::size_t, double> out;
  select_ranks(values, 0, values.size(), ranks.data(), ranks.data() + ranks.size(), out);
  return out;
}

namespace {

// One pass along lines of `len` elements (element i of line l at l * stride_line + i * stride).
void smooth_lines(std::vector<double>& v, std::size_t len, std::size_t lines, std::size_t stride,
                  std::size_t stride_line, double h) {
  const auto half = static_cast<std::ptrdiff_t>(std::ceil(4.0 * h));
  std::vector<double> kernel(static_cast<std::size_t>(2 * half + 1));
  for (std::ptrdiff_t t = -half; t <= half; ++t) {
    kernel[static_cast<std::size_t>(t + half)] =
        std::exp(-0.5 * static_cast<double>(t * t) / (h * h));
  }
  std::vector<double> line(len);
  for (std::size_t l = 0; l < lines; ++l) {
    for (std::size_t i = 0; i < len; ++i) line[i] = v[l * stride_line + i * stride];
    for (std::size_t i = 0; i < len; ++i) {
      double s = 0.0, w = 0.0;
      const std::ptrdiff_t lo = std::max<std::ptrdiff_t>(-half, -static_cast<std::ptrdiff_t>(i));
      const std::ptrdiff_t hi =
          std::min<std::ptrdiff_t>(half, static_cast<std::ptrdiff_t>(len - 1 - i));
      for (std::ptrdiff_t t = lo; t <= hi; ++t) {
        const double k = kernel[static_cast<std::size_t>(t + half)];
        s += k * line[static_cast<std::size_t>(static_cast<std::ptrdiff_t>(i) + t)];
        w += k;
      }
      v[l * stride_line + i * stride] = s / w;
    }
  }
}

}  // namespace

void gaussian_smooth(std::vector<double>& grid, std::size_t nx, std::size_t ny, double hx,
                     double hy) {
  if (hx > 0.0) smooth_lines(grid, nx, ny, ny, 1, hx);
  if (hy > 0.0 && ny > 1) smooth_lines(grid, ny, nx, 1, ny, hy);
}

}  // namespace rdpaudit::estimate
