#include "rdpaudit/estimate/scenario.hpp"

#include "rdpaudit/estimate/exact.hpp"
#include "rdpaudit/estimate/known_truth.hpp"
#include "rdpaudit/estimate/rao_blackwell.hpp"
#include "rdpaudit/estimate/samples.hpp"
#include "rdpaudit/rng/philox.hpp"
#include "rdpaudit/sim/mixture.hpp"

namespace rdpaudit::estimate {

ScenarioEstimates estimate_scenario(const config::Scenario& s, const sim::ScenarioTallies& t,
                                    std::uint64_t seed) {
  ScenarioEstimates out;
  const auto& spec = s.estimate;
  // The audited orders (bounds.alphas) are estimated too, so every verdict has its estimate.
  std::vector<double> extra = spec.extra_alphas;
  extra.insert(extra.end(), s.bounds.alphas.begin(), s.bounds.alphas.end());
  out.alphas = default_alpha_grid(extra);
  if (!spec.enabled) return out;

  // From the samples: plug-in and rigorous lower bound on a score (the coordinate in 1-D,
  // learned density ratios above), selection and evaluation splits disjoint.
  const std::size_t d = static_cast<std::size_t>(s.dim);
  const SampleView p{t.d.raw.data(), t.d.raw.size() / d, d};
  const SampleView q{t.dprime.raw.data(), t.dprime.raw.size() / d, d};
  SampleOptions options;
  options.selection_fraction = spec.selection_fraction;
  options.rigorous.confidence = spec.confidence;
  options.variational.confidence = spec.confidence;
  options.variational_selection_fraction = spec.variational_selection_fraction;
  options.run_plugin = spec.runs("histogram-plugin");
  options.run_partition = spec.runs("rigorous-cp");
  options.run_bernstein = spec.runs("rigorous-bernstein");
  options.plugin.confidence = spec.confidence;
  options.plugin.bootstrap_replicates = static_cast<std::size_t>(spec.bootstrap);
  rng::Stream bootstrap({seed, static_cast<std::uint32_t>(s.index), 6, 0, rng::Purpose::kTest});
  if (options.run_plugin || options.run_partition || options.run_bernstein) {
    out.estimates = estimate_from_samples(p, q, out.alphas, options, &bootstrap, &out.rigorous);
  }

  // Exact (enumerated patterns) or Rao-Blackwellised (sampled patterns) for affine updates.
  if (!spec.runs("exact")) {
    out.mixture = "none: not among estimate.methods";
    return out;
  }
  std::string why;
  const auto mix = sim::quadratic_last_iterate_mixture(s, seed, spec.patterns, why);
  if (mix && s.dim <= 2) {
    const bool exact = mix->d.exact && mix->dprime.exact;
    out.mixture = mix->dprime.how;
    const GaussianMixture law = to_gaussian_mixture(mix->d),
                          law_prime = to_gaussian_mixture(mix->dprime);
    // Sampled patterns: an approximate interval for the pattern-sampling error, never a
    // bracket (the audit decides with certainty only from "exact-quadrature" rows).
    RaoBlackwellOptions rb;
    rb.confidence = spec.confidence;
    auto values = exact ? exact_renyi(law, law_prime, out.alphas)
                        : rao_blackwell_renyi(law, law_prime, out.alphas, rb);
    out.estimates.insert(out.estimates.end(), values.begin(), values.end());
  } else {
    out.mixture = mix ? "none: quadrature is for d <= 2" : "none: " + why;
  }
  return out;
}

}  // namespace rdpaudit::estimate
