// Certified bounds beyond the density points of an unclamped law (tails.hpp).
#include "tails.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace rdpaudit::exact::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kLogSqrt2Pi = 0.91893853320467274178;  // log sqrt(2 pi)

}  // namespace

bool tail_sources(const ExactLaw& law, double s, std::vector<TailSource>& out, std::string& why) {
  out.clear();
  for (const FinalPart& part : law.parts) {
    const CellLaw& b = part.before;
    if (part.step.noise_std != s) {
      why = fmt::format("the last steps' noise sds differ ({} and {})", part.step.noise_std, s);
      return false;
    }
    if (!part.step.maps.empty()) {
      why = "the last step's update is not affine";
      return false;
    }
    if (b.outside.hi > 0) {
      why = fmt::format(
          "the law before the last step may hold mass {:.3g} outside its grid, whose location "
          "is not known",
          part.weight * b.outside.hi);
      return false;
    }
    const double h = b.width();
    for (const AffineCase& c : part.step.cases) {
      const double w = part.weight * c.weight;
      if (!(w > 0)) continue;
      const auto add = [&](double mass, double x_lo, double x_hi) {
        if (!(mass > 0)) return;
        // slopes are positive (law.hpp): the image of [x_lo, x_hi] is [m(x_lo), m(x_hi)]
        out.push_back({w * mass, c.slope * x_lo + c.shift, c.slope * x_hi + c.shift});
      };
      for (int j = 0; j < b.cells; ++j) {
        const double e = b.lo + j * h;
        add(b.mass_hi[static_cast<std::size_t>(j)], e, e + h);
      }
      for (const PointMass& p : b.points) add(p.mass.hi, p.x, p.x);
      for (const Blob& bl : b.blobs)
        add(bl.mass.hi, bl.centre - bl.half_width, bl.centre + bl.half_width);
    }
  }
  return true;
}

double log_tail_integral(const std::vector<TailSource>& src, bool right, double y_end,
                         const Affine& q_lower, double alpha, double s) {
  const double inv_s2 = 1.0 / (s * s);
  if (alpha != 1.0 && q_lower.a == -kInf) return src.empty() ? -kInf : kInf;
  // Minkowski: the alpha-th root of the integral is at most the sum of the sources' roots
  double max = -kInf;
  std::vector<double> roots;
  roots.reserve(src.size());
  for (const TailSource& k : src) {
    // distance of the source's far end beyond y_end, towards the tail
    const double d = right ? k.m_hi - y_end : y_end - k.m_lo;
    const double dm = std::min(d, 0.0);
    // log of weight phi_s(d_-): the source's bound at t = 0
    const double lw = std::log(k.weight) - 0.5 * dm * dm * inv_s2 - std::log(s) - kLogSqrt2Pi;
    const Affine e{alpha * lw + (1.0 - alpha) * (alpha == 1.0 ? 0.0 : q_lower.a),
                   alpha * d * inv_s2 + (1.0 - alpha) * (alpha == 1.0 ? 0.0 : q_lower.b)};
    const double root = log_gauss_integral(e, 0.0, kInf, s) / alpha;
    roots.push_back(root);
    max = std::max(max, root);
  }
  if (max == -kInf || max == kInf) return max;
  double sum = 0;
  for (double r : roots) sum += std::exp(r - max);
  return alpha * (max + std::log(sum));
}

}  // namespace rdpaudit::exact::detail
