#include "rdpaudit/bounds/params.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <utility>

#include "rdpaudit/core/error.hpp"

namespace rdpaudit::bounds {
namespace {

constexpr std::array<std::pair<Scheme, std::string_view>, 6> kSchemes{{
    {Scheme::kFixedOrder, "fixed_order"},
    {Scheme::kShufflePartition, "shuffle_partition"},
    {Scheme::kShuffleEachEpoch, "shuffle_each_epoch"},
    {Scheme::kSampleWithoutReplacement, "sample_wor"},
    {Scheme::kPoisson, "poisson"},
    {Scheme::kFullBatch, "full_batch"},
}};
constexpr std::array<std::pair<LossFamily, std::string_view>, 3> kLosses{{
    {LossFamily::kQuadratic, "quadratic"},
    {LossFamily::kLogistic, "logistic"},
    {LossFamily::kLinear, "linear"},
}};
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

std::string_view scheme_name(Scheme s) {
  return name_of(kSchemes, s);
}
std::string_view loss_family_name(LossFamily f) {
  return name_of(kLosses, f);
}
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
  }
  return "?";
}
Scheme parse_scheme(std::string_view name) {
  return parse_of(kSchemes, name, "bounds.scheme");
}
LossFamily parse_loss_family(std::string_view name) {
  return parse_of(kLosses, name, "bounds.loss");
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
  if (p.b < 1 || p.b > p.n) {
    throw InputError("bounds.b", std::to_string(p.b), fmt::format("must be in 1..n = {}", p.n));
  }
  if (p.K < 1) throw InputError("bounds.K", std::to_string(p.K), "must be >= 1");
  if (p.T < 1) throw InputError("bounds.T", std::to_string(p.T), "must be >= 1");
  const long batches = batches_per_epoch(p);
  if (p.scheme == Scheme::kFullBatch && p.b != p.n) {
    throw InputError("bounds.b", std::to_string(p.b),
                     fmt::format("must equal n = {} for scheme full_batch", p.n));
  }
  const bool epochs = p.scheme == Scheme::kFixedOrder || p.scheme == Scheme::kShufflePartition ||
                      p.scheme == Scheme::kShuffleEachEpoch || p.scheme == Scheme::kFullBatch;
  if (epochs && p.T != p.K * batches) {
    throw InputError("bounds.T", std::to_string(p.T),
                     fmt::format("must equal K * floor(n/b) = {} * {} = {} for scheme {}", p.K,
                                 batches, p.K * batches, scheme_name(p.scheme)));
  }
  if (p.scheme == Scheme::kFixedOrder && (p.j0 < 0 || p.j0 >= batches)) {
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
  return p.n / p.b;
}
double sampling_rate(const Params& p) {
  return static_cast<double>(p.b) / static_cast<double>(p.n);
}
double step_sensitivity(const Params& p) {
  return p.eta * p.S_g / static_cast<double>(p.b);
}
double alg1_sigma2(const Params& p) {
  return p.step_std * p.step_std / (2.0 * p.eta);
}
double alg2_sigma_mul(const Params& p) {
  return p.S_g > 0.0 ? 2.0 * static_cast<double>(p.b) * p.step_std / (p.eta * p.S_g) : kInf;
}
double blog_sigma(const Params& p) {
  return p.step_std / p.eta;
}

double step_std_from_alg1_sigma2(double sigma2, double eta) {
  return std::sqrt(2.0 * eta * sigma2);
}
double step_std_from_alg2_sigma_mul(double sigma_mul, double eta, double S_g, long b) {
  return eta * sigma_mul * S_g / (2.0 * static_cast<double>(b));
}
double step_std_from_blog_sigma(double sigma_blog, double eta) {
  return eta * sigma_blog;
}

}  // namespace rdpaudit::bounds
