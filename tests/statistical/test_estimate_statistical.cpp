// Seeded Monte Carlo checks of the sample-based estimators against exact truth. Each states its
// threshold and why; the large replication studies behind them are in docs/studies/
// (python/studies/estimate_study.py).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>

#include "test_estimate_support.hpp"

using namespace rdpaudit::estimate;
using namespace rdpaudit::exact;

namespace {

const Estimate& truth_of(const std::vector<Estimate>& truth, const Estimate& e) {
  for (const Estimate& t : truth) {
    if (t.alpha == e.alpha && t.direction == e.direction) return t;
  }
  FAIL("no truth for alpha " << e.alpha);
  return truth.front();
}

// Eight 10^7-per-side replications of a 1-D case, checked against the brief's accuracy and
// power requirements (thresholds 3 % and 70 %) as far as the replication study
// (docs/studies/estimate_study.md, 20 seeds) shows them to hold for any seed:
//  * the rigorous bound is valid (<= truth) at every order in every run, and keeps >= 70 % of
//    the truth for alpha <= 16 in every run (study: smallest ratio 0.81 for pair15, 0.75 for
//    sgm);
//  * the plug-in's *bias* is within 3 % for alpha <= 16: the mean error of the 8 runs (study
//    means within 0.7 %; the mean of 8 has sd <= 0.5 % for alpha <= 8 and <= 1.2 % at 16);
//  * the Gaussian pair's plug-in is within 3 % in every run for alpha <= 8 (study: sd <= 0.7 %,
//    largest of 20 runs 1.6 %). One run of the sampled Gaussian mechanism cannot promise that
//    (sd up to 1.4 % at alpha 8, largest of 20 runs 3.2 %), nor one run of either at alpha
//    12 - 16 (sd 1.1 - 3.4 %, largest 2.8 - 7.1 %): that spread is the information the
//    counts carry, not a defect, so those are held to the bias check only;
//  * the plug-in is informative in every run up to alpha 12; at 16 the reach flag may fire,
//    so at least 6 of the 8 runs must be informative there.
//  * The Hoelder + Bernstein bound alone keeps >= 70 % in every run up to alpha 12, and at
//    alpha 15 - 16 in at least 6 of the 8 runs of each direction; the audit's lower bound (the
//    larger of the two rigorous bounds) keeps >= 70 % in every run up to 16. The per-run claim
//    for the Bernstein bound alone at 15 - 16 held for the Philox streams of the 20-seed study
//    but not for the generator that replaced them: with the same 10 % / 90 % split as before,
//    2 of 8 seeds lose its single contrast at alpha 15 - 16 (0.0 - 0.53 of the truth), in the
//    two-phase design 2 of 8 too (0.43 - 0.68); its test function chosen on the selection
//    counts sometimes fails on evaluation there. The partition bound carries those orders.
void check_at_ten_million(const std::string& name, bool per_run_up_to_8) {
  const testing::Case c = testing::known_truth_case(name);
  const std::vector<double> alphas = default_alpha_grid();
  const std::vector<Estimate> truth = exact_renyi(c.p, c.q, alphas);
  std::map<std::pair<double, int>, std::vector<double>> errors;
  std::map<std::pair<double, int>, int> bernstein_short;  // runs below 70 % at alpha 15 - 16
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const std::vector<Estimate> est = testing::run_replication(c, 10000000, seed, 90, alphas, 20);
    std::map<std::pair<double, int>, double> best;  // the larger rigorous bound
    for (const Estimate& e : est) {
      if (e.method == "rigorous-cp" || e.method == "rigorous-bernstein") {
        double& b = best[{e.alpha, e.direction}];
        b = std::max(b, e.lower);
      }
    }
    for (const Estimate& e : est) {
      const double t = truth_of(truth, e).value;
      INFO(name << ", seed " << seed << ": " << e.method << ", alpha " << e.alpha << ", direction "
                << e.direction << ", truth " << t << ", value " << e.value << ", lower " << e.lower
                << ", reason " << e.reason);
      CHECK(std::isfinite(e.value));
      CHECK(std::isfinite(e.lower));
      if (e.method == "histogram-plugin" && e.alpha <= 16.0) {
        auto& err = errors[{e.alpha, e.direction}];
        if (e.alpha <= 12.0) CHECK(e.informative);
        if (!e.informative) continue;
        if (per_run_up_to_8 && e.alpha <= 8.0) CHECK(std::abs(e.value / t - 1.0) <= 0.03);
        err.push_back(e.value / t - 1.0);
        CHECK(e.lower <= e.value);
        CHECK(e.upper >= e.value);
      }
      if (e.method == "rigorous-cp") {
        CHECK(e.lower <= t);  // validity (fails with probability <= 5 % for a random seed)
        if (e.alpha <= 16.0) CHECK(e.lower >= 0.70 * t);
        if (e.alpha == 64.0) CHECK(e.informative);  // finite and positive up to 64
      }
      if (e.method == "rigorous-bernstein") {
        CHECK(e.lower <= t);  // validity, as above
        if (e.alpha <= 12.0) CHECK(e.lower >= 0.70 * t);
        if (e.alpha > 12.0 && e.alpha <= 16.0 && e.lower < 0.70 * t)
          ++bernstein_short[{e.alpha, e.direction}];
        if (e.alpha <= 16.0) CHECK(best.at({e.alpha, e.direction}) >= 0.70 * t);
      }
    }
  }
  for (const auto& [key, short_runs] : bernstein_short) {
    INFO(name << ": rigorous-bernstein at alpha " << key.first << ", direction " << key.second);
    CHECK(short_runs <= 2);
  }
  for (const auto& [key, err] : errors) {
    INFO(name << ": plug-in at alpha " << key.first << ", direction " << key.second << ", "
              << err.size() << " informative runs");
    REQUIRE(err.size() >= 6);
    double mean = 0.0;
    for (double x : err) mean += x / static_cast<double>(err.size());
    CHECK(std::abs(mean) <= 0.03);
  }
}

}  // namespace

TEST_CASE("Gaussian pair at 10^7: plug-in accuracy, rigorous bound valid and >= 70 %",
          "[estimate][statistical]") {
  check_at_ten_million("pair15", true);
}

TEST_CASE("sampled Gaussian mechanism at 10^7: plug-in accuracy, bound valid and >= 70 %",
          "[estimate][statistical]") {
  check_at_ten_million("sgm", false);
}

// Coverage: each rigorous bound holds simultaneously for every order of the grid and both
// directions with probability >= 95 %. Over 200 replications a correct bound fails in
// Binomial(200, <= 0.05) of them: more than 20 failures has probability < 0.2 %, while a bound
// covering at only 85 % fails this test with probability > 99.9 %. Small samples (2 x 10^4)
// keep the test fast; the study repeats it at 10^5 and 10^6 for every case. Two cases: sgm25,
// and a Gaussian pair whose divergence the Bernstein bound nearly exhausts at this size.
TEST_CASE("rigorous bounds cover the truth over 200 seeded replications",
          "[estimate][statistical]") {
  for (const char* name : {"sgm25", "pair20"}) {
    const testing::Case c = testing::known_truth_case(name);
    const std::vector<double> alphas = default_alpha_grid();
    const std::vector<Estimate> truth = exact_renyi(c.p, c.q, alphas);
    std::map<std::string, std::pair<int, int>> tally;  // method: failures, informative
    for (std::uint64_t rep = 1; rep <= 200; ++rep) {
      const auto xp = testing::draw(c.p, 20000, rep, 91, 0);
      const auto xq = testing::draw(c.q, 20000, rep, 91, 1);
      const auto cp = rigorous_lower_bound(testing::cells_split_at(xp, xq, 6000), alphas);
      const auto vb = variational_lower_bound(testing::cells_split_at(xp, xq, 2000), alphas);
      for (const auto* r : {&cp, &vb}) {
        bool covered = true;
        auto& [failures, informative] = tally[r->method];
        for (const Estimate& e : r->estimates) {
          covered = covered && e.lower <= truth_of(truth, e).value;
          informative += e.informative ? 1 : 0;
        }
        failures += covered ? 0 : 1;
      }
    }
    for (const auto& [method, t] : tally) {
      INFO(name << ", " << method << ": " << t.first << " of 200 replications not covered, "
                << t.second << " informative estimates");
      CHECK(t.first <= 20);
      CHECK(t.second > 0);  // the bound is not trivially 0
    }
  }
}

// The Figure 2 case, quadratic loss under shuffle and partition (tiny divergences:
// R_2 = 3.9e-4 at K = 1, 1.6e-3 at K = 50), 10^7 samples per side, four seeds each. The
// partition bound's ceiling is 0.64 at K = 1 (docs/methods.md); the Hoelder + Bernstein bound
// keeps at alpha <= 16: K = 1, median 0.80 and smallest 0.72 over the study's 20 runs
// (docs/studies/estimate_study.md), median 0.78 and smallest 0.699 over 12 development runs on
// other streams (one run whose samples also hold the partition bound to 0.49); K = 50, median
// 0.88 - 0.90, smallest 0.76 - 0.85. So K = 50 must keep >= 70 % in every run, and K = 1 in the
// median run of four at every order <= 16 (no run can promise it: the shift itself is
// estimated to +-4 % at this size), with 0.6 as every run's floor. Validity at every order in
// every run.
TEST_CASE("Figure 2 mixtures at 10^7: the Bernstein bound keeps >= 70 % of the truth",
          "[estimate][statistical]") {
  const std::vector<double> alphas = default_alpha_grid();
  for (const char* name : {"fig2_k1", "fig2_k50"}) {
    const testing::Case c = testing::known_truth_case(name);
    const std::vector<Estimate> truth = exact_renyi(c.p, c.q, alphas);
    std::map<std::pair<double, int>, std::vector<double>> ratios;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      for (const Estimate& e : testing::run_replication(c, 10000000, seed, 96, alphas, 0)) {
        const double t = truth_of(truth, e).value;
        INFO(name << ", seed " << seed << ": " << e.method << ", alpha " << e.alpha
                  << ", direction " << e.direction << ", truth " << t << ", lower " << e.lower);
        if (e.method.rfind("rigorous-", 0) != 0) continue;
        CHECK(e.lower <= t);
        if (e.method == "rigorous-bernstein" && e.alpha <= 16.0) {
          ratios[{e.alpha, e.direction}].push_back(e.lower / t);
          CHECK(e.lower >= (std::string(name) == "fig2_k1" ? 0.6 : 0.7) * t);
        }
      }
    }
    for (auto& [key, r] : ratios) {
      std::sort(r.begin(), r.end());
      INFO(name << ": alpha " << key.first << ", direction " << key.second << ", ratios " << r[0]
                << " " << r[1] << " " << r[2] << " " << r[3]);
      CHECK(0.5 * (r[1] + r[2]) >= 0.70);  // the median of four
    }
  }
}

// 2-D: the learned-score route (logistic and KDE) on a correlated Gaussian pair with 10^6
// samples per side. Validity must hold at every order. The bound / truth ratio at alpha <= 8
// is what a 1-D projection keeps (all of the divergence for the logistic score, whose family
// contains the true linear log-ratio) less the statistical cost of 7 x 10^5 evaluation samples
// for a divergence this small (R_2 = 0.02): with this seed rigorous-cp keeps 0.72 - 0.74
// (logistic) and 0.65 - 0.69 (KDE); over 200 seeds the logistic route's median is 0.72 and its
// smallest 0.65 (docs/studies/estimate_study.md, pair2d at 10^6). rigorous-bernstein keeps
// 0.86 - 0.90 (logistic) and 0.75 - 0.85 (KDE) with this seed. 0.6 fails a broken score (a
// constant or sign-flipped score gives 0).
TEST_CASE("2-D Gaussian pair through learned scores", "[estimate][statistical]") {
  const testing::Case c = testing::known_truth_case("pair2d");
  const std::vector<double> alphas = default_alpha_grid();
  const std::vector<Estimate> truth = exact_renyi(c.p, c.q, alphas);
  const std::size_t n = 1000000;
  const auto xp = testing::draw(c.p, n, 3, 92, 0);
  const auto xq = testing::draw(c.q, n, 3, 92, 1);
  SampleOptions o;
  o.selection.scores = {Score::kLogistic, Score::kKde};
  o.count.plugin.bootstrap_replicates = 0;
  const auto est = estimate_from_samples(SampleView{xp.data(), n, 2}, SampleView{xq.data(), n, 2},
                                         alphas, o, nullptr);
  int rigorous = 0;
  for (const Estimate& e : est) {
    const double t = truth_of(truth, e).value;
    INFO(e.method << ", alpha " << e.alpha << ", direction " << e.direction << ", truth " << t
                  << ", lower " << e.lower);
    if (e.method.find("rigorous") != std::string::npos) {
      ++rigorous;
      CHECK(e.lower <= t);
      if (e.alpha <= 8.0) CHECK(e.lower >= 0.6 * t);
    }
  }
  CHECK(rigorous == 2 * 2 * 2 * static_cast<int>(alphas.size()));  // scores x methods x dirs
}

// The simulator's route: fixed-bin histograms (2-D, bins from an independent pilot) delivered
// whole, split by binomial thinning for the rigorous bound, and the plug-in merged along the
// smoothed likelihood-ratio order. 2 x 10^6 samples per side; with this seed the bound keeps
// 0.75 - 0.78 of the truth at alpha <= 8, so 0.6 is a check of the route, as above.
TEST_CASE("2-D fixed-bin histograms: plug-in and thinned rigorous bound",
          "[estimate][statistical]") {
  const testing::Case c = testing::known_truth_case("pair2d");
  const std::vector<double> alphas = {1.1, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0};
  const std::vector<Estimate> truth = exact_renyi(c.p, c.q, alphas);
  const std::size_t n = 2000000;
  const auto pp = testing::draw(c.p, 100000, 4, 93, 0, rdpaudit::rng::Purpose::kPilot);
  const auto pq = testing::draw(c.q, 100000, 4, 93, 1, rdpaudit::rng::Purpose::kPilot);
  const auto edges =
      propose_edges(SampleView{pp.data(), 100000, 2}, SampleView{pq.data(), 100000, 2}, n);
  const auto xp = testing::draw(c.p, n, 4, 93, 0);
  const auto xq = testing::draw(c.q, n, 4, 93, 1);
  const CellCounts counts{tally(edges, SampleView{xp.data(), n, 2}),
                          tally(edges, SampleView{xq.data(), n, 2})};
  const std::size_t nx = edges[0].size() + 1, ny = edges[1].size() + 1;
  rdpaudit::rng::Stream s(rdpaudit::rng::StreamId{4, 93, 2, 0, rdpaudit::rng::Purpose::kTest});
  PluginOptions po;
  po.bootstrap_replicates = 0;
  const auto plugin =
      histogram_plugin(counts, alphas, po, nullptr, order_by_smoothed_ratio(counts, nx, ny, 2.0));
  const auto [sel, eval] = thin_counts(counts, 0.3, s);
  const auto bound =
      rigorous_lower_bound(cells_from_histogram_2d(edges[0], edges[1], sel, eval), alphas);
  for (const Estimate& e : plugin) {
    const double t = truth_of(truth, e).value;
    INFO("plug-in alpha " << e.alpha << " direction " << e.direction << " truth " << t << " value "
                          << e.value);
    // The plug-in's relative error here, measured over seeds 1-36 of this case (2 x 10^6
    // samples, both directions; issue 12, when the normal sampler changed): at alpha = 8 mean
    // +2.5 %, s.d. 2.3 %, range -2.8 % .. +7.6 % (and up to +9.3 % over seeds 1-12 with the
    // previous sampler); at alpha <= 4 up to +6.8 %. The earlier 5 % assumed 1.5 % of noise and
    // passed on this seed by luck. 10 % is about 3 s.d. above the bias: a wrong order of the
    // cells or a wrong binning moves the estimate by far more.
    if (e.alpha <= 8.0) CHECK(std::abs(e.value / t - 1.0) <= 0.10);
  }
  for (const Estimate& e : bound.estimates) {
    const double t = truth_of(truth, e).value;
    INFO("bound alpha " << e.alpha << " direction " << e.direction << " truth " << t << " lower "
                        << e.lower);
    CHECK(e.lower <= t);
    if (e.alpha <= 8.0) CHECK(e.lower >= 0.6 * t);
  }
}

// The 1-D route of the simulator: a fixed-bin histogram of all samples (bins from a pilot),
// thinned 30/70 for the bound. Figure 2, K = 50, 2 x 10^6 samples per side: R_2 is only
// 1.6e-3, so the bound is valid but far from the truth (study: about half of it at 10^6);
// the test asks validity at every order and a positive (informative) bound up to alpha 16.
TEST_CASE("1-D fixed-bin histogram of the Figure 2 mixture, thinned", "[estimate][statistical]") {
  const testing::Case c = testing::known_truth_case("fig2_k50");
  const std::vector<double> alphas = default_alpha_grid();
  const std::vector<Estimate> truth = exact_renyi(c.p, c.q, alphas);
  const std::size_t n = 2000000;
  const auto pp = testing::draw(c.p, 100000, 5, 94, 0, rdpaudit::rng::Purpose::kPilot);
  const auto pq = testing::draw(c.q, 100000, 5, 94, 1, rdpaudit::rng::Purpose::kPilot);
  const auto edges = propose_edges(view_of(pp), view_of(pq), n);
  const auto xp = testing::draw(c.p, n, 5, 94, 0);
  const auto xq = testing::draw(c.q, n, 5, 94, 1);
  const CellCounts counts{tally(edges, view_of(xp)), tally(edges, view_of(xq))};
  rdpaudit::rng::Stream s(rdpaudit::rng::StreamId{5, 94, 2, 0, rdpaudit::rng::Purpose::kTest});
  const auto [sel, eval] = thin_counts(counts, 0.3, s);
  const auto bound = rigorous_lower_bound(cells_from_histogram_1d(edges[0], sel, eval), alphas);
  for (const Estimate& e : bound.estimates) {
    const double t = truth_of(truth, e).value;
    INFO("alpha " << e.alpha << " direction " << e.direction << " truth " << t << " lower "
                  << e.lower);
    CHECK(e.lower <= t);
    if (e.alpha <= 16.0) CHECK(e.informative);
  }
}

// d = 3: no quadrature, but the Gaussian pair has a closed form. The logistic score carries
// the whole divergence (its family contains the true linear log-ratio); with this seed the
// bound keeps 0.82 - 0.83 of it at alpha <= 4 (7 x 10^5 evaluation samples, Mahalanobis
// shift 0.3); 0.6 fails a broken score, validity (<= truth) an invalid bound.
TEST_CASE("3-D Gaussian pair through the logistic score", "[estimate][statistical]") {
  const std::vector<double> cov = {1.0, 0.3, 0.0, 0.3, 1.0, 0.0, 0.0, 0.0, 2.0};
  const GaussianMixture p = gaussian({0.2, 0.0, 0.3}, cov), q = gaussian({0.0, 0.0, 0.0}, cov);
  // Mahalanobis^2 of (0.2, 0, 0.3): block [[1, .3], [.3, 1]]^-1 on (0.2, 0) plus 0.3^2 / 2.
  const double maha2 = 0.04 / (1.0 - 0.09) + 0.09 / 2.0;
  const std::size_t n = 1000000;
  const auto xp = testing::draw(p, n, 6, 95, 0);
  const auto xq = testing::draw(q, n, 6, 95, 1);
  SampleOptions o;
  o.count.plugin.bootstrap_replicates = 0;
  const std::vector<double> alphas = {1.1, 2.0, 4.0, 16.0, 64.0};
  const auto est = estimate_from_samples(SampleView{xp.data(), n, 3}, SampleView{xq.data(), n, 3},
                                         alphas, o, nullptr);
  REQUIRE(est.size() == 3 * 2 * alphas.size());  // logistic score: plug-in and two bounds
  for (const Estimate& e : est) {
    const double t = gaussian_pair_renyi(maha2, e.alpha);
    INFO(e.method << " alpha " << e.alpha << " direction " << e.direction << " truth " << t
                  << " lower " << e.lower);
    CHECK(e.method.rfind("logistic-ratio/", 0) == 0);
    if (e.method.find("/rigorous-") != std::string::npos) {
      CHECK(e.lower <= t);
      if (e.alpha <= 4.0) CHECK(e.lower >= 0.6 * t);
    }
  }
}
