// The catalogue of built-in privacy-profile bounds: one entry per bound with its preconditions
// and its two evaluations. The formulas live in allocation.cpp, last_iterate_heuristic.cpp and
// pld.cpp; this file decides when each one applies.
#include "rdpaudit/bounds/profile_bounds.hpp"

#include <fmt/format.h>

#include <cmath>

#include "rdpaudit/bounds/allocation.hpp"
#include "rdpaudit/bounds/last_iterate_heuristic.hpp"
#include "rdpaudit/bounds/pld.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::bounds {
namespace {

/// The reasons a bound does not cover a scenario, joined with "; " (empty: it applies).
struct Reasons {
  std::string text;
  void require(bool ok, const std::string& why) {
    if (!ok) text += (text.empty() ? "" : "; ") + why;
  }
};

/// Why Theorem 4.1 (first part) does not cover the scenario, empty when it does. The theorem
/// is stated for a t-step algorithm whose steps are each dominated by one randomizer R (their
/// Section 2.1 and Theorem 3.1: y_i = M(s_i, v_{i-1}), adaptive steps such as DP-SGD's
/// included), every element allocated to k = 1 uniformly random step out of t, and
/// add/remove neighbours (an element against the null element, their Section 2.2).
std::string fs41_reasons(const Params& p) {
  Reasons r;
  r.require(p.scheme == BatchScheme::kRandomAllocation,
            fmt::format("scheme {} is not covered: Theorem 4.1 is for random allocation (each "
                        "record in one uniformly random step of t)",
                        config::to_string(p.scheme)));
  r.require(p.adjacency == Adjacency::kAddRemove,
            fmt::format("the pair is {}: Theorem 4.1 is stated for add/remove neighbours (a "
                        "record against the null element)",
                        config::to_string(p.adjacency)));
  if (p.scheme == BatchScheme::kRandomAllocation && p.b >= 1) {
    const long t = p.n / p.b;
    // A partial allocation (T < t) is post-processing of a whole one; more steps compose
    // allocations, whose profile the theorem does not bound (Lemma 3.2 reduces k-out-of-t to
    // such a composition, which leaves the same gap).
    r.require(p.T <= t, fmt::format("T = {} steps span more than one allocation of t = n/b = {} "
                                    "steps: Theorem 4.1 bounds one (k = 1 out of t), not the "
                                    "composition of {} epochs",
                                    p.T, t, (p.T + t - 1) / t));
  }
  return r.text;
}

/// t, and z = s / (eta S_g / b): each step is the Gaussian mechanism of add/remove sensitivity
/// eta S_g / b with the normaliser b fixed (the simulator's), dominated by the randomizer
/// R(*) = N(1, z^2), R(null) = N(0, z^2) (their Claim D.3).
long allocation_steps(const Params& p) {
  return p.n / p.b;
}

/// Why the last-iterate heuristic is not stated for the scenario: it is DP-SGD's, Poisson
/// sampling at rate q with noise multiplier z (here s / (eta S_g / b), as the MTZ baseline),
/// add/remove neighbours (a record against none), T steps.
std::string heuristic_reasons(const Params& p) {
  Reasons r;
  r.require(p.scheme == BatchScheme::kPoisson,
            fmt::format("scheme {} is not covered: the heuristic is for Poisson sampling",
                        config::to_string(p.scheme)));
  r.require(p.adjacency == Adjacency::kAddRemove,
            fmt::format("the pair is {}: the heuristic is stated for add/remove neighbours",
                        config::to_string(p.adjacency)));
  r.require(std::isfinite(step_noise_ratio(p)), "no noise multiplier (S_g = 0)");
  return r.text;
}

/// Why the PLD composition of the Poisson-subsampled Gaussian does not cover the scenario:
/// it composes T steps of the sampled Gaussian mechanism (add/remove, as the MTZ baseline).
std::string pld_reasons(const Params& p) {
  Reasons r;
  r.require(p.scheme == BatchScheme::kPoisson,
            fmt::format("scheme {} is not covered: the sampled Gaussian mechanism samples each "
                        "record independently (Poisson)",
                        config::to_string(p.scheme)));
  r.require(std::isfinite(step_noise_ratio(p)), "no noise multiplier (S_g = 0)");
  return r.text;
}

/// One profile bound: what it is, when it applies, its eps(delta) and delta(eps).
struct Entry {
  BoundInfo info;
  std::string (*reasons)(const Params&);
  double (*epsilon)(const Params&, double delta);
  double (*delta)(const Params&, double eps);
};

const std::vector<Entry>& entries() {
  static const std::vector<Entry> table{
      {{"fs25_thm4.1_random_allocation",
        "Feldman & Shenfeld 2025 (arXiv 2502.08202), Theorem 4.1 (first part), Gaussian "
        "randomizer with noise multiplier s/(eta S_g/b) (Claim D.3, delta0 by Lemma A.2); the "
        "Poisson term by t MTZ steps at rate eta and Canonne-Kamath-Steinke Prop. 12 (Lemma "
        "A.1); eps0 and delta the smallest over a fixed grid",
        Kind::kTheorem, "random_allocation; add_remove; T <= t = n/b (one allocation)",
        Adjacency::kAddRemove},
       fs41_reasons,
       [](const Params& p, double delta) {
         return allocation::gaussian_epsilon(step_noise_ratio(p), allocation_steps(p), delta,
                                             profile_orders())
             .value;
       },
       [](const Params& p, double eps) {
         return allocation::gaussian_delta_min(step_noise_ratio(p), allocation_steps(p), eps,
                                               profile_orders())
             .value;
       }},
      {{"steinke25_last_iterate_heuristic",
        "Steinke, Nasr, Ganesh, Balle, Choquette-Choo, Jagielski, Hayes, Thakurta, Smith & "
        "Terzis, ICLR 2025 (arXiv 2410.06186): the last-iterate heuristic, the profile of "
        "Binomial(T, q) + N(0, z^2 T) against N(0, z^2 T), both orders, z = s/(eta S_g/b)",
        Kind::kHeuristic, "poisson; add_remove", Adjacency::kAddRemove},
       heuristic_reasons,
       [](const Params& p, double delta) {
         return heuristic::epsilon(p.T, sampling_rate(p), step_noise_ratio(p), delta);
       },
       [](const Params& p, double eps) {
         return heuristic::delta(p.T, sampling_rate(p), step_noise_ratio(p), eps);
       }},
      {{"pld_poisson_composition",
        "PLD accountant (docs/pld.md: Meiser & Mohammadi 2018, Koskela et al. 2020, connect "
        "the dots of Doroshenko et al. 2022): T steps of the Poisson-subsampled Gaussian "
        "mechanism, add/remove, noise multiplier s/(eta S_g/b), the certified upper end of its "
        "bracket",
        Kind::kBaseline, "poisson", Adjacency::kAddRemove},
       pld_reasons,
       [](const Params& p, double delta) {
         return pld::epsilon_poisson_gaussian(sampling_rate(p), step_noise_ratio(p), p.T, delta,
                                              pld::Adjacency::kAddRemove)
             .upper;
       },
       [](const Params& p, double eps) {
         return pld::delta_poisson_gaussian(sampling_rate(p), step_noise_ratio(p), p.T, eps,
                                            pld::Adjacency::kAddRemove)
             .upper;
       }},
  };
  return table;
}

}  // namespace

const std::vector<BoundInfo>& profile_catalogue() {
  static const std::vector<BoundInfo> table = [] {
    std::vector<BoundInfo> t;
    for (const Entry& e : entries()) t.push_back(e.info);
    return t;
  }();
  return table;
}

const std::vector<double>& profile_orders() {
  static const std::vector<double> orders = [] {
    std::vector<double> a;
    for (int i = 11; i <= 109; ++i) a.push_back(i / 10.0);
    for (int i = 11; i <= 64; ++i) a.push_back(i);
    // 64 * 2^(k/4) rounded, k = 1 ... 32: 76, 91, 108, 128, ... 16384.
    for (int k = 1; k <= 32; ++k) a.push_back(std::round(64.0 * std::exp2(k / 4.0)));
    return a;
  }();
  return orders;
}

namespace {

// `value(entry, p, at)`: the entry's bound at one point, where its reasons are empty.
template <typename F>
std::vector<ProfileValue> evaluate(const Params& p, const std::vector<double>& points, F&& value) {
  validate(p);
  std::vector<ProfileValue> out;
  for (const Entry& e : entries()) {
    const BoundInfo& info = e.info;
    const std::string reasons = e.reasons(p);
    for (double at : points) {
      ProfileValue v{info.name, info.source, info.kind, info.adjacency, at, std::nullopt, ""};
      if (reasons.empty()) {
        v.value = value(e, p, at);
      } else {
        v.not_applicable = reasons;
      }
      out.push_back(std::move(v));
    }
  }
  return out;
}

}  // namespace

std::vector<ProfileValue> epsilon_bounds(const Params& p, const std::vector<double>& deltas) {
  for (double d : deltas) {
    if (!(d > 0.0 && d < 1.0))
      throw InputError("bounds.delta", fmt::format("{}", d), "must be in (0, 1)");
  }
  return evaluate(
      p, deltas, [](const Entry& e, const Params& q, double delta) { return e.epsilon(q, delta); });
}

std::vector<ProfileValue> delta_bounds(const Params& p, const std::vector<double>& epsilons) {
  for (double e : epsilons) {
    if (!(e >= 0.0) || !std::isfinite(e))
      throw InputError("bounds.epsilon", fmt::format("{}", e), "must be >= 0 and finite");
  }
  return evaluate(p, epsilons,
                  [](const Entry& e, const Params& q, double eps) { return e.delta(q, eps); });
}

}  // namespace rdpaudit::bounds
