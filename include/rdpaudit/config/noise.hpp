// The one set of noise conversions (DESIGN.md section 2). The canonical quantity is the
// per-step noise standard deviation s of  theta <- theta - eta*g + s*N(0, I),  with g the
// summed gradient divided by the batch normaliser b (Poisson: the expected size q*n, which
// need not be whole). Every source's own noise parameter is converted to and from s here;
// config (reading the file) and bounds (evaluating each source) both call these.
#pragma once

namespace rdpaudit::config {

/// Paper, Algorithm 1: s = sqrt(2 eta sigma^2) (computed as sqrt(2 eta) * sigma, the rounding
/// every committed result was simulated with).
double step_std_from_sigma(double sigma, double eta);
double step_std_from_sigma2(double sigma2, double eta);
double sigma_from_step_std(double step_std, double eta);
double sigma2_from_step_std(double step_std, double eta);

/// Paper, Algorithm 2 / Section F.1: the paper's noise multiplier sigma_mul, relative to
/// S_g/2 (the per-example clip of Algorithm 2): Algorithm 2 adds
/// eta * (1/b) * sigma_mul * (S_g/2) * N(0, I), so s = eta sigma_mul S_g / (2b), equivalently
/// sigma = sqrt(eta/2) * (1/b) * sigma_mul * S_g/2 in Algorithm 1's terms.
double step_std_from_paper_noise_multiplier(double sigma_mul, double eta, double S_g, double b);
/// Inverse; +inf when S_g = 0 (no noise is too little for a pair that does not differ).
double paper_noise_multiplier_from_step_std(double step_std, double eta, double S_g, double b);

/// The noise multiplier of Opacus and dp_accounting: z = (std of the noise added to the sum
/// of per-example clipped gradients) / (per-example clip norm C). The update divides that sum
/// by b, so s = eta z C / b. With Algorithm 2's clip C = S_g/2 this is sigma_mul (z and
/// sigma_mul are the same number; docs/experiments.md has a worked example).
double step_std_from_noise_multiplier(double z, double eta, double clip_norm, double b);
double noise_multiplier_from_step_std(double step_std, double eta, double clip_norm, double b);

/// The blog: the iterate receives N(0, eta^2 sigma_blog^2 I), so s = eta sigma_blog.
double step_std_from_blog_sigma(double blog_sigma, double eta);
double blog_sigma_from_step_std(double step_std, double eta);

}  // namespace rdpaudit::config
