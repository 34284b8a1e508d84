// Each step's cases under each dataset: what the batch law does to the pair, as affine maps
// (quadratic and linear losses, a constant crafted gradient) or as map cases (a gradient
// formula), with their probabilities (docs/exact-laws.md, sections 1 and 3).
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "formula_chain.hpp"
#include "rdpaudit/exact/chain.hpp"

namespace rdpaudit::exact {

namespace {

using config::BatchScheme;
using config::LossKind;

/// The update x -> a x + c of a batch with the differing record in or out and `others`
/// other records, normalised by `norm` (b, or q n under Poisson).
AffineCase batch_case(const ChainSpec& c, bool d_prime, bool in, double others, double norm,
                      double weight) {
  const bool absent = c.crafted && d_prime;             // D' lacks the crafted record
  const bool crafted_in = c.crafted && !d_prime && in;  // D's record: a gradient, no loss
  const double record = d_prime ? c.record_dprime : c.record_d;
  AffineCase k;
  k.weight = weight;
  if (c.loss == LossKind::kQuadratic) {
    const double loss_records = others + ((in && !absent && !c.crafted) ? 1.0 : 0.0);
    double sum = others * c.background + ((in && !absent && !c.crafted) ? record : 0.0);
    k.slope = 1.0 - c.eta * c.lambda * loss_records / norm;
    k.shift = c.eta * c.lambda * sum / norm;
    if (crafted_in) k.shift -= c.eta * record / norm;
  } else {
    const double sum = others * c.background + ((in && !absent) ? record : 0.0);
    k.slope = 1.0;
    k.shift = -c.eta * sum / norm;
  }
  return k;
}

/// Merges cases with the same map (their weights add).
Step merged(std::vector<AffineCase> cases, double s) {
  Step step;
  step.noise_std = s;
  for (const AffineCase& k : cases) {
    if (!(k.weight > 0)) continue;
    auto it = std::find_if(step.cases.begin(), step.cases.end(), [&](const AffineCase& o) {
      return o.slope == k.slope && o.shift == k.shift;
    });
    if (it == step.cases.end()) {
      step.cases.push_back(k);
    } else {
      it->weight += k.weight;
    }
  }
  return step;
}

double log_binomial_pmf(int n, int k, double q) {
  return std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) + k * std::log(q) +
         (n - k) * std::log1p(-q);
}

/// A batch case: the differing record in or out, `others` other records, the normaliser, the
/// probability.
struct CaseSpec {
  bool in;
  double others, norm, weight;
};

/// The step of these cases: affine ones (merged where the maps agree), or, for a gradient
/// formula, map cases (merged where the records' coefficients agree).
Step step_of(const ChainSpec& c, bool d_prime, const std::vector<CaseSpec>& specs) {
  if (!c.formula) {
    std::vector<AffineCase> cases;
    for (const CaseSpec& k : specs)
      cases.push_back(batch_case(c, d_prime, k.in, k.others, k.norm, k.weight));
    return merged(cases, c.step_std);
  }
  Step step;
  step.noise_std = c.step_std;
  std::vector<std::pair<double, double>> keys;  // (record's, others') coefficient
  for (const CaseSpec& k : specs) {
    if (!(k.weight > 0)) continue;
    const std::pair<double, double> key{k.in ? 1.0 / k.norm : 0.0, k.others / k.norm};
    const auto it = std::find(keys.begin(), keys.end(), key);
    if (it != keys.end()) {
      step.maps[static_cast<std::size_t>(it - keys.begin())].weight += k.weight;
      continue;
    }
    keys.push_back(key);
    step.maps.push_back(detail::formula_case(c, d_prime, k.in, k.others, k.norm, k.weight));
  }
  return step;
}

}  // namespace

Step step_in(const ChainSpec& c, bool d_prime) {
  if (c.scheme == BatchScheme::kFullBatch) {
    return step_of(c, d_prime, {{true, c.n - 1.0, static_cast<double>(c.n), 1.0}});
  }
  return step_of(c, d_prime, {{true, c.batch - 1.0, static_cast<double>(c.batch), 1.0}});
}

Step step_out(const ChainSpec& c, bool d_prime) {
  const double b = c.batch;
  return step_of(c, d_prime, {{false, b, b, 1.0}});
}

Step step_sampled(const ChainSpec& c, bool d_prime) {
  std::vector<CaseSpec> cases;
  if (c.scheme == BatchScheme::kPoisson) {
    const double q = c.sampling_rate, norm = q * c.n;
    // The Binomial(n - 1, q) weights from lgamma carry a relative error of about n * 1e-16 each;
    // at n = 6e4 their sum misses 1 by ~4e-11, which over thousands of steps leaves the law's
    // mass brackets unable to hold a total of 1. Normalised by their sum, the step moves mass
    // without creating or losing any.
    std::vector<std::pair<int, double>> pmf;
    double total = 0.0;
    for (int k = 0; k <= c.n - 1; ++k) {
      const double pk =
          q >= 1 ? (k == c.n - 1 ? 1.0 : 0.0) : std::exp(log_binomial_pmf(c.n - 1, k, q));
      if (!(pk > 0)) continue;
      pmf.emplace_back(k, pk);
      total += pk;
    }
    for (const auto& [k, p] : pmf) {
      const double pk = p / total;
      cases.push_back({true, static_cast<double>(k), norm, q * pk});
      if (q < 1) cases.push_back({false, static_cast<double>(k), norm, (1 - q) * pk});
    }
    return step_of(c, d_prime, cases);
  }
  const double w = static_cast<double>(c.batch) / c.n, b = c.batch;
  cases.push_back({true, b - 1.0, b, w});
  if (w < 1) cases.push_back({false, b, b, 1 - w});
  return step_of(c, d_prime, cases);
}

}  // namespace rdpaudit::exact
