#include "rdpaudit/estimate/exact_chain.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "rdpaudit/config/traits.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/core/memory.hpp"
#include "rdpaudit/exact/profile.hpp"
#include "rdpaudit/exact/renyi.hpp"

namespace rdpaudit::estimate {

namespace {

using config::BatchScheme;

// Grid cells as the engine chooses them (a grid past 10^9 cells is over any limit already).
double grid_cells(const exact::ChainSpec& c, const exact::EngineOptions& o) {
  double lo = 0, hi = 0;
  exact::grid_interval(c, o, lo, hi, 1e9);
  return std::max(1.0, std::ceil((hi - lo) / (c.step_std / o.cells_per_sd)));
}

// A map case (a gradient formula) computes its coefficients per source and target instead of
// reading a shared table, at about kMapFirstCost affine cases' work; the engine keeps them for
// the chain's later steps (exact::kMapCoefficientsKept), which then cost kMapKeptCost affine
// cases' work each. Where one dataset's coefficients (cells x width per map case) do not fit,
// every step pays the first step's cost. Calibrated with bench_exact formula at T = 10 ... 300
// against the affine blog chains' CPU time per unit of work (bench/README.md).
constexpr double kMapFirstCost = 1600.0;
constexpr double kMapKeptCost = 50.0;

// Affine cases propagated per step, a map case counted at its share of the chain's cost.
double cases(const exact::Step& step, double steps, double coefficients) {
  const double maps = static_cast<double>(step.maps.size());
  const bool kept = maps * coefficients <= static_cast<double>(exact::kMapCoefficientsKept);
  const double per_map = kept ? kMapKeptCost + kMapFirstCost / steps : kMapFirstCost;
  return static_cast<double>(step.cases.size()) + per_map * maps;
}

// Both directions' profile brackets on the scenario's grids: value = the midpoint (the lower
// end where the upper is +infinity).
std::vector<ProfileEstimate> chain_profile(const config::Scenario& s, const exact::ChainLaws& laws,
                                           exact::DensityGrid density,
                                           const std::string& interval) {
  const exact::ProfileBrackets brackets(laws.d, laws.dprime, std::move(density));
  const auto mid = [](const exact::Bracket& b) {
    return std::isfinite(b.hi) ? 0.5 * (b.lo + b.hi) : b.lo;
  };
  std::vector<ProfileEstimate> out;
  for (int d : {kForward, kBackward}) {
    ProfileEstimate e;
    e.method = "exact-chain-profile";
    e.direction = d;
    e.interval = interval;
    e.epsilons = s.profile.epsilons;
    e.deltas = s.profile.deltas;
    for (double eps : e.epsilons) {
      const exact::Bracket b = brackets.delta(eps, d == kForward);
      e.delta_value.push_back(mid(b));
      e.delta_lower.push_back(b.lo);
      e.delta_upper.push_back(b.hi);
    }
    for (double delta : e.deltas) {
      const exact::Bracket b = brackets.epsilon(delta, d == kForward);
      e.epsilon_value.push_back(mid(b));
      e.epsilon_lower.push_back(b.lo);
      e.epsilon_upper.push_back(b.hi);
    }
    out.push_back(std::move(e));
  }
  return out;
}

// Bytes per grid cell of one law (mass, first and second moment, each bracketed).
constexpr double kLawBytesPerCell = 6 * 8;

// Laws one dataset's evolution holds at once (the current law, the propagation's result and
// its pass, the final step's parts; a shuffled partition keeps a part per batch, a fresh
// shuffle the pending and drawn parts with their successors), and after it (last + parts,
// while the other dataset evolves).
double laws_held(const exact::ChainSpec& c, double& kept_after) {
  const double m = static_cast<double>(std::max(1L, c.steps_per_epoch));
  switch (c.scheme) {
    case BatchScheme::kShufflePartition:
      kept_after = m + 2.0;
      return m + 5.0;
    case BatchScheme::kShuffleEachEpoch:
    case BatchScheme::kRandomAllocation:
      kept_after = 4.0;
      return 10.0;
    default:
      kept_after = 2.0;
      return 4.0;
  }
}

// What the chain holds at its peak, estimated from above (bench/README.md: within 2x of the
// measured peak resident memory): the laws, the density pass's points (2 per cell, the grid
// of an unclamped law widened up to 3x; the bounds of both densities and their work arrays)
// and the kept coefficient tables (lattice tables of the slopes other than 1, a map case's
// coefficients), each at most its store's cap.
double chain_memory(const exact::ChainSpec& c, double cells, double width) {
  double kept_after = 0;
  const double laws = laws_held(c, kept_after) + kept_after;
  const double points = 2.0 * cells * (c.clamped() ? 1.0 : 3.0);
  std::set<double> slopes;  // the lattice tables are kept per slope
  double maps = 0;
  for (bool dp : {false, true}) {
    for (const exact::Step& st :
         {exact::step_in(c, dp), exact::step_out(c, dp), exact::step_sampled(c, dp)}) {
      for (const exact::AffineCase& a : st.cases)
        if (a.slope != 1.0) slopes.insert(a.slope);
      maps = std::max(maps, static_cast<double>(st.maps.size()));
    }
  }
  const double lattice =
      std::min(static_cast<double>(exact::kLatticeCoefficientsKept),
               static_cast<double>(slopes.size()) * exact::kLatticeTablesPerSlope * width);
  const double mapped =
      std::min(static_cast<double>(exact::kMapCoefficientsKept), maps * cells * width);
  return kLawBytesPerCell * cells * laws + 8.0 * 8.0 * points +
         exact::kBytesPerCoefficient * (lattice + mapped + 2.0 * width);
}

}  // namespace

ChainWork chain_work(const exact::ChainSpec& c, const exact::EngineOptions& o, double limit) {
  ChainWork w;
  const double reach = 2.0 * o.renyi.propagate.reach * o.cells_per_sd;
  const double steps = static_cast<double>(c.steps) + 1.0;
  // affine cases propagated per step, both datasets, on a grid of `cells` cells
  const auto propagations = [&](double cells) {
    const double coefficients = cells * std::min(cells, reach);
    double p = 0;
    for (bool dp : {false, true}) {
      const double in = cases(exact::step_in(c, dp), steps, coefficients);
      const double out = cases(exact::step_out(c, dp), steps, coefficients);
      const double sampled = cases(exact::step_sampled(c, dp), steps, coefficients);
      const double m = static_cast<double>(std::max(1L, c.steps_per_epoch));
      switch (c.scheme) {
        case BatchScheme::kFullBatch:
          p += in;
          break;
        case BatchScheme::kFixedOrder:
          p += std::max(in, out);
          break;
        case BatchScheme::kSampleWithoutReplacement:
        case BatchScheme::kPoisson:
          p += sampled;
          break;
        case BatchScheme::kShufflePartition:
          p += (m + 1.0) * std::max(in, out);
          break;
        case BatchScheme::kShuffleEachEpoch:
        case BatchScheme::kRandomAllocation:  // chain_from_scenario: as shuffle_each_epoch
          p += in + 2.0 * out;
          break;
      }
    }
    return p;
  };
  const auto work_of = [&](double cells) {
    w.propagations = propagations(cells);
    w.cells = static_cast<long>(std::min(cells, 1e15));
    w.width = static_cast<long>(std::min(cells, reach));
    // the upper bound's density pass costs about one more step
    w.work = steps * cells * std::min(cells, reach) * w.propagations;
    w.memory = chain_memory(c, cells, std::min(cells, reach));
  };
  if (exact::uses_location_mixture(c, o)) {
    // Clusters (at most one per cluster_cells grid cells of the mean's hull) times cases per
    // step, then one grid step of the final Gaussian and the density pass; the grid of the
    // noise's sd overestimates the final grid, whose cells are of the last iterate's sd.
    w.location = true;
    const double cells = grid_cells(c, o);
    const double clusters = std::ceil(cells / std::max(1e-3, o.cluster_cells));
    w.propagations = propagations(cells);
    w.cells = static_cast<long>(std::min(cells, 1e15));
    w.width = static_cast<long>(std::min(cells, reach));
    w.work = static_cast<double>(c.steps) * clusters * w.propagations +
             2.0 * cells * std::min(cells, reach);
    w.memory = chain_memory(c, cells, std::min(cells, reach));
    return w;
  }
  if (!c.clamped()) {
    // The grid's hull costs a pass over the steps; a grid of the noise's 2 grid_sds sds alone
    // (every unclamped law is at least that wide after one step) may already be over the limit.
    work_of(std::ceil(2.0 * o.grid_sds * o.cells_per_sd));
    if (w.work > limit) {
      w.at_least = true;
      return w;
    }
  }
  work_of(grid_cells(c, o));
  return w;
}

std::string over_limits(const exact::ChainSpec& chain, const config::EstimateSpec& e,
                        const ChainWork& w) {
  if (!(w.work <= e.exact_max_work)) {
    return fmt::format(
        "work limit: the exact chain would cost {}{:.3g} ({}steps {}, cells {}, width {}, cases "
        "{:g}) > estimate.exact_max_work = {:g}",
        w.at_least ? "at least " : "", w.work, w.location ? "location mixture: " : "", chain.steps,
        w.cells, w.width, w.propagations, e.exact_max_work);
  }
  // the engine indexes cells by int, positions up to 2^30 cells beyond the grid included
  if (w.cells > (1L << 29)) {
    return fmt::format(
        "grid limit: the exact chain would need {} cells (at most 2^29); fewer "
        "cells per sd (estimate.exact_cells_per_sd)",
        w.cells);
  }
  if (!(w.memory <= e.exact_max_memory)) {
    return fmt::format(
        "memory limit: the exact chain would hold about {:.3g} GB (cells {}, width {}) > "
        "estimate.exact_max_memory = {:g}",
        w.memory * 1e-9, w.cells, w.width, e.exact_max_memory);
  }
  return "";
}

void check_exact_chain_memory(const config::ExperimentSpec& spec) {
  const auto limit = static_cast<double>(memory_limit());
  if (!(limit > 0)) return;
  for (const config::Scenario& s : spec.scenarios) {
    if (!s.estimate.runs(config::Method::kExact)) continue;
    if (s.loss == config::LossKind::kQuadratic && s.dim <= 2) continue;
    std::string why;
    const auto chain = exact::chain_from_scenario(s, why);
    if (!chain) continue;
    exact::EngineOptions options;
    options.cells_per_sd = s.estimate.exact_cells_per_sd;
    const ChainWork w = chain_work(*chain, options, s.estimate.exact_max_work);
    if (!over_limits(*chain, s.estimate, w).empty() || w.memory <= limit) continue;
    throw InputError(
        "estimate.exact_max_memory", fmt::format("{:g}", s.estimate.exact_max_memory),
        fmt::format("scenario {}'s exact chain would hold about {:.3g} GB at once (cells {}, "
                    "width {}), more than the {:.3g} GB this process may use (physical memory, "
                    "ulimit -v, ulimit -d); a limit below {:.3g} (the scenario then gets no exact "
                    "value), fewer cells per sd (estimate.exact_cells_per_sd) or more memory",
                    s.index, w.memory * 1e-9, w.cells, w.width, limit * 1e-9, w.memory));
  }
}

ChainEstimates exact_chain_renyi(const config::Scenario& s, const std::vector<double>& alphas) {
  ChainEstimates out;
  std::string why;
  const auto chain = exact::chain_from_scenario(s, why);
  if (!chain) {
    out.how = "none: " + why;
    return out;
  }
  exact::EngineOptions options;
  options.cells_per_sd = s.estimate.exact_cells_per_sd;
  const ChainWork w = chain_work(*chain, options, s.estimate.exact_max_work);
  const std::string over = over_limits(*chain, s.estimate, w);
  if (!over.empty()) {
    out.how = "none: " + over;
    return out;
  }
  const exact::ChainLaws laws = exact::evolve_pair(*chain, options);
  // a law whose brackets cannot hold its total (e.g. case weights that do not sum to 1) gives
  // no certified bound: no value, with the reason
  for (const exact::ExactLaw* law : {&laws.d, &laws.dprime}) {
    if (!exact::brackets_hold_total(law->last, why)) {
      out.how = "none: " + why;
      return out;
    }
  }
  // one density pass serves the Renyi upper ends and the profile's (widened for the largest
  // order where the law is not clamped)
  double alpha_max = 1;
  for (double a : alphas) alpha_max = std::max(alpha_max, a);
  exact::DensityGrid density = exact::density_grid(laws.d, laws.dprime, options.renyi, alpha_max);
  const auto rows = exact::renyi_brackets(laws.d, laws.dprime, alphas, density);
  const std::string uncertified = exact::upper_uncertified(laws.d, laws.dprime, density);
  const std::string interval =
      uncertified.empty()
          ? std::string(kExactChainCertified)
          : "exact chain bracket (lower certified; upper not certified beyond the grid: " +
                uncertified + ")";
  if (s.profile.enabled) out.profile = chain_profile(s, laws, std::move(density), interval);
  const std::string method = config::to_string(config::Row::kExactChain);
  for (const exact::RenyiBracketRow& r : rows) {
    for (int d : {kForward, kBackward}) {
      const exact::Bracket& b = d == kForward ? r.forward : r.backward;
      Estimate e;
      e.alpha = r.alpha;
      e.direction = d;
      e.method = method;
      e.lower = b.lo;
      e.upper = std::max(b.hi, b.lo);
      e.value = std::isfinite(e.upper) ? 0.5 * (e.lower + e.upper) : e.lower;
      e.interval = interval;
      e.informative = std::isfinite(e.lower);
      if (!e.informative) e.reason = "the exact chain's lower bound is not finite";
      out.rows.push_back(std::move(e));
    }
  }
  out.how = w.location
                ? fmt::format("exact chain (location mixture, h = sd_T/{})", options.cells_per_sd)
                : fmt::format("exact chain (h = s/{}, {} cells)", options.cells_per_sd, w.cells);
  return out;
}

}  // namespace rdpaudit::estimate
