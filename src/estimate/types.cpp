#include "rdpaudit/estimate/types.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "rdpaudit/config/orders.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/estimate/numeric.hpp"

namespace rdpaudit::estimate {

Estimate uninformative(double alpha, int direction, std::string method, std::string reason) {
  Estimate e;
  e.alpha = alpha;
  e.direction = direction;
  e.method = std::move(method);
  e.value = 0.0;
  e.lower = 0.0;
  e.upper = std::numeric_limits<double>::infinity();
  e.interval = "none (uninformative)";
  e.informative = false;
  e.reason = std::move(reason);
  return e;
}

std::vector<double> default_alpha_grid(const std::vector<double>& extra) {
  if (!extra.empty()) check_alphas(extra, "extra_alphas");
  return config::estimation_orders(extra);
}

void check_alphas(const std::vector<double>& alphas, const std::string& key) {
  if (alphas.empty()) throw InternalError(key, "[]", "need at least one order alpha > 1");
  for (std::size_t i = 0; i < alphas.size(); ++i) {
    if (!(std::isfinite(alphas[i]) && alphas[i] > 1.0)) {
      throw InternalError(key + "[" + std::to_string(i) + "]", std::to_string(alphas[i]),
                          "must be a finite order > 1");
    }
  }
}

std::uint64_t CellCounts::total_p() const {
  return std::accumulate(p.begin(), p.end(), std::uint64_t{0});
}
std::uint64_t CellCounts::total_q() const {
  return std::accumulate(q.begin(), q.end(), std::uint64_t{0});
}

void CellCounts::check(const std::string& key) const {
  if (p.empty() || p.size() != q.size()) {
    throw InternalError(key,
                        std::to_string(p.size()) + " and " + std::to_string(q.size()) + " cells",
                        "P and P' need the same, non-zero number of cells");
  }
}

double discrete_renyi(const std::vector<double>& p, const std::vector<double>& q, double alpha) {
  std::vector<double> terms;
  terms.reserve(p.size());
  double sum_p = 0.0, sum_q = 0.0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    sum_p += p[i];
    sum_q += q[i];
    if (p[i] <= 0.0) continue;
    if (q[i] <= 0.0) return std::numeric_limits<double>::infinity();
    terms.push_back(alpha * std::log(p[i]) + (1.0 - alpha) * std::log(q[i]));
  }
  const double log_sum = log_sum_exp(terms);
  const double r =
      (log_sum - alpha * std::log(sum_p) - (1.0 - alpha) * std::log(sum_q)) / (alpha - 1.0);
  return std::max(r, 0.0);  // >= 0 mathematically; clears rounding below zero
}

}  // namespace rdpaudit::estimate
