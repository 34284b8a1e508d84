// Privacy loss distribution (PLD) accountant for T-fold compositions of the Gaussian and the
// Poisson-subsampled Gaussian mechanism, with a certified two-sided bracket.
//
// The PLD of an ordered pair (P, Q) is the law of L = log(dP/dQ)(X), X ~ P; the hockey-stick
// divergence is delta(eps) = E_P[(1 - e^{eps - L})_+] (+ the P-mass where Q = 0, the "infinity
// mass"), and the PLD of a T-fold composition is the T-fold convolution of the single PLD
// (Meiser & Mohammadi 2018, "Tight on budget?"; Koskela, Jalko & Honkela 2020, "Computing tight
// differential privacy guarantees using FFT"). Both ends are computed on a grid eps_i = i h:
//   upper: the "connect-the-dots" PLD of Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022
//          (each grid cell [eps_i, eps_{i+1}] split into atoms at its two ends with the cell's
//          P- and Q-mass): a dominating pair, so its composition is never below the truth;
//          the P-mass above the grid goes to the infinity mass, the mass below to the lowest
//          grid point;
//   lower: a post-processing of the pair (cells centred on the grid points, each cell's atom
//          completed to an atom at exactly its grid loss by merging in part of the next cell;
//          what is still off the grid rounded down, the tails beyond the grid dropped or
//          rounded down), so its composition is never above the truth.
// Both errors are second order in h per step (the mean loss moves by O(h^2)). The T-fold
// convolution is one FFT power on a window chosen by a Chernoff bound on the discrete PLD; the
// mass outside the window (at most tail_mass per side, certified by that bound) is added to the
// upper delta and subtracted from the lower one. See docs/pld.md.
#pragma once

#include <cstddef>

namespace rdpaudit::bounds::pld {

/// A certified bracket: the true value lies in [lower, upper] (up to the floating-point error
/// of the FFT, which is estimated from the negative entries of the composed PMF and added as
/// a margin, see docs/pld.md). `discretisation` and `fft_size` say what gave it.
struct Interval {
  double lower = 0.0;
  double upper = 0.0;
  double discretisation = 0.0;  ///< the grid spacing h of the privacy loss that was used
  std::size_t fft_size = 0;     ///< the FFT length of the composition (0: T = 1, no FFT)
};

struct Options {
  /// The first grid spacing h of the privacy loss that is tried (smaller when the single
  /// step's loss range is narrow: at most 1/1024 of it). The accountant then refines h (the
  /// width of the bracket is second order in h, so one evaluation predicts the spacing that
  /// meets target_relative_width), and coarsens it when the composed window would need an FFT
  /// longer than max_fft_size.
  double discretisation = 1e-2;
  /// Refine until (upper - lower) <= target_relative_width * upper (or the limits below bind).
  double target_relative_width = 1e-4;
  /// The P-mass allowed outside the single-step grid (per tail) and outside the composed
  /// window (per tail, by the Chernoff bound).
  double tail_mass = 1e-15;
  std::size_t max_fft_size = std::size_t{1} << 22;
  int max_refinements = 6;
};

/// Neighbouring datasets. Add/remove: one record more or less; the bracket is the worse of
/// the two orders (P = (1-q) N(0, z^2) + q N(1, z^2) against Q = N(0, z^2), and reversed).
/// Replace-one: a record replaced; with clipping norm 1 the sum moves by up to 2, so without
/// subsampling (q = 1) it is the Gaussian mechanism with noise multiplier z/2. Replace-one
/// with Poisson subsampling (q < 1) is refused (InputError): its dominating pair is not the
/// simple mixture pair above.
enum class Adjacency { kAddRemove, kReplaceOne };

/// eps(delta) of the T-fold Gaussian mechanism with sensitivity 1 and noise multiplier z
/// (N(0, z^2) against N(1, z^2); exactly mu-GDP with mu = sqrt(T)/z). z > 0, T >= 1,
/// 0 < delta < 1, else InputError. Both ends >= 0.
Interval epsilon_gaussian(double z, long T, double delta, const Options& options = {});

/// delta(eps) of the same composition, eps >= 0 (finite).
Interval delta_gaussian(double z, long T, double epsilon, const Options& options = {});

/// eps(delta) of T steps of the Poisson-subsampled Gaussian mechanism (rate q in (0, 1], noise
/// multiplier z > 0, clipping norm 1), T >= 1, 0 < delta < 1. InputError for bad input and
/// for replace-one with q < 1. upper = +inf when no finite eps is certified (delta below
/// the tail allowances).
Interval epsilon_poisson_gaussian(double q, double z, long T, double delta, Adjacency adjacency,
                                  const Options& options = {});

/// delta(eps) of the same composition, eps >= 0 (finite).
Interval delta_poisson_gaussian(double q, double z, long T, double epsilon, Adjacency adjacency,
                                const Options& options = {});

}  // namespace rdpaudit::bounds::pld
