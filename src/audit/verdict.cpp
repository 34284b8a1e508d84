#include "rdpaudit/audit/verdict.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>

#include "rdpaudit/bounds/bounds.hpp"
#include "rdpaudit/bounds/conversion.hpp"
#include "rdpaudit/bounds/custom.hpp"
#include "rdpaudit/bounds/scenario.hpp"
#include "rdpaudit/config/profile.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/estimate/rigorous.hpp"

namespace rdpaudit::audit {

namespace {

constexpr const char* kVerdictNames[kVerdictCount] = {"violated (exact)", "violated",
                                                      "not rejected",     "valid (exact)",
                                                      "inconclusive",     "not applicable"};

bool same_alpha(double a, double b) {
  return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(a));
}

const estimate::Estimate* find(const std::vector<estimate::Estimate>& all,
                               const std::string& method, double alpha, int direction) {
  for (const auto& e : all) {
    if (e.method == method && e.direction == direction && same_alpha(e.alpha, alpha)) return &e;
  }
  return nullptr;
}

// The preferred informative point estimate at (alpha, direction): exact, then Rao-Blackwell,
// then the plug-ins (config::row_kind gives the order).
const estimate::Estimate* best_point(const std::vector<estimate::Estimate>& all, double alpha,
                                     int direction) {
  const estimate::Estimate* best = nullptr;
  int rank = 0;
  for (const auto& e : all) {
    if (e.direction != direction || !same_alpha(e.alpha, alpha) || !e.informative) continue;
    const int r = config::row_kind(e.method).point_preference;
    if (r >= 0 && (!best || r < rank)) best = &e, rank = r;
  }
  return best;
}

std::string direction_text(int d) {
  return d == estimate::kForward ? "R(P||P')" : "R(P'||P)";
}

// Where a cell is: "alpha 2, R(P||P')" or "delta 1e-05, eps(P||P')".
std::string cell_text(const Cell& c) {
  if (c.is_claim())
    return fmt::format("delta {:g}, {}", c.delta,
                       c.direction == estimate::kForward ? "eps(P||P')" : "eps(P'||P)");
  return fmt::format("alpha {:g}, {}", c.alpha, direction_text(c.direction));
}

}  // namespace

std::string order_text(const Cell& c) {
  return c.is_claim() ? fmt::format("d={:g}", c.delta) : fmt::format("{:g}", c.alpha);
}

std::string_view to_string(Verdict v) {
  return kVerdictNames[static_cast<int>(v)];
}

Verdict parse_verdict(std::string_view text, const std::string& key) {
  for (int i = 0; i < kVerdictCount; ++i) {
    if (text == kVerdictNames[i]) return static_cast<Verdict>(i);
  }
  throw InputError(key, std::string(text).substr(0, 80),
                   "one of violated (exact), violated, not rejected, valid (exact), "
                   "inconclusive, not applicable");
}

bool is_violation(Verdict v) {
  return v == Verdict::kViolatedExact || v == Verdict::kViolated;
}

BoundTable audited_bounds(const config::Scenario& s) {
  BoundTable t;
  t.alphas = s.bounds.alphas.empty() ? bounds::default_table_alphas() : s.bounds.alphas;
  const bounds::ScenarioBounds sb = bounds::bounds_of(s);
  const std::vector<bounds::BoundValue> values = bounds::evaluate_scenario(sb, t.alphas);
  const auto& audit = s.bounds.audit;
  const std::size_t a_count = t.alphas.size();
  for (std::size_t i = 0; i < values.size(); i += a_count) {
    const bounds::BoundValue& first = values[i];
    if (!audit.empty() && std::find(audit.begin(), audit.end(), first.name) == audit.end())
      continue;
    t.names.push_back(first.name);
    t.kinds.emplace_back(bounds::kind_name(first.kind));
    t.sources.push_back(first.source);
    bool expect = std::find(s.bounds.expect_violated.begin(), s.bounds.expect_violated.end(),
                            first.name) != s.bounds.expect_violated.end();
    for (const auto& c : s.bounds.custom) {
      if (c.name == first.name) expect = c.expect_violated;
    }
    t.expect_violated.push_back(expect);
    std::string reason;
    for (std::size_t k = 0; k < a_count; ++k) {
      const bounds::BoundValue& v = values[i + k];
      t.values.push_back(v.applicable() ? *v.value : kNaN);
      if (!v.applicable() && reason.empty()) reason = v.not_applicable;
    }
    t.reasons.push_back(reason);
  }
  return t;
}

ClaimTable audited_claims(const config::Scenario& s, const BoundTable& renyi) {
  ClaimTable t;
  const config::ProfileSpec& spec = s.profile;
  if (!spec.enabled) return t;
  t.deltas = spec.deltas;
  const auto expected = [&](const std::string& name) {
    return std::find(spec.expect_violated.begin(), spec.expect_violated.end(), name) !=
           spec.expect_violated.end();
  };
  for (std::size_t b = 0; spec.conversions && b < renyi.names.size(); ++b) {
    // Orders where the bound applies; a negative value (itself violated exactly) is no
    // Renyi bound to convert.
    std::vector<double> alphas, rdp;
    for (std::size_t a = 0; a < renyi.alphas.size(); ++a) {
      const double v = renyi.value(b, a);
      if (v >= 0.0) alphas.push_back(renyi.alphas[a]), rdp.push_back(v);
    }
    t.names.push_back(config::conversion_name(renyi.names[b]));
    t.kinds.emplace_back("conversion");
    t.sources.push_back("Canonne, Kamath & Steinke 2020, Prop. 12, of " + renyi.names[b]);
    t.expect_violated.push_back(expected(t.names.back()));
    t.reasons.push_back(alphas.empty() ? "the Renyi bound applies at no audited order (" +
                                             renyi.reasons[b] + ")"
                                       : std::string());
    for (double delta : t.deltas) {
      t.values.push_back(alphas.empty() ? kNaN
                                        : bounds::epsilon_improved(alphas, rdp, delta).epsilon);
    }
  }
  const bounds::ScenarioBounds sb = bounds::bounds_of(s);
  for (const config::ClaimText& c : spec.claims) {
    t.names.push_back(c.name);
    t.kinds.emplace_back("claim");
    t.sources.push_back(c.formula.empty() ? "claimed eps at each delta" : "formula " + c.formula);
    t.expect_violated.push_back(c.expect_violated);
    t.reasons.emplace_back();
    std::unique_ptr<bounds::ClaimFormula> f;
    if (!c.formula.empty()) f = std::make_unique<bounds::ClaimFormula>(c.name, c.formula);
    for (std::size_t d = 0; d < t.deltas.size(); ++d)
      t.values.push_back(f ? f->evaluate(sb.params, t.deltas[d]) : c.epsilons[d]);
  }
  return t;
}

std::int64_t AuditResult::violated_cells() const {
  return std::count_if(cells.begin(), cells.end(),
                       [](const Cell& c) { return is_violation(c.verdict); });
}

std::int64_t AuditResult::count(Verdict v) const {
  return std::count_if(cells.begin(), cells.end(), [v](const Cell& c) { return c.verdict == v; });
}

std::int64_t AuditResult::unexpected() const {
  return std::count_if(bounds.begin(), bounds.end(),
                       [](const BoundRow& b) { return !b.as_expected; });
}

void summarise(BoundRow& row, std::size_t row_index, const std::vector<Cell>& cells) {
  std::fill(std::begin(row.counts), std::end(row.counts), 0);
  row.close_cells = 0;
  row.min_margin = kNaN;
  for (const Cell& c : cells) {
    if (c.bound != row_index) continue;
    ++row.counts[static_cast<int>(c.verdict)];
    if (c.verdict != Verdict::kNotRejected) continue;
    if (c.close) ++row.close_cells;
    if (!(row.min_margin <= c.tightness_lower)) row.min_margin = c.tightness_lower;
  }
  const auto n = [&](Verdict v) { return row.counts[static_cast<int>(v)]; };
  const std::int64_t applicable =
      std::accumulate(std::begin(row.counts), std::end(row.counts), std::int64_t{0}) -
      n(Verdict::kNotApplicable);
  if (n(Verdict::kViolatedExact) > 0)
    row.outcome = Verdict::kViolatedExact;
  else if (n(Verdict::kViolated) > 0)
    row.outcome = Verdict::kViolated;
  else if (applicable > 0 && n(Verdict::kValidExact) == applicable)
    row.outcome = Verdict::kValidExact;
  else if (n(Verdict::kNotRejected) + n(Verdict::kValidExact) > 0)
    row.outcome = Verdict::kNotRejected;
  else if (n(Verdict::kInconclusive) > 0)
    row.outcome = Verdict::kInconclusive;
  else
    row.outcome = Verdict::kNotApplicable;
  row.as_expected = row.expect_violated == is_violation(row.outcome);
}

void holm_adjust(std::vector<Cell>& cells) {
  std::vector<std::size_t> tested;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    cells[i].p_holm = 1.0;
    if (cells[i].tested) tested.push_back(i);
  }
  // Ties broken by position, so the adjustment is a deterministic function of the cells.
  std::stable_sort(tested.begin(), tested.end(), [&](std::size_t a, std::size_t b) {
    return cells[a].p_value < cells[b].p_value;
  });
  const double m = static_cast<double>(tested.size());
  double running = 0.0;  // adjusted p-values are the running maximum of (m - j) p_(j)
  for (std::size_t j = 0; j < tested.size(); ++j) {
    Cell& c = cells[tested[j]];
    running = std::max(running, std::min(1.0, (m - static_cast<double>(j)) * c.p_value));
    c.p_holm = running;
  }
}

bool is_decided(const Cell& c, double margin) {
  switch (c.verdict) {
    case Verdict::kViolatedExact:
    case Verdict::kViolated:
    case Verdict::kValidExact:
    case Verdict::kNotApplicable:
      return true;
    case Verdict::kNotRejected:
      return c.tightness_estimate >= margin;
    case Verdict::kInconclusive:
      return false;
  }
  return false;
}

void decide(Cell& c, double level) {
  if (!std::isnan(c.bound_value)) {
    if (!std::isnan(c.estimate) && c.estimate > 0.0)
      c.tightness_estimate = c.bound_value / c.estimate;
    if (c.tested)
      c.tightness_lower =
          c.lower > 0.0 ? c.bound_value / c.lower : std::numeric_limits<double>::infinity();
  }
  // Not applicable, or +infinity: decided when the cell was made.
  if (!std::isfinite(c.bound_value)) return;
  const bool rejected = c.tested && c.p_holm <= level;
  // Rounding of both the bound and the quadrature: a relative 1e-9 is no evidence either way.
  const double tol = 1e-9 * std::fabs(c.bound_value);
  const std::string what = c.is_claim() ? "eps(delta)" : "R_alpha";
  const std::string how = c.is_claim() ? "exact profile" : "quadrature";
  if (c.bound_value < 0.0) {
    c.verdict = Verdict::kViolatedExact;
    c.note = fmt::format("the bound is negative, and {} >= 0 always", what);
  } else if (c.exact_lower > c.bound_value + tol) {
    c.verdict = Verdict::kViolatedExact;
    c.note = fmt::format(rejected ? "the exact {} ({}) exceeds the bound; the samples show it too"
                                  : "the exact {} ({}) exceeds the bound; the samples alone do "
                                    "not show it at the run's level",
                         what, how);
  } else if (c.exact_upper <= c.bound_value + tol) {
    c.verdict = Verdict::kValidExact;
    if (rejected) {
      c.note = fmt::format(
          "the samples reject it (Holm p {:.2g}), but the exact {} shows the bound valid: "
          "a false rejection, whose probability is at most the level",
          c.p_holm, what);
    } else if (c.exact_upper > c.bound_value) {
      c.note = "equal to the exact " + what + " within rounding";
    } else {
      c.note.clear();
    }
  } else if (rejected) {
    c.verdict = Verdict::kViolated;
    c.note.clear();
  } else if (c.verdict == Verdict::kNotRejected) {
    // Beyond quadrature rounding: an exact value equal to a tight bound is no warning.
    const bool above = c.estimate > c.bound_value * (1.0 + 1e-6);
    c.close = c.tightness_lower < kCloseMargin || above;
    if (above) {
      c.note =
          "close: the point estimate exceeds the bound, but not significantly at the run's "
          "level";
    } else if (c.close) {
      c.note = fmt::format("close: bound / certified lower bound = {:.3g} < {:g}",
                           c.tightness_lower, kCloseMargin);
    }
  }
}

Auditor::Auditor(double level) : level_(level) {
  if (!(level > 0.0 && level < 1.0)) {
    throw InputError("audit level", fmt::format("{}", level), "must lie in (0, 1)");
  }
}

std::size_t Auditor::row_of(const std::string& name, const std::string& kind,
                            const std::string& source, bool expect_violated) {
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    if (rows_[r].name == name) return r;
  }
  BoundRow row;
  row.name = name;
  row.kind = kind;
  row.source = source;
  row.expect_violated = expect_violated;
  rows_.push_back(row);
  return rows_.size() - 1;
}

void Auditor::add(const config::Scenario& s, const BoundTable& table,
                  estimate::ScenarioEstimates& est, const std::string& sweep_point,
                  std::int64_t counted) {
  const std::size_t source = certificates_.size();
  certificates_.push_back(std::move(est.rigorous));
  est.rigorous.clear();
  profiles_.emplace_back();
  sweep_points_.push_back(sweep_point);
  trajectories_.push_back(counted);
  const auto& certs = certificates_.back();
  // What the estimates say at each (order, direction): the same for every bound's cell there.
  struct Point {
    double estimate = kNaN, exact = kNaN, exact_lower = kNaN, exact_upper = kNaN;
    std::string method;
    bool informative = false;  ///< some rigorous method is informative
    std::string reason;        ///< why none is
  };
  std::vector<Point> points(2 * table.alphas.size());
  for (std::size_t a = 0; a < table.alphas.size(); ++a) {
    for (int d : {estimate::kForward, estimate::kBackward}) {
      Point& pt = points[2 * a + static_cast<std::size_t>(d)];
      const double alpha = table.alphas[a];
      if (const auto* e = best_point(est.estimates, alpha, d)) {
        pt.estimate = e->value;
        pt.method = e->method;
      }
      if (const auto* e = find(est.estimates, "exact-quadrature", alpha, d); e && e->informative) {
        pt.exact = e->value;
        if (s.bounds.exact_verdicts) {
          pt.exact_lower = e->lower;
          pt.exact_upper = e->upper;
        }
      }
      for (const auto& r : certs) {
        const auto* e = find(r.estimates, r.method, alpha, d);
        if (e && e->informative) pt.informative = true;
        if (e && !e->informative && pt.reason.empty()) pt.reason = e->reason;
      }
      if (pt.reason.empty()) pt.reason = "no rigorous estimate at this order";
    }
  }
  const std::size_t first = cells_.size();
  for (std::size_t b = 0; b < table.names.size(); ++b) {
    const std::size_t row =
        row_of(table.names[b], table.kinds[b], table.sources[b], table.expect_violated[b]);
    if (rows_[row].adjacency_note.empty()) {
      const std::string& name = table.names[b];
      rows_[row].adjacency_note = bounds::adjacency_mismatch(
          name, bounds::bound_adjacency(name, s.data.adjacency), s.data.adjacency);
    }
    for (std::size_t a = 0; a < table.alphas.size(); ++a) {
      for (int d : {estimate::kForward, estimate::kBackward}) {
        const Point& pt = points[2 * a + static_cast<std::size_t>(d)];
        Cell c;
        c.scenario = s.index;
        c.bound = row;
        c.alpha = table.alphas[a];
        c.direction = d;
        c.bound_value = table.value(b, a);
        c.estimate = pt.estimate;
        c.estimate_method = pt.method;
        c.exact = pt.exact;
        c.exact_lower = pt.exact_lower;
        c.exact_upper = pt.exact_upper;
        if (std::isnan(c.bound_value)) {
          c.verdict = Verdict::kNotApplicable;
          c.note = table.reasons[b];
        } else if (std::isinf(c.bound_value)) {
          c.verdict = Verdict::kValidExact;
          c.note = "the bound is +infinity";
        } else if (certs.empty()) {
          c.verdict = Verdict::kInconclusive;
          c.note =
              "no rigorous estimate (estimate.enabled = false, or no rigorous method in "
              "estimate.methods)";
        } else {
          c.tested = true;
          c.verdict = pt.informative ? Verdict::kNotRejected  // provisional: decide() decides
                                     : Verdict::kInconclusive;
          if (!pt.informative) c.note = pt.reason;
        }
        cells_.push_back(std::move(c));
      }
    }
  }
  // p-values of the tested cells: Bonferroni over the rigorous methods. Cells are
  // independent computations, so the parallel loop gives the same numbers for any threads.
  const auto k = static_cast<double>(certs.size());
  const auto n = static_cast<std::ptrdiff_t>(cells_.size() - first);
#pragma omp parallel for schedule(dynamic)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    Cell& c = cells_[first + static_cast<std::size_t>(i)];
    if (!c.tested || c.verdict == Verdict::kInconclusive) continue;
    double best = 1.0;
    for (const auto& r : certs) {
      const double p = estimate::rigorous_p_value(r, c.alpha, c.direction, c.bound_value);
      if (p < best) {
        best = p;
        c.p_method = r.method;
      }
    }
    c.p_value = std::min(1.0, k * best);
  }
  cell_source_.resize(cells_.size(), source);
}

void Auditor::add_claims(const config::Scenario& s, const ClaimTable& claims,
                         const estimate::ScenarioEstimates& est) {
  if (profiles_.empty())
    throw std::logic_error("Auditor::add_claims before add for the same scenario");
  const std::size_t source = profiles_.size() - 1;
  profiles_.back() = est.profiles;
  const auto& families = profiles_.back();
  const std::size_t first = cells_.size();
  for (std::size_t b = 0; b < claims.names.size(); ++b) {
    const std::size_t row =
        row_of(claims.names[b], claims.kinds[b], claims.sources[b], claims.expect_violated[b]);
    for (std::size_t k = 0; k < claims.deltas.size(); ++k) {
      for (int d : {estimate::kForward, estimate::kBackward}) {
        Cell c;
        c.scenario = s.index;
        c.bound = row;
        c.alpha = kNaN;
        c.delta = claims.deltas[k];
        c.direction = d;
        c.bound_value = claims.value(b, k);
        // Point estimate: the exact eps(delta), else the largest plug-in over the scores.
        for (const auto& pe : est.profile) {
          if (pe.direction != d || k >= pe.epsilon_value.size()) continue;
          if (pe.method == "exact-profile") {
            c.exact = pe.epsilon_value[k];
            if (s.bounds.exact_verdicts) {
              c.exact_lower = pe.epsilon_lower[k];
              c.exact_upper = pe.epsilon_upper[k];
            }
          } else if (std::isnan(c.estimate) || pe.epsilon_value[k] > c.estimate) {
            c.estimate = pe.epsilon_value[k];
            c.estimate_method = pe.method;
          }
        }
        if (!std::isnan(c.exact)) {
          c.estimate = c.exact;
          c.estimate_method = "exact-profile";
        }
        if (std::isnan(c.bound_value)) {
          c.verdict = Verdict::kNotApplicable;
          c.note = claims.reasons[b];
        } else if (std::isinf(c.bound_value)) {
          c.verdict = Verdict::kValidExact;
          c.note = "the claim is +infinity";
        } else if (families.empty()) {
          c.verdict = Verdict::kInconclusive;
          c.note = "no profile family (estimate.enabled = false, or no sample-based method)";
        } else {
          c.tested = true;
          c.verdict = Verdict::kNotRejected;  // provisional: decide() decides
        }
        cells_.push_back(std::move(c));
      }
    }
  }
  // p-values: Bonferroni over the scores' families (as over the Renyi methods).
  const auto k = static_cast<double>(families.size());
  const auto n = static_cast<std::ptrdiff_t>(cells_.size() - first);
#pragma omp parallel for schedule(dynamic)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    Cell& c = cells_[first + static_cast<std::size_t>(i)];
    if (!c.tested) continue;
    double best = 1.0;
    for (const auto& f : families) {
      const double p = estimate::profile_p_value(f, c.delta, c.direction, c.bound_value);
      if (p < best) {
        best = p;
        c.p_method = f.method;
      }
    }
    c.p_value = std::min(1.0, k * best);
  }
  cell_source_.resize(cells_.size(), source);
}

AuditResult Auditor::finish() {
  AuditResult out;
  out.level = level_;
  holm_adjust(cells_);
  out.hypotheses =
      std::count_if(cells_.begin(), cells_.end(), [](const Cell& c) { return c.tested; });
  // Simultaneous lower bounds: level / (m k) per cell and method (Bonferroni), valid for all
  // cells at once; Holm, stepping down, can reject slightly more than this display shows. The
  // bound depends on (scenario, order, direction) only, so it is computed once for all bounds.
  const double m = static_cast<double>(std::max<std::int64_t>(out.hypotheses, 1));
  using Key = std::tuple<std::size_t, double, int>;  // scenario position, order, direction
  std::map<Key, std::pair<double, std::string>> lower;
  for (std::size_t i = 0; i < cells_.size(); ++i) {
    if (cells_[i].tested && !cells_[i].is_claim())
      lower[{cell_source_[i], cells_[i].alpha, cells_[i].direction}];
  }
  std::vector<std::pair<const Key, std::pair<double, std::string>>*> todo;
  for (auto& entry : lower) todo.push_back(&entry);
  const auto n = static_cast<std::ptrdiff_t>(todo.size());
#pragma omp parallel for schedule(dynamic)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const auto& [source, alpha, direction] = todo[static_cast<std::size_t>(i)]->first;
    auto& [best, method] = todo[static_cast<std::size_t>(i)]->second;
    const auto& certs = certificates_[source];
    const double per = level_ / (m * static_cast<double>(certs.size()));
    best = 0.0;
    for (const auto& r : certs) {
      const double lb = estimate::rigorous_lower_for_order(r, alpha, direction, per);
      if (lb > best) {  // the method that gives the largest bound names it
        best = lb;
        method = r.method;
      }
    }
  }
  for (std::size_t i = 0; i < cells_.size(); ++i) {
    Cell& c = cells_[i];
    if (!c.tested || c.is_claim()) continue;
    const auto& [best, method] = lower.at({cell_source_[i], c.alpha, c.direction});
    c.lower = best;
    c.lower_method = best > 0.0 ? method : std::string();
  }
  // A claim's simultaneous lower bound: the certified eps(delta) of each family at
  // level / (m k), the largest over the scenario's k families.
  for (std::size_t i = 0; i < cells_.size(); ++i) {
    Cell& c = cells_[i];
    if (!c.tested || !c.is_claim()) continue;
    const auto& families = profiles_[cell_source_[i]];
    const double per = level_ / (m * static_cast<double>(families.size()));
    c.lower = 0.0;
    for (const auto& f : families) {
      const double lb = estimate::profile_epsilon_lower(f, c.delta, c.direction, per);
      if (lb > c.lower) c.lower = lb, c.lower_method = f.method;
    }
  }
  for (Cell& c : cells_) decide(c, level_);
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    BoundRow& row = rows_[r];
    summarise(row, r, cells_);
    const Cell* worst = nullptr;
    for (const Cell& c : cells_) {
      if (c.bound == r && is_violation(c.verdict) &&
          (!worst || c.p_holm < worst->p_holm ||
           (c.p_holm == worst->p_holm &&
            c.lower / c.bound_value > worst->lower / worst->bound_value))) {
        worst = &c;
      }
    }
    if (worst && worst->verdict == Verdict::kViolatedExact && !std::isnan(worst->exact)) {
      const std::size_t src = cell_source_[static_cast<std::size_t>(worst - cells_.data())];
      row.evidence = fmt::format(
          "scenario {} ({}), {}: exact {} {:.6g} against bound "
          "{:.6g}; from the samples alone: lower confidence bound {:.4g}, Holm p {:.2g}",
          worst->scenario, sweep_points_[src], cell_text(*worst),
          worst->is_claim() ? "eps(delta) (exact profile)" : "R_alpha (quadrature)", worst->exact,
          worst->bound_value, worst->lower, worst->p_holm);
    } else if (worst) {
      const std::size_t src = cell_source_[static_cast<std::size_t>(worst - cells_.data())];
      row.evidence = fmt::format(
          "scenario {} ({}), {}: lower confidence bound {:.4g} against bound {:.4g} "
          "(estimate {:.4g}, "
          "Holm p {:.2g}, {} samples per dataset)",
          worst->scenario, sweep_points_[src], cell_text(*worst), worst->lower, worst->bound_value,
          worst->estimate, worst->p_holm, trajectories_[src]);
    }
  }
  out.bounds = rows_;
  out.cells = cells_;
  return out;
}

}  // namespace rdpaudit::audit
