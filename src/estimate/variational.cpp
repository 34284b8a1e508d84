#include "rdpaudit/estimate/variational.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "rdpaudit/core/error.hpp"
#include "rdpaudit/estimate/selection.hpp"

namespace rdpaudit::estimate {

namespace {

// Share of an order's miss probability spent on the contrast's Bernstein bound; the rest goes
// in equal halves to the two standard-deviation bounds.
constexpr double kMeanShare = 0.9;

// Mean and unbiased variance of values v_i carried by weights w_i (counts or frequencies
// scaled to n samples in total).
struct Moments {
  double mean = 0.0, var = 0.0;
};

Moments moments(const std::vector<double>& v, const std::vector<double>& w, double n) {
  Moments m;
  if (!(n > 0.0)) return m;
  long double s = 0.0L;
  for (std::size_t i = 0; i < v.size(); ++i) s += static_cast<long double>(w[i]) * v[i];
  m.mean = static_cast<double>(s / n);
  long double ss = 0.0L;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const long double d = static_cast<long double>(v[i]) - m.mean;
    ss += static_cast<long double>(w[i]) * d * d;
  }
  m.var = n > 1.0 ? static_cast<double>(ss / (n - 1.0)) : 0.0;
  return m;
}

// One test function on the fine cells: g_i = c * shape[clamp(i, lo, hi)].
struct TestFunction {
  const std::vector<double>* shape = nullptr;
  double c = 0.0;
  std::size_t lo = 0, hi = 0;
};

// X = e^{(alpha-1)(g - max g)} and Y = e^{alpha (g - max g)} per fine cell, with their ranges:
// the shift by max g leaves (H) unchanged and keeps every exponent <= 0.
struct Transformed {
  std::vector<double> x, y;
  double range_x = 0.0, range_y = 0.0;
};

Transformed transform(const TestFunction& f, std::size_t m, double alpha) {
  Transformed t;
  t.x.resize(m);
  t.y.resize(m);
  const double g_lo = f.c * (*f.shape)[f.lo], g_hi = f.c * (*f.shape)[f.hi];
  const double g_max = std::max(g_lo, g_hi), g_min = std::min(g_lo, g_hi);
  for (std::size_t i = 0; i < m; ++i) {
    const double u = f.c * (*f.shape)[std::clamp(i, f.lo, f.hi)] - g_max;
    t.x[i] = std::exp((alpha - 1.0) * u);
    t.y[i] = std::exp(alpha * u);
  }
  t.range_x = -std::expm1((alpha - 1.0) * (g_min - g_max));
  t.range_y = -std::expm1(alpha * (g_min - g_max));
  return t;
}

// The certificate of test function f: moments of X on the first law's weights and of Y on
// the second's (w_* sum to n_*), and k = (alpha-1) Xbar / (alpha Ybar) unless k is given.
ContrastCertificate certify(const Transformed& t, const std::vector<double>& w_first,
                            double n_first, const std::vector<double>& w_second, double n_second,
                            double alpha, int direction, double k) {
  ContrastCertificate c;
  c.alpha = alpha;
  c.direction = direction;
  const Moments mx = moments(t.x, w_first, n_first), my = moments(t.y, w_second, n_second);
  c.mean_x = mx.mean;
  c.var_x = mx.var;
  c.mean_y = my.mean;
  c.var_y = my.var;
  c.range_x = t.range_x;
  c.range_y = t.range_y;
  c.n_x = n_first;
  c.n_y = n_second;
  c.k = k > 0.0 ? k : (my.mean > 0.0 ? (alpha - 1.0) * mx.mean / (alpha * my.mean) : 0.0);
  return c;
}

// The plug-in of (H): beta log Xbar - log Ybar.
double holder_plugin(const ContrastCertificate& c) {
  if (!(c.mean_x > 0.0 && c.mean_y > 0.0)) return 0.0;
  return c.alpha / (c.alpha - 1.0) * std::log(c.mean_x) - std::log(c.mean_y);
}

std::vector<double> as_weights(const std::vector<std::uint64_t>& counts, double scale) {
  std::vector<double> w(counts.size());
  for (std::size_t i = 0; i < counts.size(); ++i) w[i] = scale * static_cast<double>(counts[i]);
  return w;
}

// Least-squares scale of shape h separating the first law from the second on the selection
// weights: (mean_first h - mean_second h) / pooled variance of h (the Gaussian-optimal c when
// h is linear in the log-ratio). 0 when h does not vary.
double base_scale(const std::vector<double>& h, const std::vector<double>& w1, double n1,
                  const std::vector<double>& w2, double n2) {
  const Moments a = moments(h, w1, n1), b = moments(h, w2, n2);
  const double pooled = 0.5 * (a.var + b.var);
  return pooled > 0.0 ? (a.mean - b.mean) / pooled : 0.0;
}

void check_options(const VariationalOptions& o) {
  if (!(o.confidence > 0.0 && o.confidence < 1.0)) {
    throw InternalError("variational.confidence", std::to_string(o.confidence),
                        "must lie in (0, 1)");
  }
  if (o.scale_factors.empty())
    throw InternalError("variational.scale_factors", "[]", "need at least one factor");
  for (double f : o.scale_factors) {
    if (!(f > 0.0 && std::isfinite(f)))
      throw InternalError("variational.scale_factors", std::to_string(f), "must be finite and > 0");
  }
  if (o.clip_counts.empty())
    throw InternalError("variational.clip_counts", "[]", "need at least one count (0: no clip)");
  for (double t : o.clip_counts) {
    if (!(t >= 0.0 && std::isfinite(t)))
      throw InternalError("variational.clip_counts", std::to_string(t), "must be finite and >= 0");
  }
}

}  // namespace

double contrast_lower_bound(const ContrastCertificate& c, double miss) {
  if (!(miss > 0.0 && miss <= 1.0)) {
    throw InternalError("variational.miss", std::to_string(miss), "must lie in (0, 1]");
  }
  if (!(c.k > 0.0) || c.n_x < 2.0 || c.n_y < 2.0 || !(c.alpha > 1.0)) return 0.0;
  const double d_mean = kMeanShare * miss, d_var = 0.5 * (1.0 - kMeanShare) * miss;
  const double lv = std::log(1.0 / d_var), lm = std::log(1.0 / d_mean);
  // Maurer & Pontil (2009), Theorem 10, scaled to the range: upper bounds on the two sds.
  const double s_x =
      std::sqrt(std::max(c.var_x, 0.0)) + c.range_x * std::sqrt(2.0 * lv / (c.n_x - 1.0));
  const double s_y =
      std::sqrt(std::max(c.var_y, 0.0)) + c.range_y * std::sqrt(2.0 * lv / (c.n_y - 1.0));
  // Bernstein (Boucheron, Lugosi & Massart 2013, Theorem 2.10) on the n_x + n_y independent
  // terms of Xbar - k Ybar.
  const double v = s_x * s_x / c.n_x + c.k * c.k * s_y * s_y / c.n_y;
  const double b = std::max(c.range_x / c.n_x, c.k * c.range_y / c.n_y);
  const double l = c.mean_x - c.k * c.mean_y - std::sqrt(2.0 * v * lm) - b * lm / 3.0;
  if (!(l > 0.0)) return 0.0;
  const double a = c.alpha;
  // (C): min over m > 0 of beta log(k m + l) - log m.
  const double r =
      std::log(l) / (a - 1.0) + a * std::log(a) / (a - 1.0) - std::log(a - 1.0) + std::log(c.k);
  return std::max(r, 0.0);
}

RigorousResult variational_lower_bound(const OrderedCells& cells, const std::vector<double>& alphas,
                                       const VariationalOptions& options,
                                       const std::string& method) {
  check_alphas(alphas, "variational.alphas");
  check_options(options);
  check_ordered_cells(cells, "variational");
  RigorousResult result;
  result.method = method;
  const std::size_t m = cells.position.size();
  const double np_sel = static_cast<double>(cells.selection.total_p());
  const double nq_sel = static_cast<double>(cells.selection.total_q());
  const double np_eval = static_cast<double>(cells.evaluation.total_p());
  const double nq_eval = static_cast<double>(cells.evaluation.total_q());
  const std::size_t pairs = 2 * alphas.size();
  const double miss = (1.0 - options.confidence) / static_cast<double>(pairs);
  result.family_cells = pairs;
  result.per_interval_miss = miss;
  if (np_sel < 2 || nq_sel < 2 || np_eval < 2 || nq_eval < 2) {
    for (double a : alphas) {
      for (int d : {kForward, kBackward}) {
        result.estimates.push_back(
            uninformative(a, d, method, "a split holds fewer than 2 samples of P or of P'"));
      }
    }
    return result;
  }
  // Selection weights scaled to the evaluation sizes (the forecast), evaluation counts.
  const std::vector<double> sel_p = as_weights(cells.selection.p, np_eval / np_sel);
  const std::vector<double> sel_q = as_weights(cells.selection.q, nq_eval / nq_sel);
  const std::vector<double> ev_p = as_weights(cells.evaluation.p, 1.0);
  const std::vector<double> ev_q = as_weights(cells.evaluation.q, 1.0);

  // The shape: the positions (the coordinate, or a learned log-ratio score). A shape fitted to
  // the selection counts (an isotonic log-ratio) was tried and dropped: its forecast on the
  // split it was fitted to is optimistic, so it won the choice and lost on evaluation.
  const std::vector<double>& shape = cells.position;
  // Clip cuts: the outermost cells holding at least t forecast samples (both sides) beyond.
  std::vector<std::size_t> lows, highs;
  for (double t : options.clip_counts) {
    double below = 0.0, above = 0.0;
    std::size_t lo = 0, hi = m - 1;
    while (lo + 1 < m && below + sel_p[lo] + sel_q[lo] < t) below += sel_p[lo] + sel_q[lo], ++lo;
    while (hi > 0 && above + sel_p[hi] + sel_q[hi] < t) above += sel_p[hi] + sel_q[hi], --hi;
    lows.push_back(lo);
    highs.push_back(hi);
  }
  std::sort(lows.begin(), lows.end());
  lows.erase(std::unique(lows.begin(), lows.end()), lows.end());
  std::sort(highs.begin(), highs.end());
  highs.erase(std::unique(highs.begin(), highs.end()), highs.end());

  std::vector<ContrastCertificate> certs(pairs);
  std::vector<double> plugins(pairs, 0.0);
  const auto n = static_cast<std::ptrdiff_t>(pairs);
#pragma omp parallel for schedule(dynamic)
  for (std::ptrdiff_t j = 0; j < n; ++j) {
    const double a = alphas[static_cast<std::size_t>(j) / 2];
    const int d = static_cast<int>(j % 2);
    const auto& w1 = d == kForward ? sel_p : sel_q;
    const auto& w2 = d == kForward ? sel_q : sel_p;
    const double n1 = d == kForward ? np_eval : nq_eval, n2 = d == kForward ? nq_eval : np_eval;
    // Coordinate ascent over (scale, low clip, high clip), starting unclipped at the
    // least-squares scale: a few dozen forecasts instead of the full grid's hundreds, and
    // the same choice wherever the forecast is unimodal in each coordinate.
    double best = -1.0;
    TestFunction arg;
    const double c0 = base_scale(shape, w1, n1, w2, n2);
    if (c0 != 0.0 && std::isfinite(c0)) {
      const auto forecast = [&](const TestFunction& tf) {
        const double lb =
            contrast_lower_bound(certify(transform(tf, m, a), w1, n1, w2, n2, a, d, 0.0), miss);
        if (lb > best) best = lb, arg = tf;
      };
      TestFunction cur{&shape, c0, lows.front(), highs.back()};
      for (int sweep = 0; sweep < 2; ++sweep) {
        for (double f : options.scale_factors) forecast({&shape, f * c0, cur.lo, cur.hi});
        if (arg.shape) cur = arg;
        for (std::size_t lo : lows) {
          if (lo < cur.hi) forecast({&shape, cur.c, lo, cur.hi});
        }
        if (arg.shape) cur = arg;
        for (std::size_t hi : highs) {
          if (cur.lo < hi) forecast({&shape, cur.c, cur.lo, hi});
        }
        if (arg.shape) cur = arg;
      }
    }
    if (!arg.shape) continue;  // no shape varies: left uninformative below
    const auto& e1 = d == kForward ? ev_p : ev_q;
    const auto& e2 = d == kForward ? ev_q : ev_p;
    const Transformed t = transform(arg, m, a);
    const double k = certify(t, w1, n1, w2, n2, a, d, 0.0).k;  // chosen on the selection split
    certs[static_cast<std::size_t>(j)] = certify(t, e1, n1, e2, n2, a, d, k);
    plugins[static_cast<std::size_t>(j)] = holder_plugin(certs[static_cast<std::size_t>(j)]);
  }

  for (std::size_t j = 0; j < pairs; ++j) {
    const ContrastCertificate& c = certs[j];
    const double a = alphas[j / 2];
    const int d = static_cast<int>(j % 2);
    const double lb = c.k > 0.0 ? contrast_lower_bound(c, miss) : 0.0;
    if (c.k > 0.0) result.contrasts.push_back(c);
    if (!(lb > 0.0)) {
      result.estimates.push_back(uninformative(
          a, d, method,
          c.k > 0.0 ? "the Bernstein lower bound on the contrast is not positive at this order "
                      "(more samples, or a score that reaches the tilted mass, needed)"
                    : "no test function varies on the selection split"));
      continue;
    }
    Estimate e;
    e.alpha = a;
    e.direction = d;
    e.method = method;
    e.value = plugins[j];
    e.lower = lb;
    e.upper = std::numeric_limits<double>::infinity();
    e.interval = "hoelder + bernstein, bonferroni over " + std::to_string(pairs) +
                 " orders x directions, family-wise (valid lower bound, one-sided)";
    e.informative = true;
    result.estimates.push_back(std::move(e));
  }
  return result;
}

// The count method "rigorous-bernstein": a test function of the fine cells chosen on the
// selection counts.
CountResult run_rigorous_bernstein(const CountInputs& in) {
  return certified(
      variational_lower_bound(in.fine, in.alphas, in.options.variational, in.row_name));
}

}  // namespace rdpaudit::estimate
