#include "rdpaudit/config/noise.hpp"

#include <cmath>
#include <limits>

namespace rdpaudit::config {

double step_std_from_sigma(double sigma, double eta) {
  return std::sqrt(2.0 * eta) * sigma;
}
double step_std_from_sigma2(double sigma2, double eta) {
  return step_std_from_sigma(std::sqrt(sigma2), eta);
}
double sigma_from_step_std(double step_std, double eta) {
  return step_std / std::sqrt(2.0 * eta);
}
double sigma2_from_step_std(double step_std, double eta) {
  return step_std * step_std / (2.0 * eta);
}

double step_std_from_paper_noise_multiplier(double sigma_mul, double eta, double S_g, double b) {
  return eta * sigma_mul * S_g / (2.0 * b);
}
double paper_noise_multiplier_from_step_std(double step_std, double eta, double S_g, double b) {
  return S_g > 0.0 ? 2.0 * b * step_std / (eta * S_g) : std::numeric_limits<double>::infinity();
}

double step_std_from_noise_multiplier(double z, double eta, double clip_norm, double b) {
  return eta * z * clip_norm / b;
}
double noise_multiplier_from_step_std(double step_std, double eta, double clip_norm, double b) {
  return step_std * b / (eta * clip_norm);
}

double step_std_from_blog_sigma(double blog_sigma, double eta) {
  return eta * blog_sigma;
}
double blog_sigma_from_step_std(double step_std, double eta) {
  return step_std / eta;
}

}  // namespace rdpaudit::config
