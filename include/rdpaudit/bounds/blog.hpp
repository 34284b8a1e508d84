// The privacy-saturation bound of the blog post "Privacy Saturation"
// (/work/shared/seeds/privacy-saturation-blog.txt), in the blog's own conventions:
// the iterate receives N(0, eta^2 sigma_blog^2 I) per step (sigma_blog = blog_sigma(p)),
// every f_i is L-Lipschitz on a domain of diameter D, T iterations, q = b/n.
// Bare formulas: bounds.hpp checks the preconditions (eta <= 2/M, bounded domain, ...).
#pragma once

#include "rdpaudit/bounds/params.hpp"

namespace rdpaudit::bounds::blog {

/// The burn-in time Tbar = ceil(D n / (L eta)) (Theorem 1; +inf when L = 0).
double burn_in(const Params& p);

/// Theorem 1: D_alpha(W_T || W_T') <= alpha L^2 / (n^2 sigma^2) min{T, ceil(D n / (L eta))}.
double thm1_saturation(const Params& p, double alpha);

/// The blog's own Step 5 expression at the blog's own choice of window, for comparison with
/// Theorem 1: alpha L^2 T / (n^2 sigma^2) when T <= Tbar, otherwise
///   F(Tbar) = 2 alpha L^2 Tbar / (n^2 sigma^2) + alpha D^2 / (eta^2 sigma^2 Tbar)
/// (equal noise split sigma_1^2 = sigma_2^2 = sigma^2/2).  See docs/bounds.md: Theorem 1 is
/// smaller than this by up to a factor of 3.
double step5_as_derived(const Params& p, double alpha);

}  // namespace rdpaudit::bounds::blog
