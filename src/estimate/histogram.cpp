#include "rdpaudit/estimate/histogram.hpp"

#include <algorithm>
#include <boost/random/binomial_distribution.hpp>
#include <boost/random/poisson_distribution.hpp>
#include <cmath>
#include <limits>
#include <numeric>

#include "rdpaudit/core/error.hpp"
#include "rdpaudit/estimate/cells.hpp"
#include "rdpaudit/estimate/numeric.hpp"
#include "rdpaudit/estimate/selection.hpp"

namespace rdpaudit::estimate {

namespace {

struct PluginPoint {
  double value = 0.0;
  double edge_share = 0.0;  // largest share of the tilted mass in the first or last group
  double bias = 0.0;        // first-order estimate of the upward noise bias of value
};

// Plug-in on merged counts for one order and direction (a: the numerator side).
PluginPoint plugin_point(const CellCounts& merged, const std::vector<std::size_t>& end_groups,
                         double alpha, int direction) {
  const auto& a = direction == kForward ? merged.p : merged.q;
  const auto& b = direction == kForward ? merged.q : merged.p;
  const double na = static_cast<double>(std::accumulate(a.begin(), a.end(), std::uint64_t{0}));
  const double nb = static_cast<double>(std::accumulate(b.begin(), b.end(), std::uint64_t{0}));
  std::vector<double> terms(a.size(), -std::numeric_limits<double>::infinity());
  for (std::size_t g = 0; g < a.size(); ++g) {
    if (a[g] == 0) continue;
    terms[g] = alpha * std::log(static_cast<double>(a[g]) / na) +
               (1.0 - alpha) * std::log(static_cast<double>(b[g]) / nb);
  }
  const double ls = log_sum_exp(terms);
  PluginPoint out;
  out.value = std::max(0.0, ls / (alpha - 1.0));
  for (std::size_t g : end_groups) {
    out.edge_share = std::max(out.edge_share, std::exp(terms[g] - ls));
  }
  for (std::size_t g = 0; g < a.size(); ++g) {
    if (a[g] == 0) continue;
    out.bias += std::exp(terms[g] - ls) *
                (1.0 / static_cast<double>(a[g]) + 1.0 / static_cast<double>(b[g]));
  }
  out.bias *= alpha / 2.0;
  return out;
}

// The groups of the first and the last cell along the order, less those whose samples all
// sit in one point cell: an atom at the end of both samples (a projection's boundary, which
// no iterate passes) is resolved by its own counts, and there is no tail beyond it that the
// samples could fail to reach.
std::vector<std::size_t> end_groups_of(const Grouping& grouping,
                                       const std::vector<std::size_t>& order,
                                       const CellCounts& counts,
                                       const std::vector<std::size_t>& point_cells) {
  const std::size_t cells = counts.size();
  const std::size_t first = order.empty() ? 0 : order.front();
  const std::size_t last = order.empty() ? cells - 1 : order.back();
  std::vector<std::size_t> ends{grouping.group[first], grouping.group[last]};
  if (point_cells.empty()) return ends;
  const auto only_an_atom = [&](std::size_t g) {
    bool atom = false;
    for (std::size_t c = 0; c < cells; ++c) {
      if (grouping.group[c] != g || (counts.p[c] == 0 && counts.q[c] == 0)) continue;
      if (atom || std::find(point_cells.begin(), point_cells.end(), c) == point_cells.end())
        return false;  // samples outside the atom, or in a second cell
      atom = true;
    }
    return atom;
  };
  ends.erase(std::remove_if(ends.begin(), ends.end(), only_an_atom), ends.end());
  return ends;
}

CellCounts resample(const CellCounts& c, bool poisson, rng::Stream& stream) {
  CellCounts r;
  r.p.resize(c.size());
  r.q.resize(c.size());
  auto one = [&](const std::vector<std::uint64_t>& in, std::vector<std::uint64_t>& out) {
    if (poisson) {
      for (std::size_t i = 0; i < in.size(); ++i) {
        out[i] = in[i] == 0 ? 0
                            : boost::random::poisson_distribution<std::uint64_t, double>(
                                  static_cast<double>(in[i]))(stream);
      }
      return;
    }
    std::uint64_t left = std::accumulate(in.begin(), in.end(), std::uint64_t{0});
    std::uint64_t mass = left;
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (left == 0 || in[i] == 0) {
        out[i] = 0;
      } else if (in[i] >= mass) {
        out[i] = left;
      } else {
        const double prob = static_cast<double>(in[i]) / static_cast<double>(mass);
        out[i] = boost::random::binomial_distribution<std::int64_t, double>(
            static_cast<std::int64_t>(left), prob)(stream);
      }
      left -= out[i];
      mass -= in[i];
    }
  };
  one(c.p, r.p);
  one(c.q, r.q);
  return r;
}

}  // namespace

namespace {

// The merge floor of each order, on a ladder of ratio 1.25 above min_count.
std::uint64_t floor_for(double alpha, const PluginOptions& o) {
  const double want = std::max(static_cast<double>(o.min_count), o.per_alpha2 * alpha * alpha);
  double m = static_cast<double>(o.min_count);
  while (m < want) m *= 1.25;
  return static_cast<std::uint64_t>(std::ceil(m));
}

struct Merged {
  CellCounts counts;
  std::vector<std::size_t> ends;
};

// An atom keeps a group of its own from the base floor min_count on, not from the order's
// floor m(a): that floor stops many sparse tail cells, each noisy, from making up the sum; an
// atom is one cell whose weight is the law's, and the bias rule still judges its noise.
Merged merge_for(const CellCounts& c, const std::vector<std::size_t>& order, std::uint64_t floor,
                 const std::vector<std::size_t>& point_cells, std::uint64_t point_floor) {
  const Grouping g =
      merge_sparse_keeping_points(c, order, floor, point_cells, std::min(floor, point_floor));
  return Merged{apply_grouping(c, g), end_groups_of(g, order, c, point_cells)};
}

}  // namespace

std::vector<Estimate> histogram_plugin(const CellCounts& counts, const std::vector<double>& alphas,
                                       const PluginOptions& options, rng::Stream* stream,
                                       const std::vector<std::size_t>& order,
                                       const std::string& method,
                                       const std::vector<std::size_t>& point_cells) {
  counts.check("histogram_plugin.counts");
  check_alphas(alphas, "histogram_plugin.alphas");
  if (!(options.confidence > 0.0 && options.confidence < 1.0)) {
    throw InternalError("plugin.confidence", std::to_string(options.confidence),
                        "must lie in (0, 1)");
  }
  if (options.min_count < 1) throw InternalError("plugin.min_count", "0", "must be >= 1");
  if (!(options.per_alpha2 >= 0.0) || !std::isfinite(options.per_alpha2)) {
    throw InternalError("plugin.per_alpha2", std::to_string(options.per_alpha2),
                        "must be finite and >= 0");
  }
  if (options.bootstrap_replicates > 0 && stream == nullptr) {
    throw InternalError("plugin.bootstrap_replicates", std::to_string(options.bootstrap_replicates),
                        "a bootstrap needs a random stream");
  }
  const std::size_t na = alphas.size(), reps = options.bootstrap_replicates;
  std::vector<std::uint64_t> floors(na);
  for (std::size_t i = 0; i < na; ++i) floors[i] = floor_for(alphas[i], options);
  std::vector<std::uint64_t> distinct(floors);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());

  // Bootstrap: replicate b, order i, direction d -> value.
  std::vector<double> boot(reps * na * 2, 0.0);
  for (std::size_t b = 0; b < reps; ++b) {
    const CellCounts rc = resample(counts, options.poisson_bootstrap, *stream);
    for (std::uint64_t f : distinct) {
      const Merged rm = merge_for(rc, order, f, point_cells, options.min_count);
      for (std::size_t i = 0; i < na; ++i) {
        if (floors[i] != f) continue;
        for (int d : {kForward, kBackward}) {
          boot[(b * na + i) * 2 + static_cast<std::size_t>(d)] =
              plugin_point(rm.counts, rm.ends, alphas[i], d).value;
        }
      }
    }
  }

  std::vector<Estimate> out;
  const std::uint64_t np = counts.total_p(), nq = counts.total_q();
  const double tail = 0.5 * (1.0 - options.confidence);
  std::vector<double> sample(reps);
  std::uint64_t merged_floor = 0;
  Merged merged;
  for (std::size_t i = 0; i < na; ++i) {
    if (floors[i] != merged_floor) {
      merged = merge_for(counts, order, floors[i], point_cells, options.min_count);
      merged_floor = floors[i];
    }
    for (int d : {kForward, kBackward}) {
      if (merged.counts.size() < 2) {
        out.push_back(uninformative(
            alphas[i], d, method,
            "merging to " + std::to_string(floors[i]) +
                " samples per cell and side leaves one cell (P: " + std::to_string(np) +
                ", P': " + std::to_string(nq) + " samples): too few samples for this order"));
        continue;
      }
      const PluginPoint pt = plugin_point(merged.counts, merged.ends, alphas[i], d);
      if (pt.edge_share > options.max_edge_share) {
        out.push_back(uninformative(
            alphas[i], d, method,
            std::to_string(static_cast<int>(std::round(100 * pt.edge_share))) +
                "% of the estimated tilted mass p^a q^(1-a) sits in an outermost merged cell: the "
                "samples do not reach where this order lives"));
        continue;
      }
      if (pt.bias > options.max_bias_share * pt.value) {
        out.push_back(uninformative(
            alphas[i], d, method,
            "the plug-in's estimated upward bias from cell noise (" + std::to_string(pt.bias) +
                ") exceeds " +
                std::to_string(static_cast<int>(std::round(100 * options.max_bias_share))) +
                "% of its value (" + std::to_string(pt.value) +
                "): too few samples for a divergence this small"));
        continue;
      }
      Estimate e;
      e.alpha = alphas[i];
      e.direction = d;
      e.method = method;
      e.value = pt.value;
      e.lower = e.upper = pt.value;
      e.interval = "none";
      if (reps > 0) {
        for (std::size_t b = 0; b < reps; ++b)
          sample[b] = boot[(b * na + i) * 2 + static_cast<std::size_t>(d)];
        std::sort(sample.begin(), sample.end());
        e.lower = sorted_quantile(sample, tail);
        e.upper = sorted_quantile(sample, 1.0 - tail);
        e.interval = std::string(options.poisson_bootstrap ? "poisson" : "multinomial") +
                     "-bootstrap percentile (diagnostic, not a guarantee)";
      }
      e.informative = true;
      out.push_back(std::move(e));
    }
  }
  return out;
}

// The count method "histogram-plugin": the counts coarsened to the plug-in's bins.
CountResult run_histogram_plugin(const CountInputs& in) {
  const ScoreSelection& sel = in.selection;
  const CellCounts plugin_cells{coarsen(in.counts_p, sel.edges, sel.plugin_edges),
                                coarsen(in.counts_q, sel.edges, sel.plugin_edges)};
  return {histogram_plugin(plugin_cells, in.alphas, in.options.plugin, in.stream, {}, in.row_name,
                           point_cells_of(sel.plugin_edges)),
          std::nullopt};
}

}  // namespace rdpaudit::estimate
