#include "rdpaudit/audit/gdp_mu.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "rdpaudit/bounds/gdp.hpp"
#include "rdpaudit/estimate/numeric.hpp"

namespace rdpaudit::audit {

namespace {

constexpr double kNaNMu = std::numeric_limits<double>::quiet_NaN();

double mu_of_sets(const std::vector<estimate::CertifiedSet>& sets) {
  double best = 0.0;
  for (const estimate::CertifiedSet& s : sets) {
    best = std::max(
        best, bounds::gdp::mu_of_set(std::clamp(s.p_lo, 0.0, 1.0), std::clamp(s.q_hi, 0.0, 1.0)));
  }
  return best;
}

// |m - m'| / sd when both laws are one Gaussian of one variance (T(N(m, s^2), N(m', s^2)) =
// G_{|m - m'|/s}, Dong, Roth & Su 2022); NaN otherwise.
double gaussian_pair_mu(const exact::GaussianMixture& p, const exact::GaussianMixture& q) {
  const auto single = [](const exact::GaussianMixture& m, double& mean, double& var) {
    int found = 0;
    for (std::size_t j = 0; j < m.components(); ++j) {
      if (m.weights[j] <= 0.0) continue;
      ++found;
      mean = m.means[j];
      var = m.covariance[0] * (m.scales.empty() ? 1.0 : m.scales[j]);
    }
    return found == 1;
  };
  double m = 0.0, v = 0.0, m2 = 0.0, v2 = 0.0;
  if (p.dim != 1 || !single(p, m, v) || !single(q, m2, v2) || v != v2) return kNaNMu;
  return std::fabs(m - m2) / std::sqrt(v);
}

}  // namespace

std::vector<double> gdp_epsilon_grid(const std::vector<double>& profile_epsilons) {
  std::set<double> grid(profile_epsilons.begin(), profile_epsilons.end());
  for (int k = 0; k <= 256; ++k) grid.insert(0.25 * k);
  return {grid.begin(), grid.end()};
}

std::vector<GdpEstimate> gdp_estimates(const config::Scenario& s,
                                       const estimate::ScenarioEstimates& est) {
  std::vector<GdpEstimate> out;
  if (!s.profile.enabled) return out;
  const double miss = 1.0 - s.estimate.confidence;
  for (const estimate::ProfileCounts& c : est.profiles) {
    // One number for both directions: a set F excludes the same mu as its complement does in
    // the other order (bounds/gdp.hpp).
    const double value = plugin_mu(c), lower = certified_mu_lower(c, miss);
    for (int d : {estimate::kForward, estimate::kBackward}) {
      GdpEstimate e;
      e.method = c.method;
      e.direction = d;
      e.interval = "certified lower bound (the family's Clopper-Pearson sets, with its profile)";
      e.value = value;
      e.lower = lower;
      out.push_back(e);
    }
  }
  if (est.exact_law.size() != 2) return out;
  const exact::GaussianMixture& p = est.exact_law[0];
  const exact::GaussianMixture& q = est.exact_law[1];
  const double closed = gaussian_pair_mu(p, q);
  const std::vector<double> grid = gdp_epsilon_grid(s.profile.epsilons);
  for (int d : {estimate::kForward, estimate::kBackward}) {
    GdpEstimate e;
    e.method = "exact-profile";
    e.direction = d;
    if (!std::isnan(closed)) {
      e.interval = "closed form (a Gaussian pair: |m - m'| / sd)";
      e.value = e.lower = e.upper = closed;
    } else {
      const exact::ExactProfile profile(d == estimate::kForward ? p : q,
                                        d == estimate::kForward ? q : p);
      e.interval = "supremum over the eps grid (a lower bound; upper end unknown)";
      e.value = 0.0;
      for (double eps : grid) {
        const double delta = profile.delta(eps);
        if (delta < kMuDeltaFloor) break;  // delta(eps) only decreases further
        e.epsilon_max = eps;
        const double mu = bounds::gdp::mu_from_delta(eps, delta);
        if (mu > e.value) e.value = mu, e.epsilon_at = eps;
      }
      e.lower = e.value * (1.0 - kExactMuTolerance);
    }
    out.push_back(e);
  }
  return out;
}

double mu_p_value(const estimate::ProfileCounts& c, double mu) {
  if (c.cuts.empty()) return 1.0;
  return estimate::bisect_p_value([&](double miss) { return certified_mu_lower(c, miss) > mu; });
}

double certified_mu_lower(const estimate::ProfileCounts& c, double family_miss) {
  return mu_of_sets(estimate::profile_certified_sets(c, family_miss));
}

double plugin_mu(const estimate::ProfileCounts& c) {
  // Sets with no counted trajectory of P' (or every one of P) would give +infinity: skipped,
  // as profile_epsilon_plugin skips them.
  std::vector<estimate::CertifiedSet> sets;
  for (const estimate::CertifiedSet& s : estimate::profile_plugin_sets(c)) {
    if (s.q_hi > 0.0 && s.p_lo < 1.0) sets.push_back(s);
  }
  return mu_of_sets(sets);
}

double exact_mu_on_grid(const exact::ExactProfile& forward, const exact::ExactProfile& backward,
                        const std::vector<double>& epsilons) {
  double best = 0.0;
  for (double eps : epsilons) {
    for (const exact::ExactProfile* e : {&forward, &backward})
      best = std::max(best, bounds::gdp::mu_from_delta(eps, e->delta(eps)));
  }
  return best;
}

}  // namespace rdpaudit::audit
