#include "rdpaudit/audit/gdp_mu.hpp"

#include <algorithm>
#include <cmath>

#include "rdpaudit/bounds/gdp.hpp"

namespace rdpaudit::audit {

namespace {

double mu_of_sets(const std::vector<estimate::CertifiedSet>& sets) {
  double best = 0.0;
  for (const estimate::CertifiedSet& s : sets) {
    best = std::max(
        best, bounds::gdp::mu_of_set(std::clamp(s.p_lo, 0.0, 1.0), std::clamp(s.q_hi, 0.0, 1.0)));
  }
  return best;
}

}  // namespace

double certified_mu_lower(const estimate::ProfileCounts& c, double family_miss) {
  return mu_of_sets(estimate::profile_certified_sets(c, family_miss));
}

double plugin_mu(const estimate::ProfileCounts& c) {
  return mu_of_sets(estimate::profile_plugin_sets(c));
}

double exact_mu_on_grid(const estimate::ExactProfile& forward,
                        const estimate::ExactProfile& backward,
                        const std::vector<double>& epsilons) {
  double best = 0.0;
  for (double eps : epsilons) {
    for (const estimate::ExactProfile* e : {&forward, &backward})
      best = std::max(best, bounds::gdp::mu_from_delta(eps, e->delta(eps)));
  }
  return best;
}

}  // namespace rdpaudit::audit
