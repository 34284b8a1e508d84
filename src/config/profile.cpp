#include "rdpaudit/config/profile.hpp"

#include <fmt/core.h>

#include <cmath>

#include "rdpaudit/core/error.hpp"

namespace rdpaudit::config {

namespace {

constexpr std::size_t kMaxGrid = 10'000;

std::string claim_key(std::size_t i, const std::string& leaf) {
  return "profile.claims[" + std::to_string(i) + "]." + leaf;
}

// A strictly increasing list whose every value passes `ok`.
std::vector<double> read_grid(Reader& r, const std::string& key, std::vector<double> fallback,
                              bool (*ok)(double), const char* expected) {
  auto v = r.vector(key);
  if (!v) return fallback;
  if (v->empty() || v->size() > kMaxGrid) {
    throw InputError(r.display(key), fmt::format("{} values", v->size()),
                     "1 to 10^4 values, strictly increasing");
  }
  for (std::size_t i = 0; i < v->size(); ++i) {
    const std::string at = r.display(key) + "[" + std::to_string(i) + "]";
    if (!ok((*v)[i])) throw InputError(at, fmt::format("{}", (*v)[i]), expected);
    if (i > 0 && !((*v)[i] > (*v)[i - 1])) {
      throw InputError(
          at, fmt::format("{}", (*v)[i]),
          fmt::format("strictly increasing: greater than the previous value {}", (*v)[i - 1]));
    }
  }
  return *v;
}

ClaimText read_claim(Reader& r, const toml::table& t, std::size_t i) {
  ClaimText c;
  bool has_epsilon = false;
  for (const auto& [key, value] : t) {
    const std::string k(key.str());
    const std::string at = claim_key(i, k);
    if (k == "name" || k == "formula" || k == "values_file") {
      const auto* str = value.as_string();
      if (!str || str->get().empty())
        throw InputError(at, r.text(at), "must be a non-empty string");
      (k == "name" ? c.name : k == "formula" ? c.formula : c.values_file) = str->get();
    } else if (k == "epsilon") {
      has_epsilon = true;
      // As every number of a file: 0 or a magnitude in [1e-100, 1e100].
      const auto number = [&](const toml::node& n, const std::string& where) {
        const auto v = number_value(n);
        const double a = v ? std::fabs(*v) : 0.0;
        if (!v || !std::isfinite(*v) || (a != 0.0 && (a < kMinMagnitude || a > kMaxMagnitude)))
          throw InputError(where, r.text(where),
                           "must be a finite number (the claimed eps): 0 or of magnitude in "
                           "[1e-100, 1e100]");
        return *v;
      };
      if (const auto* list = value.as_array()) {
        if (list->empty())
          throw InputError(at, "[]", "one claimed eps per profile.deltas, not an empty list");
        for (std::size_t j = 0; j < list->size(); ++j)
          c.epsilons.push_back(number(*list->get(j), at + "[" + std::to_string(j) + "]"));
      } else {
        c.epsilons.push_back(number(value, at));
      }
    } else if (k == "mu") {
      // A Gaussian-DP parameter: > 0 (0-GDP would claim the pair identical) and finite.
      const auto v = number_value(value);
      if (!v || !std::isfinite(*v) || !(*v > 0.0) || *v > kMaxMagnitude)
        throw InputError(at, r.text(at),
                         "must be a finite number > 0 (the claimed Gaussian-DP mu), at most "
                         "1e100");
      c.mu = *v;
    } else if (k == "expect") {
      const auto* str = value.as_string();
      if (!str) throw InputError(at, r.text(at), "must be a string");
      c.expect = parse_expectation(str->get(), at);
    } else {
      throw InputError(at, r.text(at),
                       "unknown key (known: name, epsilon, formula, values_file, mu, expect)");
    }
  }
  if (c.name.empty()) throw InputError(claim_key(i, "name"), "<missing>", "required");
  const bool has_mu = !std::isnan(c.mu);
  if (int{has_epsilon} + int{!c.formula.empty()} + int{!c.values_file.empty()} + int{has_mu} != 1) {
    const std::string key = claim_key(i, has_mu && !has_epsilon ? "mu" : "epsilon");
    throw InputError(key, has_epsilon || has_mu ? r.text(key) : "<missing>",
                     "give exactly one of epsilon (one per profile.deltas), formula, "
                     "values_file and mu (a Gaussian-DP claim)");
  }
  return c;
}

}  // namespace

std::string conversion_name(const std::string& bound) {
  return bound + " (eps, delta)";
}

void read_profile(Scenario& s, Reader& r) {
  ProfileSpec& p = s.profile;
  p.enabled = r.has("profile");
  if (auto on = r.boolean("profile.enabled")) p.enabled = *on;
  std::vector<double> eps_default;
  for (int i = 0; i <= 100; ++i) eps_default.push_back(0.1 * i);
  p.epsilons = read_grid(
      r, "profile.epsilons", eps_default, [](double x) { return x >= 0.0 && std::isfinite(x); },
      "eps >= 0 and finite");
  p.deltas = read_grid(
      r, "profile.deltas", {1e-5}, [](double x) { return x > 0.0 && x < 1.0; }, "delta in (0, 1)");
  p.conversions = r.boolean("profile.conversions").value_or(true);

  if (const toml::array* arr = r.table_array("profile.claims")) {
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const auto* t = arr->get(i)->as_table();
      if (!t)
        throw InputError("profile.claims[" + std::to_string(i) + "]", "...", "must be a table");
      ClaimText c = read_claim(r, *t, i);
      for (const auto& prev : p.claims) {
        if (prev.name == c.name)
          throw InputError(claim_key(i, "name"), "\"" + c.name + "\"", "duplicate claim name");
      }
      for (const auto& b : s.bounds.custom) {
        if (b.name == c.name)
          throw InputError(claim_key(i, "name"), "\"" + c.name + "\"",
                           "is the name of a custom bound");
      }
      if (c.formula.empty() && c.values_file.empty() && std::isnan(c.mu) &&
          c.epsilons.size() != p.deltas.size()) {
        throw InputError(
            claim_key(i, "epsilon"), r.text(claim_key(i, "epsilon")),
            fmt::format("one claimed eps per profile.deltas ({} values)", p.deltas.size()));
      }
      p.claims.push_back(std::move(c));
    }
  }
  // Each name is the conversion of a bound: bounds::check_experiment checks it, and compiles
  // and evaluates the claims' formulas.
  if (auto names = r.strings("profile.expect_violated")) p.expect_violated = *names;
}

}  // namespace rdpaudit::config
