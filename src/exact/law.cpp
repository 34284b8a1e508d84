// Certified propagation of a 1-D law through one noisy-SGD step (docs/exact-laws.md).
#include "rdpaudit/exact/law.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "gaussian_bounds.hpp"
#include "kernel.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::exact {

namespace {

using namespace detail;

struct LatticeTable {
  long first = 0;  ///< first target cell, relative to the source's lattice cell
  CoefColumns coef;
};

long floor_div(long a, long b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
}

/// The kLattice tables of a slope (image coordinate: slope 1, half-width hmw) on cells of
/// width h, cached per (slope, s, h): table `key` is for an image centred key / kLattice of a
/// cell above the grid's lower end.
/// Only the targets at offsets [rel_lo, rel_hi] from a source's lattice cell are kept (those
/// a grid can hold): where the reach is wider than the grid, a table is as long as the grid,
/// not the reach, with the same bits in the entries it keeps.
const std::vector<LatticeTable>& lattice_tables(double a, double s, double h, double hmw,
                                                double reach_sds, long rel_lo, long rel_hi) {
  struct Entry {
    double a, s, h, hmw, reach;
    long rel_lo, rel_hi;
    std::vector<LatticeTable> tables;
  };
  thread_local std::vector<Entry> cache;
  thread_local std::size_t held = 0;  // coefficients in `cache`
  // A clip that keeps every target of every table is no clip: one key for all such calls (the
  // cases of a step share a slope and differ in their shifts). A real clip is widened to whole
  // blocks of 64 cells, so that nearby shifts share it too.
  const long natural_lo = static_cast<long>(std::floor((-hmw - reach_sds * s) / h));
  const long natural_hi = static_cast<long>(std::ceil((h + hmw + reach_sds * s) / h));
  constexpr long kBlock = 64;
  rel_lo =
      rel_lo <= natural_lo ? natural_lo : std::max(natural_lo, kBlock * floor_div(rel_lo, kBlock));
  rel_hi = rel_hi >= natural_hi ? natural_hi
                                : std::min(natural_hi, kBlock * -floor_div(-rel_hi, kBlock));
  for (const Entry& e : cache) {
    if (e.a == a && e.s == s && e.h == h && e.hmw == hmw && e.reach == reach_sds &&
        e.rel_lo == rel_lo && e.rel_hi == rel_hi)
      return e.tables;
  }
  Entry e{a, s, h, hmw, reach_sds, rel_lo, rel_hi, std::vector<LatticeTable>(kLattice)};
  const double reach = reach_sds * s;
  std::size_t count = 0;  // coefficients of the new entry
  for (int key = 0; key < kLattice; ++key) {
    const double mc = key * h / kLattice;  // relative to the grid's lower end
    LatticeTable& t = e.tables[static_cast<std::size_t>(key)];
    const long first = static_cast<long>(std::floor((mc - hmw - reach) / h));
    const long last = std::min(static_cast<long>(std::ceil((mc + hmw + reach) / h)), rel_hi);
    const long begin = std::max(0L, rel_lo - first);
    t.first = first + begin;
    std::vector<Coef> rows;
    if (last >= t.first)
      coefficients(first * h, h, static_cast<int>(last - first + 1), mc, hmw, 1.0, s, rows,
                   static_cast<int>(begin));
    to_columns(rows, 0, static_cast<int>(rows.size()), t.coef);
    count += t.coef.size();
  }
  // at most kLatticeCoefficientsKept coefficients (a step of many slopes, e.g. the quadratic's
  // random contraction under Poisson sampling, would otherwise keep 256 tables of the grid's
  // width); a full cache is emptied and refilled with the very numbers it held
  if (cache.size() >= 256 || held + count > kLatticeCoefficientsKept) {
    cache.clear();
    held = 0;
  }
  held += count;
  cache.push_back(std::move(e));
  return cache.back().tables;
}

/// The reach of this step in noise sds: options.reach, or, when every cell and atom of the
/// law has a positive lower mass (the law is spread over the whole grid), the smallest whole
/// number of sds from options.min_reach on whose flat floor (the mass sent beyond it, added to
/// every cell's upper bound) is at most options.floor_fraction of the smallest lower mass:
/// the floor then changes no upper bound by more than that fraction of the law's least mass.
/// Any reach keeps every bound valid; this only trades the floor for work.
double step_reach(const CellLaw& law, const PropagateOptions& options) {
  if (!(options.min_reach < options.reach)) return options.reach;
  double least = law.outside.hi > 0 ? law.outside.lo : std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < law.mass_lo.size(); ++k) least = std::min(least, law.mass_lo[k]);
  for (const PointMass& p : law.points) {
    if (p.mass.hi > 0) least = std::min(least, p.mass.lo);
  }
  if (!law.blobs.empty() || !(least > 0)) return options.reach;
  const double total = law.total > 0 ? law.total : 1.0;
  for (double r = std::ceil(options.min_reach); r < options.reach; r += 1.0) {
    if (2.0 * upper_tail(r) * total <= options.floor_fraction * least) return r;
  }
  return options.reach;
}

}  // namespace

double CellLaw::total_gap() const {
  double gap = outside.hi - outside.lo;
  for (int k = 0; k < cells; ++k)
    gap += mass_hi[static_cast<std::size_t>(k)] - mass_lo[static_cast<std::size_t>(k)];
  for (const PointMass& p : points) gap += p.mass.hi - p.mass.lo;
  return gap;
}

CellLaw empty_like(const CellLaw& like) {
  CellLaw law;
  law.lo = like.lo;
  law.hi = like.hi;
  law.cells = like.cells;
  law.clamped = like.clamped;
  law.total = 0.0;
  const auto n = static_cast<std::size_t>(like.cells);
  law.mass_lo.assign(n, 0.0);
  law.mass_hi.assign(n, 0.0);
  law.moment_lo.assign(n, 0.0);
  law.moment_hi.assign(n, 0.0);
  law.second_lo.assign(n, 0.0);
  law.second_hi.assign(n, 0.0);
  if (like.clamped) law.points = {PointMass{like.lo, {}}, PointMass{like.hi, {}}};
  return law;
}

CellLaw initial_law(double lo, double hi, int cells, bool clamped, double x0, double sd) {
  if (cells < 1 || !(hi > lo) || !(sd >= 0) || !std::isfinite(x0)) {
    throw InternalError("initial_law: cells >= 1, hi > lo, sd >= 0, finite x0");
  }
  CellLaw shape;
  shape.lo = lo;
  shape.hi = hi;
  shape.cells = cells;
  shape.clamped = clamped;
  CellLaw start = empty_like(shape);
  const double x = clamped ? std::clamp(x0, lo, hi) : x0;
  start.points.push_back(PointMass{x, {1.0, 1.0}});
  start.total = 1.0;
  if (sd == 0) {
    // a point mass inside the grid, or on an atom
    if (clamped && (x == lo || x == hi)) {
      start.points.pop_back();
      start.points[x == lo ? 0 : 1].mass = {1.0, 1.0};
    } else if (!clamped && (x < lo || x > hi)) {
      start.points.pop_back();
      start.outside = {1.0, 1.0};
    }
    return start;
  }
  // N(x0, sd^2) is one exact step from the point mass
  return propagate(start, Step{{AffineCase{1.0, 1.0, 0.0}}, sd, {}});
}

void add_scaled(CellLaw& acc, const CellLaw& law, double weight) {
  if (acc.cells != law.cells || acc.lo != law.lo || acc.hi != law.hi ||
      acc.clamped != law.clamped) {
    throw InternalError("add_scaled: laws on different grids");
  }
  for (std::size_t k = 0; k < acc.mass_lo.size(); ++k) {
    acc.mass_lo[k] += weight * law.mass_lo[k];
    acc.mass_hi[k] += weight * law.mass_hi[k];
    acc.moment_lo[k] += weight * law.moment_lo[k];
    acc.moment_hi[k] += weight * law.moment_hi[k];
    acc.second_lo[k] += weight * law.second_lo[k];
    acc.second_hi[k] += weight * law.second_hi[k];
  }
  for (const PointMass& p : law.points) {
    auto it = std::find_if(acc.points.begin(), acc.points.end(),
                           [&](const PointMass& q) { return q.x == p.x; });
    if (it == acc.points.end()) {
      acc.points.push_back(PointMass{p.x, {weight * p.mass.lo, weight * p.mass.hi}});
    } else {
      it->mass.lo += weight * p.mass.lo;
      it->mass.hi += weight * p.mass.hi;
    }
  }
  for (const Blob& b : law.blobs) {
    acc.blobs.push_back(Blob{b.centre,
                             b.half_width,
                             {weight * b.mass.lo, weight * b.mass.hi},
                             {weight * b.moment.lo, weight * b.moment.hi},
                             {weight * b.second.lo, weight * b.second.hi}});
  }
  acc.outside.lo += weight * law.outside.lo;
  acc.outside.hi += weight * law.outside.hi;
  acc.total += weight * law.total;
}

Bracket mass_sums(const CellLaw& law) {
  Bracket sum{law.outside.lo, law.outside.hi};
  for (std::size_t k = 0; k < law.mass_lo.size(); ++k) {
    sum.lo += law.mass_lo[k];
    sum.hi += law.mass_hi[k];
  }
  for (const PointMass& p : law.points) {
    sum.lo += p.mass.lo;
    sum.hi += p.mass.hi;
  }
  return sum;
}

void tighten(CellLaw& law) {
  const Bracket sums = mass_sums(law);
  const double sum_lo = sums.lo, sum_hi = sums.hi;
  const double t = law.total;
  // the sums are rounded: a slack far above their rounding error keeps the bounds valid
  const double slack = 1e-12 * t;
  const auto fix = [&](double& lo, double& hi) {
    const double l = lo, u = hi;
    hi = std::min(u, t - (sum_lo - l) + slack);
    lo = std::max(l, t - (sum_hi - u) - slack);
    lo = std::max(lo, 0.0);
    hi = std::max(hi, lo);
  };
  const double half = 0.5 * law.width();
  for (std::size_t k = 0; k < law.mass_lo.size(); ++k) {
    fix(law.mass_lo[k], law.mass_hi[k]);
    law.second_lo[k] = std::max(law.second_lo[k], 0.0);
    law.second_hi[k] =
        std::max(std::min(law.second_hi[k], half * half * law.mass_hi[k]), law.second_lo[k]);
    law.moment_lo[k] = std::max(law.moment_lo[k], -half * law.mass_hi[k]);
    law.moment_hi[k] = std::min(law.moment_hi[k], half * law.mass_hi[k]);
    if (law.moment_lo[k] > law.moment_hi[k]) {
      // rounding only: the true moment lies in both brackets
      const double m = 0.5 * (law.moment_lo[k] + law.moment_hi[k]);
      law.moment_lo[k] = law.moment_hi[k] = m;
    }
  }
  for (PointMass& p : law.points) fix(p.mass.lo, p.mass.hi);
  if (!law.clamped) fix(law.outside.lo, law.outside.hi);
}

CellLaw propagate(const CellLaw& law, const Step& step, const PropagateOptions& options) {
  check_law(law, "propagate");
  const double s = step.noise_std;
  if (!(s > 0) || (step.cases.empty() && step.maps.empty()))
    throw InternalError("propagate: noise_std > 0, cases");
  CellLaw out = empty_like(law);
  out.total = law.total;
  const int n = law.cells;
  const double h = law.width();
  const double reach_sds = step_reach(law, options);
  const double reach = reach_sds * s;
  const double tail_each = 2.0 * upper_tail(reach_sds);  // per unit mass, beyond the window
  double unvisited = 0.0;  // upper bound on the mass sent to cells no window visited
  std::vector<Coef> coef;
  CoefColumns columns;
  const bool vec = options.vectorised;
  // coefficients as columns, then their accumulation
  const auto send = [&](int count, int first, double weight, double pl, double pu, double dl,
                        double du, double vl, double vu) {
    to_columns(coef, 0, count, columns);
    accumulate_columns(columns, 0, first, count, weight, pl, pu, dl, du, vl, vu, out, vec);
  };

  // the atoms / the outside bucket of the output
  // (moments in the image's coordinate: a D and a^2 V about the image's centre mc)
  // An image [mc - hm, mc + hm] at least `reach` from an edge sends at most Q(reach) of its
  // mass beyond it: that bound (a cell more than reach away, for the rounding of the
  // distance), without evaluating the tail; the lower bound there is 0. Q(reach) is at most
  // the floor per unit mass that the cells' upper bounds already take (tail_each / 2).
  const double tail_one = upper_tail(reach_sds);
  const auto add_beyond = [&](double weight, double mc, double hm, double pl, double pu, double dl,
                              double du, double vl, double vu) {
    const Bracket below = mc - hm - law.lo >= reach + h
                              ? Bracket{0.0, pu * tail_one}
                              : beyond(law.lo, false, mc, hm, 1.0, s, pl, pu, dl, du, vl, vu);
    const Bracket above = law.hi - (mc + hm) >= reach + h
                              ? Bracket{0.0, pu * tail_one}
                              : beyond(law.hi, true, mc, hm, 1.0, s, pl, pu, dl, du, vl, vu);
    add_edges(weight, below, above, out);
  };
  // the target cells within reach of an image [m_lo, m_hi]: [first, last]
  const auto window = [&](double m_lo, double m_hi, int& first, int& last) {
    first = cell_index(std::floor((m_lo - reach - law.lo) / h));
    last = cell_index(std::ceil((m_hi + reach - law.lo) / h));
  };

  // cells under slope-1 cases: the coefficients depend only on the offset target - source (a
  // Toeplitz kernel), so one table serves every source; and cases whose shifts differ by a
  // whole number of cells (the blog's b = 2: 0 and 20 cells) are the same kernel moved by that
  // number: one pass over the sources, on the grid widened by the largest move, serves them
  // all (each case then adds its weight times the pass moved by its offset)
  std::vector<char> grouped(step.cases.size(), 0);
  for (std::size_t ci = 0; ci < step.cases.size(); ++ci) {
    const AffineCase& ref = step.cases[ci];
    if (ref.slope != 1.0 || !(ref.weight > 0) || grouped[ci]) continue;
    std::vector<std::pair<double, int>> members;  // weight, offset in cells
    int k_min = 0, k_max = 0;
    for (std::size_t cj = ci; cj < step.cases.size(); ++cj) {
      const AffineCase& o = step.cases[cj];
      if (o.slope != 1.0 || !(o.weight > 0) || grouped[cj]) continue;
      const double off = (o.shift - ref.shift) / h, k = std::round(off);
      if (!(std::fabs(off - k) <= 1e-9) || std::fabs(k) > n) continue;
      grouped[cj] = 1;
      members.emplace_back(o.weight, static_cast<int>(k));
      k_min = std::min(k_min, static_cast<int>(k));
      k_max = std::max(k_max, static_cast<int>(k));
    }
    // the pass: targets t - k for t in [0, n) and every offset k, i.e. [-k_max, n - k_min),
    // stored from index 0
    CellLaw pass;
    pass.cells = n + k_max - k_min;
    for (auto* v : {&pass.mass_lo, &pass.mass_hi, &pass.moment_lo, &pass.moment_hi, &pass.second_lo,
                    &pass.second_hi})
      v->assign(static_cast<std::size_t>(pass.cells), 0.0);
    const double hm = 0.5 * h;
    int t_first = 0, t_last = -1;
    const double mc0 = law.centre(0) + ref.shift;
    window(mc0 - hm, mc0 + hm, t_first, t_last);
    // Source j's coefficient i goes to target t_first + j + i, at pass index + k_max; the
    // pass holds targets [-k_max, n - k_min), so only t_first + i in [-k_max - (n - 1),
    // n - k_min - 1] can land in it. Where the noise's reach is wider than the grid (a
    // projected law with s >> D) the window is clipped to those: its length, and the memory,
    // then follow the grid (2n + moves) rather than the reach (issue 37: blog_sigma = 1e7 on a
    // 1-cell grid asked for 10^7 coefficients, 4.2 GB).
    const int skip = std::max(0, -k_max - (n - 1) - t_first);
    const int t_stop = std::min(t_last, n - k_min - 1);
    if (t_stop >= t_first + skip) {
      coefficients(law.lo + t_first * h, h, t_stop - t_first + 1, mc0, hm, 1.0, s, coef, skip);
      to_columns(coef, 0, t_stop - t_first + 1 - skip, columns);
      accumulate_toeplitz(columns, t_first + skip + k_max, law, pass, vec);
    }
    for (const auto& [weight, k] : members) {
      const auto from = static_cast<std::size_t>(k_max - k);  // pass index of target 0
      for (std::size_t t = 0; t < static_cast<std::size_t>(n); ++t) {
        out.mass_lo[t] += weight * pass.mass_lo[from + t];
        out.mass_hi[t] += weight * pass.mass_hi[from + t];
        out.moment_lo[t] += weight * pass.moment_lo[from + t];
        out.moment_hi[t] += weight * pass.moment_hi[from + t];
        out.second_lo[t] += weight * pass.second_lo[from + t];
        out.second_hi[t] += weight * pass.second_hi[from + t];
      }
    }
  }

  for (const AffineCase& cs : step.cases) {
    if (cs.weight == 0) continue;
    if (!(cs.slope > 0) || !(cs.weight > 0))
      throw InternalError("propagate: slope > 0, weight > 0");
    const double a = cs.slope, hm = 0.5 * a * h;
    if (a == 1.0) {
      // the cells were sent above; here what goes beyond the windows and the grid
      for (int j = 0; j < n; ++j) {
        const auto js = static_cast<std::size_t>(j);
        const double pl = law.mass_lo[js], pu = law.mass_hi[js];
        if (pu == 0) continue;
        const double dl = law.moment_lo[js], du = law.moment_hi[js];
        const double vl = law.second_lo[js], vu = law.second_hi[js];
        unvisited += cs.weight * pu * tail_each;
        add_beyond(cs.weight, law.centre(j) + cs.shift, hm, pl, pu, dl, du, vl, vu);
      }
    } else {
      // another slope: each source's image centre is moved to the nearest point of a lattice
      // of step h / kLattice (its image interval, widened by h / (2 kLattice), still holds the
      // true image) and the moment is taken about that point in the image's coordinate, so
      // kLattice tables serve every source (exact shifts of one table by whole cells)
      const double hmw = hm + 0.5 * h / kLattice;
      // the lattice cells of the first and last sources' images (increasing in j: a > 0)
      const auto lattice_cell = [&](int j) {
        const double r = std::round((a * law.centre(j) + cs.shift - law.lo) / h * kLattice);
        return static_cast<long>(std::floor(r / kLattice));
      };
      const long c_min = lattice_cell(0), c_max = lattice_cell(n - 1);
      const auto& tables = lattice_tables(a, s, h, hmw, reach_sds, -c_max - 1, n - c_min);
      for (int j = 0; j < n; ++j) {
        const auto js = static_cast<std::size_t>(j);
        const double pl = law.mass_lo[js], pu = law.mass_hi[js];
        if (pu == 0) continue;
        const double mc = a * law.centre(j) + cs.shift;
        const double r = std::round((mc - law.lo) / h * kLattice);
        const long cell = static_cast<long>(std::floor(r / kLattice));
        const int key = static_cast<int>(r - static_cast<double>(cell) * kLattice);
        const double mc_lattice = law.lo + r * h / kLattice, delta = mc - mc_lattice;
        // moment of the image about the lattice point: a D + P delta
        const double dl = a * law.moment_lo[js] + std::min(pl * delta, pu * delta);
        const double du = a * law.moment_hi[js] + std::max(pl * delta, pu * delta);
        // second moment about it: a^2 V + 2 a delta D + delta^2 P
        const double cross_lo =
            std::min(2 * a * delta * law.moment_lo[js], 2 * a * delta * law.moment_hi[js]);
        const double cross_hi =
            std::max(2 * a * delta * law.moment_lo[js], 2 * a * delta * law.moment_hi[js]);
        const double vl = std::max(0.0, a * a * law.second_lo[js] + cross_lo + delta * delta * pl);
        const double vu = a * a * law.second_hi[js] + cross_hi + delta * delta * pu;
        const LatticeTable& tab = tables[static_cast<std::size_t>(key)];
        const long first = tab.first + cell, last = first + static_cast<long>(tab.coef.size()) - 1;
        const long lo_k = std::max(first, 0L), hi_k = std::min(last, static_cast<long>(n) - 1);
        if (hi_k >= lo_k) {
          accumulate_columns(tab.coef, static_cast<int>(lo_k - first), static_cast<int>(lo_k),
                             static_cast<int>(hi_k - lo_k + 1), cs.weight, pl, pu, dl, du, vl, vu,
                             out, vec);
        }
        unvisited += cs.weight * pu * tail_each;
        add_beyond(cs.weight, mc, hm, pl, pu, a * law.moment_lo[js], a * law.moment_hi[js],
                   a * a * law.second_lo[js], a * a * law.second_hi[js]);
      }
    }
    // point masses (atoms, a starting point): exact images
    for (const PointMass& p : law.points) {
      if (p.mass.hi == 0) continue;
      const double mc = a * p.x + cs.shift;
      int first = 0, last = -1;
      window(mc, mc, first, last);
      const int lo_k = std::max(first, 0), hi_k = std::min(last, n - 1);
      if (hi_k >= lo_k) {
        coefficients(law.lo + lo_k * h, h, hi_k - lo_k + 1, mc, 0.0, a, s, coef);
        send(hi_k - lo_k + 1, lo_k, cs.weight, p.mass.lo, p.mass.hi, 0, 0, 0, 0);
      }
      unvisited += cs.weight * p.mass.hi * tail_each;
      add_beyond(cs.weight, mc, 0.0, p.mass.lo, p.mass.hi, 0, 0, 0, 0);
    }
    // blobs: sources like cells, with their own centre and half-width (image coordinate:
    // moments a D and a^2 V about the image's centre)
    for (const Blob& b : law.blobs) {
      if (b.mass.hi == 0) continue;
      const double mc = a * b.centre + cs.shift, hb = a * b.half_width;
      const double dl = a * b.moment.lo, du = a * b.moment.hi;
      const double vl = a * a * b.second.lo, vu = a * a * b.second.hi;
      int first = 0, last = -1;
      window(mc - hb, mc + hb, first, last);
      const int lo_k = std::max(first, 0), hi_k = std::min(last, n - 1);
      if (hi_k >= lo_k) {
        coefficients(law.lo + lo_k * h, h, hi_k - lo_k + 1, mc, hb, 1.0, s, coef);
        send(hi_k - lo_k + 1, lo_k, cs.weight, b.mass.lo, b.mass.hi, dl, du, vl, vu);
      }
      unvisited += cs.weight * b.mass.hi * tail_each;
      add_beyond(cs.weight, mc, hb, b.mass.lo, b.mass.hi, dl, du, vl, vu);
    }
  }
  if (!step.maps.empty()) propagate_maps(law, step, reach_sds, out, unvisited);
  // mass outside an unclamped grid: anywhere; it may reach any cell, at most a cell's peak
  // probability of it, and may stay outside
  if (!law.clamped && law.outside.hi > 0) {
    const double peak = std::erf(0.5 * h / s * kInvSqrt2);
    for (int k = 0; k < n; ++k) {
      const auto ks = static_cast<std::size_t>(k);
      out.mass_hi[ks] += law.outside.hi * peak;
      out.moment_lo[ks] -= law.outside.hi * peak * 0.5 * h;
      out.moment_hi[ks] += law.outside.hi * peak * 0.5 * h;
      out.second_hi[ks] += law.outside.hi * peak * 0.25 * h * h;
    }
    out.outside.hi += law.outside.hi;
  }
  if (unvisited > 0) {
    for (int k = 0; k < n; ++k) {
      const auto ks = static_cast<std::size_t>(k);
      out.mass_hi[ks] += unvisited;
      out.moment_lo[ks] -= unvisited * 0.5 * h;
      out.moment_hi[ks] += unvisited * 0.5 * h;
      out.second_hi[ks] += unvisited * 0.25 * h * h;
    }
  }
  tighten(out);
  return out;
}

namespace detail {

void check_law(const CellLaw& law, const char* where) {
  const auto n = static_cast<std::size_t>(law.cells);
  if (law.cells < 1 || !(law.hi > law.lo) || law.mass_lo.size() != n || law.mass_hi.size() != n ||
      law.moment_lo.size() != n || law.moment_hi.size() != n || law.second_lo.size() != n ||
      law.second_hi.size() != n || (law.clamped && law.points.size() < 2)) {
    throw InternalError(std::string(where) + ": a malformed CellLaw");
  }
}

}  // namespace detail

}  // namespace rdpaudit::exact
