#include "rdpaudit/bounds/mechanisms.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "rdpaudit/bounds/logspace.hpp"

namespace rdpaudit::bounds {
namespace {

using logspace::kNegInf;
using LD = long double;

/// log(0.5 erfc(x)) in long double, with the asymptotic series where erfcl underflows.
LD log_half_erfc(LD x) {
  if (x < 100.0L) return std::log(0.5L * std::erfc(x));
  const LD x2 = x * x;
  const LD series = 1.0L - 1.0L / (2.0L * x2) + 3.0L / (4.0L * x2 * x2) -
                    15.0L / (8.0L * x2 * x2 * x2) + 105.0L / (16.0L * x2 * x2 * x2 * x2);
  // erfc(x) = e^{-x^2} / (x sqrt(pi)) * series
  return -x2 - std::log(x) - 0.5L * std::log(3.14159265358979323846264338327950288L) +
         std::log(series) + std::log(0.5L);
}

/// log A_alpha for integer alpha >= 2, 0 < q < 1 (MTZ Section 3.2), via log(A - 1).
double mtz_log_a_int(double q, double z, long a) {
  const double log_q = std::log(q);
  const double log_1mq = std::log1p(-q);
  std::vector<double> terms;
  terms.reserve(static_cast<std::size_t>(a));
  double log_c = 0.0;  // log C(a, k), by the recurrence C(a,k+1) = C(a,k) (a-k)/(k+1)
  for (long k = 0; k <= a; ++k) {
    if (k >= 2) {
      const double kd = static_cast<double>(k);
      const double y = (kd * kd - kd) / (2.0 * z * z);  // e^{(k^2-k)/(2 z^2)} - 1 = expm1(y)
      if (y > 0.0) {
        terms.push_back(log_c + static_cast<double>(a - k) * log_1mq + kd * log_q +
                        logspace::log_expm1(y));
      }
    }
    log_c += std::log(static_cast<double>(a - k)) - std::log(static_cast<double>(k + 1));
  }
  const double log_a_minus_1 = logspace::log_sum_exp(terms);
  return logspace::log_add_exp(0.0, log_a_minus_1);
}

/// The terms of MTZ Section 3.3's series for A_alpha at fractional alpha, 0 < q < 1: term i is
///   C(alpha,i) (1-q)^{alpha-i} q^i e^{(i^2-i)/(2z^2)} Phi((z0 - i)/z)            [x <= z0]
/// + C(alpha,i) q^{alpha-i} (1-q)^i e^{(j^2-j)/(2z^2)} Phi((j - z0)/z),  j = alpha - i  [x > z0],
/// z0 = z^2 log(1/q - 1) + 1/2.  Both parts carry the sign of C(alpha, i).
class MtzSeries {
 public:
  struct Term {
    LD s0, s1;  // log-magnitudes of the two parts
    int sign;
    LD log_abs() const { return logspace::log_add_exp(s0, s1); }
  };

  MtzSeries(double q, double z, double alpha)
      : alpha_(alpha),
        log_q_(std::log(static_cast<LD>(q))),
        log_1mq_(std::log1p(-static_cast<LD>(q))),
        two_z2_(2.0L * static_cast<LD>(z) * static_cast<LD>(z)),
        z0_(static_cast<LD>(z) * static_cast<LD>(z) * (log_1mq_ - log_q_) + 0.5L),
        sqrt2_z_(std::sqrt(2.0L) * static_cast<LD>(z)) {}

  long index() const { return i_; }

  Term next() {
    const LD id = static_cast<LD>(i_);
    const LD j = alpha_ - id;
    const Term t{log_c_ + id * log_q_ + j * log_1mq_ + (id * id - id) / two_z2_ +
                     log_half_erfc((id - z0_) / sqrt2_z_),
                 log_c_ + j * log_q_ + id * log_1mq_ + (j * j - j) / two_z2_ +
                     log_half_erfc((z0_ - j) / sqrt2_z_),
                 sign_c_};
    const LD f = alpha_ - id;  // C(alpha, i+1) = C(alpha, i) (alpha - i) / (i + 1)
    if (f < 0.0L) sign_c_ = -sign_c_;
    log_c_ += std::log(std::fabs(f)) - std::log(id + 1.0L);
    ++i_;
    return t;
  }

 private:
  LD alpha_, log_q_, log_1mq_, two_z2_, z0_, sqrt2_z_;
  LD log_c_ = 0.0L;  // log |C(alpha, i)|
  int sign_c_ = 1;
  long i_ = 0;
};

/// Cohen, Rodriguez Villegas, Zagier 2000, "Convergence acceleration of alternating series",
/// Algorithm 1: sum_{k >= 0} (-1)^k a_k from a_0 .. a_{n-1}; relative error about 5.8^-n for
/// totally monotone a_k.
LD cvz_alternating_sum(const std::vector<LD>& a, std::size_t n) {
  const LD nd = static_cast<LD>(n);
  LD d = std::pow(3.0L + std::sqrt(8.0L), nd);
  d = (d + 1.0L / d) / 2.0L;
  LD b = -1.0L, c = -d, s = 0.0L;
  for (std::size_t k = 0; k < n; ++k) {
    const LD kd = static_cast<LD>(k);
    c = b - c;
    s += c * a[k];
    b = (kd + nd) * (kd - nd) * b / ((kd + 0.5L) * (kd + 1.0L));
  }
  return s / d;
}

/// log A_alpha for fractional alpha, 0 < q < 1 (MTZ Section 3.3).  Beyond i > alpha the terms
/// alternate in sign with smoothly decreasing magnitudes (eventually like i^-(alpha+2)), which
/// converges slowly when z0 is within a few z of 0 (q near 1/2, or small z).  So once the
/// terms are decreasing and below e^-5 of the total, the tail is summed with the CVZ
/// acceleration, accepted only when 30 and 40 terms agree to 1e-20 of the total; otherwise
/// those terms are added one by one and the attempt repeated further out.
double mtz_log_a_frac(double q, double z, double alpha) {
  MtzSeries series(q, z, alpha);
  logspace::SignedLog<LD> sum;
  LD last0 = std::numeric_limits<LD>::infinity();
  LD last1 = last0;
  constexpr std::size_t kLook = 40;
  const long max_terms = 10000000;
  while (series.index() < max_terms) {
    const long i = series.index();
    const MtzSeries::Term t = series.next();
    sum.add(t.log_abs(), t.sign);
    const bool tail =
        static_cast<LD>(i) > static_cast<LD>(alpha) + 2.0L && t.s0 < last0 && t.s1 < last1;
    last0 = t.s0;
    last1 = t.s1;
    if (!tail) continue;
    if (std::max(t.s0, t.s1) < sum.log_abs - 44.0L) break;  // below long double precision
    if (std::max(t.s0, t.s1) > sum.log_abs - 5.0L) continue;
    std::vector<MtzSeries::Term> ahead;
    for (std::size_t k = 0; k < kLook; ++k) ahead.push_back(series.next());
    bool alternating = true;
    std::vector<LD> a;
    for (std::size_t k = 0; k < kLook; ++k) {
      alternating = alternating && ahead[k].sign == (k % 2 == 0 ? 1 : -1) * ahead[0].sign;
      a.push_back(std::exp(ahead[k].log_abs() - ahead[0].log_abs()));
    }
    if (alternating) {
      const LD t30 = cvz_alternating_sum(a, 30);
      const LD t40 = cvz_alternating_sum(a, 40);
      const LD scale = std::exp(sum.log_abs - ahead[0].log_abs());  // total / a_0 magnitude
      if (t40 > 0.0L && std::fabs(t30 - t40) <= 1e-20L * scale) {
        sum.add(ahead[0].log_abs() + std::log(t40), ahead[0].sign);
        return static_cast<double>(sum.log_abs);
      }
    }
    for (const MtzSeries::Term& u : ahead) sum.add(u.log_abs(), u.sign);
    last0 = ahead.back().s0;
    last1 = ahead.back().s1;
  }
  if (series.index() >= max_terms || sum.sign <= 0) {
    throw std::runtime_error(fmt::format(
        "mtz_poisson_rdp: the fractional-order series did not converge (q = {}, z = {}, "
        "alpha = {})",
        q, z, alpha));
  }
  return static_cast<double>(sum.log_abs);
}

/// log(1 + sum_j ...) of WBK 2019 Theorem 9 for the Gaussian mechanism at integer a >= 2.
double wbk_cgf_int(double q, double z, long a) {
  if (a == 1) return 0.0;
  const double log_q = std::log(q);
  const double e2 = 2.0 / (2.0 * z * z);  // eps(2) = 2 / (2 z^2)
  std::vector<double> terms;
  terms.reserve(static_cast<std::size_t>(a));
  double log_c = 0.0;
  for (long j = 0; j <= a; ++j) {
    const double jd = static_cast<double>(j);
    if (j == 2) {
      // q^2 C(a,2) min{4 (e^{eps(2)} - 1), e^{eps(2)} min{2, (e^{eps(inf)} - 1)^2}}
      const double m = std::min(std::log(4.0) + logspace::log_expm1(e2), std::log(2.0) + e2);
      terms.push_back(2.0 * log_q + log_c + m);
    } else if (j >= 3) {
      // q^j C(a,j) e^{(j-1) eps(j)} min{2, (e^{eps(inf)} - 1)^j},  eps(j) = j / (2 z^2)
      terms.push_back(jd * log_q + log_c + std::log(2.0) + (jd - 1.0) * jd / (2.0 * z * z));
    }
    log_c += std::log(static_cast<double>(a - j)) - std::log(jd + 1.0);
  }
  return logspace::log_add_exp(0.0, logspace::log_sum_exp(terms));
}

void check_args(const char* who, double q, double z, double alpha) {
  if (!(q >= 0.0 && q <= 1.0) || !(z >= 0.0) || !(alpha > 1.0) || !std::isfinite(alpha)) {
    throw std::invalid_argument(
        fmt::format("{}: need 0 <= q <= 1, z >= 0, 1 < alpha < inf (q = {}, z = {}, alpha = {})",
                    who, q, z, alpha));
  }
}

}  // namespace

double gaussian_rdp(double z, double alpha) {
  return alpha / (2.0 * z * z);
}

double mtz_poisson_rdp(double q, double z, double alpha) {
  check_args("mtz_poisson_rdp", q, z, alpha);
  if (q == 0.0 || std::isinf(z)) return 0.0;
  if (z == 0.0) return std::numeric_limits<double>::infinity();
  if (q == 1.0) return gaussian_rdp(z, alpha);
  const double log_a = alpha == std::floor(alpha) ? mtz_log_a_int(q, z, static_cast<long>(alpha))
                                                  : mtz_log_a_frac(q, z, alpha);
  return log_a / (alpha - 1.0);
}

namespace {

/// R_alpha of a WBK bound from its CGF (alpha-1) R_alpha at integer orders, cgf_int(q, z, a):
/// fractional alpha by Corollary 10's linear interpolation of the CGF between floor(alpha)
/// and ceil(alpha) (the CGF is 0 at alpha = 1).
template <typename Cgf>
double wbk_rdp(const char* who, double q, double z, double alpha, Cgf cgf_int) {
  check_args(who, q, z, alpha);
  if (q == 0.0 || std::isinf(z)) return 0.0;
  if (z == 0.0) return std::numeric_limits<double>::infinity();
  if (q == 1.0) return gaussian_rdp(z, alpha);
  const long lo = static_cast<long>(std::floor(alpha));
  const long hi = static_cast<long>(std::ceil(alpha));
  if (lo == hi) return cgf_int(q, z, lo) / (alpha - 1.0);
  const double t = alpha - static_cast<double>(lo);
  return ((1.0 - t) * cgf_int(q, z, lo) + t * cgf_int(q, z, hi)) / (alpha - 1.0);
}

}  // namespace

double wbk_swor_rdp(double q, double z, double alpha) {
  return wbk_rdp("wbk_swor_rdp", q, z, alpha, wbk_cgf_int);
}

double wbk_swor_gaussian_rdp(double q, double z, double alpha) {
  std::vector<double> log_delta;  // computed on first use, shared by floor(alpha), ceil(alpha)
  return wbk_rdp("wbk_swor_gaussian_rdp", q, z, alpha, [&](double qq, double zz, long a) {
    if (log_delta.empty()) {
      const long hi = static_cast<long>(std::ceil(alpha));
      log_delta = wbk_log_forward_differences(zz, 2 * ((hi + 1) / 2));
    }
    return wbk_swor_gaussian_cgf(qq, zz, a, log_delta);
  });
}

}  // namespace rdpaudit::bounds
