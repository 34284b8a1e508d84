// The last-iterate heuristic of Steinke, Nasr, Ganesh, Balle, Choquette-Choo, Jagielski,
// Hayes, Thakurta, Smith & Terzis (ICLR 2025, arXiv 2410.06186): for DP-SGD with Poisson rate
// q, T steps and noise multiplier z, the privacy profile of the last iterate is taken to be
// that of the pair P = Binomial(T, q) + N(0, z^2 T), Q = N(0, z^2 T) -- the exact last iterate
// of a linear loss whose one record's clipped gradient is constant -- in both orders:
//   delta(eps) = max{H_{e^eps}(P || Q), H_{e^eps}(Q || P)}.
// The authors call it a heuristic: artificial losses can exceed it. rdpaudit audits it as kind
// "heuristic" (expected to fail somewhere; docs/bounds.md, section 10).
#pragma once

namespace rdpaudit::bounds::heuristic {

/// H_{e^eps}(P || Q) (forward) or H_{e^eps}(Q || P), eps >= 0, T >= 1, q in (0, 1], z > 0.
double hockey_stick(long T, double q, double z, double eps, bool forward);

/// max of the two orders' hockey-stick divergences at eps.
double delta(long T, double q, double z, double eps);

/// The smallest eps >= 0 with delta(eps) <= target (delta in (0, 1)), to 1e-12 relative.
double epsilon(long T, double q, double z, double target);

}  // namespace rdpaudit::bounds::heuristic
