// The last iterate's law under D and D' for every batch scheme (docs/exact-laws.md).
#include "rdpaudit/exact/chain.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "formula_chain.hpp"
#include "kernel.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::exact {

namespace {

using config::BatchScheme;
using config::LossKind;

void choose_grid(const ChainSpec& c, const EngineOptions& o, double& lo, double& hi, int& cells) {
  grid_interval(c, o, lo, hi);
  cells = std::max(1, static_cast<int>(std::ceil((hi - lo) / (c.step_std / o.cells_per_sd))));
}

/// A cluster of atoms of a noise-free location law: their total mass, mean, sum of
/// mass x (x - mean)^2 and hull [lo, hi], all exact (up to rounding) under affine maps and
/// merging.
struct Cluster {
  double w = 0, mean = 0, var_w = 0, lo = 0, hi = 0;
};
using Location = std::vector<Cluster>;  // sorted by lo

/// Merges neighbours (sorted by lo) while the merged hull is at most `delta` wide.
void merge_close(Location& l, double delta) {
  std::sort(l.begin(), l.end(), [](const Cluster& x, const Cluster& y) {
    return x.lo < y.lo || (x.lo == y.lo && x.hi < y.hi);
  });
  Location out;
  out.reserve(l.size());
  for (const Cluster& c : l) {
    if (!(c.w > 0)) continue;
    if (!out.empty()) {
      Cluster& b = out.back();
      const double lo = std::min(b.lo, c.lo), hi = std::max(b.hi, c.hi);
      if (hi - lo <= delta) {
        const double w = b.w + c.w, d = c.mean - b.mean;
        const double mean = b.mean + d * (c.w / w);
        b.var_w += c.var_w + d * d * (b.w * c.w / w);
        b.mean = std::clamp(mean, lo, hi);
        b.w = w;
        b.lo = lo;
        b.hi = hi;
        continue;
      }
    }
    out.push_back(c);
  }
  l = std::move(out);
}

/// The law after one step's cases (maps only: the noise is carried as one Gaussian).
Location step_location(const Location& l, const Step& st, double delta) {
  Location out;
  out.reserve(l.size() * st.cases.size());
  for (const AffineCase& k : st.cases) {
    for (const Cluster& c : l) {
      out.push_back(Cluster{c.w * k.weight, k.slope * c.mean + k.shift,
                            k.weight * k.slope * k.slope * c.var_w, k.slope * c.lo + k.shift,
                            k.slope * c.hi + k.shift});
    }
  }
  merge_close(out, delta);
  return out;
}

void add_location(Location& acc, const Location& l, double weight) {
  for (const Cluster& c : l) {
    acc.push_back(Cluster{c.w * weight, c.mean, c.var_w * weight, c.lo, c.hi});
  }
}

/// The one slope every case of `st` has, or NaN.
double common_slope(const Step& st) {
  double a = std::numeric_limits<double>::quiet_NaN();
  for (const AffineCase& k : st.cases) {
    if (std::isnan(a)) {
      a = k.slope;
    } else if (k.slope != a) {
      return std::numeric_limits<double>::quiet_NaN();
    }
  }
  return a;
}

/// The slope every step of the scheme has under one dataset (d_prime), or NaN when the cases
/// of a step, or the steps, differ in slope.
double scheme_slope(const ChainSpec& c, bool d_prime) {
  const double in = common_slope(step_in(c, d_prime)), out = common_slope(step_out(c, d_prime));
  switch (c.scheme) {
    case BatchScheme::kFullBatch:
      return in;
    case BatchScheme::kSampleWithoutReplacement:
    case BatchScheme::kPoisson:
      return common_slope(step_sampled(c, d_prime));
    default:
      return in == out ? in : std::numeric_limits<double>::quiet_NaN();
  }
}

/// The noise-free location law of theta_T under one dataset: every scheme's mixture over what
/// the batch law does, as in evolve_pair, on clusters of atoms.
Location evolve_location(const ChainSpec& c, bool dp, double delta) {
  const Location start = {Cluster{1.0, c.init_mean, 0.0, c.init_mean, c.init_mean}};
  const Step in = step_in(c, dp), not_in = step_out(c, dp), sampled = step_sampled(c, dp);
  const long T = c.steps, m = std::max(1L, c.steps_per_epoch);
  switch (c.scheme) {
    case BatchScheme::kShufflePartition: {
      const double w = static_cast<double>(c.batch) / c.n, none = 1.0 - m * w;
      Location acc;
      for (long j = -1; j < m; ++j) {
        const double weight = j < 0 ? none : w;
        if (!(weight > 1e-15)) continue;
        Location part = start;
        for (long t = 0; t < T; ++t) part = step_location(part, (t % m == j) ? in : not_in, delta);
        add_location(acc, part, weight);
      }
      merge_close(acc, delta);
      return acc;
    }
    case BatchScheme::kShuffleEachEpoch: {
      const double w = static_cast<double>(c.batch) / c.n;
      Location pending = start, drawn;
      for (long t = 0; t < T; ++t) {
        const long i = t % m;
        if (i == 0 && t > 0) {
          add_location(pending, drawn, 1.0);
          merge_close(pending, delta);
          drawn.clear();
        }
        const double pi = 1.0 - i * w;
        const double take = pi > 0 ? std::min(1.0, w / pi) : 0.0;
        Location next_drawn = step_location(drawn, not_in, delta);
        if (take > 0) add_location(next_drawn, step_location(pending, in, delta), take);
        merge_close(next_drawn, delta);
        Location next_pending;
        if (take < 1) add_location(next_pending, step_location(pending, not_in, delta), 1 - take);
        drawn = std::move(next_drawn);
        pending = std::move(next_pending);
      }
      add_location(pending, drawn, 1.0);
      merge_close(pending, delta);
      return pending;
    }
    default: {
      Location law = start;
      for (long t = 0; t < T; ++t) {
        const Step& k = c.scheme == BatchScheme::kFullBatch ? in
                        : c.scheme == BatchScheme::kFixedOrder
                            ? ((t % m == c.differing_batch) ? in : not_in)
                            : sampled;
        law = step_location(law, k, delta);
      }
      return law;
    }
  }
}

/// Unclamped chains whose steps all have one slope a (per dataset): theta_T = L + G with L the
/// noise-free location law and G ~ N(0, a^(2T) sd0^2 + s^2 sum_k<T a^(2k)) independent of it.
bool evolve_location_pair(const ChainSpec& c, const EngineOptions& o, ChainLaws& out) {
  if (c.clamped() || !o.location_mixture) return false;
  double var[2];
  for (int dp = 0; dp < 2; ++dp) {
    const double a = scheme_slope(c, dp == 1);
    if (!(a > 0)) return false;
    double v = c.init_std * c.init_std;
    for (long t = 0; t < c.steps; ++t) v = a * a * v + c.step_std * c.step_std;
    var[dp] = v;
  }
  const double sd_min = std::sqrt(std::min(var[0], var[1]));
  const double sd_max = std::sqrt(std::max(var[0], var[1]));
  const double h = sd_min / o.cells_per_sd, delta = o.cluster_cells * h;
  Location loc[2] = {evolve_location(c, false, delta), evolve_location(c, true, delta)};
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const Location& l : loc) {
    for (const Cluster& k : l) {
      lo = std::min(lo, k.lo);
      hi = std::max(hi, k.hi);
    }
  }
  lo -= o.grid_sds * sd_max;
  hi += o.grid_sds * sd_max;
  const int cells = std::max(1, static_cast<int>(std::ceil((hi - lo) / h)));
  hi = lo + cells * h;
  CellLaw shape;
  shape.lo = lo;
  shape.hi = hi;
  shape.cells = cells;
  shape.clamped = false;
  for (int dp = 0; dp < 2; ++dp) {
    CellLaw before = empty_like(shape);
    before.total = 1.0;
    for (const Cluster& k : loc[dp]) {
      const double centre = 0.5 * (k.lo + k.hi), d = k.mean - centre;
      const double moment = k.w * d, second = k.var_w + k.w * d * d;
      before.blobs.push_back(
          Blob{centre, 0.5 * (k.hi - k.lo), {k.w, k.w}, {moment, moment}, {second, second}});
    }
    const Step last_step{{AffineCase{1.0, 1.0, 0.0}}, std::sqrt(var[dp]), {}};
    ExactLaw& result = dp == 1 ? out.dprime : out.d;
    result.last = propagate(before, last_step, o.renyi.propagate);
    tighten(result.last);
    result.parts = {FinalPart{1.0, std::move(before), last_step}};
  }
  return true;
}

}  // namespace

namespace {

/// d > 1: the axis along which the pair differs, when every other axis evolves the same way
/// under D and D' and independently of that axis (then those coordinates have one law under
/// both datasets, independent of the axis's coordinate, and cancel from R_alpha); otherwise
/// -1 with `why`. Holds when nothing couples the axes (no projection onto a ball; the
/// quadratic's curvature is isotropic) and, on every other axis, every record has one value
/// (so the batch drawn does not change that coordinate's update): then given the batches the
/// coordinates are independent and the other axes' updates do not depend on the batches at
/// all. Poisson's batch size changes the update of a nonzero common value (and the quadratic's
/// contraction), and a crafted record changes the batch's count of loss records: there the
/// common value must be 0 and the loss linear.
int differing_axis(const config::Scenario& s, std::string& why) {
  const auto& data = s.data;
  const int d = s.dim, n = data.n(), i0 = data.differing_index;
  if (n < 1 || data.points.cols() != d || data.replacement.size() != d || i0 < 0 || i0 >= n) {
    why = "the neighbouring pair does not have model.dim coordinates";
    return -1;
  }
  if (d == 1) return 0;
  if (std::isfinite(s.projection_diameter)) {
    why =
        "model.dim > 1 with a projection: the projection onto a ball couples the axes (the "
        "exact engine evolves one-dimensional iterates)";
    return -1;
  }
  const bool poisson = s.scheme == BatchScheme::kPoisson;
  if (data.crafted && s.loss != LossKind::kLinear) {
    why =
        "model.dim > 1 with a crafted record and the quadratic loss: the record changes every "
        "axis's contraction (the exact engine evolves one-dimensional iterates)";
    return -1;
  }
  if (poisson && s.loss == LossKind::kQuadratic) {
    why =
        "model.dim > 1 with Poisson sampling and the quadratic loss: the batch size contracts "
        "every axis (the exact engine evolves one-dimensional iterates)";
    return -1;
  }
  int axis = -1;
  for (int j = 0; j < d; ++j) {
    const bool differs = data.crafted ? (data.crafted_gradient.cols() == d &&
                                         (data.crafted_gradient.col(j).array() != 0.0).any())
                                      : data.points(i0, j) != data.replacement(j);
    if (!differs) continue;
    if (axis >= 0) {
      why =
          "the pair differs along more than one axis (the exact engine evolves "
          "one-dimensional iterates)";
      return -1;
    }
    axis = j;
  }
  if (axis < 0) axis = 0;
  for (int j = 0; j < d; ++j) {
    if (j == axis) continue;
    // a crafted record's rows of points and replacement are zeros (it has no loss)
    const double common = data.crafted ? 0.0 : data.replacement(j);
    bool one_value = (data.crafted || poisson) ? common == 0.0 : true;
    for (int i = 0; i < n && one_value; ++i) {
      if (i == i0 && data.crafted) continue;
      one_value = data.points(i, j) == common;
    }
    if (!one_value) {
      why = "model.dim > 1: on axis " + std::to_string(j) +
            " the records differ (or, under Poisson or with a crafted record, are not 0), so "
            "that coordinate depends on the batches drawn (the exact engine evolves "
            "one-dimensional iterates)";
      return -1;
    }
  }
  return axis;
}

}  // namespace

std::optional<ChainSpec> chain_from_scenario(const config::Scenario& s, std::string& why) {
  if (s.loss == LossKind::kLogistic) {
    why =
        "the exact engine covers the quadratic and linear losses (affine updates) and gradient "
        "formulas";
    return std::nullopt;
  }
  const auto& data = s.data;
  const int n = data.n(), i0 = data.differing_index;
  const int axis = differing_axis(s, why);
  if (axis < 0) return std::nullopt;
  ChainSpec c;
  c.loss = s.loss;
  c.lambda = s.loss == LossKind::kQuadratic ? s.lambda : 0.0;
  c.eta = s.eta;
  c.step_std = s.step_std;
  if (std::isfinite(s.projection_diameter)) {  // d = 1 only (differing_axis)
    const double centre = s.projection_center.size() > 0 ? s.projection_center(0) : 0.0;
    c.clamp_lo = centre - 0.5 * s.projection_diameter;
    c.clamp_hi = centre + 0.5 * s.projection_diameter;
  }
  c.init_mean = s.init_mean.size() > axis ? s.init_mean(axis) : 0.0;
  c.init_std = s.init_std;
  bool have_background = false;
  for (int i = 0; i < n; ++i) {
    if (i == i0) continue;
    const double v = data.points(i, axis);
    if (!have_background) {
      c.background = v;
      have_background = true;
    } else if (v != c.background) {
      why =
          "the other records differ from one another (not interchangeable): the batch law "
          "does not reduce to the differing record's inclusion";
      return std::nullopt;
    }
  }
  if (data.crafted) {
    if (!data.crafted_constant() || data.crafted_gradient.cols() != s.dim) {
      why = "the crafted gradient changes over the steps (not yet covered by the exact engine)";
      return std::nullopt;
    }
    c.crafted = true;
    c.record_d = data.crafted_gradient(0, axis);
    c.record_dprime = 0.0;
  } else {
    c.record_d = data.points(i0, axis);
    c.record_dprime = data.replacement(axis);
  }
  c.n = n;
  if (s.loss == LossKind::kGradientFormula && !detail::prepare_formula(c, s.gradient_formula, why))
    return std::nullopt;
  c.batch = s.batch_size;
  c.scheme = s.scheme;
  if (s.scheme == BatchScheme::kRandomAllocation) {
    // Random allocation puts the differing record in a uniform step of each epoch of t = n/b
    // steps, independently per epoch: the law of shuffle_each_epoch's batch index for it
    // (w = b/n = 1/t). The other records' number per step is random, so the steps match only
    // where they add nothing to any step: the linear loss on background rows of zero.
    if (s.loss != LossKind::kLinear || c.background != 0.0) {
      why =
          "random_allocation: the exact engine needs the other records to add nothing to a "
          "step (linear loss, other records zero); their number per step is random";
      return std::nullopt;
    }
    c.scheme = BatchScheme::kShuffleEachEpoch;
  }
  c.steps = s.steps;
  c.steps_per_epoch = s.steps_per_epoch;
  c.differing_batch = std::max(0, s.differing_batch);
  c.sampling_rate = s.sampling_rate;
  if (!(c.step_std > 0) || c.steps < 1) {
    why = "no noise or no step";
    return std::nullopt;
  }
  for (bool dp : {false, true}) {
    for (const Step& st : {step_in(c, dp), step_out(c, dp), step_sampled(c, dp)}) {
      for (const AffineCase& k : st.cases) {
        if (!(k.slope > 0)) {
          why =
              "an update contracts past zero (eta lambda |B| / b >= 1): the map is not increasing";
          return std::nullopt;
        }
      }
    }
  }
  return c;
}

void grid_interval(const ChainSpec& c, const EngineOptions& o, double& lo, double& hi,
                   double max_cells) {
  if (c.clamped()) {
    lo = c.clamp_lo;
    hi = c.clamp_hi;
    return;
  }
  const double h = c.step_std / o.cells_per_sd;
  double m_lo = c.init_mean, m_hi = c.init_mean, var = c.init_std * c.init_std;
  lo = m_lo - o.grid_sds * std::sqrt(var);
  hi = m_hi + o.grid_sds * std::sqrt(var);
  std::vector<AffineCase> every;
  for (bool dp : {false, true}) {
    for (const Step& st : {step_in(c, dp), step_out(c, dp), step_sampled(c, dp)}) {
      every.insert(every.end(), st.cases.begin(), st.cases.end());
    }
  }
  for (long t = 0; t < c.steps; ++t) {
    double nlo = std::numeric_limits<double>::infinity(), nhi = -nlo, amax = 0;
    for (const AffineCase& k : every) {
      nlo = std::min(nlo, k.slope * m_lo + k.shift);
      nhi = std::max(nhi, k.slope * m_hi + k.shift);
      amax = std::max(amax, k.slope);
    }
    m_lo = nlo;
    m_hi = nhi;
    var = amax * amax * var + c.step_std * c.step_std;
    lo = std::min(lo, m_lo - o.grid_sds * std::sqrt(var));
    hi = std::max(hi, m_hi + o.grid_sds * std::sqrt(var));
    if ((hi - lo) / h > max_cells) return;
  }
}

bool uses_location_mixture(const ChainSpec& c, const EngineOptions& o) {
  return !c.clamped() && o.location_mixture && scheme_slope(c, false) > 0 &&
         scheme_slope(c, true) > 0;
}

namespace {

/// Whether D''s chain is D's reflected about 0 (x -> -x): the grid [lo, hi] symmetric, theta_0
/// centred, and every step of D' the reflection of D's (the same weights, slopes and noise,
/// the shifts negated, no map cases). Then the law of theta_t under D' is the reflection of
/// that under D at every t, since the noise and the projection are symmetric.
bool mirrored_pair(const ChainSpec& c, double lo, double hi) {
  if (!(lo == -hi) || c.init_mean != 0) return false;
  const auto mirrors = [](const Step& a, const Step& b) {
    if (!a.maps.empty() || !b.maps.empty() || a.noise_std != b.noise_std ||
        a.cases.size() != b.cases.size())
      return false;
    for (std::size_t i = 0; i < a.cases.size(); ++i) {
      const AffineCase &x = a.cases[i], &y = b.cases[i];
      if (x.weight != y.weight || x.slope != y.slope || x.shift != -y.shift) return false;
    }
    return true;
  };
  return mirrors(step_in(c, false), step_in(c, true)) &&
         mirrors(step_out(c, false), step_out(c, true)) &&
         mirrors(step_sampled(c, false), step_sampled(c, true));
}

/// The reflection about 0 of a law on a grid [-a, a]: cell k <-> cell N - 1 - k, the moments
/// about the centres negated, the atoms at the ends exchanged.
CellLaw reflected(const CellLaw& law) {
  CellLaw r = law;
  const auto n = static_cast<std::size_t>(law.cells);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t m = n - 1 - k;
    r.mass_lo[k] = law.mass_lo[m];
    r.mass_hi[k] = law.mass_hi[m];
    r.moment_lo[k] = -law.moment_hi[m];
    r.moment_hi[k] = -law.moment_lo[m];
    r.second_lo[k] = law.second_lo[m];
    r.second_hi[k] = law.second_hi[m];
  }
  for (PointMass& p : r.points) p.x = -p.x;
  if (law.clamped) std::swap(r.points[0], r.points[1]);  // points[0] stays at lo
  for (Blob& b : r.blobs) {
    b.centre = -b.centre;
    b.moment = {-b.moment.hi, -b.moment.lo};
  }
  return r;
}

Step reflected(Step st) {
  for (AffineCase& k : st.cases) k.shift = -k.shift;
  return st;
}

}  // namespace

ChainLaws evolve_pair(const ChainSpec& c, const EngineOptions& o) {
  if (c.steps < 1 || !(c.step_std > 0))
    throw InternalError("evolve_pair: steps >= 1, step_std > 0");
  // the map cases' coefficients serve this chain's steps only (their keys hold its grid)
  struct Release {
    ~Release() { detail::release_map_coefficients(); }
  } release;
  {
    ChainLaws exact_location;
    if (evolve_location_pair(c, o, exact_location)) return exact_location;
  }
  double lo = 0, hi = 0;
  int cells = 1;
  choose_grid(c, o, lo, hi, cells);
  const PropagateOptions& po = o.renyi.propagate;
  ChainLaws out;
  const bool mirror = po.mirror && mirrored_pair(c, lo, hi);
  for (bool dp : {false, true}) {
    ExactLaw& result = dp ? out.dprime : out.d;
    if (dp && mirror) {
      // D' is D reflected: its law's brackets are D's reflected (the same certificate)
      result.last = reflected(out.d.last);
      for (const FinalPart& f : out.d.parts)
        result.parts.push_back(FinalPart{f.weight, reflected(f.before), reflected(f.step)});
      break;
    }
    const CellLaw start = initial_law(lo, hi, cells, c.clamped(), c.init_mean, c.init_std);
    const Step in = step_in(c, dp), not_in = step_out(c, dp), sampled = step_sampled(c, dp);
    const long T = c.steps, m = std::max(1L, c.steps_per_epoch);
    switch (c.scheme) {
      case BatchScheme::kFullBatch:
      case BatchScheme::kSampleWithoutReplacement:
      case BatchScheme::kPoisson:
      case BatchScheme::kFixedOrder: {
        // one chain: every step the same kernel, or the fixed order's schedule
        CellLaw law = start;
        const auto kernel = [&](long t) -> const Step& {
          if (c.scheme == BatchScheme::kFullBatch) return in;
          if (c.scheme == BatchScheme::kFixedOrder)
            return (t % m == c.differing_batch) ? in : not_in;
          return sampled;
        };
        for (long t = 0; t < T; ++t) {
          if (t == T - 1) result.parts = {FinalPart{1.0, law, kernel(t)}};
          law = propagate(law, kernel(t), po);
        }
        result.last = law;
        break;
      }
      case BatchScheme::kShufflePartition: {
        // one random partition for all epochs: a mixture over the differing record's batch j
        // (probability b / n each), or no batch (n - m b records are left out)
        const double w = static_cast<double>(c.batch) / c.n, none = 1.0 - m * w;
        result.last = empty_like(start);
        for (long j = -1; j < m; ++j) {
          const double weight = j < 0 ? none : w;
          if (!(weight > 1e-15)) continue;
          CellLaw law = start;
          for (long t = 0; t < T; ++t) {
            const Step& k = (t % m == j) ? in : not_in;
            if (t == T - 1) result.parts.push_back(FinalPart{weight, law, k});
            law = propagate(law, k, po);
          }
          add_scaled(result.last, law, weight);
        }
        break;
      }
      case BatchScheme::kShuffleEachEpoch:
      case BatchScheme::kRandomAllocation: {  // chain_from_scenario: as shuffle_each_epoch
        // a fresh partition each epoch: within an epoch, `drawn` is the part of the law whose
        // record has had its batch (sub-probability), `pending` the part still waiting
        const double w = static_cast<double>(c.batch) / c.n;
        CellLaw pending = start, drawn = empty_like(start);
        for (long t = 0; t < T; ++t) {
          const long i = t % m;
          if (i == 0 && t > 0) {
            add_scaled(pending, drawn, 1.0);
            drawn = empty_like(start);
          }
          const double pi = 1.0 - i * w;  // the pending part's total
          const double take = pi > 0 ? std::min(1.0, w / pi) : 0.0;
          if (t == T - 1) {
            result.parts.clear();
            if (drawn.total > 0) result.parts.push_back(FinalPart{1.0, drawn, not_in});
            if (take > 0) result.parts.push_back(FinalPart{take, pending, in});
            if (take < 1) result.parts.push_back(FinalPart{1.0 - take, pending, not_in});
          }
          CellLaw next_drawn = drawn.total > 0 ? propagate(drawn, not_in, po) : empty_like(start);
          if (take > 0) add_scaled(next_drawn, propagate(pending, in, po), take);
          CellLaw next_pending = empty_like(start);
          if (take < 1) add_scaled(next_pending, propagate(pending, not_in, po), 1.0 - take);
          drawn = std::move(next_drawn);
          pending = std::move(next_pending);
        }
        result.last = empty_like(start);
        add_scaled(result.last, drawn, 1.0);
        add_scaled(result.last, pending, 1.0);
        break;
      }
    }
    tighten(result.last);
  }
  return out;
}

}  // namespace rdpaudit::exact
