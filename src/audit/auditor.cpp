#include "rdpaudit/audit/auditor.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "rdpaudit/audit/gdp_mu.hpp"
#include "rdpaudit/bounds/scenario.hpp"
#include "rdpaudit/config/traits.hpp"
#include "rdpaudit/config/vocabulary.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/estimate/exact_chain.hpp"
#include "rdpaudit/estimate/profile.hpp"
#include "rdpaudit/estimate/rigorous.hpp"

namespace rdpaudit::audit {

namespace {

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

// The Renyi methods' certificates of one scenario.
class RenyiTests : public Tests {
 public:
  explicit RenyiTests(std::vector<estimate::RigorousResult> certs) : certs_(std::move(certs)) {}
  std::size_t size() const override { return certs_.size(); }
  const std::string& method(std::size_t i) const override { return certs_[i].method; }
  double p_value(std::size_t i, const Cell& c) const override {
    return estimate::rigorous_p_value(certs_[i], c.alpha, c.direction, c.bound_value);
  }
  double lower(std::size_t i, const Cell& c, double level) const override {
    return estimate::rigorous_lower_for_order(certs_[i], c.alpha, c.direction, level);
  }

 private:
  std::vector<estimate::RigorousResult> certs_;
};

// The scores' profile families of one scenario.
class ProfileTests : public Tests {
 public:
  explicit ProfileTests(std::vector<estimate::ProfileCounts> families)
      : families_(std::move(families)) {}
  std::size_t size() const override { return families_.size(); }
  const std::string& method(std::size_t i) const override { return families_[i].method; }
  double p_value(std::size_t i, const Cell& c) const override {
    return estimate::profile_p_value(families_[i], c.delta, c.direction, c.bound_value);
  }
  double lower(std::size_t i, const Cell& c, double level) const override {
    return estimate::profile_epsilon_lower(families_[i], c.delta, c.direction, level);
  }

 private:
  std::vector<estimate::ProfileCounts> families_;
};

// The scores' profile families of one scenario, as tests of Gaussian-DP claims: each family's
// sets exclude every mu below their certified value (audit/gdp_mu.hpp), in both orders at once.
class GdpTests : public Tests {
 public:
  explicit GdpTests(std::vector<estimate::ProfileCounts> families)
      : families_(std::move(families)) {}
  std::size_t size() const override { return families_.size(); }
  const std::string& method(std::size_t i) const override { return families_[i].method; }
  double p_value(std::size_t i, const Cell& c) const override {
    return mu_p_value(families_[i], c.bound_value);
  }
  double lower(std::size_t i, const Cell&, double level) const override {
    return certified_mu_lower(families_[i], level);
  }

 private:
  std::vector<estimate::ProfileCounts> families_;
};

// What the Renyi estimates say at each (order, direction).
std::vector<Auditor::Point> renyi_points(const config::Scenario& s, const BoundTable& table,
                                         const estimate::ScenarioEstimates& est,
                                         const std::vector<estimate::RigorousResult>& certs) {
  std::vector<Auditor::Point> points(2 * table.orders.size());
  for (std::size_t a = 0; a < table.orders.size(); ++a) {
    for (int d : {estimate::kForward, estimate::kBackward}) {
      Auditor::Point& pt = points[2 * a + static_cast<std::size_t>(d)];
      const double alpha = table.orders[a];
      pt.informative = false;
      if (const auto* e = best_point(est.estimates, alpha, d)) {
        pt.estimate = e->value;
        pt.method = e->method;
        // Quadrature and the Rao-Blackwell mixture do not use the counted trajectories.
        if (config::row_kind(e->method).method == config::Method::kExact &&
            std::isfinite(e->upper)) {
          pt.estimate_lower = e->lower;
          pt.estimate_upper = e->upper;
        }
      }
      // The exact value: the quadrature's, else the exact chain's bracket.
      for (const config::Row row : {config::Row::kExactQuadrature, config::Row::kExactChain}) {
        const auto* e = find(est.estimates, config::to_string(row), alpha, d);
        if (!e || !e->informative) continue;
        pt.exact = e->value;
        pt.exact_method = e->method;
        pt.exact_upper_certified =
            row != config::Row::kExactChain || e->interval == estimate::kExactChainCertified;
        if (s.bounds.exact_verdicts) {
          pt.exact_lower = e->lower;
          pt.exact_upper = e->upper;
        }
        break;
      }
      for (const auto& r : certs) {
        const auto* e = find(r.estimates, r.method, alpha, d);
        if (e && e->informative) pt.informative = true;
        if (e && !e->informative && pt.reason.empty()) pt.reason = e->reason;
      }
      if (pt.reason.empty()) pt.reason = "no rigorous estimate at this order";
    }
  }
  return points;
}

// What the profile estimates say at each (delta, direction): the exact eps(delta) (a listed
// mixture's profile, or the exact chain's bracket), else the largest plug-in over the scores.
std::vector<Auditor::Point> claim_points(const config::Scenario& s, const ClaimTable& table,
                                         const estimate::ScenarioEstimates& est) {
  std::vector<Auditor::Point> points(2 * table.orders.size());
  for (std::size_t k = 0; k < table.orders.size(); ++k) {
    for (int d : {estimate::kForward, estimate::kBackward}) {
      Auditor::Point& pt = points[2 * k + static_cast<std::size_t>(d)];
      for (const auto& pe : est.profile) {
        if (pe.direction != d || k >= pe.epsilon_value.size()) continue;
        if (pe.method == "exact-profile" || pe.method == "exact-chain-profile") {
          pt.exact = pe.epsilon_value[k];
          pt.exact_method = pe.method;
          pt.exact_upper_certified =
              pe.method != "exact-chain-profile" || pe.interval == estimate::kExactChainCertified;
          pt.estimate_lower = pe.epsilon_lower[k];
          pt.estimate_upper = pe.epsilon_upper[k];
          if (s.bounds.exact_verdicts) {
            pt.exact_lower = pe.epsilon_lower[k];
            pt.exact_upper = pe.epsilon_upper[k];
          }
        } else if (std::isnan(pt.estimate) || pe.epsilon_value[k] > pt.estimate) {
          pt.estimate = pe.epsilon_value[k];
          pt.method = pe.method;
        }
      }
      if (!std::isnan(pt.exact)) {
        pt.estimate = pt.exact;
        pt.method = pt.exact_method;
      } else {
        pt.estimate_lower = pt.estimate_upper = kNaN;
      }
    }
  }
  return points;
}

// What the Gaussian-DP estimates say about the pair's mu, the same for both directions'
// cells: T(P, P') >= G_mu exactly when T(P', P) >= G_mu (G_mu is symmetric), so each
// direction's exact value bounds the pair's mu from below, and the pair's mu is the larger
// (lower end: the larger lower end; upper end: the smaller). Without an exact value, the
// largest plug-in over the scores.
std::vector<Auditor::Point> gdp_points(const config::Scenario& s,
                                       const estimate::ScenarioEstimates& est) {
  Auditor::Point pt;
  for (const GdpEstimate& e : gdp_estimates(s, est)) {
    if (e.method == "exact-profile") {
      if (std::isnan(pt.exact) || e.value > pt.exact) pt.exact = e.value;
      if (std::isnan(pt.estimate_lower) || e.lower > pt.estimate_lower) pt.estimate_lower = e.lower;
      if (std::isnan(pt.estimate_upper) || e.upper < pt.estimate_upper) pt.estimate_upper = e.upper;
      pt.exact_method = e.method;
    } else if (std::isnan(pt.estimate) || e.value > pt.estimate) {
      pt.estimate = e.value;
      pt.method = e.method;
    }
  }
  if (!std::isnan(pt.exact)) {
    pt.estimate = pt.exact;
    pt.method = "exact-profile";
    if (s.bounds.exact_verdicts) {
      pt.exact_lower = pt.estimate_lower;
      pt.exact_upper = pt.estimate_upper;
    }
  } else {
    pt.estimate_lower = pt.estimate_upper = kNaN;
  }
  return {pt, pt};
}

}  // namespace

Auditor::Auditor(double level) : level_(level) {
  if (!(level > 0.0 && level < 1.0))
    throw InternalError(fmt::format("Auditor: level {} outside (0, 1)", level));
}

Auditor::~Auditor() = default;
Auditor::Auditor(Auditor&&) noexcept = default;
Auditor& Auditor::operator=(Auditor&&) noexcept = default;

std::size_t Auditor::row_of(const std::string& name, const std::string& kind,
                            const std::string& source, Expectation expect) {
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    if (rows_[r].name == name) return r;
  }
  BoundRow row;
  row.name = name;
  row.kind = kind;
  row.source = source;
  row.expect = expect;
  rows_.push_back(row);
  return rows_.size() - 1;
}

void Auditor::add(const config::Scenario& s, const BoundTable& table,
                  estimate::ScenarioEstimates& est, const std::string& sweep_point,
                  std::int64_t counted) {
  sweep_points_.push_back(sweep_point);
  trajectories_.push_back(counted);
  std::vector<estimate::RigorousResult> certs = std::move(est.rigorous);
  est.rigorous.clear();
  const std::vector<Point> points = renyi_points(s, table, est, certs);
  add_table(s, table, points, std::make_unique<RenyiTests>(std::move(certs)),
            Words{"the bound is +infinity",
                  "no rigorous estimate (estimate.enabled = false, or no rigorous method in "
                  "estimate.methods)"});
  for (const std::string& name : table.names) {
    BoundRow& row = rows_[row_of(name, "", "", Expectation::kHolds)];
    if (row.adjacency_note.empty()) {
      row.adjacency_note = bounds::adjacency_mismatch(
          name, bounds::bound_adjacency(name, s.data.adjacency), s.data.adjacency, s.data.absent);
    }
  }
}

void Auditor::add_claims(const config::Scenario& s, const ClaimTable& claims,
                         const estimate::ScenarioEstimates& est) {
  if (sweep_points_.empty()) throw InternalError("Auditor::add_claims before add");
  add_table(s, claims, claim_points(s, claims, est), std::make_unique<ProfileTests>(est.profiles),
            Words{"the claim is +infinity",
                  "no profile family (estimate.enabled = false, or no sample-based method)"});
  const AuditTable gdp = gdp_claims(claims);
  if (gdp.names.empty()) return;
  add_table(s, gdp, gdp_points(s, est), std::make_unique<GdpTests>(est.profiles),
            Words{"the claim is +infinity",
                  "no profile family (estimate.enabled = false, or no sample-based method)"});
}

void Auditor::add_table(const config::Scenario& s, const AuditTable& table,
                        const std::vector<Point>& points, std::unique_ptr<Tests> tests,
                        const Words& words) {
  const bool claims = table.quantity == Quantity::kEpsilonDelta;
  const bool gdp = table.quantity == Quantity::kGdp;
  const std::size_t first = cells_.size();
  for (std::size_t b = 0; b < table.names.size(); ++b) {
    const std::size_t row =
        row_of(table.names[b], table.kinds[b], table.sources[b], table.expect[b]);
    for (std::size_t k = 0; k < table.orders.size(); ++k) {
      for (int d : {estimate::kForward, estimate::kBackward}) {
        const Point& pt = points[2 * k + static_cast<std::size_t>(d)];
        Cell c;
        c.scenario = s.index;
        c.bound = row;
        c.alpha = claims || gdp ? kNaN : table.orders[k];
        if (claims) c.delta = table.orders[k];
        c.gdp = gdp;
        c.direction = d;
        c.bound_value = table.value(b, k);
        c.estimate = pt.estimate;
        c.estimate_method = pt.method;
        c.estimate_lower = pt.estimate_lower;
        c.estimate_upper = pt.estimate_upper;
        c.exact = pt.exact;
        c.exact_method = pt.exact_method;
        c.exact_upper_certified = pt.exact_upper_certified;
        c.exact_lower = pt.exact_lower;
        c.exact_upper = pt.exact_upper;
        if (std::isnan(c.bound_value)) {
          c.verdict = Verdict::kNotApplicable;
          c.note = table.reasons[b];
        } else if (c.bound_value == std::numeric_limits<double>::infinity()) {
          c.verdict = Verdict::kValidExact;
          c.note = words.infinite;
        } else if (c.bound_value == -std::numeric_limits<double>::infinity()) {
          c.verdict = Verdict::kViolatedExact;
          c.note = fmt::format("the bound is negative, and {} >= 0 always", gdp      ? "mu"
                                                                            : claims ? "eps(delta)"
                                                                                     : "R_alpha");
        } else if (tests->size() == 0) {
          c.verdict = Verdict::kInconclusive;
          c.note = words.untested;
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
  // p-values of the tested cells: Bonferroni over the scenario's tests. Cells are
  // independent computations, so the parallel loop gives the same numbers for any threads.
  const Tests& t = *tests;
  const auto k = static_cast<double>(t.size());
  const auto n = static_cast<std::ptrdiff_t>(cells_.size() - first);
#pragma omp parallel for schedule(dynamic)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    Cell& c = cells_[first + static_cast<std::size_t>(i)];
    if (!c.tested || c.verdict == Verdict::kInconclusive) continue;
    double best = 1.0;
    for (std::size_t j = 0; j < t.size(); ++j) {
      const double p = t.p_value(j, c);
      if (p < best) {
        best = p;
        c.p_method = t.method(j);
      }
    }
    c.p_value = std::min(1.0, k * best);
  }
  cell_tests_.resize(cells_.size(), tests_.size());
  tests_scenario_.push_back(sweep_points_.size() - 1);
  tests_.push_back(std::move(tests));
}

AuditResult Auditor::finish() {
  AuditResult out;
  out.level = level_;
  holm_adjust(cells_);
  out.hypotheses =
      std::count_if(cells_.begin(), cells_.end(), [](const Cell& c) { return c.tested; });
  // Simultaneous lower bounds: level / (m k) per cell and test (Bonferroni), valid for all
  // cells at once; Holm, stepping down, can reject slightly more than this display shows. The
  // bound depends on (tests, order, direction) only, so it is computed once for all rows.
  const double m = static_cast<double>(std::max<std::int64_t>(out.hypotheses, 1));
  using Key = std::tuple<std::size_t, double, int>;  // entry of tests_, order, direction
  std::map<Key, std::pair<double, std::string>> lower;
  std::map<Key, const Cell*> example;  // a cell of each key, to ask the tests with
  for (std::size_t i = 0; i < cells_.size(); ++i) {
    if (!cells_[i].tested) continue;
    const Key key{cell_tests_[i], cells_[i].order(), cells_[i].direction};
    lower[key];
    example.emplace(key, &cells_[i]);
  }
  std::vector<std::pair<const Key, std::pair<double, std::string>>*> todo;
  for (auto& entry : lower) todo.push_back(&entry);
  const auto n = static_cast<std::ptrdiff_t>(todo.size());
#pragma omp parallel for schedule(dynamic)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const Key& key = todo[static_cast<std::size_t>(i)]->first;
    auto& [best, method] = todo[static_cast<std::size_t>(i)]->second;
    const Tests& t = *tests_[std::get<0>(key)];
    const Cell& c = *example.at(key);
    const double per = level_ / (m * static_cast<double>(t.size()));
    best = 0.0;
    for (std::size_t j = 0; j < t.size(); ++j) {
      const double lb = t.lower(j, c, per);
      if (lb > best) {  // the test that gives the largest bound names it
        best = lb;
        method = t.method(j);
      }
    }
  }
  for (std::size_t i = 0; i < cells_.size(); ++i) {
    Cell& c = cells_[i];
    if (!c.tested) continue;
    const auto& [best, method] = lower.at({cell_tests_[i], c.order(), c.direction});
    c.lower = best;
    c.lower_method = best > 0.0 ? method : std::string();
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
    if (!worst) continue;
    const std::size_t cell = static_cast<std::size_t>(worst - cells_.data());
    const std::size_t src = tests_scenario_[cell_tests_[cell]];
    if (worst->verdict == Verdict::kViolatedExact && !std::isnan(worst->exact)) {
      row.evidence = fmt::format(
          "scenario {} ({}), {}: exact {} {} against bound "
          "{:.6g}; from the samples alone: lower confidence bound {:.4g}, Holm p {:.2g}",
          worst->scenario, sweep_points_[src], cell_text(*worst),
          worst->gdp ? fmt::format("mu ({})", exact_source(*worst))
                     : fmt::format("{} ({})", worst->is_claim() ? "eps(delta)" : "R_alpha",
                                   exact_source(*worst)),
          exact_text(worst->exact_lower, worst->exact, worst->exact_upper,
                     worst->exact_upper_certified),
          worst->bound_value, worst->lower, worst->p_holm);
    } else {
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
