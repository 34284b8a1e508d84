// The PLD accountant of pld.hpp; the construction and its proofs are in docs/pld.md.
#include "rdpaudit/bounds/pld.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <optional>
#include <unsupported/Eigen/FFT>
#include <vector>

#include "rdpaudit/bounds/gdp.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::bounds::pld {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kRoundingMargin = 1e-12;

double log_add_exp(double a, double b) {
  if (a < b) std::swap(a, b);
  if (b == -kInf) return a;
  return a + std::log1p(std::exp(b - a));
}

/// Phi(s) and 1 - Phi(s), each accurate in its own tail.
struct Tails {
  double lower;
  double upper;
};

Tails normal_tails(double s) {
  const double r = 1.0 / std::sqrt(2.0);
  return {0.5 * std::erfc(-s * r), 0.5 * std::erfc(s * r)};
}

/// Phi(sb) - Phi(sa) for sa <= sb, from the tail on the side where both points lie.
double normal_mass(double sa, const Tails& ta, double sb, const Tails& tb) {
  if (sa >= 0.0) return std::max(0.0, ta.upper - tb.upper);
  if (sb <= 0.0) return std::max(0.0, tb.lower - ta.lower);
  return std::max(0.0, 1.0 - ta.lower - tb.upper);
}

/// One ordered pair of the subsampled Gaussian family (q = 1: the Gaussian pair):
///   remove: P = (1-q) N(0, z^2) + q N(1, z^2), Q = N(0, z^2)  (loss increasing in x),
///   add:    P = N(0, z^2), Q = (1-q) N(0, z^2) + q N(1, z^2)  (loss decreasing in x).
/// With u = (2x - 1)/(2 z^2) the loss is +-log(1 - q + q e^u).
struct Pair {
  double q;
  double z;
  bool remove;

  double loss(double x) const {
    const double u = (2.0 * x - 1.0) / (2.0 * z * z);
    const double m = q == 1.0 ? u : log_add_exp(std::log1p(-q), std::log(q) + u);
    return remove ? m : -m;
  }

  /// The x with loss(x) = l; -inf below the range of the loss, +inf above (for the remove
  /// order; mirrored for add).
  double x_of_loss(double l) const {
    const double m = remove ? l : -l;
    double u = m;
    if (q != 1.0) {
      const double a = std::expm1(m) + q;
      u = a > 0.0 ? std::log(a) - std::log(q) : -kInf;
    }
    return z * z * u + 0.5;
  }

  /// P - alpha Q on a cell, from its N(0, z^2) mass d0 and its N(1, z^2) mass d1.
  double hockey(double alpha, double d0, double d1) const {
    if (remove) return (1.0 - q - alpha) * d0 + q * d1;
    return (1.0 - alpha * (1.0 - q)) * d0 - alpha * q * d1;
  }
  double p_mass(double d0, double d1) const { return remove ? (1.0 - q) * d0 + q * d1 : d0; }
};

/// The N(0, z^2) and N(1, z^2) masses of the cells between consecutive loss boundaries
/// (ascending, +-inf allowed).
struct Cells {
  std::vector<double> d0;
  std::vector<double> d1;
};

Cells cells(const Pair& pair, const std::vector<double>& bounds) {
  const std::size_t k = bounds.size();
  std::vector<double> s0(k), s1(k);
  std::vector<Tails> t0(k), t1(k);
  for (std::size_t i = 0; i < k; ++i) {
    const double x = pair.x_of_loss(bounds[i]);
    s0[i] = x / pair.z;
    s1[i] = (x - 1.0) / pair.z;
    t0[i] = normal_tails(s0[i]);
    t1[i] = normal_tails(s1[i]);
  }
  Cells c{std::vector<double>(k - 1), std::vector<double>(k - 1)};
  for (std::size_t i = 0; i + 1 < k; ++i) {
    const std::size_t a = pair.remove ? i : i + 1;  // the cell's smaller x
    const std::size_t b = pair.remove ? i + 1 : i;
    c.d0[i] = normal_mass(s0[a], t0[a], s0[b], t0[b]);
    c.d1[i] = normal_mass(s1[a], t1[a], s1[b], t1[b]);
  }
  return c;
}

/// A PMF of the privacy loss on the grid (offset + j) h, j = 0..mass.size()-1, with an atom
/// at +inf.
struct Pmf {
  long offset = 0;
  double h = 0.0;
  std::vector<double> mass;
  double inf_mass = 0.0;
};

/// The grid [i_lo h, i_hi h] of the single step: it holds all but tail_mass/2 of each
/// Gaussian component on either side.
struct Grid {
  long lo;
  long hi;
};

Grid single_grid(const Pair& pair, double h, double tail_mass) {
  const double k = -gdp::normal_quantile(0.5 * tail_mass);
  const double l1 = pair.loss(-k * pair.z);
  const double l2 = pair.loss(1.0 + k * pair.z);
  return {static_cast<long>(std::floor(std::min(l1, l2) / h)),
          static_cast<long>(std::ceil(std::max(l1, l2) / h))};
}

/// Connect the dots (Doroshenko et al. 2022): each cell [e_i, e_{i+1}] with P-mass P and
/// Q-mass Q becomes atoms a at e_i and b at e_{i+1} with a + b = P, a e^{-e_i} + b e^{-e_{i+1}}
/// = Q, i.e. b = (P - e^{e_i} Q) / (1 - e^{-h}), a = (e^{e_{i+1}} Q - P) / (e^h - 1). The pair
/// is a post-processing of the split one, which therefore dominates it. Below the grid: moved
/// up to the lowest point (a split too); above: the infinity mass.
Pmf pessimistic_pmf(const Pair& pair, double h, const Grid& g) {
  const long n = g.hi - g.lo + 1;
  std::vector<double> bounds;
  bounds.reserve(static_cast<std::size_t>(n) + 2);
  bounds.push_back(-kInf);
  for (long i = g.lo; i <= g.hi; ++i) bounds.push_back(static_cast<double>(i) * h);
  bounds.push_back(kInf);
  const Cells c = cells(pair, bounds);
  Pmf pmf;
  pmf.offset = g.lo;
  pmf.h = h;
  pmf.mass.assign(static_cast<std::size_t>(n), 0.0);
  pmf.mass[0] = pair.p_mass(c.d0[0], c.d1[0]);
  const double up = -std::expm1(-h);
  const double down = std::expm1(h);
  for (long j = 1; j < n; ++j) {
    const std::size_t cell = static_cast<std::size_t>(j);
    const double ea = std::exp(static_cast<double>(g.lo + j - 1) * h);
    const double eb = std::exp(static_cast<double>(g.lo + j) * h);
    const double r = std::max(0.0, pair.hockey(ea, c.d0[cell], c.d1[cell]));
    const double t = std::max(0.0, -pair.hockey(eb, c.d0[cell], c.d1[cell]));
    pmf.mass[cell] += r / up;
    pmf.mass[cell - 1] += t / down;
  }
  pmf.inf_mass = pair.p_mass(c.d0.back(), c.d1.back());
  return pmf;
}

/// A pair dominated by the true one, on the grid: cells [e_i - h/2, e_i + h/2) (a
/// post-processing); a cell whose loss log(P/Q) is below e_i is merged with the fraction of
/// the next cell that brings its loss to exactly e_i (a post-processing too); what remains
/// off the grid is rounded down, the mass below the grid dropped, above it rounded down to the
/// top point. Lowering losses and dropping mass only lower every composed delta.
Pmf optimistic_pmf(const Pair& pair, double h, const Grid& g) {
  const long n = g.hi - g.lo + 1;
  std::vector<double> bounds;
  bounds.reserve(static_cast<std::size_t>(n) + 3);
  bounds.push_back(-kInf);
  for (long i = g.lo; i <= g.hi + 1; ++i) bounds.push_back((static_cast<double>(i) - 0.5) * h);
  bounds.push_back(kInf);
  const Cells c = cells(pair, bounds);  // cell j + 1 is the cell of grid point j
  const std::size_t nn = static_cast<std::size_t>(n);
  std::vector<double> p(nn), own(nn), below(nn, 0.0);
  for (std::size_t j = 0; j < nn; ++j) {
    const double d0 = c.d0[j + 1], d1 = c.d1[j + 1];
    const double e = static_cast<double>(g.lo + static_cast<long>(j)) * h;
    p[j] = pair.p_mass(d0, d1);
    own[j] = pair.hockey(std::exp(e), d0, d1);                   // >= 0 iff the loss is >= e_j
    if (j > 0) below[j] = pair.hockey(std::exp(e - h), d0, d1);  // > 0: loss above e_{j-1}
  }
  Pmf pmf;
  pmf.offset = g.lo;
  pmf.h = h;
  pmf.mass.assign(nn, 0.0);
  double keep = 1.0;  // the fraction of cell j not yet merged into cell j - 1
  for (std::size_t j = 0; j < nn; ++j) {
    const double pc = keep * p[j];
    const double ec = keep * own[j];
    keep = 1.0;
    if (pc <= 0.0) continue;
    if (ec >= 0.0) {
      pmf.mass[j] += pc;
    } else if (j + 1 < nn && below[j + 1] > 0.0) {
      const double f = -ec / below[j + 1];
      if (f < 1.0) {
        pmf.mass[j] += pc + f * p[j + 1];
        keep = 1.0 - f;
      } else {  // all of the next cell is not enough: the merged loss is in [e_{j-1}, e_j)
        if (j > 0) pmf.mass[j - 1] += pc + p[j + 1];
        keep = 0.0;
      }
    } else if (j > 0) {
      pmf.mass[j - 1] += pc;
    }
  }
  pmf.mass[nn - 1] += pair.p_mass(c.d0.back(), c.d1.back());
  return pmf;
}

/// The T-fold composition on a window, delta(eps) = inf_mass + slack + sum_{l_k > eps} m_k (1 -
/// e^{eps - l_k}) with slack = +-(tail + roundoff) for the upper / lower end.
struct Composed {
  long offset = 0;
  double h = 0.0;
  std::vector<double> mass;
  double inf_mass = 0.0;
  double tail = 0.0;      ///< certified bound on the mass outside the window (both sides)
  double roundoff = 0.0;  ///< estimated FFT error of the sum of the masses
  std::size_t fft_size = 0;
};

/// log E[e^{t L}] of the finite part, from blocks of the PMF moved to their upper (t > 0) or
/// lower (t < 0) ends: an upper bound on the exact value, cheap.
struct BlockedPmf {
  std::vector<double> lo_loss, hi_loss, mass;
};

BlockedPmf blocked(const Pmf& pmf, std::size_t block) {
  BlockedPmf b;
  for (std::size_t s = 0; s < pmf.mass.size(); s += block) {
    const std::size_t e = std::min(pmf.mass.size(), s + block);
    double m = 0.0;
    for (std::size_t j = s; j < e; ++j) m += std::max(0.0, pmf.mass[j]);
    if (m <= 0.0) continue;
    b.mass.push_back(m);
    b.lo_loss.push_back(static_cast<double>(pmf.offset + static_cast<long>(s)) * pmf.h);
    b.hi_loss.push_back(static_cast<double>(pmf.offset + static_cast<long>(e) - 1) * pmf.h);
  }
  return b;
}

double log_mgf(const BlockedPmf& b, double t) {
  const std::vector<double>& l = t > 0.0 ? b.hi_loss : b.lo_loss;
  double top = -kInf;
  for (std::size_t i = 0; i < l.size(); ++i) top = std::max(top, t * l[i] + std::log(b.mass[i]));
  double s = 0.0;
  for (std::size_t i = 0; i < l.size(); ++i) s += b.mass[i] * std::exp(t * l[i] - top);
  return top + std::log(s);
}

std::optional<Composed> compose(const Pmf& pmf, long T, double tail_mass, std::size_t max_fft) {
  Composed c;
  c.h = pmf.h;
  c.inf_mass = -std::expm1(static_cast<double>(T) * std::log1p(-pmf.inf_mass));
  if (T == 1) {
    c.offset = pmf.offset;
    c.mass = pmf.mass;
    return c;
  }
  const long n = static_cast<long>(pmf.mass.size());
  const long full_lo = T * pmf.offset;
  const long full_hi = T * (pmf.offset + n - 1);
  // Chernoff: P(S >= a) <= exp(T K(t) - t a) for t > 0, P(S <= a) <= exp(T K(-t) + t a).
  const BlockedPmf b = blocked(pmf, 64);
  const double log_tail = std::log(0.5 * tail_mass);
  double a_hi = kInf, a_lo = -kInf;
  for (int i = 0; i <= 80; ++i) {
    const double t = std::pow(10.0, -4.0 + 0.1 * i);
    const double Td = static_cast<double>(T);
    a_hi = std::min(a_hi, (Td * log_mgf(b, t) - log_tail) / t);
    a_lo = std::max(a_lo, -(Td * log_mgf(b, -t) - log_tail) / t);
  }
  long s_hi = full_hi, s_lo = full_lo;
  double tail = 0.0;
  if (a_hi / c.h < static_cast<double>(full_hi)) {
    s_hi = static_cast<long>(std::ceil(a_hi / c.h));
    tail += 0.5 * tail_mass;
  }
  if (a_lo / c.h > static_cast<double>(full_lo)) {
    s_lo = static_cast<long>(std::floor(a_lo / c.h));
    tail += 0.5 * tail_mass;
  }
  if (s_hi < s_lo) s_hi = s_lo;
  const double width = static_cast<double>(s_hi - s_lo) + 1.0;
  if (width > static_cast<double>(max_fft)) return std::nullopt;
  std::size_t N = 2;
  while (static_cast<double>(N) < width) N *= 2;
  std::vector<double> in(N, 0.0);
  for (long j = 0; j < n; ++j) in[static_cast<std::size_t>(j) % N] += pmf.mass[j];
  Eigen::FFT<double> fft;
  fft.SetFlag(Eigen::FFT<double>::HalfSpectrum);
  std::vector<std::complex<double>> spec;
  fft.fwd(spec, in);
  const double Td = static_cast<double>(T);
  for (std::complex<double>& v : spec) {
    const double r = std::abs(v);
    v = r > 0.0 ? std::polar(std::exp(Td * std::log(r)), Td * std::arg(v))
                : std::complex<double>(0.0, 0.0);
  }
  std::vector<double> out;
  fft.inv(out, spec, static_cast<Eigen::Index>(N));
  const long Nl = static_cast<long>(N);
  const long shift = (((s_lo - full_lo) % Nl) + Nl) % Nl;
  c.offset = s_lo;
  c.mass.resize(N);
  double negative = 0.0;
  for (std::size_t k = 0; k < N; ++k) {
    c.mass[k] = out[(static_cast<std::size_t>(shift) + k) % N];
    negative = std::max(negative, -c.mass[k]);
  }
  c.tail = tail;
  c.roundoff = negative * static_cast<double>(N);
  c.fft_size = N;
  return c;
}

/// delta(eps) of a composed PMF with an additive slack.
double delta_of(const Composed& c, double slack, double eps) {
  double d = c.inf_mass + slack;
  for (std::size_t k = 0; k < c.mass.size(); ++k) {
    const double l = static_cast<double>(c.offset + static_cast<long>(k)) * c.h;
    if (l > eps) d += c.mass[k] * -std::expm1(eps - l);
  }
  return std::clamp(d, 0.0, 1.0);
}

/// The smallest eps >= 0 with delta_of(c, slack, eps) <= target (+inf if none): scanning down
/// from the top, delta(eps) = base + A - e^{eps - l_j} B on [l_j, l_{j+1}] with A, B the sums
/// over the points above l_j (B relative to l_j), solved in closed form on the cell where it
/// crosses the target.
double epsilon_of(const Composed& c, double slack, double target) {
  const double base = c.inf_mass + slack;
  if (base > target) return kInf;
  const long K = static_cast<long>(c.mass.size());
  const double eh = std::exp(-c.h);
  double A = 0.0, B = 0.0;  // over the points above l_j; B = sum m_k e^{l_j - l_k}
  for (long j = K - 1; j >= 0; --j) {
    const double lj = static_cast<double>(c.offset + j) * c.h;
    const double left = std::max(lj, 0.0);
    if (base + A - std::exp(left - lj) * B > target) {  // crosses in (left, l_{j+1}]
      if (B <= 0.0) return lj + c.h;
      return std::clamp(lj + std::log((base + A - target) / B), left, lj + c.h);
    }
    if (lj <= 0.0) return 0.0;
    const double m = c.mass[static_cast<std::size_t>(j)];
    A += m;
    B = (B + m) * eh;
  }
  // Below the window: delta(eps) = base + A - e^{eps - l_{-1}} B for eps <= l_0.
  if (base + A <= target || B <= 0.0) return 0.0;
  const double l_m1 = static_cast<double>(c.offset - 1) * c.h;
  return std::max(0.0, l_m1 + std::log((base + A - target) / B));
}

struct Query {
  bool epsilon;  ///< true: eps(delta), false: delta(eps)
  double value;
};

/// One evaluation of one ordered pair at grid spacing h: both ends (nullopt when an FFT would
/// be longer than max_fft_size).
struct Evaluation {
  Interval r;
  double floor;  ///< the part of the width that no finer grid removes (tails, FFT rounding)
};

std::optional<Evaluation> evaluate(const Pair& pair, long T, const Query& query, double h,
                                   const Options& opt) {
  const Grid g = single_grid(pair, h, opt.tail_mass);
  if (static_cast<double>(g.hi - g.lo) > 4.0 * static_cast<double>(opt.max_fft_size)) {
    return std::nullopt;
  }
  const std::optional<Composed> up =
      compose(pessimistic_pmf(pair, h, g), T, opt.tail_mass, opt.max_fft_size);
  if (!up) return std::nullopt;
  const std::optional<Composed> low =
      compose(optimistic_pmf(pair, h, g), T, opt.tail_mass, opt.max_fft_size);
  if (!low) return std::nullopt;
  const double up_slack = up->tail + up->roundoff;
  const double low_slack = -(low->tail + low->roundoff);
  double u, l;
  if (query.epsilon) {
    u = epsilon_of(*up, up_slack, query.value);
    l = epsilon_of(*low, low_slack, query.value);
  } else {
    u = delta_of(*up, up_slack, query.value);
    l = delta_of(*low, low_slack, query.value);
  }
  // A relative margin for the rounding of the sums (T = 1 on a grid point: both ends are
  // the exact value up to rounding).
  Interval r;
  r.upper =
      query.epsilon ? u * (1.0 + kRoundingMargin) : std::min(1.0, u * (1.0 + kRoundingMargin));
  r.lower = std::min(l * (1.0 - kRoundingMargin), r.upper);
  r.discretisation = h;
  r.fft_size = std::max(up->fft_size, low->fft_size);
  return Evaluation{r, up->inf_mass + up_slack - low_slack};
}

/// The worse of the orders (add/remove: the larger eps, the larger delta), refined until the
/// bracket is narrow enough. An order whose upper end is below another's lower end cannot be
/// the worse one and is dropped from the refinement.
Interval bracket(std::vector<Pair> orders, long T, const Query& query, const Options& opt) {
  double span = 0.0;
  for (const Pair& pair : orders) {
    const double k = -gdp::normal_quantile(0.5 * opt.tail_mass);
    span = std::max(span, std::abs(pair.loss(1.0 + k * pair.z) - pair.loss(-k * pair.z)));
  }
  // A privacy loss beyond double's range within the grid's tails (a noise multiplier near 0:
  // z = 1.1e-12 gives e^(4e23)) has no grid: the trivial bracket, [0, +inf] for eps and
  // [0, 1] for delta, which holds the truth (a fuzzed file reached a vector of that length).
  if (!std::isfinite(span) || span > 1e12) {
    Interval trivial;
    trivial.lower = 0.0;
    trivial.upper = query.epsilon ? kInf : 1.0;
    return trivial;
  }
  // Start coarse (the first evaluation is cheap) and refine: the width of the bracket is
  // second order in h, so one evaluation predicts the spacing that meets the target.
  double h = std::min(opt.discretisation, span / 1024.0);
  std::optional<Interval> best;
  int refinements = 0;
  for (int coarsenings = 0; coarsenings < 40;) {
    std::vector<Interval> each;
    double floor = 0.0;
    for (const Pair& pair : orders) {
      const std::optional<Evaluation> e = evaluate(pair, T, query, h, opt);
      if (!e) break;
      each.push_back(e->r);
      floor = std::max(floor, e->floor);
    }
    if (each.size() < orders.size()) {
      if (best) return *best;
      h *= 2.0;
      ++coarsenings;
      continue;
    }
    Interval r = each[0];
    for (const Interval& e : each) {
      r.lower = std::max(r.lower, e.lower);
      r.upper = std::max(r.upper, e.upper);
      r.fft_size = std::max(r.fft_size, e.fft_size);
    }
    best = r;
    if (!std::isfinite(r.upper) || r.upper <= 0.0) return r;
    const double rel = (r.upper - r.lower) / r.upper;
    if (rel <= opt.target_relative_width || refinements >= opt.max_refinements) return r;
    // delta(eps) in the tails (eps beyond the single step's grid): a finer grid cannot help
    if (!query.epsilon && r.upper - r.lower <= 2.0 * floor) return r;
    std::vector<Pair> active;
    for (std::size_t i = 0; i < orders.size(); ++i) {
      if (!(each[i].upper < r.lower)) active.push_back(orders[i]);
    }
    orders = active;
    h /= std::clamp(1.3 * std::sqrt(rel / opt.target_relative_width), 1.5, 64.0);
    ++refinements;
  }
  if (best) return *best;
  throw InternalError("pld::bracket: no grid spacing fits max_fft_size");
}

void check_common(double z, long T, const Options& opt) {
  if (!(z > 0.0) || !std::isfinite(z)) {
    throw InputError("z", fmt::format("{}", z), "noise multiplier must be finite and > 0");
  }
  if (T < 1) throw InputError("T", fmt::format("{}", T), "number of steps must be >= 1");
  if (!(opt.discretisation > 0.0) || !(opt.tail_mass > 0.0 && opt.tail_mass < 1e-3) ||
      !(opt.target_relative_width > 0.0) || opt.max_fft_size < 2) {
    throw InputError(
        "pld options: discretisation > 0, 0 < tail_mass < 1e-3, "
        "target_relative_width > 0, max_fft_size >= 2");
  }
}

void check_delta(double delta) {
  if (!(delta > 0.0 && delta < 1.0)) {
    throw InputError("delta", fmt::format("{}", delta), "must be in (0, 1)");
  }
}

void check_epsilon(double epsilon) {
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon)) {
    throw InputError("epsilon", fmt::format("{}", epsilon), "must be finite and >= 0");
  }
}

std::vector<Pair> poisson_orders(double q, double z, Adjacency adjacency) {
  if (!(q > 0.0 && q <= 1.0)) {
    throw InputError("q", fmt::format("{}", q), "sampling rate must be in (0, 1]");
  }
  if (adjacency == Adjacency::kReplaceOne) {
    if (q < 1.0) {
      throw InputError("adjacency", "replace-one",
                       "the PLD accountant supports replace-one only without subsampling "
                       "(q = 1); use add/remove for Poisson subsampling");
    }
    return {Pair{1.0, 0.5 * z, true}};
  }
  if (q == 1.0) return {Pair{1.0, z, true}};  // the two orders are mirror images
  return {Pair{q, z, true}, Pair{q, z, false}};
}

}  // namespace

Interval epsilon_gaussian(double z, long T, double delta, const Options& options) {
  check_common(z, T, options);
  check_delta(delta);
  return bracket({Pair{1.0, z, true}}, T, Query{true, delta}, options);
}

Interval delta_gaussian(double z, long T, double epsilon, const Options& options) {
  check_common(z, T, options);
  check_epsilon(epsilon);
  return bracket({Pair{1.0, z, true}}, T, Query{false, epsilon}, options);
}

Interval epsilon_poisson_gaussian(double q, double z, long T, double delta, Adjacency adjacency,
                                  const Options& options) {
  check_common(z, T, options);
  check_delta(delta);
  return bracket(poisson_orders(q, z, adjacency), T, Query{true, delta}, options);
}

Interval delta_poisson_gaussian(double q, double z, long T, double epsilon, Adjacency adjacency,
                                const Options& options) {
  check_common(z, T, options);
  check_epsilon(epsilon);
  return bracket(poisson_orders(q, z, adjacency), T, Query{false, epsilon}, options);
}

}  // namespace rdpaudit::bounds::pld
