// Exact checks of the estimator building blocks: the order grid, Clopper-Pearson intervals,
// the certified box minimum, histograms, merging and the plug-in.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <numeric>

#include "rdpaudit/core/error.hpp"
#include "rdpaudit/estimate/cells.hpp"
#include "rdpaudit/estimate/confidence.hpp"
#include "rdpaudit/estimate/histogram.hpp"
#include "rdpaudit/estimate/rigorous.hpp"
#include "rdpaudit/estimate/types.hpp"
#include "rdpaudit/rng/stream.hpp"

using namespace rdpaudit::estimate;
using rdpaudit::InternalError;
using rdpaudit::rng::Purpose;
using rdpaudit::rng::Stream;
using rdpaudit::rng::StreamId;

TEST_CASE("default alpha grid is dp_accounting's up to 64, merged with extras", "[estimate]") {
  const auto g = default_alpha_grid();
  REQUIRE(g.size() == 99 + 54);
  CHECK(g.front() == Approx(1.1));
  CHECK(g[98] == Approx(10.9));
  CHECK(g[99] == 11.0);
  CHECK(g.back() == 64.0);
  const auto e = default_alpha_grid({1.05, 2.0, 100.0});
  CHECK(e.size() == g.size() + 2);  // 2.0 is already there
  CHECK(e.front() == 1.05);
  CHECK(e.back() == 100.0);
  CHECK(std::is_sorted(e.begin(), e.end()));
  CHECK_THROWS_AS(default_alpha_grid({1.0}), InternalError);
  CHECK_THROWS_AS(check_alphas({2.0, std::nan("")}), InternalError);
}

TEST_CASE("discrete_renyi matches hand-computed values", "[estimate]") {
  // p = (1/2, 1/2), q = (1/4, 3/4), alpha = 2: sum p^2/q = 1 + 1/3.
  CHECK(discrete_renyi({0.5, 0.5}, {0.25, 0.75}, 2.0) ==
        Approx(std::log(4.0 / 3.0)).epsilon(1e-14));
  // Unnormalised weights give the same answer.
  CHECK(discrete_renyi({2.0, 2.0}, {1.0, 3.0}, 2.0) == Approx(std::log(4.0 / 3.0)).epsilon(1e-14));
  CHECK(discrete_renyi({0.3, 0.7}, {0.3, 0.7}, 64.0) == Approx(0.0).margin(1e-15));
  CHECK(std::isinf(discrete_renyi({0.5, 0.5}, {1.0, 0.0}, 2.0)));
}

namespace {

// Exact probability that the interval from k ~ Binomial(n, p) covers p.
double cp_coverage(int n, double p, double miss) {
  double cover = 0.0;
  for (int k = 0; k <= n; ++k) {
    const Interval ci = clopper_pearson(k, n, miss);
    if (ci.lower <= p && p <= ci.upper) {
      const double logpmf = std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) +
                            (k > 0 ? k * std::log(p) : 0.0) +
                            (n - k > 0 ? (n - k) * std::log1p(-p) : 0.0);
      cover += std::exp(logpmf);
    }
  }
  return cover;
}

}  // namespace

TEST_CASE("Clopper-Pearson intervals cover at least at their level for every p", "[estimate]") {
  // Exact coverage (a finite sum over k), so the threshold is the nominal level itself.
  for (int n : {1, 5, 20, 100, 400}) {
    for (double miss : {0.05, 0.001}) {
      for (int i = 1; i < 400; ++i) {
        const double p = i / 400.0;
        INFO("n = " << n << ", p = " << p << ", miss = " << miss);
        CHECK(cp_coverage(n, p, miss) >= 1.0 - miss - 1e-12);
      }
      for (double p : {1e-6, 1e-4, 1.0 - 1e-4})
        CHECK(cp_coverage(n, p, miss) >= 1.0 - miss - 1e-12);
    }
  }
  // Closed forms at the ends: k = 0 gives upper = 1 - (miss/2)^(1/n).
  const Interval z = clopper_pearson(0, 10, 0.05);
  CHECK(z.lower == 0.0);
  CHECK(z.upper == Approx(1.0 - std::pow(0.025, 0.1)).epsilon(1e-9));
  const Interval a = clopper_pearson(10, 10, 0.05);
  CHECK(a.upper == 1.0);
  CHECK(a.lower == Approx(std::pow(0.025, 0.1)).epsilon(1e-9));
  // Symmetry k <-> n - k.
  const Interval b = clopper_pearson(3, 17, 0.01), c = clopper_pearson(14, 17, 0.01);
  CHECK(b.lower == Approx(1.0 - c.upper).epsilon(1e-9));
  CHECK_THROWS_AS(clopper_pearson(5, 4, 0.05), InternalError);
  CHECK_THROWS_AS(clopper_pearson(1, 4, 0.0), InternalError);
}

TEST_CASE("box minimum: point boxes, two cells, overlap", "[estimate]") {
  const std::vector<double> p = {0.1, 0.2, 0.3, 0.4}, q = {0.4, 0.3, 0.2, 0.1};
  std::vector<Interval> pb, qb;
  for (std::size_t i = 0; i < p.size(); ++i) {
    pb.push_back({p[i], p[i]});
    qb.push_back({q[i], q[i]});
  }
  for (double a : {1.1, 2.0, 16.0, 64.0}) {
    const BoxBound b = min_renyi_over_boxes(pb, qb, a);
    CHECK(b.lower == Approx(discrete_renyi(p, q, a)).epsilon(1e-9));
  }
  // Two cells: the minimum sits at the corner nearest to p = q.
  const std::vector<Interval> p2 = {{0.6, 0.7}, {0.3, 0.4}}, q2 = {{0.2, 0.3}, {0.7, 0.8}};
  for (double a : {1.5, 8.0, 64.0}) {
    CHECK(min_renyi_over_boxes(p2, q2, a).lower ==
          Approx(discrete_renyi({0.6, 0.4}, {0.3, 0.7}, a)).epsilon(1e-9));
  }
  // Overlapping boxes: P = P' is feasible, the bound is 0.
  const std::vector<Interval> o = {{0.4, 0.6}, {0.4, 0.6}};
  CHECK(min_renyi_over_boxes(o, o, 3.0).lower == 0.0);
  const std::vector<Interval> tight = {{0.5, 0.5}, {0.5, 0.5}};
  CHECK(min_renyi_over_boxes(tight, tight, 64.0).lower == 0.0);  // rounding never lifts it above 0
  CHECK_THROWS_AS(min_renyi_over_boxes({{0.1, 0.2}, {0.1, 0.2}}, o, 2.0),
                  InternalError);  // no probability vector
}

TEST_CASE("box minimum is certified: never above R_alpha at any feasible point", "[estimate]") {
  // Random boxes around random probability vectors; the bound must not exceed R_alpha at
  // 20000 random feasible points, and must come within 1e-6 of the best of them when the
  // boxes are small (the minimiser is then well approximated by the sampled points).
  Stream s(StreamId{7, 0, 0, 0, Purpose::kTest});
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t k = 2 + s.below(4);
    std::vector<double> p(k), q(k);
    for (std::size_t i = 0; i < k; ++i) {
      p[i] = 0.05 + s.uniform();
      q[i] = 0.05 + s.uniform();
    }
    const double sp = std::accumulate(p.begin(), p.end(), 0.0),
                 sq = std::accumulate(q.begin(), q.end(), 0.0);
    std::vector<Interval> pb(k), qb(k);
    const double w = trial < 20 ? 0.02 : 0.2;
    for (std::size_t i = 0; i < k; ++i) {
      p[i] /= sp;
      q[i] /= sq;
      pb[i] = {std::max(0.0, p[i] - w * s.uniform()), std::min(1.0, p[i] + w * s.uniform())};
      qb[i] = {std::max(0.0, q[i] - w * s.uniform()), std::min(1.0, q[i] + w * s.uniform())};
    }
    const double alpha = trial % 3 == 0 ? 1.3 : (trial % 3 == 1 ? 6.0 : 40.0);
    const BoxBound b = min_renyi_over_boxes(pb, qb, alpha);
    REQUIRE(std::isfinite(b.lower));
    CHECK(b.lower <= b.at_point + 1e-12);
    // feasible points: random in the box for k-1 cells, the last one takes the rest
    auto feasible = [&](const std::vector<Interval>& box, std::vector<double>& x) {
      for (int tries = 0; tries < 1000; ++tries) {
        double acc = 0.0;
        for (std::size_t i = 0; i + 1 < k; ++i) {
          x[i] = box[i].lower + (box[i].upper - box[i].lower) * s.uniform();
          acc += x[i];
        }
        x[k - 1] = 1.0 - acc;
        if (x[k - 1] >= box[k - 1].lower && x[k - 1] <= box[k - 1].upper) return true;
      }
      return false;
    };
    std::vector<double> x(k), y(k);
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i < 20000; ++i) {
      if (!feasible(pb, x) || !feasible(qb, y)) continue;
      const double r = discrete_renyi(x, y, alpha);
      CHECK(b.lower <= r + 1e-12);
      best = std::min(best, r);
    }
    CHECK(b.lower <= best + 1e-12);
  }
}

TEST_CASE("histogram cells, tallies and proposed edges", "[estimate]") {
  const std::vector<double> e = {-1.0, 0.0, 2.0};
  CHECK(cell_of(e, -5.0) == 0);
  CHECK(cell_of(e, -1.0) == 1);  // [e0, e1)
  CHECK(cell_of(e, 1.9) == 2);
  CHECK(cell_of(e, 2.0) == 3);
  CHECK(cell_of(e, std::nan("")) == 3);
  const std::vector<double> xy = {-2.0, 0.5, 0.5, 0.5, 3.0, -3.0};  // three 2-D points
  const auto c = tally({e, {0.0}}, SampleView{xy.data(), 3, 2});
  REQUIRE(c.size() == 4 * 2);
  CHECK(c[0 * 2 + 1] == 1);
  CHECK(c[2 * 2 + 1] == 1);
  CHECK(c[3 * 2 + 0] == 1);
  CHECK_THROWS_AS(check_edges({0.0, 0.0}), InternalError);

  BinningOptions bo;
  const auto edges = propose_edges_known(0.0, 1.0, 0.5, 1.0, 1.0, 1000000, bo);
  const double width = std::sqrt(12.0 * bo.binning_bias);
  CHECK(edges[1] - edges[0] == Approx(width).epsilon(1e-12));
  const double reach = std::sqrt(2.0 * std::log(1e6)) + 1.0;
  CHECK(edges.front() <= -reach);
  CHECK(edges.back() >= 0.5 + reach);
  bo.max_bins = 10;
  CHECK(propose_edges_known(0.0, 1.0, 0.5, 1.0, 1.0, 1000000, bo).size() == 11);
}

TEST_CASE("merging keeps every group populated and is a coarsening", "[estimate]") {
  CellCounts c{{0, 5, 20, 1, 0, 30, 2, 0}, {3, 0, 25, 0, 0, 20, 0, 1}};
  const Grouping g = merge_sparse(c, {}, 5);
  const CellCounts m = apply_grouping(c, g);
  CHECK(m.total_p() == c.total_p());
  CHECK(m.total_q() == c.total_q());
  for (std::size_t i = 0; i < m.size(); ++i) {
    CHECK(m.p[i] >= 5);
    CHECK(m.q[i] >= 5);
  }
  for (std::size_t i = 1; i < c.size(); ++i) CHECK(g.group[i] >= g.group[i - 1]);  // contiguous
  CHECK_THROWS_AS(merge_sparse(c, {0, 1, 2}, 5), InternalError);
  CHECK_THROWS_AS(merge_sparse(c, {0, 1, 2, 3, 4, 5, 6, 6}, 5), InternalError);
  const Grouping all = merge_sparse(c, {}, 1000);
  CHECK(all.groups == 1);
}

TEST_CASE("plug-in is exact on exact frequencies and never infinite", "[estimate]") {
  // Counts proportional to two known discrete laws: the plug-in is their R_alpha.
  const std::vector<double> p = {0.1, 0.2, 0.3, 0.4}, q = {0.25, 0.25, 0.25, 0.25};
  CellCounts c;
  for (std::size_t i = 0; i < 4; ++i) {
    c.p.push_back(static_cast<std::uint64_t>(p[i] * 1e6));
    c.q.push_back(static_cast<std::uint64_t>(q[i] * 1e6));
  }
  PluginOptions o;
  o.bootstrap_replicates = 0;
  o.per_alpha2 = 0.0;
  o.max_edge_share = 1.0;  // four cells: the outermost ones legitimately hold most of the mass
  const auto est = histogram_plugin(c, {2.0, 5.0}, o, nullptr);
  REQUIRE(est.size() == 4);
  CHECK(est[0].value == Approx(discrete_renyi(p, q, 2.0)).epsilon(1e-12));
  CHECK(est[1].value == Approx(discrete_renyi(q, p, 2.0)).epsilon(1e-12));
  CHECK(est[2].value == Approx(discrete_renyi(p, q, 5.0)).epsilon(1e-12));
  CHECK(est[1].direction == kBackward);

  // Empty cells on one side: merged, finite, with a bootstrap interval around the value.
  CellCounts e{{50, 40, 30, 20, 0, 0}, {0, 0, 30, 40, 50, 60}};
  Stream s(StreamId{3, 0, 0, 0, Purpose::kTest});
  PluginOptions ob;
  ob.min_count = 10;
  ob.per_alpha2 = 0.0;
  ob.bootstrap_replicates = 100;
  ob.max_edge_share = 1.0;
  for (const Estimate& x : histogram_plugin(e, {2.0, 16.0}, ob, &s)) {
    CHECK(std::isfinite(x.value));
    CHECK(x.informative);
    CHECK(x.lower <= x.value);
    CHECK(x.upper >= x.value);
    CHECK(x.interval.find("diagnostic") != std::string::npos);
  }
  // Too few samples (or data that cannot be split into two populated cells): uninformative
  // with a reason, never a silent number.
  const auto few = histogram_plugin(CellCounts{{3, 2}, {1, 4}}, {2.0}, o, nullptr);
  const auto one =
      histogram_plugin(CellCounts{{50, 40, 30, 0, 0, 0}, {0, 0, 30, 40, 50, 60}}, {2.0}, ob, &s);
  for (const Estimate& x : one) CHECK_FALSE(x.informative);
  for (const Estimate& x : few) {
    CHECK_FALSE(x.informative);
    CHECK_FALSE(x.reason.empty());
  }
}

TEST_CASE("plug-in flags orders whose tilted mass sits in the outermost cell", "[estimate]") {
  // P has mass far to the right where P' has almost none: at large orders nearly all of
  // p^a q^(1-a) is in the last cell.
  CellCounts c{{1000, 1000, 1000, 1000, 5000}, {5000, 3000, 1000, 500, 100}};
  PluginOptions o;
  o.bootstrap_replicates = 0;
  o.per_alpha2 = 0.0;
  const auto est = histogram_plugin(c, {1.1, 32.0}, o, nullptr);
  CHECK_FALSE(est[2].informative);  // alpha 32, forward
  CHECK(est[2].reason.find("outermost") != std::string::npos);
  CHECK(est[2].lower == 0.0);
}

TEST_CASE("plug-in flags divergences too small for its noise bias", "[estimate]") {
  // 40 cells, 1000 samples a side, laws almost equal: the value is of the order of the
  // first-order noise bias alpha * cells / n, so it is uninformative, with that reason.
  CellCounts c;
  for (int i = 0; i < 40; ++i) {
    c.p.push_back(static_cast<std::uint64_t>(25 + (i % 3)));
    c.q.push_back(static_cast<std::uint64_t>(25 + ((i + 1) % 3)));
  }
  PluginOptions o;
  o.bootstrap_replicates = 0;
  o.per_alpha2 = 0.0;
  o.max_edge_share = 1.0;
  for (const Estimate& e : histogram_plugin(c, {2.0}, o, nullptr)) {
    CHECK_FALSE(e.informative);
    CHECK(e.reason.find("bias") != std::string::npos);
  }
  // The same shape at 1000 times the counts with a real difference is informative.
  CellCounts big;
  for (int i = 0; i < 40; ++i) {
    big.p.push_back(static_cast<std::uint64_t>(1000 * (20 + i)));
    big.q.push_back(static_cast<std::uint64_t>(1000 * (60 - i)));
  }
  for (const Estimate& e : histogram_plugin(big, {2.0}, o, nullptr)) CHECK(e.informative);
}

TEST_CASE("rigorous bound on exact counts is below the coarsened truth", "[estimate]") {
  // Fine cells with counts proportional to two laws (a large evaluation split): the bound
  // must not exceed the R_alpha of the fine cells (the finest partition available).
  std::vector<double> p, q;
  for (int i = 0; i < 40; ++i) {
    const double x = -4.0 + 0.2 * i;
    p.push_back(std::exp(-0.5 * (x - 0.5) * (x - 0.5)));
    q.push_back(std::exp(-0.5 * x * x));
  }
  OrderedCells oc;
  for (int i = 0; i < 40; ++i) {
    oc.position.push_back(i);
    for (CellCounts* c : {&oc.selection, &oc.evaluation}) {
      c->p.push_back(static_cast<std::uint64_t>(1e6 * p[static_cast<std::size_t>(i)]));
      c->q.push_back(static_cast<std::uint64_t>(1e6 * q[static_cast<std::size_t>(i)]));
    }
  }
  const auto r = rigorous_lower_bound(oc, {1.5, 4.0, 16.0});
  CHECK(r.family_cells >= 2);
  CHECK(r.per_interval_miss == Approx(0.05 / (2.0 * static_cast<double>(r.family_cells))));
  std::vector<double> fp(oc.evaluation.p.begin(), oc.evaluation.p.end());
  std::vector<double> fq(oc.evaluation.q.begin(), oc.evaluation.q.end());
  for (const Estimate& e : r.estimates) {
    const double fine =
        e.direction == kForward ? discrete_renyi(fp, fq, e.alpha) : discrete_renyi(fq, fp, e.alpha);
    CHECK(e.informative);
    CHECK(e.lower <= fine);
    CHECK(e.lower >= 0.5 * fine);  // 10^6-sample cells: most of it is certified
    CHECK(std::isinf(e.upper));
    CHECK(e.interval.find("one-sided") != std::string::npos);
  }
}

TEST_CASE("thinning splits every count and keeps the totals", "[estimate]") {
  Stream s(StreamId{11, 0, 0, 0, Purpose::kTest});
  CellCounts c{{100000, 0, 7, 250000}, {5, 99999, 0, 1}};
  const auto [a, b] = thin_counts(c, 0.3, s);
  for (std::size_t i = 0; i < c.size(); ++i) {
    CHECK(a.p[i] + b.p[i] == c.p[i]);
    CHECK(a.q[i] + b.q[i] == c.q[i]);
  }
  // Binomial(350007, 0.3): sd 271; 6 sd is a failure with probability ~1e-9.
  CHECK(std::abs(static_cast<double>(a.total_p()) - 0.3 * 350007.0) < 6 * 271.0);
}
