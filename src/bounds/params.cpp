#include "rdpaudit/bounds/params.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <utility>

#include "rdpaudit/config/noise.hpp"
#include "rdpaudit/config/traits.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::bounds {
namespace {

constexpr std::array<std::pair<Init, std::string_view>, 3> kInits{{
    {Init::kFixedPoint, "fixed"},
    {Init::kGaussian, "gaussian"},
    {Init::kGaussianChourasia, "gaussian_chourasia"},
}};

template <typename E, std::size_t N>
std::string_view name_of(const std::array<std::pair<E, std::string_view>, N>& table, E e) {
  for (const auto& [value, name] : table) {
    if (value == e) return name;
  }
  return "?";
}

template <typename E, std::size_t N>
E parse_of(const std::array<std::pair<E, std::string_view>, N>& table, std::string_view name,
           const char* key) {
  std::string known;
  for (const auto& [value, text] : table) {
    if (text == name) return value;
    known += (known.empty() ? "" : ", ") + std::string(text);
  }
  throw InputError(key, std::string(name), "must be one of: " + known);
}

std::string num(double x) {
  return fmt::format("{:.17g}", x);
}

void require_positive(const char* key, double x) {
  if (!(x > 0.0) || !std::isfinite(x)) {
    throw InputError(key, num(x), "must be > 0 and finite");
  }
}
void require_nonnegative(const char* key, double x, bool allow_inf) {
  if (!(x >= 0.0) || (!allow_inf && std::isinf(x))) {
    throw InputError(key, num(x), allow_inf ? "must be >= 0" : "must be >= 0 and finite");
  }
}

}  // namespace

std::string_view init_name(Init i) {
  return name_of(kInits, i);
}
std::string_view kind_name(Kind k) {
  switch (k) {
    case Kind::kTheorem:
      return "theorem";
    case Kind::kBaseline:
      return "baseline";
    case Kind::kApproximation:
      return "approximation";
    case Kind::kDerivation:
      return "derivation";
    case Kind::kCustom:
      return "custom";
    case Kind::kHeuristic:
      return "heuristic";
  }
  return "?";
}
Init parse_init(std::string_view name) {
  return parse_of(kInits, name, "bounds.init");
}

void validate(const Params& p) {
  require_positive("bounds.eta", p.eta);
  require_positive("bounds.step_std", p.step_std);
  require_nonnegative("bounds.lambda", p.lambda, false);
  require_nonnegative("bounds.beta", p.beta, false);
  require_nonnegative("bounds.S_g", p.S_g, false);
  require_nonnegative("bounds.L", p.L, true);
  if (!(p.D > 0.0)) throw InputError("bounds.D", num(p.D), "must be > 0 (+inf: unconstrained)");
  require_nonnegative("bounds.eps_norm", p.eps_norm, false);
  if (!std::isnan(p.feature_clip)) require_nonnegative("bounds.feature_clip", p.feature_clip, true);
  if (p.n < 1) throw InputError("bounds.n", std::to_string(p.n), "must be >= 1");
  const bool expected = config::scheme_info(p.scheme).sizing == config::BatchSizing::kExpected;
  const bool poisson_rate = expected && !std::isnan(p.q);
  if (!std::isnan(p.q) && !expected) {
    throw InputError("bounds.q", num(p.q),
                     fmt::format("is for scheme poisson only (scheme {}: q = b/n)",
                                 config::to_string(p.scheme)));
  }
  if (poisson_rate) {
    if (!(p.q > 0.0 && p.q <= 1.0)) throw InputError("bounds.q", num(p.q), "must be in (0, 1]");
    const double qn = p.q * static_cast<double>(p.n);
    if (p.b != 0 && !whole_batch(p.b, qn)) {
      throw InputError(
          "bounds.b", std::to_string(p.b),
          fmt::format("must be q*n = {} (or 0 when q*n is not a whole number)", num(qn)));
    }
  } else if (p.b < 1 || p.b > p.n) {
    throw InputError("bounds.b", std::to_string(p.b), fmt::format("must be in 1..n = {}", p.n));
  }
  if (p.K < 1) throw InputError("bounds.K", std::to_string(p.K), "must be >= 1");
  if (p.T < 1) throw InputError("bounds.T", std::to_string(p.T), "must be >= 1");
  const long batches = batches_per_epoch(p);
  if (p.scheme == BatchScheme::kFullBatch && p.b != p.n) {
    throw InputError("bounds.b", std::to_string(p.b),
                     fmt::format("must equal n = {} for scheme full_batch", p.n));
  }
  const bool epochs = config::scheme_info(p.scheme).partitions_epochs;
  if (epochs && p.T != p.K * batches) {
    throw InputError("bounds.T", std::to_string(p.T),
                     fmt::format("must equal K * floor(n/b) = {} * {} = {} for scheme {}", p.K,
                                 batches, p.K * batches, config::to_string(p.scheme)));
  }
  if (p.scheme == BatchScheme::kFixedOrder && (p.j0 < 0 || p.j0 >= batches)) {
    throw InputError("bounds.j0", std::to_string(p.j0),
                     fmt::format("must be in 0..floor(n/b)-1 = {}", batches - 1));
  }
}

void validate_alpha(double alpha) {
  if (!(alpha > 1.0) || !std::isfinite(alpha)) {
    throw InputError("bounds.alpha", num(alpha), "must be > 1 and finite");
  }
}

long batches_per_epoch(const Params& p) {
  return p.b > 0 ? p.n / p.b : 0;
}
double sampling_rate(const Params& p) {
  if (config::scheme_info(p.scheme).sizing == config::BatchSizing::kExpected && !std::isnan(p.q))
    return p.q;
  return static_cast<double>(p.b) / static_cast<double>(p.n);
}
double batch_normaliser(const Params& p) {
  // The simulator divides a Poisson batch's sum by q*n (sim/batches.hpp), whole or not.
  if (config::scheme_info(p.scheme).sizing == config::BatchSizing::kExpected && !std::isnan(p.q))
    return p.q * static_cast<double>(p.n);
  return static_cast<double>(p.b);
}
double step_sensitivity(const Params& p) {
  return p.eta * p.S_g / batch_normaliser(p);
}
double step_noise_ratio(const Params& p) {
  const double sens = step_sensitivity(p);
  return sens > 0.0 ? p.step_std / sens : kInf;
}
double alg1_sigma2(const Params& p) {
  return config::sigma2_from_step_std(p.step_std, p.eta);
}
double alg2_sigma_mul(const Params& p) {
  return config::paper_noise_multiplier_from_step_std(p.step_std, p.eta, p.S_g,
                                                      batch_normaliser(p));
}
double blog_sigma(const Params& p) {
  return config::blog_sigma_from_step_std(p.step_std, p.eta);
}

bool whole_batch(long b, double qn) {
  return b >= 1 && std::fabs(static_cast<double>(b) - qn) <= 1e-9 * qn;
}

long whole_batch_size(double qn) {
  const long b = std::lround(qn);
  return whole_batch(b, qn) ? b : 0;
}

}  // namespace rdpaudit::bounds
