// The exact engine's brackets against every truth the project has: closed forms (a Gaussian
// pair), 1-D quadrature (the sampled Gaussian mechanism, a clamped Gaussian with atoms), the
// Gaussian-mixture quadrature over enumerated batch patterns (fixed order, shuffle and
// partition, shuffle each epoch, sampling without replacement, Poisson at T = 1), and a Monte
// Carlo run of a projected chain. Every bracket must contain the truth; widths are checked
// against what the engine reaches (docs/exact-laws.md).
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "exact_support.hpp"
#include "mc_size.hpp"
#include "rdpaudit/exact/chain.hpp"
#include "rdpaudit/exact/gaussian_mixture.hpp"

using rdpaudit::config::BatchScheme;
using rdpaudit::config::LossKind;
using namespace rdpaudit::exact;
using rdpaudit::test::blog_chain;
using rdpaudit::test::check_rows;
using rdpaudit::test::gaussian_pair_chain;
using rdpaudit::test::sampled_gaussian_chain;
using rdpaudit::test::small_quadratic;

namespace {

double log_normal_pdf(double x, double m, double s) {
  const double u = (x - m) / s;
  return -0.5 * u * u - std::log(s * std::sqrt(2.0 * M_PI));
}
double log_add(double a, double b) {
  return std::max(a, b) + std::log1p(std::exp(-std::fabs(a - b)));
}

/// R_alpha(P||Q) of two 1-D log densities on [a, b] (plus atoms) by a fine trapezoidal rule in
/// the log domain: a reference accurate to ~1e-10 relative, far beyond the engine's brackets.
double quadrature_renyi(const std::function<double(double)>& log_p,
                        const std::function<double(double)>& log_q, double a, double b,
                        double alpha, std::vector<std::pair<double, double>> atoms = {}) {
  const int n = 400000;
  const double h = (b - a) / n;
  std::vector<double> t(n + 1);
  double top = -INFINITY;
  for (int i = 0; i <= n; ++i) {
    const double y = a + i * h;
    t[i] = alpha * log_p(y) + (1 - alpha) * log_q(y) + ((i == 0 || i == n) ? std::log(0.5) : 0.0);
    top = std::max(top, t[i]);
  }
  double sum = 0;
  for (int i = 0; i <= n; ++i) sum += std::exp(t[i] - top);
  double log_sum = top + std::log(sum * h);
  for (auto [pa, qa] : atoms)
    log_sum = log_add(log_sum, alpha * std::log(pa) + (1 - alpha) * std::log(qa));
  return log_sum / (alpha - 1);
}

/// theta_T under one fixed schedule of affine maps (quadratic loss, no projection): mean and
/// variance of the Gaussian it is.
void affine_gaussian(const std::vector<AffineCase>& maps, double s, double& mean, double& var) {
  mean = 0;
  var = 0;
  for (const AffineCase& k : maps) {
    mean = k.slope * mean + k.shift;
    var = k.slope * k.slope * var + s * s;
  }
}

/// R_alpha of two Gaussian mixtures with one variance by the project's quadrature.
double mixture_truth(const std::vector<double>& wp, const std::vector<double>& mp,
                     const std::vector<double>& wq, const std::vector<double>& mq, double var,
                     double alpha, bool forward) {
  rdpaudit::exact::GaussianMixture p, q;
  p.weights = wp;
  p.means = mp;
  p.covariance = {var};
  q.weights = wq;
  q.means = mq;
  q.covariance = {var};
  const auto rows = rdpaudit::exact::exact_renyi(p, q, {alpha});
  for (const auto& e : rows) {
    if (e.direction == (forward ? rdpaudit::estimate::kForward : rdpaudit::estimate::kBackward))
      return e.value;
  }
  return NAN;
}

}  // namespace

TEST_CASE(
    "exact engine: a Gaussian pair (full batch, linear loss) has R_alpha = alpha delta^2 / (2 T "
    "s^2)",
    "[exact]") {
  for (long T : {1L, 3L}) {
    const ChainSpec c = gaussian_pair_chain(T);
    EngineOptions o;
    o.cells_per_sd = 40;
    const ChainLaws laws = evolve_pair(c, o);
    const double delta = T * c.eta * 2.0;  // the two means' distance
    const auto rows = renyi_brackets(laws.d, laws.dprime, {2, 4, 8, 16}, o.renyi);
    const double width = check_rows(rows, [&](double a, bool) {
      return a * delta * delta / (2 * T * c.step_std * c.step_std);
    });
    INFO("T = " << T << ": widest relative bracket " << width);
    CHECK(width < (T == 1 ? 1.5e-4 : 1.5e-3));  // reached: 5e-5, 6e-4
  }
}

TEST_CASE("exact engine: the sampled Gaussian mechanism at T = 1 against quadrature", "[exact]") {
  // sampling without replacement, n = 4, b = 1: D's record moves the mean by -eta g w.p. 1/4
  const ChainLaws laws = evolve_pair(sampled_gaussian_chain(), {});
  const auto p = [](double y) {
    return log_add(std::log(0.75) + log_normal_pdf(y, 0, 1),
                   std::log(0.25) + log_normal_pdf(y, -2, 1));
  };
  const auto q = [](double y) { return log_normal_pdf(y, 0, 1); };
  // the tilted law of order alpha sits near y = -2 alpha, beyond the densities' double range
  // (|y| < ~37 here) from alpha = 16: the tails beyond the points give a finite upper end
  // there (docs/exact-laws.md, section 4; tests/unit/test_exact_upper.cpp checks it)
  const auto rows = renyi_brackets(laws.d, laws.dprime, {2, 4, 8});
  CHECK(std::isfinite(renyi_brackets(laws.d, laws.dprime, {16})[0].forward.hi));
  const double width = check_rows(rows, [&](double a, bool fwd) {
    return fwd ? quadrature_renyi(p, q, -200, 60, a) : quadrature_renyi(q, p, -200, 60, a);
  });
  INFO("widest relative bracket " << width);
  CHECK(width < 3e-4);  // reached: 1.1e-4
}

TEST_CASE("exact engine: a clamped Gaussian pair with boundary atoms against quadrature",
          "[exact]") {
  // one projected step onto [-0.05, 0.05] with s = 0.04: about 10 % of the mass on each atom
  const ChainLaws laws = evolve_pair(rdpaudit::test::clamped_pair_chain(), {});
  const double mp = -0.02, mq = 0.02, s = 0.04, R = 0.05;
  const auto cdf = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  const auto p = [&](double y) { return log_normal_pdf(y, mp, s); };
  const auto q = [&](double y) { return log_normal_pdf(y, mq, s); };
  std::vector<std::pair<double, double>> atoms_pq = {{cdf((-R - mp) / s), cdf((-R - mq) / s)},
                                                     {cdf((mp - R) / s), cdf((mq - R) / s)}};
  std::vector<std::pair<double, double>> atoms_qp = {{atoms_pq[0].second, atoms_pq[0].first},
                                                     {atoms_pq[1].second, atoms_pq[1].first}};
  const auto rows = renyi_brackets(laws.d, laws.dprime, {2, 4, 8, 16, 64});
  const double width = check_rows(rows, [&](double a, bool fwd) {
    return fwd ? quadrature_renyi(p, q, -R, R, a, atoms_pq)
               : quadrature_renyi(q, p, -R, R, a, atoms_qp);
  });
  INFO("widest relative bracket " << width);
  CHECK(width < 1e-4);  // reached: 3.6e-5
}

TEST_CASE("exact engine: fixed order and shuffle and partition against the mixture quadrature",
          "[exact]") {
  for (bool location : {false, true}) {
    for (BatchScheme scheme : {BatchScheme::kFixedOrder, BatchScheme::kShufflePartition}) {
      const ChainSpec c = small_quadratic(scheme, 4);
      EngineOptions o;
      o.location_mixture = location;  // both paths: step by step, and the location mixture
      const ChainLaws laws = evolve_pair(c, o);
      // components: the record's batch j (fixed order: j0 = 0 only)
      std::vector<double> w, mp, mq;
      double var = 0;
      for (int j = 0; j < (scheme == BatchScheme::kFixedOrder ? 1 : 2); ++j) {
        std::vector<AffineCase> sp, sq;
        for (long t = 0; t < c.steps; ++t) {
          const bool in = (t % 2 == j);
          sp.push_back((in ? step_in(c, false) : step_out(c, false)).cases[0]);
          sq.push_back((in ? step_in(c, true) : step_out(c, true)).cases[0]);
        }
        double m1, m2;
        affine_gaussian(sp, c.step_std, m1, var);
        affine_gaussian(sq, c.step_std, m2, var);
        w.push_back(1.0);
        mp.push_back(m1);
        mq.push_back(m2);
      }
      const auto rows = renyi_brackets(laws.d, laws.dprime, {2, 4, 8, 16});
      const double width = check_rows(rows, [&](double a, bool fwd) {
        return fwd ? mixture_truth(w, mp, w, mq, var, a, true)
                   : mixture_truth(w, mp, w, mq, var, a, false);
      });
      INFO("scheme " << static_cast<int>(scheme) << (location ? " (location mixture)" : "")
                     << ": widest relative bracket " << width);
      // reached: step by step 0.8e-4 ... 2.3e-4; location mixture 5.2e-5 ... 7.8e-5 (mostly the
      // lower bound's binning, (h / sd)^2 / 12 = 5.2e-5 at 40 cells per sd)
      CHECK(width < (location ? 1.2e-4 : 5e-4));
    }
  }
}

TEST_CASE(
    "exact engine: sampling without replacement and shuffle each epoch against enumerated patterns",
    "[exact]") {
  for (bool location : {false, true}) {
    for (BatchScheme scheme :
         {BatchScheme::kSampleWithoutReplacement, BatchScheme::kShuffleEachEpoch}) {
      ChainSpec c = small_quadratic(scheme, 4);
      EngineOptions o;
      o.location_mixture = location;
      const ChainLaws laws = evolve_pair(c, o);
      std::vector<double> w, mp, mq;
      double var = 0;
      // every pattern of "record in the batch" over the 4 steps, with its probability
      for (int mask = 0; mask < 16; ++mask) {
        double prob = 1;
        if (scheme == BatchScheme::kSampleWithoutReplacement) {
          for (int t = 0; t < 4; ++t) prob *= (mask >> t & 1) ? 0.5 : 0.5;
        } else {
          // one of the two steps of each epoch, each with probability b / n = 1/2
          for (int e = 0; e < 2; ++e) {
            const int bits = (mask >> (2 * e)) & 3;
            prob *= (bits == 1 || bits == 2) ? 0.5 : 0.0;
          }
        }
        if (prob == 0) continue;
        std::vector<AffineCase> sp, sq;
        for (int t = 0; t < 4; ++t) {
          const bool in = mask >> t & 1;
          sp.push_back((in ? step_in(c, false) : step_out(c, false)).cases[0]);
          sq.push_back((in ? step_in(c, true) : step_out(c, true)).cases[0]);
        }
        double m1, m2;
        affine_gaussian(sp, c.step_std, m1, var);
        affine_gaussian(sq, c.step_std, m2, var);
        w.push_back(prob);
        mp.push_back(m1);
        mq.push_back(m2);
      }
      const auto rows = renyi_brackets(laws.d, laws.dprime, {2, 4, 8, 16});
      const double width = check_rows(
          rows, [&](double a, bool fwd) { return mixture_truth(w, mp, w, mq, var, a, fwd); });
      INFO("scheme " << static_cast<int>(scheme) << (location ? " (location mixture)" : "")
                     << ": widest relative bracket " << width);
      // reached: step by step 0.8e-4 ... 2.3e-4; location mixture 5.2e-5 ... 7.8e-5 (mostly the
      // lower bound's binning, (h / sd)^2 / 12 = 5.2e-5 at 40 cells per sd)
      CHECK(width < (location ? 1.2e-4 : 5e-4));
    }
  }
}

TEST_CASE(
    "exact engine: location mixture with merged clusters, sampling without replacement at T = 12 "
    "against all 4096 patterns",
    "[exact]") {
  // the slope 0.75 spreads the 4096 patterns' means over [0, 2): many fall closer than the
  // merging width and are merged into clusters, whose hulls enter the brackets
  ChainSpec c = small_quadratic(BatchScheme::kSampleWithoutReplacement, 12);
  c.init_std = 0.3;  // theta_0 ~ N(0, 0.3^2): its variance is carried by the final Gaussian
  const ChainLaws laws = evolve_pair(c, {});
  REQUIRE(laws.dprime.parts.size() == 1);
  const std::size_t clusters = laws.dprime.parts[0].before.blobs.size();
  INFO("clusters " << clusters);
  CHECK(clusters < 4096);
  CHECK(clusters > 1);
  std::vector<double> w, mp, mq;
  double var = 0;
  for (int mask = 0; mask < 4096; ++mask) {
    std::vector<AffineCase> sp, sq;
    for (int t = 0; t < 12; ++t) {
      const bool in = mask >> t & 1;
      sp.push_back((in ? step_in(c, false) : step_out(c, false)).cases[0]);
      sq.push_back((in ? step_in(c, true) : step_out(c, true)).cases[0]);
    }
    double m1, m2;
    affine_gaussian(sp, c.step_std, m1, var);
    affine_gaussian(sq, c.step_std, m2, var);
    w.push_back(1.0 / 4096);
    mp.push_back(m1);
    mq.push_back(m2);
  }
  const double a12 = std::pow(0.75, 24);
  var += a12 * c.init_std * c.init_std;
  const auto rows = renyi_brackets(laws.d, laws.dprime, {2, 4, 8, 16});
  const double width = check_rows(
      rows, [&](double a, bool fwd) { return mixture_truth(w, mp, w, mq, var, a, fwd); });
  INFO("widest relative bracket " << width);
  CHECK(width < 1.2e-4);  // reached: 7.6e-5 (269 clusters)
}

TEST_CASE("exact engine: Poisson sampling with the quadratic loss at T = 1 (Binomial contraction)",
          "[exact]") {
  ChainSpec c = small_quadratic(BatchScheme::kPoisson, 1);
  c.sampling_rate = 0.5;
  c.init_mean = 1.0;  // the contraction then moves the centre with the batch size
  const ChainLaws laws = evolve_pair(c, {});
  std::vector<double> wp, mp, wq, mq;
  for (bool dp : {false, true}) {
    for (const AffineCase& k : step_sampled(c, dp).cases) {
      (dp ? wq : wp).push_back(k.weight);
      (dp ? mq : mp).push_back(k.slope * c.init_mean + k.shift);
    }
  }
  const double var = c.step_std * c.step_std;
  const auto rows = renyi_brackets(laws.d, laws.dprime, {2, 4, 8, 16});
  const double width = check_rows(
      rows, [&](double a, bool fwd) { return mixture_truth(wp, mp, wq, mq, var, a, fwd); });
  INFO("widest relative bracket " << width);
  CHECK(width < 1.5e-4);  // reached: 5e-5
}

TEST_CASE("exact engine: a projected chain's law brackets a Monte Carlo run of it", "[exact]") {
  // the blog's chain, shortened: linear loss, b = 2 of n = 10 without replacement, clamp to
  // [-0.1, 0.1] so that the atoms hold much of the mass, T = 5
  const ChainSpec c = blog_chain(2, 5, 0.1);
  const ChainLaws laws = evolve_pair(c, {});
  const CellLaw& law = laws.d.last;
  // coarse bins of 40 cells each, and the two atoms
  const int per = 40, bins = law.cells / per;
  std::vector<double> lo(bins + 2, 0.0), hi(bins + 2, 0.0);
  for (int k = 0; k < bins * per; ++k) {
    lo[k / per] += law.mass_lo[k];
    hi[k / per] += law.mass_hi[k];
  }
  lo[bins] = law.points[0].mass.lo;
  hi[bins] = law.points[0].mass.hi;
  lo[bins + 1] = law.points[1].mass.lo;
  hi[bins + 1] = law.points[1].mass.hi;
  const long N = rdpaudit::test::exact_mc_trajectories(2'000'000);
  // per cell and atom, then per bin (the cells past bins * per in the last bin)
  const std::vector<long> cell_count =
      rdpaudit::test::ProjectedChainRuns().counts(c, c.record_d, N, law.cells, law.width());
  std::vector<long> count(bins + 2, 0);
  for (int k = 0; k < law.cells; ++k) count[std::min(bins - 1, k / per)] += cell_count[k];
  count[bins] = cell_count[law.cells];
  count[bins + 1] = cell_count[law.cells + 1];
  double worst = 0;
  for (int b = 0; b < bins + 2; ++b) {
    const double f = static_cast<double>(count[b]) / N, se = std::sqrt(std::max(f, 1e-7) / N);
    INFO("bin " << b << ": Monte Carlo " << f << " bracket [" << lo[b] << ", " << hi[b] << "]");
    CHECK(f >= lo[b] - 5 * se);
    CHECK(f <= hi[b] + 5 * se);
    CHECK(hi[b] - lo[b] <= 1e-3 * hi[b] + 1e-12);
    worst = std::max(worst, std::max(lo[b] - f, f - hi[b]) / se);
  }
  INFO(N << " trajectories; largest excess over a bracket: " << worst << " standard errors");
  CHECK(worst < 5);
}

TEST_CASE("exact engine: lower bound at most the upper, both directions, at large orders",
          "[exact]") {
  ChainSpec c = small_quadratic(BatchScheme::kSampleWithoutReplacement, 6);
  const ChainLaws laws = evolve_pair(c, {});
  for (const auto& r : renyi_brackets(laws.d, laws.dprime, {1.5, 2, 8, 32, 64})) {
    CHECK(r.forward.lo <= r.forward.hi);
    CHECK(r.backward.lo <= r.backward.hi);
    CHECK(r.forward.lo > 0);
  }
}

TEST_CASE("exact engine: chain_from_scenario reads the pair, or says why there is no exact value",
          "[exact]") {
  rdpaudit::config::Scenario s;
  s.loss = LossKind::kLinear;
  s.dim = 1;
  s.eta = 0.04;
  s.step_std = 0.04;
  s.batch_size = 2;
  s.scheme = BatchScheme::kSampleWithoutReplacement;
  s.steps = 10;
  s.projection_diameter = 2.0;
  s.projection_center = Eigen::VectorXd::Zero(1);
  s.init_mean = Eigen::VectorXd::Zero(1);
  s.data.points = Eigen::MatrixXd::Zero(10, 1);
  s.data.points(0, 0) = 1.0;
  s.data.replacement = Eigen::VectorXd::Constant(1, -1.0);
  std::string why;
  const auto c = chain_from_scenario(s, why);
  REQUIRE(c);
  CHECK(c->record_d == 1.0);
  CHECK(c->record_dprime == -1.0);
  CHECK(c->background == 0.0);
  CHECK(c->clamp_lo == -1.0);
  CHECK(c->clamp_hi == 1.0);
  const Step sampled = step_sampled(*c, false);
  REQUIRE(sampled.cases.size() == 2);
  CHECK(sampled.cases[0].weight == Approx(0.2));
  CHECK(sampled.cases[0].shift == Approx(-0.02));

  s.data.points(3, 0) = 0.5;  // another record differs: not interchangeable
  CHECK_FALSE(chain_from_scenario(s, why));
  CHECK(why.find("not interchangeable") != std::string::npos);
  s.data.points(3, 0) = 0.0;
  s.dim = 2;
  s.data.points = Eigen::MatrixXd::Zero(10, 2);
  s.data.points(0, 0) = 1.0;
  s.data.replacement = Eigen::VectorXd::Zero(2);
  s.data.replacement(0) = -1.0;
  s.projection_center = Eigen::VectorXd::Zero(2);
  s.init_mean = Eigen::VectorXd::Zero(2);
  CHECK_FALSE(chain_from_scenario(s, why));  // the projection onto a ball couples the axes
  CHECK(why.find("couples the axes") != std::string::npos);
  s.projection_diameter = std::numeric_limits<double>::infinity();
  REQUIRE(chain_from_scenario(s, why));  // along axis 0 only, no projection: reduced
  s.data.replacement(1) = 0.5;           // a second axis differs
  CHECK_FALSE(chain_from_scenario(s, why));
  CHECK(why.find("more than one axis") != std::string::npos);
  s.data.replacement(1) = 0.0;
  s.data.points(4, 1) = 0.5;  // axis 1 depends on the batch drawn
  CHECK_FALSE(chain_from_scenario(s, why));
  CHECK(why.find("on axis 1") != std::string::npos);
  s.dim = 1;
  s.data.points = Eigen::MatrixXd::Zero(10, 1);
  s.data.replacement = Eigen::VectorXd::Constant(1, -1.0);
  s.projection_center = Eigen::VectorXd::Zero(1);
  s.init_mean = Eigen::VectorXd::Zero(1);
  s.dim = 1;
  s.loss = LossKind::kLogistic;
  CHECK_FALSE(chain_from_scenario(s, why));
}

TEST_CASE(
    "exact engine: d = 2 reduced to the differing axis matches the 2-D mixture quadrature "
    "(sampling without replacement, quadratic)",
    "[exact]") {
  // the pair differs along axis 0; on axis 1 every record (and the replacement) is 0.7, so
  // that coordinate moves the same way whatever the batch: its law is the same under D and
  // D' and independent of axis 0, and R_alpha of the 2-D laws is that of axis 0
  rdpaudit::config::Scenario s;
  s.loss = LossKind::kQuadratic;
  s.dim = 2;
  s.lambda = 1.0;
  s.eta = 0.25;
  s.step_std = 0.5;
  s.batch_size = 2;
  s.scheme = BatchScheme::kSampleWithoutReplacement;
  s.steps = 4;
  s.steps_per_epoch = 2;
  s.init_mean = Eigen::VectorXd::Constant(2, 0.3);
  s.data.points = Eigen::MatrixXd::Zero(4, 2);
  s.data.points.col(1).setConstant(0.7);
  s.data.replacement = Eigen::VectorXd::Zero(2);
  s.data.replacement(0) = 2.0;
  s.data.replacement(1) = 0.7;
  std::string why;
  const auto c = chain_from_scenario(s, why);
  INFO(why);
  REQUIRE(c);
  CHECK(c->record_d == 0.0);
  CHECK(c->record_dprime == 2.0);
  CHECK(c->init_mean == 0.3);
  const ChainLaws laws = evolve_pair(*c, {});
  const auto rows = renyi_brackets(laws.d, laws.dprime, {2, 4, 8, 16});
  // the 2-D laws: every batch pattern over the 4 steps (each with probability 1/16), axis 0
  // from the pattern's maps, axis 1 from the data's 0.7 (the same maps for every pattern)
  rdpaudit::exact::GaussianMixture p, q;
  p.dim = q.dim = 2;
  double var = 0;
  for (int mask = 0; mask < 16; ++mask) {
    std::vector<AffineCase> sp, sq, other;
    for (int t = 0; t < 4; ++t) {
      const bool in = mask >> t & 1;
      sp.push_back((in ? step_in(*c, false) : step_out(*c, false)).cases[0]);
      sq.push_back((in ? step_in(*c, true) : step_out(*c, true)).cases[0]);
      other.push_back(AffineCase{1.0, 1.0 - s.eta * s.lambda, s.eta * s.lambda * 0.7});
    }
    double m1 = 0.3, m2 = 0.3, m_other = 0.3;
    for (int t = 0; t < 4; ++t) {
      m1 = sp[t].slope * m1 + sp[t].shift;
      m2 = sq[t].slope * m2 + sq[t].shift;
      m_other = other[t].slope * m_other + other[t].shift;
    }
    double v1 = 0, unused = 0;
    affine_gaussian(sp, s.step_std, unused, v1);
    var = v1;
    p.weights.push_back(1.0 / 16);
    q.weights.push_back(1.0 / 16);
    p.means.insert(p.means.end(), {m1, m_other});
    q.means.insert(q.means.end(), {m2, m_other});
  }
  p.covariance = q.covariance = {var, 0.0, 0.0, var};
  const auto truth_rows = rdpaudit::exact::exact_renyi(p, q, {2, 4, 8, 16});
  const double width = check_rows(rows, [&](double a, bool fwd) {
    for (const auto& e : truth_rows) {
      if (e.alpha == a &&
          e.direction == (fwd ? rdpaudit::estimate::kForward : rdpaudit::estimate::kBackward))
        return e.value;
    }
    return static_cast<double>(NAN);
  });
  INFO("widest relative bracket " << width);
  CHECK(width < 1.2e-4);
}
