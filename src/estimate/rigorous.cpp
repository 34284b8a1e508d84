#include "rdpaudit/estimate/rigorous.hpp"

#include <algorithm>
#include <boost/random/binomial_distribution.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

#include "rdpaudit/core/error.hpp"
#include "rdpaudit/estimate/cells.hpp"
#include "rdpaudit/estimate/confidence.hpp"
#include "rdpaudit/estimate/numeric.hpp"
#include "rdpaudit/estimate/selection.hpp"
#include "rdpaudit/estimate/variational.hpp"

namespace rdpaudit::estimate {

namespace {

using Boundaries = std::vector<std::size_t>;  // fine-cell indices in (0, m) where a cell starts

// Per-side prefix sums of (possibly scaled) counts over the fine cells.
struct Prefix {
  std::vector<double> p, q;  // size m + 1
  double total_p() const { return p.back(); }
  double total_q() const { return q.back(); }
};

Prefix prefix_of(const CellCounts& c, double scale_p, double scale_q) {
  Prefix f;
  f.p.assign(c.size() + 1, 0.0);
  f.q.assign(c.size() + 1, 0.0);
  for (std::size_t i = 0; i < c.size(); ++i) {
    f.p[i + 1] = f.p[i] + scale_p * static_cast<double>(c.p[i]);
    f.q[i + 1] = f.q[i] + scale_q * static_cast<double>(c.q[i]);
  }
  return f;
}

// Intervals for contiguous ranges of fine cells, computed once per range.
class IntervalCache {
 public:
  IntervalCache(const Prefix& f, double miss) : f_(f), miss_(miss) {}
  const std::pair<Interval, Interval>& get(std::size_t a, std::size_t b) {
    const std::uint64_t key = (static_cast<std::uint64_t>(a) << 32) | b;
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    const double kp = std::clamp(f_.p[b] - f_.p[a], 0.0, f_.total_p());
    const double kq = std::clamp(f_.q[b] - f_.q[a], 0.0, f_.total_q());
    return cache_
        .emplace(key, std::make_pair(clopper_pearson(kp, f_.total_p(), miss_),
                                     clopper_pearson(kq, f_.total_q(), miss_)))
        .first->second;
  }

 private:
  const Prefix& f_;
  double miss_;
  std::unordered_map<std::uint64_t, std::pair<Interval, Interval>> cache_;
};

// Certified bound of one partition for one order and direction.
BoxBound partition_bound(const Boundaries& bd, std::size_t m, IntervalCache& cache, double alpha,
                         int direction) {
  std::vector<Interval> pb, qb;
  std::size_t a = 0;
  for (std::size_t k = 0; k <= bd.size(); ++k) {
    const std::size_t b = k < bd.size() ? bd[k] : m;
    const auto& iv = cache.get(a, b);
    pb.push_back(iv.first);
    qb.push_back(iv.second);
    a = b;
  }
  return direction == kForward ? min_renyi_over_boxes(pb, qb, alpha)
                               : min_renyi_over_boxes(qb, pb, alpha);
}

// Plug-in of a partition on the evaluation counts; an empty cell counts 1/2.
double partition_plugin(const Boundaries& bd, const Prefix& f, double alpha, int direction) {
  std::vector<double> p, q;
  std::size_t a = 0;
  for (std::size_t k = 0; k <= bd.size(); ++k) {
    const std::size_t b = k < bd.size() ? bd[k] : f.p.size() - 1;
    p.push_back(std::max(f.p[b] - f.p[a], 0.5));
    q.push_back(std::max(f.q[b] - f.q[a], 0.5));
    a = b;
  }
  return direction == kForward ? discrete_renyi(p, q, alpha) : discrete_renyi(q, p, alpha);
}

std::vector<Boundaries> candidate_partitions(const OrderedCells& cells, const Prefix& f,
                                             const RigorousOptions& o) {
  const std::size_t m = cells.position.size();
  std::vector<Boundaries> out;
  if (m < 2) return out;
  // Boundary b (1 <= b < m) sits between fine cells b-1 and b.
  std::vector<double> bpos(m + 1, 0.0);
  for (std::size_t b = 1; b < m; ++b) bpos[b] = 0.5 * (cells.position[b - 1] + cells.position[b]);
  const double rare_total = std::min(f.total_p(), f.total_q());
  auto tail_above = [&](std::size_t b) {
    return std::min(f.total_p() - f.p[b], f.total_q() - f.q[b]);
  };
  auto tail_below = [&](std::size_t b) { return std::min(f.p[b], f.q[b]); };
  // Furthest cut holding at least t of the rarer side beyond it, at each end.
  auto high_cut = [&](double t) -> std::size_t {
    for (std::size_t b = m - 1; b >= 1; --b) {
      if (tail_above(b) >= t) return b;
    }
    return 0;
  };
  auto low_cut = [&](double t) -> std::size_t {
    for (std::size_t b = 1; b < m; ++b) {
      if (tail_below(b) >= t) return b;
    }
    return 0;
  };
  auto snap = [&](double x) {
    // nearest boundary position (bpos[1..m-1] is non-decreasing)
    auto it = std::lower_bound(bpos.begin() + 1, bpos.begin() + static_cast<std::ptrdiff_t>(m), x);
    std::size_t b = static_cast<std::size_t>(it - bpos.begin());
    if (b >= m) b = m - 1;
    if (b > 1 && std::abs(bpos[b - 1] - x) <= std::abs(bpos[b] - x)) --b;
    return b;
  };
  std::set<Boundaries> seen;
  auto add = [&](Boundaries bd) {
    std::sort(bd.begin(), bd.end());
    bd.erase(std::unique(bd.begin(), bd.end()), bd.end());
    bd.erase(std::remove_if(bd.begin(), bd.end(), [&](std::size_t b) { return b == 0 || b >= m; }),
             bd.end());
    if (!bd.empty() && seen.insert(bd).second) out.push_back(std::move(bd));
  };
  for (int end = 0; end < 2; ++end) {
    std::vector<std::size_t> far, near;
    for (double t = static_cast<double>(o.min_tail_count); t <= rare_total / 2.0; t *= 2.0) {
      const std::size_t b = end == 0 ? high_cut(t) : low_cut(t);
      if (b > 0) far.push_back(b);
    }
    for (double frac : o.near_fractions) {
      const std::size_t b = end == 0 ? low_cut(frac * rare_total) : high_cut(frac * rare_total);
      if (b > 0) near.push_back(b);
    }
    for (std::size_t fc : far) {
      add({fc});
      for (std::size_t nc : near) {
        if (end == 0 ? !(bpos[nc] < bpos[fc]) : !(bpos[nc] > bpos[fc])) continue;
        for (std::size_t nb : o.boundary_counts) {
          if (nb < 2) continue;
          Boundaries bd;
          for (std::size_t j = 0; j < nb; ++j) {
            const double x = bpos[nc] + (bpos[fc] - bpos[nc]) * static_cast<double>(j) /
                                            static_cast<double>(nb - 1);
            bd.push_back(snap(x));
          }
          bd.front() = nc;  // keep the exact cuts at both ends
          bd.back() = fc;
          add(bd);
        }
      }
    }
  }
  return out;
}

const ContrastCertificate* find_contrast(const RigorousResult& r, double alpha, int direction) {
  for (const ContrastCertificate& c : r.contrasts) {
    if (c.direction == direction && std::fabs(c.alpha - alpha) <= 1e-12 * alpha) return &c;
  }
  return nullptr;
}

std::vector<double> anchors_for(const std::vector<double>& alphas, const RigorousOptions& o) {
  if (!o.anchor_alphas.empty()) {
    check_alphas(o.anchor_alphas, "rigorous.anchor_alphas");
    return o.anchor_alphas;
  }
  const double lo = *std::min_element(alphas.begin(), alphas.end());
  const double hi = *std::max_element(alphas.begin(), alphas.end());
  std::vector<double> a;
  for (double x = lo; x < hi / 1.25; x *= 1.5) a.push_back(x);
  a.push_back(hi);
  return a;
}

void check_options(const RigorousOptions& o) {
  if (!(o.confidence > 0.0 && o.confidence < 1.0)) {
    throw InternalError("rigorous.confidence", std::to_string(o.confidence), "must lie in (0, 1)");
  }
  if (o.min_tail_count < 1) throw InternalError("rigorous.min_tail_count", "0", "must be >= 1");
  if (o.forecast_family_cells < 1)
    throw InternalError("rigorous.forecast_family_cells", "0", "must be >= 1");
  for (double f : o.near_fractions) {
    if (!(f > 0.0 && f < 1.0))
      throw InternalError("rigorous.near_fractions", std::to_string(f), "must lie in (0, 1)");
  }
}

}  // namespace

void check_ordered_cells(const OrderedCells& cells, const std::string& key) {
  cells.selection.check(key + ".selection");
  cells.evaluation.check(key + ".evaluation");
  const std::size_t m = cells.position.size();
  if (cells.selection.size() != m || cells.evaluation.size() != m) {
    throw InternalError(key + ".cells", std::to_string(m) + " positions",
                        "selection and evaluation need one count per position");
  }
  for (std::size_t i = 1; i < m; ++i) {
    if (!(cells.position[i] >= cells.position[i - 1])) {
      throw InternalError(key + ".position[" + std::to_string(i) + "]",
                          std::to_string(cells.position[i]),
                          "positions must be non-decreasing along the order");
    }
  }
}

RigorousResult rigorous_lower_bound(const OrderedCells& cells, const std::vector<double>& alphas,
                                    const RigorousOptions& options, const std::string& method) {
  check_alphas(alphas, "rigorous.alphas");
  check_options(options);
  check_ordered_cells(cells, "rigorous");
  const std::size_t m = cells.position.size();
  RigorousResult result;
  result.method = method;
  result.evaluation = cells.evaluation;
  const double np_sel = static_cast<double>(cells.selection.total_p());
  const double nq_sel = static_cast<double>(cells.selection.total_q());
  const double np_eval = static_cast<double>(cells.evaluation.total_p());
  const double nq_eval = static_cast<double>(cells.evaluation.total_q());
  auto all_uninformative = [&](const std::string& why) {
    for (double a : alphas) {
      for (int d : {kForward, kBackward})
        result.estimates.push_back(uninformative(a, d, method, why));
    }
    return result;
  };
  if (np_sel <= 0 || nq_sel <= 0 || np_eval <= 0 || nq_eval <= 0) {
    return all_uninformative("a split holds no samples of P or of P'");
  }

  // 1. Choose partitions on the selection split, forecasting evaluation-sized counts.
  const Prefix forecast = prefix_of(cells.selection, np_eval / np_sel, nq_eval / nq_sel);
  const std::vector<Boundaries> candidates = candidate_partitions(cells, forecast, options);
  if (candidates.empty())
    return all_uninformative("too few samples to form a tail cell of min_tail_count");
  IntervalCache forecast_cache(
      forecast,
      (1.0 - options.confidence) / (2.0 * static_cast<double>(options.forecast_family_cells)));
  std::set<Boundaries> chosen;
  for (double a : anchors_for(alphas, options)) {
    for (int d : {kForward, kBackward}) {
      double best = -1.0;
      const Boundaries* arg = nullptr;
      for (const Boundaries& bd : candidates) {
        const double lb = partition_bound(bd, m, forecast_cache, a, d).lower;
        if (lb > best || (lb == best && arg && bd.size() < arg->size())) {
          best = lb;
          arg = &bd;
        }
      }
      if (arg && best > 0.0) chosen.insert(*arg);
    }
  }
  if (chosen.empty()) {
    // Nothing forecasts a positive bound: keep one candidate, so the answer is still a bound.
    chosen.insert(candidates.front());
  }

  // 2. The family: every distinct cell of the chosen partitions, both sides, Bonferroni.
  std::set<std::pair<std::size_t, std::size_t>> family;
  for (const Boundaries& bd : chosen) {
    std::size_t a = 0;
    for (std::size_t k = 0; k <= bd.size(); ++k) {
      const std::size_t b = k < bd.size() ? bd[k] : m;
      family.insert({a, b});
      a = b;
    }
    result.partitions.push_back(bd);
  }
  result.family_cells = family.size();
  result.per_interval_miss =
      (1.0 - options.confidence) / (2.0 * static_cast<double>(family.size()));

  // 3. Bound every order and direction on the evaluation split.
  const Prefix eval = prefix_of(cells.evaluation, 1.0, 1.0);
  IntervalCache eval_cache(eval, result.per_interval_miss);
  for (double a : alphas) {
    for (int d : {kForward, kBackward}) {
      double best = 0.0;
      const Boundaries* arg = &result.partitions.front();
      for (const Boundaries& bd : result.partitions) {
        const double lb = partition_bound(bd, m, eval_cache, a, d).lower;
        if (lb > best) {
          best = lb;
          arg = &bd;
        }
      }
      if (!(best > 0.0)) {
        result.estimates.push_back(uninformative(a, d, method,
                                                 "the lower confidence bound is 0: no chosen "
                                                 "partition separates P from P' at this order "
                                                 "on the evaluation split (more samples, or a "
                                                 "score that reaches the tilted mass, needed)"));
        continue;
      }
      Estimate e;
      e.alpha = a;
      e.direction = d;
      e.method = method;
      e.value = partition_plugin(*arg, eval, a, d);
      e.lower = best;
      e.upper = std::numeric_limits<double>::infinity();
      e.interval = "clopper-pearson, bonferroni over " + std::to_string(family.size()) +
                   " cells, family-wise (valid lower bound, one-sided)";
      e.informative = true;
      result.estimates.push_back(std::move(e));
    }
  }
  return result;
}

double rigorous_lower_at(const RigorousResult& r, double alpha, int direction, double family_miss) {
  if (!(family_miss > 0.0 && family_miss <= 1.0)) {
    throw InternalError("rigorous.family_miss", std::to_string(family_miss), "must lie in (0, 1]");
  }
  if (!r.contrasts.empty()) {
    const ContrastCertificate* c = find_contrast(r, alpha, direction);
    return c ? contrast_lower_bound(*c, family_miss / static_cast<double>(r.family_cells)) : 0.0;
  }
  if (r.partitions.empty() || r.family_cells == 0) return 0.0;
  const Prefix eval = prefix_of(r.evaluation, 1.0, 1.0);
  IntervalCache cache(eval, family_miss / (2.0 * static_cast<double>(r.family_cells)));
  const std::size_t m = r.evaluation.size();
  double best = 0.0;
  for (const Boundaries& bd : r.partitions) {
    best = std::max(best, partition_bound(bd, m, cache, alpha, direction).lower);
  }
  return best;
}

double rigorous_lower_for_order(const RigorousResult& r, double alpha, int direction, double miss) {
  if (r.contrasts.empty()) return rigorous_lower_at(r, alpha, direction, miss);
  if (!(miss > 0.0 && miss <= 1.0)) {
    throw InternalError("rigorous.miss", std::to_string(miss), "must lie in (0, 1]");
  }
  const ContrastCertificate* c = find_contrast(r, alpha, direction);
  return c ? contrast_lower_bound(*c, miss) : 0.0;
}

double rigorous_p_value(const RigorousResult& r, double alpha, int direction, double threshold) {
  return bisect_p_value(
      [&](double miss) { return rigorous_lower_for_order(r, alpha, direction, miss) > threshold; });
}

std::vector<double> quantile_cell_edges(const std::vector<double>& selection_p,
                                        const std::vector<double>& selection_q,
                                        std::size_t bulk_cells) {
  if (selection_p.empty() || selection_q.empty()) {
    throw InternalError("cells_from_scores.selection",
                        std::to_string(selection_p.size()) + " and " +
                            std::to_string(selection_q.size()) + " scores",
                        "need scores of both P and P'");
  }
  if (bulk_cells < 2)
    throw InternalError("cells_from_scores.bulk_cells", std::to_string(bulk_cells), "must be >= 2");
  std::vector<double> pooled(selection_p);
  pooled.insert(pooled.end(), selection_q.begin(), selection_q.end());
  const std::size_t n = pooled.size();
  // Cut between the order statistics of 0-based ranks r-1 and r.
  std::vector<std::size_t> cuts;
  const std::size_t bulk_step = std::max<std::size_t>(1, n / bulk_cells);
  for (double r = 1.0; r < static_cast<double>(bulk_step); r *= std::sqrt(2.0)) {
    const auto k = static_cast<std::size_t>(std::llround(r));
    cuts.push_back(k);
    cuts.push_back(n - k);
  }
  for (std::size_t j = 1; j < bulk_cells; ++j) cuts.push_back(j * n / bulk_cells);
  cuts.erase(
      std::remove_if(cuts.begin(), cuts.end(), [&](std::size_t r) { return r < 1 || r >= n; }),
      cuts.end());
  std::vector<std::size_t> ranks;
  for (std::size_t r : cuts) {
    ranks.push_back(r - 1);
    ranks.push_back(r);
  }
  const std::map<std::size_t, double> stat = order_statistics(pooled, ranks);
  std::vector<double> edges;
  for (std::size_t r : cuts) edges.push_back(0.5 * (stat.at(r - 1) + stat.at(r)));
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  edges.erase(
      std::remove_if(edges.begin(), edges.end(), [](double e) { return !std::isfinite(e); }),
      edges.end());
  if (edges.empty()) edges.push_back(stat.empty() ? 0.0 : stat.begin()->second);
  return edges;
}

std::vector<double> cell_positions(const std::vector<double>& edges) {
  const std::size_t m = edges.size() + 1;
  std::vector<double> position(m);
  for (std::size_t i = 1; i + 1 < m; ++i) position[i] = 0.5 * (edges[i - 1] + edges[i]);
  const double first_gap = edges.size() > 1 ? edges[1] - edges[0] : 1.0;
  const double last_gap = edges.size() > 1 ? edges.back() - edges[edges.size() - 2] : 1.0;
  position.front() = edges.front() - 0.5 * first_gap;
  position.back() = edges.back() + 0.5 * last_gap;
  return position;
}

OrderedCells cells_from_scores(const std::vector<double>& selection_p,
                               const std::vector<double>& selection_q,
                               const std::vector<double>& evaluation_p,
                               const std::vector<double>& evaluation_q, std::size_t bulk_cells) {
  const std::vector<double> edges = quantile_cell_edges(selection_p, selection_q, bulk_cells);
  OrderedCells oc;
  oc.position = cell_positions(edges);
  auto count = [&](const std::vector<double>& x) { return tally({edges}, view_of(x)); };
  oc.selection.p = count(selection_p);
  oc.selection.q = count(selection_q);
  oc.evaluation.p = count(evaluation_p);
  oc.evaluation.q = count(evaluation_q);
  return oc;
}

OrderedCells cells_from_histogram_1d(const std::vector<double>& edges, const CellCounts& selection,
                                     const CellCounts& evaluation) {
  check_edges(edges, "cells_from_histogram_1d.edges");
  selection.check("cells_from_histogram_1d.selection");
  evaluation.check("cells_from_histogram_1d.evaluation");
  if (selection.size() != edges.size() + 1 || evaluation.size() != edges.size() + 1) {
    throw InternalError("cells_from_histogram_1d.counts",
                        std::to_string(selection.size()) + " cells",
                        "need edges.size() + 1 = " + std::to_string(edges.size() + 1) + " cells");
  }
  OrderedCells oc;
  const std::size_t m = edges.size() + 1;
  oc.position.resize(m);
  const double w0 = edges.size() > 1 ? edges[1] - edges[0] : 1.0;
  const double w1 = edges.size() > 1 ? edges.back() - edges[edges.size() - 2] : 1.0;
  oc.position.front() = edges.front() - 0.5 * w0;
  oc.position.back() = edges.back() + 0.5 * w1;
  for (std::size_t i = 1; i + 1 < m; ++i) oc.position[i] = 0.5 * (edges[i - 1] + edges[i]);
  oc.selection = selection;
  oc.evaluation = evaluation;
  return oc;
}

OrderedCells cells_from_histogram_2d(const std::vector<double>& edges_x,
                                     const std::vector<double>& edges_y,
                                     const CellCounts& selection, const CellCounts& evaluation,
                                     double bandwidth_cells) {
  check_edges(edges_x, "cells_from_histogram_2d.edges_x");
  check_edges(edges_y, "cells_from_histogram_2d.edges_y");
  const std::size_t nx = edges_x.size() + 1, ny = edges_y.size() + 1;
  if (selection.size() != nx * ny || evaluation.size() != nx * ny) {
    throw InternalError(
        "cells_from_histogram_2d.counts", std::to_string(selection.size()) + " cells",
        "need (edges_x + 1) * (edges_y + 1) = " + std::to_string(nx * ny) + " cells");
  }
  std::vector<double> lr;
  const std::vector<std::size_t> order =
      order_by_smoothed_ratio(selection, nx, ny, bandwidth_cells, &lr);
  OrderedCells oc;
  for (std::size_t c : order) {
    oc.position.push_back(lr[c]);
    oc.selection.p.push_back(selection.p[c]);
    oc.selection.q.push_back(selection.q[c]);
    oc.evaluation.p.push_back(evaluation.p[c]);
    oc.evaluation.q.push_back(evaluation.q[c]);
  }
  return oc;
}

std::pair<CellCounts, CellCounts> thin_counts(const CellCounts& counts, double fraction,
                                              rng::Stream& stream) {
  counts.check("thin_counts.counts");
  if (!(fraction > 0.0 && fraction < 1.0)) {
    throw InternalError("thin_counts.fraction", std::to_string(fraction), "must lie in (0, 1)");
  }
  std::pair<CellCounts, CellCounts> out;
  auto split = [&](const std::vector<std::uint64_t>& in, std::vector<std::uint64_t>& a,
                   std::vector<std::uint64_t>& b) {
    a.resize(in.size());
    b.resize(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
      a[i] = in[i] == 0 ? 0
                        : static_cast<std::uint64_t>(
                              boost::random::binomial_distribution<std::int64_t, double>(
                                  static_cast<std::int64_t>(in[i]), fraction)(stream));
      b[i] = in[i] - a[i];
    }
  };
  split(counts.p, out.first.p, out.second.p);
  split(counts.q, out.first.q, out.second.q);
  return out;
}

// The count method "rigorous-cp": partitions of the fine cells chosen on the selection counts.
CountResult run_rigorous_cp(const CountInputs& in) {
  return certified(rigorous_lower_bound(in.fine, in.alphas, in.options.rigorous, in.row_name));
}

}  // namespace rdpaudit::estimate
