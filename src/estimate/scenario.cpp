#include "rdpaudit/estimate/scenario.hpp"

#include <algorithm>

#include "rdpaudit/config/orders.hpp"
#include "rdpaudit/estimate/exact_chain.hpp"
#include "rdpaudit/exact/gaussian_mixture.hpp"
#include "rdpaudit/exact/known_truth.hpp"
#include "rdpaudit/exact/mixture_profile.hpp"
#include "rdpaudit/exact/rao_blackwell.hpp"
#include "rdpaudit/rng/stream.hpp"
#include "rdpaudit/sim/mixture.hpp"

namespace rdpaudit::estimate {

namespace {

SelectionOptions selection_options(const config::Scenario&) {
  return {};
}

CountOptions count_options(const config::Scenario& s) {
  const auto& spec = s.estimate;
  CountOptions o;
  o.rigorous.confidence = spec.confidence;
  o.variational.confidence = spec.confidence;
  o.plugin.confidence = spec.confidence;
  o.plugin.bootstrap_replicates = static_cast<std::size_t>(spec.bootstrap);
  for (const CountMethod& m : count_methods()) {
    if (!spec.runs(m.method)) o.skipped.push_back(m.method);
  }
  return o;
}

bool runs_sample_methods(const config::Scenario& s) {
  const CountOptions o = count_options(s);
  return s.estimate.enabled && o.skipped.size() < count_methods().size();
}

}  // namespace

Selection select_scenario(const config::Scenario& s, const Eigen::MatrixXd& pilot_d,
                          const Eigen::MatrixXd& pilot_dprime, std::int64_t trajectories,
                          tally::Binning& binning) {
  if (!runs_sample_methods(s)) return {};
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const RowMajor p = pilot_d, q = pilot_dprime;
  const auto d = static_cast<std::size_t>(s.dim);
  Selection sel = select_on_pilot(SampleView{p.data(), static_cast<std::size_t>(p.rows()), d},
                                  SampleView{q.data(), static_cast<std::size_t>(q.rows()), d},
                                  static_cast<std::uint64_t>(trajectories), selection_options(s));
  for (const ScoreSelection& x : sel.scores) binning.scores.push_back(x.counting_cells());
  return sel;
}

namespace {

// Components of positive weight: the only ones the profile evaluates (a Binomial count's far
// tail underflows to weight 0: 337 of opacus_mnist's 3517 components are positive).
std::size_t weighted_components(const exact::GaussianMixture& m) {
  return static_cast<std::size_t>(
      std::count_if(m.weights.begin(), m.weights.end(), [](double w) { return w > 0.0; }));
}

// The exact profile of a listed 1-D mixture (both directions). The root scan evaluates every
// weighted component at every scan point once per direction (then each delta(eps) only its
// root refinements): mixtures beyond kMaxScanWork such evaluations are left out (exact Renyi
// values remain); that is about 8 s on one core (opacus_mnist's 6.8e6 take 0.5 s).
void add_exact_profile(const config::Scenario& s, const exact::GaussianMixture& p,
                       const exact::GaussianMixture& q, ScenarioEstimates& out) {
  constexpr double kMaxScanWork = 1e8;
  const double scan = static_cast<double>(exact::ExactProfileOptions{}.scan_points) *
                      static_cast<double>(weighted_components(p) + weighted_components(q));
  if (p.dim != 1 || scan > kMaxScanWork) return;
  out.exact_law = {p, q};
  for (int d : {kForward, kBackward}) {
    const exact::GaussianMixture& a = d == kForward ? p : q;
    const exact::GaussianMixture& b = d == kForward ? q : p;
    ProfileEstimate e;
    e.method = "exact-profile";
    e.direction = d;
    e.interval = "numerical bracket (root scan and bisection)";
    e.epsilons = s.profile.epsilons;
    e.deltas = s.profile.deltas;
    const exact::ExactProfile profile(a, b);
    for (double eps : e.epsilons) {
      const double v = profile.delta(eps);
      e.delta_value.push_back(v);
      e.delta_lower.push_back(v);
      e.delta_upper.push_back(v);
    }
    for (double delta : e.deltas) {
      const exact::EpsilonBracket x = profile.epsilon(delta);
      e.epsilon_value.push_back(x.value);
      e.epsilon_lower.push_back(x.lower);
      e.epsilon_upper.push_back(x.upper);
    }
    out.profile.push_back(std::move(e));
  }
}

}  // namespace

ScenarioEstimates estimate_scenario(const config::Scenario& s, const Selection& selection,
                                    const sim::ScenarioTallies& t, std::uint64_t seed) {
  ScenarioEstimates out;
  const auto& spec = s.estimate;
  // The scenario's estimation grid, audited orders included, as config resolves it.
  out.alphas = config::estimation_orders(s);
  if (!spec.enabled) return out;

  // From the counts: plug-in and both rigorous lower bounds on each score (the coordinate in
  // 1-D, learned density ratios above), chosen on the pilot, every trajectory counted.
  rng::Stream bootstrap(
      {seed, static_cast<std::uint32_t>(s.index), rng::kD, 0, rng::Purpose::kBootstrap});
  if (runs_sample_methods(s)) {
    const CountOptions options = count_options(s);
    for (std::size_t k = 0; k < selection.scores.size(); ++k) {
      auto e = estimate_from_counts(selection.scores[k], t.d.scores.at(k).counts,
                                    t.dprime.scores.at(k).counts, out.alphas, options, &bootstrap,
                                    &out.rigorous);
      out.estimates.insert(out.estimates.end(), e.begin(), e.end());
      if (s.profile.enabled) {
        // The privacy profile from the same counts: tail sets of the same score.
        out.profiles.push_back(profile_counts(selection.scores[k], t.d.scores.at(k).counts,
                                              t.dprime.scores.at(k).counts));
        for (auto& p : profile_estimates(out.profiles.back(), s.profile.epsilons, s.profile.deltas,
                                         spec.confidence)) {
          out.profile.push_back(std::move(p));
        }
      }
    }
  }

  // Exact (enumerated patterns) or Rao-Blackwellised (sampled patterns) for affine updates.
  if (!spec.runs(config::Method::kExact)) {
    out.mixture = "none: not among estimate.methods";
    return out;
  }
  std::string why;
  const auto mix = sim::quadratic_last_iterate_mixture(s, seed, spec.patterns, why);
  bool enumerated = false;
  if (mix && s.dim <= 2) {
    enumerated = mix->d.exact && mix->dprime.exact;
    out.mixture = mix->dprime.how;
    const exact::GaussianMixture law = exact::to_gaussian_mixture(mix->d),
                                 law_prime = exact::to_gaussian_mixture(mix->dprime);
    // Sampled patterns: an approximate interval for the pattern-sampling error, never a
    // bracket (the audit decides with certainty only from "exact-quadrature" rows).
    exact::RaoBlackwellOptions rb;
    rb.confidence = spec.confidence;
    auto values = enumerated ? exact::exact_renyi(law, law_prime, out.alphas)
                             : exact::rao_blackwell_renyi(law, law_prime, out.alphas, rb);
    out.estimates.insert(out.estimates.end(), values.begin(), values.end());
    if (enumerated && s.profile.enabled) add_exact_profile(s, law, law_prime, out);
  } else {
    out.mixture = mix ? "none: quadrature is for d <= 2" : "none: " + why;
  }
  // No quadrature value: the 1-D law evolved step by step (exact/chain.hpp), within the work
  // limit. Deterministic, so any rank that computes it gives the same numbers.
  if (!enumerated) {
    ChainEstimates chain = exact_chain_renyi(s, out.alphas);
    out.estimates.insert(out.estimates.end(), chain.rows.begin(), chain.rows.end());
    for (ProfileEstimate& p : chain.profile) out.profile.push_back(std::move(p));
    if (chain.rows.empty()) {
      out.mixture += "; exact chain: " + chain.how;
    } else {
      out.mixture = chain.how + (mix && s.dim <= 2 ? "; Rao-Blackwell: " + out.mixture : "");
    }
  }
  return out;
}

}  // namespace rdpaudit::estimate
