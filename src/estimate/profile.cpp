#include "rdpaudit/estimate/profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "rdpaudit/core/error.hpp"
#include "rdpaudit/estimate/confidence.hpp"
#include "rdpaudit/estimate/numeric.hpp"

namespace rdpaudit::estimate {

namespace {

/// Bounds of one set's probabilities under the first law (numerator) and the second.
struct SetBounds {
  double first_lo, second_hi;
  double first_hat, second_hat;  ///< frequencies (plug-in)
};

/// The K sets of the family in `direction`, with their bounds at family miss `miss`: cut k's
/// set F_k (the side the pilot saw more of P in) for kForward, its complement for kBackward.
/// Two one-sided ends per cut, P(F_k) >= lo and P'(F_k) <= hi, each missing with probability
/// miss / (2K); the complement's bounds are 1 minus them. miss <= 0: frequencies only.
/// `family`: the K of the Bonferroni split (c.cuts.size() unless c is a subfamily of it).
std::vector<SetBounds> set_bounds(const ProfileCounts& c, int direction, double miss,
                                  std::size_t family = 0) {
  std::vector<SetBounds> out;
  if (c.n_p == 0 || c.n_q == 0) return out;
  const double np = static_cast<double>(c.n_p), nq = static_cast<double>(c.n_q);
  // A two-sided interval at 2 x (one-sided miss) has the one-sided ends wanted.
  const double cuts = static_cast<double>(family > 0 ? family : c.cuts.size());
  const double two_sided = miss > 0.0 ? miss / cuts : 0.0;
  for (std::size_t k = 0; k < c.cuts.size(); ++k) {
    const bool below = c.forward_below[k];
    // Counts in F_k.
    const double kp = static_cast<double>(below ? c.p[k] : c.n_p - c.p[k]);
    const double kq = static_cast<double>(below ? c.q[k] : c.n_q - c.q[k]);
    double p_lo = kp / np, q_hi = kq / nq;
    if (miss > 0.0) {
      p_lo = clopper_pearson(kp, np, two_sided).lower;
      q_hi = clopper_pearson(kq, nq, two_sided).upper;
    }
    if (direction == kForward) {
      out.push_back({p_lo, q_hi, kp / np, kq / nq});
    } else {  // numerator P' on the complement of F_k
      out.push_back({1.0 - q_hi, 1.0 - p_lo, 1.0 - kq / nq, 1.0 - kp / np});
    }
  }
  return out;
}

double delta_of(const std::vector<SetBounds>& sets, double epsilon, bool plugin) {
  const double scale = std::exp(epsilon);
  double best = 0.0;
  for (const SetBounds& s : sets) {
    const double d = plugin ? s.first_hat - scale * s.second_hat : s.first_lo - scale * s.second_hi;
    best = std::max(best, d);
  }
  return best;
}

double epsilon_of(const std::vector<SetBounds>& sets, double delta, bool plugin) {
  double best = 0.0;  // eps(delta) >= 0 by definition
  for (const SetBounds& s : sets) {
    const double a = plugin ? s.first_hat : s.first_lo, b = plugin ? s.second_hat : s.second_hi;
    if (a > delta && b > 0.0) best = std::max(best, std::log((a - delta) / b));
  }
  return best;
}

void check_miss(double miss) {
  if (!(miss > 0.0 && miss <= 1.0))
    throw InternalError("profile family miss", fmt::format("{}", miss), "must be in (0, 1]");
}

}  // namespace

std::vector<std::size_t> profile_cut_edges(const ScoreSelection& selection) {
  const std::size_t m = selection.fine_edges.size();
  const auto& sp = selection.selection.p;
  const auto& sq = selection.selection.q;
  if (m == 0 || sp.size() != m + 1 || sq.size() != m + 1) return {};
  // below[e]: pooled pilot rows with score < fine_edges[e] (cells 0..e).
  std::vector<double> below(m);
  double run = 0.0;
  for (std::size_t e = 0; e < m; ++e) {
    run += static_cast<double>(sp[e] + sq[e]);
    below[e] = run;
  }
  const double total = run + static_cast<double>(sp[m] + sq[m]);
  std::vector<std::size_t> cuts;
  // From each end, the outermost edge, then an edge whenever the pooled pilot tail beyond it
  // has grown by sqrt 2 since the last one kept, up to the median.
  const double ratio = std::sqrt(2.0);
  double target = 0.0;
  for (std::size_t e = 0; e < m && below[e] <= 0.5 * total; ++e) {
    if (below[e] >= target) {
      cuts.push_back(e);
      target = std::max(1.0, below[e]) * ratio;
    }
  }
  target = 0.0;
  for (std::size_t e = m; e-- > 0 && total - below[e] < 0.5 * total;) {
    if (total - below[e] >= target) {
      cuts.push_back(e);
      target = std::max(1.0, total - below[e]) * ratio;
    }
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  return cuts;
}

ProfileCounts profile_counts(const ScoreSelection& selection,
                             const std::vector<std::uint64_t>& counts_p,
                             const std::vector<std::uint64_t>& counts_q) {
  const std::size_t cells = selection.edges.size() + 1;
  if (counts_p.size() != cells || counts_q.size() != cells) {
    throw InternalError("estimate.counts",
                        std::to_string(counts_p.size()) + " and " + std::to_string(counts_q.size()),
                        std::to_string(cells) + " cells, those of the selection");
  }
  ProfileCounts out;
  out.method = selection.prefix + "profile-cp";
  for (std::uint64_t x : counts_p) out.n_p += x;
  for (std::uint64_t x : counts_q) out.n_q += x;
  // Cumulative counts over the counted cells: cell i = [edges[i-1], edges[i]).
  std::vector<std::uint64_t> cum_p(cells), cum_q(cells);
  std::uint64_t rp = 0, rq = 0;
  for (std::size_t i = 0; i < cells; ++i) {
    cum_p[i] = rp += counts_p[i];
    cum_q[i] = rq += counts_q[i];
  }
  for (std::size_t e : profile_cut_edges(selection)) {
    const double c = selection.fine_edges[e];
    // fine_edges is a subset of edges: {score < c} is counted cells 0..k with edges[k] = c.
    const auto it = std::lower_bound(selection.edges.begin(), selection.edges.end(), c);
    if (it == selection.edges.end() || *it != c) continue;  // cannot happen: a subset
    const auto k = static_cast<std::size_t>(it - selection.edges.begin());
    out.cuts.push_back(c);
    out.p.push_back(cum_p[k]);
    out.q.push_back(cum_q[k]);
    // Orientation from the pilot alone: F = {score < c} if the pilot had more of P there.
    std::uint64_t sp = 0, sq = 0;
    for (std::size_t i = 0; i <= e; ++i)
      sp += selection.selection.p[i], sq += selection.selection.q[i];
    out.forward_below.push_back(sp >= sq);
  }
  return out;
}

double profile_delta_lower(const ProfileCounts& c, double epsilon, int direction,
                           double family_miss) {
  check_miss(family_miss);
  return delta_of(set_bounds(c, direction, family_miss), epsilon, false);
}

double profile_epsilon_lower(const ProfileCounts& c, double delta, int direction,
                             double family_miss) {
  check_miss(family_miss);
  return epsilon_of(set_bounds(c, direction, family_miss), delta, false);
}

std::vector<CertifiedSet> profile_certified_sets(const ProfileCounts& c, double family_miss) {
  check_miss(family_miss);
  std::vector<CertifiedSet> out;
  for (const SetBounds& s : set_bounds(c, kForward, family_miss))
    out.push_back({s.first_lo, s.second_hi});
  return out;
}

std::vector<CertifiedSet> profile_plugin_sets(const ProfileCounts& c) {
  std::vector<CertifiedSet> out;
  for (const SetBounds& s : set_bounds(c, kForward, 0.0))
    out.push_back({s.first_hat, s.second_hat});
  return out;
}

double profile_delta_plugin(const ProfileCounts& c, double epsilon, int direction) {
  return delta_of(set_bounds(c, direction, 0.0), epsilon, true);
}

double profile_epsilon_plugin(const ProfileCounts& c, double delta, int direction) {
  return epsilon_of(set_bounds(c, direction, 0.0), delta, true);
}

double profile_p_value(const ProfileCounts& c, double delta, int direction, double epsilon) {
  // Only cuts whose plug-in exceeds delta can: each one-sided miss is at most 1/2, where the
  // Clopper-Pearson ends lie on either side of the frequency (P_lo <= P-hat, P'_hi >= P'-hat).
  // The Bonferroni split stays over all K cuts.
  ProfileCounts live = c;
  live.cuts.clear(), live.p.clear(), live.q.clear(), live.forward_below.clear();
  const auto plugin = set_bounds(c, direction, 0.0);
  for (std::size_t k = 0; k < c.cuts.size(); ++k) {
    if (plugin[k].first_hat - std::exp(epsilon) * plugin[k].second_hat <= delta) continue;
    live.cuts.push_back(c.cuts[k]);
    live.p.push_back(c.p[k]);
    live.q.push_back(c.q[k]);
    live.forward_below.push_back(c.forward_below[k]);
  }
  // eps_lo(delta) > epsilon  <=>  some set has P_lo - e^epsilon P'_hi > delta.
  const auto exceeds = [&](double miss) {
    for (const SetBounds& s : set_bounds(live, direction, miss, c.cuts.size())) {
      if (s.first_lo - std::exp(epsilon) * s.second_hi > delta) return true;
    }
    return false;
  };
  if (live.cuts.empty()) return 1.0;
  return bisect_p_value(exceeds);
}

std::vector<ProfileEstimate> profile_estimates(const ProfileCounts& c,
                                               const std::vector<double>& epsilons,
                                               const std::vector<double>& deltas,
                                               double confidence) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<ProfileEstimate> out;
  for (int d : {kForward, kBackward}) {
    ProfileEstimate e;
    e.method = c.method;
    e.direction = d;
    e.interval = fmt::format(
        "one-sided Clopper-Pearson, {:g} family-wise over every eps, delta, both directions",
        confidence);
    e.epsilons = epsilons;
    e.deltas = deltas;
    const auto certified = set_bounds(c, d, 1.0 - confidence);
    const auto plugin = set_bounds(c, d, 0.0);
    for (double eps : epsilons) {
      e.delta_value.push_back(delta_of(plugin, eps, true));
      e.delta_lower.push_back(delta_of(certified, eps, false));
      e.delta_upper.push_back(kInf);
    }
    for (double delta : deltas) {
      e.epsilon_value.push_back(epsilon_of(plugin, delta, true));
      e.epsilon_lower.push_back(epsilon_of(certified, delta, false));
      e.epsilon_upper.push_back(kInf);
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace rdpaudit::estimate
