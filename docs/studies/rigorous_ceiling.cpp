// Oracle ceiling of the partition + Clopper-Pearson + Bonferroni construction (the rigorous-cp
// estimator) on the paper's Figure 2 laws: exact cell probabilities, expected counts
// n_eval * p_i used as if observed, thresholds optimised by a multi-start pattern search, for
// k cells and family sizes F. No sampling noise enters the choice, so the result is an upper
// limit (up to the local search) on what the estimator can reach at that evaluation size.
// Used in docs/studies/estimate_study.md ("Ceiling of the construction"). Not built by CMake:
//   g++ -O2 -std=c++20 -fopenmp -Iinclude -I/usr/include/eigen3 docs/studies/rigorous_ceiling.cpp \
//       build/release/librdpaudit_core.a $(pkg-config --libs hdf5) -lfmt -lmuparser -o /tmp/ceiling
//   OMP_NUM_THREADS=1 /tmp/ceiling 0 > fwd.csv          # K = 1, 10, 50; n_eval 0.7e7 .. 1e7 (13
//   min) OMP_NUM_THREADS=1 /tmp/ceiling 0 large-n > n.csv    # K = 1; n_eval 1.5e7 .. 5e7
// The first argument is the direction (0: R(P||P'), 1: R(P'||P)).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <rdpaudit/estimate/confidence.hpp>
#include <rdpaudit/estimate/types.hpp>
#include <rdpaudit/exact/gaussian_mixture.hpp>
#include <rdpaudit/exact/known_truth.hpp>
#include <string>
#include <vector>

using namespace rdpaudit::estimate;
using namespace rdpaudit::exact;

struct Mix {
  std::vector<double> w, m;
  double s;
  double cdf(double x) const {  // P(X <= x)
    double a = 0;
    for (size_t j = 0; j < w.size(); ++j)
      a += w[j] * 0.5 * std::erfc(-(x - m[j]) / (s * std::sqrt(2.0)));
    return a;
  }
  double sf(double x) const {
    double a = 0;
    for (size_t j = 0; j < w.size(); ++j)
      a += w[j] * 0.5 * std::erfc((x - m[j]) / (s * std::sqrt(2.0)));
    return a;
  }
  double logpdf(double x) const {
    double mx = -1e300;
    std::vector<double> t(w.size());
    for (size_t j = 0; j < w.size(); ++j) {
      t[j] = std::log(w[j]) - 0.5 * (x - m[j]) * (x - m[j]) / (s * s);
      mx = std::max(mx, t[j]);
    }
    double a = 0;
    for (double v : t) a += std::exp(v - mx);
    return mx + std::log(a) - std::log(s * std::sqrt(2 * M_PI));
  }
  // probability of [a, b) accurately
  double cell(double a, double b, double med) const {
    if (a >= med) return sf(a) - sf(b);
    if (b <= med) return cdf(b) - cdf(a);
    return 1.0 - cdf(a) - sf(b);
  }
};

static Mix to_mix(const GaussianMixture& g) {
  Mix r;
  double tw = 0;
  for (double v : g.weights) tw += v;
  for (double v : g.weights) r.w.push_back(v / tw);
  r.m = g.means;
  r.s = std::sqrt(g.covariance[0]);
  return r;
}

struct Problem {
  Mix P, Q;       // direction handled by swapping
  double mu, sd;  // standardisation (pooled-ish)
  double alpha, n, miss;
  bool cp = true;
  long evals = 0;
  // thresholds in z units, sorted
  void cells(const std::vector<double>& z, std::vector<double>& p, std::vector<double>& q) const {
    size_t k = z.size() + 1;
    p.resize(k);
    q.resize(k);
    for (size_t i = 0; i < k; ++i) {
      double a = i == 0 ? -INFINITY : mu + sd * z[i - 1];
      double b = i == k - 1 ? INFINITY : mu + sd * z[i];
      p[i] = P.cell(a, b, mu);
      q[i] = Q.cell(a, b, mu);
    }
  }
  double value(const std::vector<double>& z) {
    ++evals;
    std::vector<double> p, q;
    cells(z, p, q);
    for (size_t i = 0; i < p.size(); ++i)
      if (!(p[i] > 0) || !(q[i] > 0)) return -1;
    if (!cp) return discrete_renyi(p, q, alpha);
    std::vector<Interval> pb(p.size()), qb(q.size());
    for (size_t i = 0; i < p.size(); ++i) {
      pb[i] = clopper_pearson(std::min(n, n * p[i]), n, miss);
      qb[i] = clopper_pearson(std::min(n, n * q[i]), n, miss);
    }
    return min_renyi_over_boxes(pb, qb, alpha).lower;
  }
};

// coordinate search on sorted thresholds, with bounds [-zmax, zmax]
static double optimise(Problem& pr, std::vector<double>& z, int sweeps = 12) {
  const double zmax = 7.0;
  double best = pr.value(z);
  double step = 0.5;
  for (int s = 0; s < sweeps; ++s) {
    bool improved = false;
    for (size_t i = 0; i < z.size(); ++i) {
      double lo = i == 0 ? -zmax : z[i - 1] + 1e-3;
      double hi = i + 1 == z.size() ? zmax : z[i + 1] - 1e-3;
      // pattern search around z[i]
      for (int it = 0; it < 30; ++it) {
        bool moved = false;
        for (double d : {step, -step}) {
          double c = std::clamp(z[i] + d, lo, hi);
          if (c == z[i]) continue;
          double old = z[i];
          z[i] = c;
          double v = pr.value(z);
          if (v > best * (1 + 1e-9) + 1e-300) {
            best = v;
            moved = improved = true;
            break;
          }
          z[i] = old;
        }
        if (!moved) break;
      }
    }
    if (!improved) {
      step *= 0.5;
      if (step < 0.01) break;
    }
  }
  return best;
}

// inverse normal via bisection on erfc
static double qnorm(double u) {
  double lo = -40, hi = 40;
  for (int i = 0; i < 200; ++i) {
    double m = 0.5 * (lo + hi);
    if (0.5 * std::erfc(-m / std::sqrt(2.0)) < u)
      lo = m;
    else
      hi = m;
  }
  return 0.5 * (lo + hi);
}

// Starting points: equal-probability (under standard normal) and spread (equally spaced in z
// between -c and c), pick the best after a coarse scan of c.
static std::vector<std::vector<double>> starts(size_t k) {
  std::vector<std::vector<double>> out;
  std::vector<double> e;
  for (size_t i = 1; i < k; ++i) e.push_back(qnorm(double(i) / k));
  out.push_back(e);
  for (double c : {1.0, 2.0, 3.0, 4.0}) {
    std::vector<double> z;
    if (k == 2)
      z = {c};
    else
      for (size_t i = 0; i + 1 < k; ++i) z.push_back(-c + 2 * c * i / (k - 2));
    out.push_back(z);
    if (k == 2) out.push_back({-c});
  }
  return out;
}

int main(int argc, char** argv) {
  std::vector<int> Ks = {1, 10, 50};
  std::vector<double> alphas = {2, 4, 8, 16};
  std::vector<size_t> ks = {2, 3, 4, 6, 8, 12};
  std::vector<double> ns = {0.7e7, 0.9e7, 1e7};
  if (argc > 2 && std::string(argv[2]) == "large-n") {  // samples needed at K = 1
    Ks = {1};
    alphas = {2, 16};
    ks = {3, 4, 6};
    ns = {1.5e7, 2e7, 3e7, 5e7};
  }
  int dir0 = argc > 1 ? std::atoi(argv[1]) : 0, dirs = dir0 + 1;  // direction to run
  std::printf(
      "K,dir,alpha,truth,k,F,n_eval,bound_ratio,kept_at_opt,dp_best_ratio,eff_cells,thresholds_"
      "z\n");
  for (int K : Ks) {
    QuadraticLossSetting st;
    st.epochs = K;
    MixturePair mp = quadratic_loss_last_iterate(st);
    auto ex = exact_renyi(mp.p, mp.q, alphas);
    Mix P = to_mix(mp.p), Q = to_mix(mp.q);
    // monotonicity of log q/p on a grid
    double mu = P.m[0], sd = P.s;
    int nonmono = 0;
    double prev = -INFINITY;
    for (int i = -800; i <= 800; ++i) {
      double x = mu + sd * i / 100.0;
      double l = Q.logpdf(x) - P.logpdf(x);
      if (l < prev) ++nonmono;
      prev = l;
    }
    double mmin = *std::min_element(Q.m.begin(), Q.m.end()),
           mmax = *std::max_element(Q.m.begin(), Q.m.end());
    std::fprintf(stderr,
                 "K=%d P: %zu comp mean %.6g sd %.6g; Q: %zu comp means [%.6g, %.6g] sd %.6g; log "
                 "q/p decreasing steps on [-8,8]sd: %d\n",
                 K, P.w.size(), P.m[0], P.s, Q.w.size(), mmin, mmax, Q.s, nonmono);
    for (int dir = dir0; dir < dirs; ++dir) {
      for (double a : alphas) {
        double truth = 0;
        for (auto& e : ex)
          if (e.alpha == a && e.direction == dir) truth = e.value;
        Problem pr{dir == 0 ? P : Q, dir == 0 ? Q : P, mu, sd, a, 1e7, 0.0};
        std::fprintf(stderr, "K=%d dir=%d alpha=%g truth=%.6g\n", K, dir, a, truth);
        std::vector<std::vector<std::vector<double>>> prevk(
            5, std::vector<std::vector<double>>(ns.size()));
        for (size_t k : ks) {
          // pure data processing optimum
          pr.cp = false;
          double dpbest = 0;
          std::vector<double> zdp;
          for (auto z0 : starts(k)) {
            auto z = z0;
            double v = optimise(pr, z);
            if (v > dpbest) {
              dpbest = v;
              zdp = z;
            }
          }
          pr.cp = true;
          std::vector<size_t> Fs = {k, 2 * k, 50, 100, 250};
          for (size_t fi = 0; fi < Fs.size(); ++fi) {
            size_t F = Fs[fi];
            std::vector<double> zwarm;  // warm start across n
            for (size_t ni = 0; ni < ns.size(); ++ni) {
              double n = ns[ni];
              pr.n = n;
              pr.miss = 0.05 / (2.0 * F);
              auto t0 = std::chrono::steady_clock::now();
              double best = 0;
              std::vector<double> zb;
              auto ss = starts(k);
              ss.push_back(zdp);
              if (!zwarm.empty()) ss.push_back(zwarm);
              auto& pk = prevk[fi][ni];
              if (!pk.empty()) {  // previous k's optimum with thresholds inserted
                std::vector<double> ext = {-7.0};
                ext.insert(ext.end(), pk.begin(), pk.end());
                ext.push_back(7.0);
                while (ext.size() < k + 1) {  // split largest gap (inner gaps capped)
                  size_t gi = 0;
                  double gw = -1;
                  for (size_t g = 0; g + 1 < ext.size(); ++g) {
                    double w = std::min(ext[g + 1], 3.0) - std::max(ext[g], -3.0);
                    if (w > gw) {
                      gw = w;
                      gi = g;
                    }
                  }
                  double mid = 0.5 * (std::max(ext[gi], -3.0) + std::min(ext[gi + 1], 3.0));
                  ext.insert(ext.begin() + gi + 1, mid);
                }
                ss.push_back(std::vector<double>(ext.begin() + 1, ext.end() - 1));
              }
              for (auto z0 : ss) {
                auto z = z0;
                double v = optimise(pr, z);
                if (v > best) {
                  best = v;
                  zb = z;
                }
              }
              for (int r = 0; r < 3 && !zb.empty(); ++r) {  // perturbed restarts
                auto z = zb;
                for (auto& v : z) v += 0.3 * std::sin(12.9898 * (r + 1) * (&v - &z[0] + 1) + r);
                std::sort(z.begin(), z.end());
                for (size_t i = 1; i < z.size(); ++i) z[i] = std::max(z[i], z[i - 1] + 1e-3);
                double v = optimise(pr, z);
                if (v > best) {
                  best = v;
                  zb = z;
                }
              }
              zwarm = zb;
              pk = zb;
              int eff = 0;
              {
                std::vector<double> pp, qq;
                pr.cells(zb, pp, qq);
                for (double v : pp) eff += v > 1e-4;
              }
              pr.cp = false;
              double kept = zb.empty() ? 0 : pr.value(zb);
              pr.cp = true;
              double dt =
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
              std::printf("%d,%d,%g,%.6g,%zu,%zu,%g,%.4f,%.4f,%.4f,%d,", K, dir, a, truth, k, F, n,
                          best / truth, kept / truth, dpbest / truth, eff);
              for (size_t i = 0; i < zb.size(); ++i) std::printf("%s%.2f", i ? " " : "", zb[i]);
              std::printf("\n");
              std::fflush(stdout);
              (void)dt;
            }
          }
        }
      }
    }
  }
}
