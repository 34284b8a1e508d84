#include <cmath>
#include <utility>

#include "rdpaudit/config/loss.hpp"
#include "rdpaudit/config/noise.hpp"
#include "rdpaudit/config/tables.hpp"
#include "rdpaudit/config/traits.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::config {

std::string to_string(NoiseKey v) {
  switch (v) {
    case NoiseKey::kSigma:
      return "sigma";
    case NoiseKey::kSigma2:
      return "sigma2";
    case NoiseKey::kNoiseMultiplier:
      return "noise_multiplier";
    case NoiseKey::kPaperNoiseMultiplier:
      return "paper_noise_multiplier";
    case NoiseKey::kBlogSigma:
      return "blog_sigma";
    case NoiseKey::kStepStd:
      return "step_std";
  }
  return "?";
}

void read_noise(Scenario& s, Reader& r) {
  // Every way to give the noise, in the order messages list them; names from to_string.
  constexpr NoiseKey kKinds[] = {NoiseKey::kSigma,           NoiseKey::kSigma2,
                                 NoiseKey::kNoiseMultiplier, NoiseKey::kPaperNoiseMultiplier,
                                 NoiseKey::kBlogSigma,       NoiseKey::kStepStd};
  std::string names, keys;  // "sigma, sigma2, ..." and "noise.sigma, noise.sigma2, ..."
  for (NoiseKey kind : kKinds) {
    names += (names.empty() ? "" : ", ") + to_string(kind);
    keys += (keys.empty() ? "" : ", ") + ("noise." + to_string(kind));
  }
  int given = 0;
  for (NoiseKey kind : kKinds) {
    const std::string key = "noise." + to_string(kind);
    if (!r.has(key)) continue;
    if (++given > 1) r.fail(key, "give exactly one of " + keys);
    s.noise_key = kind;
    s.noise_value = *r.number(key);
    if (!(s.noise_value > 0)) r.fail(key, "must be > 0");
  }
  if (given == 0) throw InputError("noise", "<missing>", "required: one of " + names);
  s.sensitivity = pair_sensitivity(s);
  const double b = scheme_info(s.scheme).sizing == BatchSizing::kExpected ? s.sampling_rate * s.n()
                                                                          : s.batch_size;
  switch (s.noise_key) {
    case NoiseKey::kSigma:
      s.step_std = step_std_from_sigma(s.noise_value, s.eta);
      break;
    case NoiseKey::kSigma2:
      s.step_std = step_std_from_sigma2(s.noise_value, s.eta);
      break;
    case NoiseKey::kNoiseMultiplier:
      // Opacus / dp_accounting: noise std on the clipped-gradient sum / per-example clip norm.
      if (!std::isfinite(s.clip_norm)) {
        r.fail("noise.noise_multiplier",
               "is relative to the per-example clip norm C (as in Opacus and dp_accounting), "
               "and model.clip_norm is not set: give model.clip_norm (model.loss = "
               "\"logistic\" or \"linear\", the crafted preset included), or "
               "noise.paper_noise_multiplier (Algorithm 2's sigma_mul, relative to S_g/2 of "
               "this pair), noise.sigma or noise.step_std");
      }
      s.step_std = step_std_from_noise_multiplier(s.noise_value, s.eta, s.clip_norm, b);
      break;
    case NoiseKey::kPaperNoiseMultiplier:
      if (!(std::isfinite(s.sensitivity) && s.sensitivity > 0)) {
        r.fail("noise.paper_noise_multiplier",
               "needs a finite, positive sensitivity S_g (logistic: set model.clip_norm; "
               "gradient_formula: none is derived from the formula, give noise.step_std or "
               "noise.sigma; other losses: D and D' must differ)");
      }
      s.step_std = step_std_from_paper_noise_multiplier(s.noise_value, s.eta, s.sensitivity, b);
      break;
    case NoiseKey::kBlogSigma:
      s.step_std = step_std_from_blog_sigma(s.noise_value, s.eta);
      break;
    case NoiseKey::kStepStd:
      s.step_std = s.noise_value;
      break;
  }
  s.sigma = sigma_from_step_std(s.step_std, s.eta);
  s.blog_sigma = blog_sigma_from_step_std(s.step_std, s.eta);
  s.paper_noise_multiplier =
      s.sensitivity > 0 && std::isfinite(s.sensitivity)
          ? paper_noise_multiplier_from_step_std(s.step_std, s.eta, s.sensitivity, b)
          : kNaN;
  s.noise_multiplier = std::isfinite(s.clip_norm)
                           ? noise_multiplier_from_step_std(s.step_std, s.eta, s.clip_norm, b)
                           : kNaN;
}

}  // namespace rdpaudit::config
