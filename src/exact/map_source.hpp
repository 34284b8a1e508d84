// A source cell sent through a map case's enclosure (docs/exact-laws.md, "Maps that are not
// affine"): the second-order enclosure where the case has one, and the range and moment
// brackets of the image's offsets that the affine brackets of section 3 read. Shared by the
// propagation (map_step.cpp) and the density bounds (density.cpp). Internal to exact/.
#pragma once

#include <algorithm>
#include <cmath>

#include "rdpaudit/exact/law.hpp"

namespace rdpaudit::exact::detail {

/// The case's second-order enclosure over [x_lo, x_hi], or its affine one (curvature 0).
inline LocalQuadratic enclose_map(const MapCase& mcase, double x_lo, double x_hi) {
  if (mcase.quadratic) return mcase.quadratic(x_lo, x_hi);
  const LocalAffine e = mcase.enclose(x_lo, x_hi);
  return LocalQuadratic{e.image, e.slope, 0.0, 0.0, e.error};
}

/// The offsets z = a d + c(x) d^2 / 2 of the image's quadratic part from its centre (d = x -
/// centre, |d| <= half; c(x) in [b - r, b + r]; a and b of any sign): their half-range `hm`
/// and brackets on their first and second moments from those of d ([dl, du], [vl, vu]):
/// E z = a D + E c d^2 / 2 with E c d^2 between (b - r) V and (b + r) V, and E z^2 = a^2 V +
/// a E c d^3 + E c^2 d^4 / 4 with |E c d^3| <= B half V and 0 <= E c^2 d^4 <= B^2 half^2 V,
/// B = |b| + r.
struct ImageOffsets {
  double hm = 0, dl = 0, du = 0, vl = 0, vu = 0;
};

inline ImageOffsets image_offsets(const LocalQuadratic& e, double half, double dl, double du,
                                  double vl, double vu) {
  const double a = e.slope, b_lo = e.curvature - e.curvature_radius;
  const double b_hi = e.curvature + e.curvature_radius;
  const double big = std::fabs(e.curvature) + e.curvature_radius;
  ImageOffsets z;
  z.hm = std::fabs(a) * half + 0.5 * big * half * half;
  z.dl = std::min(a * dl, a * du) + 0.5 * std::min(b_lo * vl, b_lo * vu);
  z.du = std::max(a * dl, a * du) + 0.5 * std::max(b_hi * vl, b_hi * vu);
  const double cross = std::fabs(a) * big * half * vu;
  z.vl = std::max(0.0, a * a * vl - cross);
  z.vu = a * a * vu + cross + 0.25 * big * big * half * half * vu;
  return z;
}

}  // namespace rdpaudit::exact::detail
