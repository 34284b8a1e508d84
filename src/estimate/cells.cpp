#include "rdpaudit/estimate/cells.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "rdpaudit/core/error.hpp"
#include "rdpaudit/estimate/numeric.hpp"
#include "rdpaudit/tally/cells.hpp"

namespace rdpaudit::estimate {

void check_edges(const std::vector<double>& edges, const std::string& key) {
  if (edges.empty()) throw InternalError(key, "[]", "need at least one bin edge");
  for (std::size_t i = 0; i < edges.size(); ++i) {
    if (!std::isfinite(edges[i]) || (i > 0 && !(edges[i] > edges[i - 1]))) {
      throw InternalError(key + "[" + std::to_string(i) + "]", std::to_string(edges[i]),
                          "edges must be finite and strictly increasing");
    }
  }
}

std::vector<std::uint64_t> tally(const std::vector<std::vector<double>>& edges,
                                 const SampleView& samples) {
  if (edges.size() != samples.dim || (samples.dim != 1 && samples.dim != 2)) {
    throw InternalError("tally.edges", std::to_string(edges.size()) + " axes",
                        "need one edge vector per sample dimension (1 or 2), samples have " +
                            std::to_string(samples.dim));
  }
  for (std::size_t a = 0; a < edges.size(); ++a)
    check_edges(edges[a], "tally.edges[" + std::to_string(a) + "]");
  // The lookup of the counting phase (tally/cells.hpp): one binning rule everywhere.
  const tally::CellIndex ix(edges[0]);
  const tally::CellIndex iy(samples.dim == 2 ? edges[1] : std::vector<double>{0.0});
  const std::size_t nx = ix.cells();
  const std::size_t ny = samples.dim == 2 ? iy.cells() : 1;
  std::vector<std::uint64_t> counts(nx * ny, 0);
#pragma omp parallel
  {
    std::vector<std::uint64_t> local(nx * ny, 0);
#pragma omp for schedule(static) nowait
    for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(samples.rows); ++i) {
      const double* x = samples.row(static_cast<std::size_t>(i));
      std::size_t c = ix.cell(x[0]);
      if (samples.dim == 2) c = c * ny + iy.cell(x[1]);
      ++local[c];
    }
#pragma omp critical
    for (std::size_t c = 0; c < local.size(); ++c) counts[c] += local[c];
  }
  return counts;
}

std::vector<double> propose_edges_known(double mean_p, double sd_p, double mean_q, double sd_q,
                                        double scale, std::uint64_t counted_per_side,
                                        const BinningOptions& options) {
  if (!(scale > 0.0) || !std::isfinite(scale)) {
    throw InternalError("binning.scale", std::to_string(scale), "must be a finite number > 0");
  }
  if (!(options.binning_bias > 0.0 && options.binning_bias < 1.0)) {
    throw InternalError("binning.binning_bias", std::to_string(options.binning_bias),
                        "must lie in (0, 1)");
  }
  if (options.max_bins < 2)
    throw InternalError("binning.max_bins", std::to_string(options.max_bins), "must be >= 2");
  const double reach =
      std::sqrt(2.0 * std::log(std::max<double>(static_cast<double>(counted_per_side), 2.0))) + 1.0;
  const double lo = std::min(mean_p - reach * sd_p, mean_q - reach * sd_q);
  const double hi = std::max(mean_p + reach * sd_p, mean_q + reach * sd_q);
  double width = scale * std::sqrt(12.0 * options.binning_bias);
  const double span = hi - lo;
  auto bins = static_cast<std::size_t>(std::ceil(span / width));
  if (bins > options.max_bins) {
    bins = options.max_bins;
    width = span / static_cast<double>(bins);
  }
  bins = std::max<std::size_t>(bins, 1);
  const double start = 0.5 * (lo + hi) - 0.5 * width * static_cast<double>(bins);
  std::vector<double> edges(bins + 1);
  for (std::size_t i = 0; i <= bins; ++i) edges[i] = start + width * static_cast<double>(i);
  return edges;
}

namespace {

void mean_sd(const SampleView& s, std::size_t axis, double& mean, double& sd) {
  long double m = 0.0L, m2 = 0.0L;
  for (std::size_t i = 0; i < s.rows; ++i) m += s.row(i)[axis];
  m /= static_cast<long double>(s.rows);
  for (std::size_t i = 0; i < s.rows; ++i) {
    const long double d = s.row(i)[axis] - m;
    m2 += d * d;
  }
  mean = static_cast<double>(m);
  sd = static_cast<double>(std::sqrt(m2 / static_cast<long double>(s.rows - 1)));
}

}  // namespace

std::vector<std::vector<double>> propose_edges(const SampleView& pilot_p, const SampleView& pilot_q,
                                               std::uint64_t counted_per_side,
                                               const BinningOptions& options) {
  if (pilot_p.rows < 2 || pilot_q.rows < 2 || pilot_p.dim != pilot_q.dim) {
    throw InternalError(
        "binning.pilot",
        std::to_string(pilot_p.rows) + " and " + std::to_string(pilot_q.rows) + " rows",
        "need at least 2 pilot samples per side, of equal dimension");
  }
  std::vector<std::vector<double>> edges;
  for (std::size_t a = 0; a < pilot_p.dim; ++a) {
    double mp = 0, sp = 0, mq = 0, sq = 0;
    mean_sd(pilot_p, a, mp, sp);
    mean_sd(pilot_q, a, mq, sq);
    const double scale = options.scale > 0.0 ? options.scale : std::min(sp, sq);
    std::vector<double> axis_p(pilot_p.rows), axis_q(pilot_q.rows);
    for (std::size_t i = 0; i < pilot_p.rows; ++i) axis_p[i] = pilot_p.row(i)[a];
    for (std::size_t i = 0; i < pilot_q.rows; ++i) axis_q[i] = pilot_q.row(i)[a];
    edges.push_back(
        with_point_cells(propose_edges_known(mp, sp, mq, sq, scale, counted_per_side, options),
                         find_point_masses(axis_p, axis_q)));
  }
  return edges;
}

namespace {

// Values this close are one point mass: the projection computes c + (x - c) r / |x - c|,
// which lands within a rounding or two of the boundary.
double point_tolerance(double v) {
  return 8.0 * std::numeric_limits<double>::epsilon() * std::fabs(v);
}

}  // namespace

std::vector<std::pair<double, double>> find_point_masses(const std::vector<double>& pilot_p,
                                                         const std::vector<double>& pilot_q,
                                                         std::size_t min_repeats) {
  if (min_repeats < 2)
    throw InternalError("point_masses.min_repeats", std::to_string(min_repeats), "must be >= 2");
  std::vector<double> v;
  v.reserve(pilot_p.size() + pilot_q.size());
  for (double x : pilot_p)
    if (std::isfinite(x)) v.push_back(x);
  for (double x : pilot_q)
    if (std::isfinite(x)) v.push_back(x);
  std::sort(v.begin(), v.end());
  std::vector<std::pair<double, double>> out;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i + 1;
    while (j < v.size() && v[j] - v[j - 1] <= point_tolerance(v[j - 1]) + point_tolerance(v[j]))
      ++j;
    if (j - i >= min_repeats) {
      const double lo = v[i] - point_tolerance(v[i]);
      const double hi = std::nextafter(v[j - 1] + point_tolerance(v[j - 1]),
                                       std::numeric_limits<double>::infinity());
      out.emplace_back(lo, hi);
    }
    i = j;
  }
  return out;
}

std::vector<double> with_point_cells(std::vector<double> edges,
                                     const std::vector<std::pair<double, double>>& points) {
  if (points.empty()) return edges;
  for (const auto& [lo, hi] : points) {
    if (!(lo < hi) || !is_point_cell(lo, hi)) {
      throw InternalError("point_cells", std::to_string(lo) + ", " + std::to_string(hi),
                          "a point cell must be a non-empty interval of relative width <= " +
                              std::to_string(kPointCellWidth));
    }
    edges.erase(std::remove_if(edges.begin(), edges.end(),
                               [lo = lo, hi = hi](double e) { return e >= lo && e <= hi; }),
                edges.end());
    edges.push_back(lo);
    edges.push_back(hi);
  }
  std::sort(edges.begin(), edges.end());
  check_edges(edges, "point_cells.edges");
  return edges;
}

bool is_point_cell(double lo, double hi) {
  return hi - lo <= kPointCellWidth * std::max(std::fabs(lo), std::fabs(hi));
}

std::vector<std::size_t> point_cells_of(const std::vector<double>& edges) {
  std::vector<std::size_t> out;
  for (std::size_t i = 1; i < edges.size(); ++i) {
    if (is_point_cell(edges[i - 1], edges[i])) out.push_back(i);  // cell i = [e_{i-1}, e_i)
  }
  return out;
}

Grouping merge_sparse(const CellCounts& counts, const std::vector<std::size_t>& order,
                      std::uint64_t min_count) {
  counts.check();
  const std::size_t n = counts.size();
  std::vector<std::size_t> ord = order;
  if (ord.empty()) {
    ord.resize(n);
    std::iota(ord.begin(), ord.end(), std::size_t{0});
  }
  std::vector<char> seen(n, 0);
  if (ord.size() != n) {
    throw InternalError("merge.order", std::to_string(ord.size()) + " entries",
                        "must list every one of " + std::to_string(n) + " cells once");
  }
  for (std::size_t c : ord) {
    if (c >= n || seen[c])
      throw InternalError("merge.order", std::to_string(c), "must be a permutation of the cells");
    seen[c] = 1;
  }
  Grouping g;
  g.group.assign(n, 0);
  std::uint64_t acc_p = 0, acc_q = 0;
  std::size_t open_from = 0;  // position in ord where the open group starts
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t c = ord[k];
    g.group[c] = static_cast<std::uint32_t>(g.groups);
    acc_p += counts.p[c];
    acc_q += counts.q[c];
    if (acc_p >= min_count && acc_q >= min_count) {
      ++g.groups;
      acc_p = acc_q = 0;
      open_from = k + 1;
    }
  }
  if (open_from < n) {
    if (g.groups == 0) {
      g.groups = 1;  // everything in one group
    } else {
      for (std::size_t k = open_from; k < n; ++k)
        g.group[ord[k]] = static_cast<std::uint32_t>(g.groups - 1);
    }
  }
  return g;
}

Grouping merge_sparse_keeping_points(const CellCounts& counts,
                                     const std::vector<std::size_t>& order, std::uint64_t min_count,
                                     const std::vector<std::size_t>& point_cells,
                                     std::uint64_t point_min_count) {
  counts.check();
  const std::size_t n = counts.size();
  std::vector<char> resolved(n, 0);  // a point cell with point_min_count samples of each side
  bool any = false;
  for (std::size_t c : point_cells) {
    if (c >= n) throw InternalError("merge.point_cells", std::to_string(c), "is not a cell");
    if (counts.p[c] >= point_min_count && counts.q[c] >= point_min_count)
      resolved[c] = 1, any = true;
  }
  if (!any) return merge_sparse(counts, order, min_count);
  std::vector<std::size_t> ord = order;
  if (ord.empty()) {
    ord.resize(n);
    std::iota(ord.begin(), ord.end(), std::size_t{0});
  }
  merge_sparse(counts, ord, min_count);  // validates the order
  // Runs along the order: each resolved atom alone, the stretches between them.
  struct Run {
    std::vector<std::size_t> cells;
    bool atom = false;
  };
  std::vector<Run> runs;
  for (std::size_t c : ord) {
    if (resolved[c]) {
      runs.push_back(Run{{c}, true});
    } else {
      if (runs.empty() || runs.back().atom) runs.push_back(Run{{}, false});
      runs.back().cells.push_back(c);
    }
  }
  // A stretch too sparse for one group of its own joins the atom before it (else after it):
  // every stretch has an atom beside it, since there is at least one atom.
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (runs[r].atom) continue;
    std::uint64_t sp = 0, sq = 0;
    for (std::size_t c : runs[r].cells) sp += counts.p[c], sq += counts.q[c];
    if (sp >= min_count && sq >= min_count) continue;
    if (r > 0) {
      auto& to = runs[r - 1].cells;
      to.insert(to.end(), runs[r].cells.begin(), runs[r].cells.end());
    } else {
      auto& to = runs[r + 1].cells;
      to.insert(to.begin(), runs[r].cells.begin(), runs[r].cells.end());
    }
    runs[r].cells.clear();
  }
  Grouping g;
  g.group.assign(n, 0);
  for (const Run& run : runs) {
    if (run.cells.empty()) continue;
    if (run.atom) {
      for (std::size_t c : run.cells) g.group[c] = static_cast<std::uint32_t>(g.groups);
      ++g.groups;
      continue;
    }
    CellCounts sub;
    for (std::size_t c : run.cells) {
      sub.p.push_back(counts.p[c]);
      sub.q.push_back(counts.q[c]);
    }
    const Grouping inner = merge_sparse(sub, {}, min_count);
    for (std::size_t k = 0; k < run.cells.size(); ++k)
      g.group[run.cells[k]] = static_cast<std::uint32_t>(g.groups + inner.group[k]);
    g.groups += inner.groups;
  }
  return g;
}

CellCounts apply_grouping(const CellCounts& counts, const Grouping& grouping) {
  CellCounts out;
  out.p.assign(grouping.groups, 0);
  out.q.assign(grouping.groups, 0);
  for (std::size_t i = 0; i < counts.size(); ++i) {
    out.p[grouping.group[i]] += counts.p[i];
    out.q[grouping.group[i]] += counts.q[i];
  }
  return out;
}

namespace {}  // namespace

std::vector<std::size_t> order_by_smoothed_ratio(const CellCounts& counts, std::size_t nx,
                                                 std::size_t ny, double bandwidth_cells,
                                                 std::vector<double>* log_ratio) {
  counts.check();
  if (nx * ny != counts.size()) {
    throw InternalError(
        "order.grid", std::to_string(nx) + " x " + std::to_string(ny),
        "must have as many cells as the counts (" + std::to_string(counts.size()) + ")");
  }
  std::vector<double> sp(counts.p.begin(), counts.p.end()), sq(counts.q.begin(), counts.q.end());
  gaussian_smooth(sp, nx, ny, bandwidth_cells, bandwidth_cells);
  gaussian_smooth(sq, nx, ny, bandwidth_cells, bandwidth_cells);
  const double np =
      static_cast<double>(counts.total_p()) + 0.5 * static_cast<double>(counts.size());
  const double nq =
      static_cast<double>(counts.total_q()) + 0.5 * static_cast<double>(counts.size());
  std::vector<double> lr(counts.size());
  for (std::size_t i = 0; i < lr.size(); ++i) {
    lr[i] = std::log((sp[i] + 0.5) / np) - std::log((sq[i] + 0.5) / nq);
  }
  std::vector<std::size_t> order(counts.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return lr[a] < lr[b]; });
  if (log_ratio) *log_ratio = std::move(lr);
  return order;
}

std::vector<std::uint64_t> coarsen(const std::vector<std::uint64_t>& counts,
                                   const std::vector<double>& edges,
                                   const std::vector<double>& coarse) {
  std::vector<std::uint64_t> out(coarse.size() + 1, 0);
  out[0] += counts[0];
  for (std::size_t i = 1; i < counts.size(); ++i) out[cell_of(coarse, edges[i - 1])] += counts[i];
  return out;
}

}  // namespace rdpaudit::estimate
