#include "rdpaudit/bounds/blog.hpp"

#include <algorithm>
#include <cmath>

namespace rdpaudit::bounds::blog {

double burn_in(const Params& p) {
  if (p.L == 0.0) return kInf;
  // ceil(D n / (L eta)) in extended precision so that a quotient that is an integer in exact
  // arithmetic is not pushed to the next integer by double rounding.
  const long double x = static_cast<long double>(p.D) * static_cast<long double>(p.n) /
                        (static_cast<long double>(p.L) * static_cast<long double>(p.eta));
  return static_cast<double>(std::ceil(x));
}

double thm1_saturation(const Params& p, double alpha) {
  if (p.L == 0.0) return 0.0;
  const double n = static_cast<double>(p.n);
  const double sigma = blog_sigma(p);
  const double window = std::min(static_cast<double>(p.T), burn_in(p));
  return alpha * p.L * p.L / (n * n * sigma * sigma) * window;
}

double step5_as_derived(const Params& p, double alpha) {
  if (p.L == 0.0) return 0.0;
  const double n = static_cast<double>(p.n);
  const double s2 = blog_sigma(p) * blog_sigma(p);
  const double t_bar = burn_in(p);
  const double T = static_cast<double>(p.T);
  if (T <= t_bar) return alpha * p.L * p.L * T / (n * n * s2);
  return 2.0 * alpha * p.L * p.L * t_bar / (n * n * s2) +
         alpha * p.D * p.D / (p.eta * p.eta * s2 * t_bar);
}

}  // namespace rdpaudit::bounds::blog
