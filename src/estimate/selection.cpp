#include "rdpaudit/estimate/selection.hpp"

#include <algorithm>
#include <cmath>
#include <exception>

#include "rdpaudit/config/traits.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/estimate/cells.hpp"

namespace rdpaudit::estimate {

namespace {

std::vector<double> column0(const SampleView& v) {
  std::vector<double> out(v.rows);
  for (std::size_t i = 0; i < v.rows; ++i) out[i] = v.data[i * v.dim];
  return out;
}

std::vector<double> sorted_union(std::vector<double> a, const std::vector<double>& b) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  return a;
}

}  // namespace

double ScoreSelection::score(const double* theta) const {
  return model ? model->score(theta) : theta[0];
}

tally::ScoreCells ScoreSelection::counting_cells() const {
  const std::shared_ptr<const RatioModel> m = model;
  tally::ScoreFunction f;
  if (m) {
    f = [m](const double* theta) { return m->score(theta); };
  } else {
    f = [](const double* theta) { return theta[0]; };
  }
  return tally::ScoreCells(m ? prefix.substr(0, prefix.size() - 1) : "identity", std::move(f),
                           edges);
}

Selection select_on_pilot(const SampleView& pilot_p, const SampleView& pilot_q,
                          std::uint64_t counted_per_side, const SelectionOptions& options) {
  if (pilot_p.dim != pilot_q.dim || pilot_p.dim < 1) {
    throw InternalError("estimate.pilot",
                        std::to_string(pilot_p.dim) + " and " + std::to_string(pilot_q.dim),
                        "pilot samples of P and P' need one dimension >= 1");
  }
  std::vector<Score> scores = options.scores;
  if (scores.empty()) {
    if (pilot_p.dim == 1)
      scores = {Score::kIdentity};
    else if (pilot_p.dim == 2)
      scores = {Score::kLogistic, Score::kKde};
    else
      scores = {Score::kLogistic};
  }
  const bool learned =
      std::any_of(scores.begin(), scores.end(), [](Score s) { return s != Score::kIdentity; });
  // A learned score is fitted on the first half of the pilot and chooses on the second half
  // (it is optimistic on its own fitting rows); the identity chooses on the whole pilot.
  const std::size_t need = learned ? 200 : 100;
  if (pilot_p.rows < need || pilot_q.rows < need) {
    throw InternalError("estimate.pilot", std::to_string(std::min(pilot_p.rows, pilot_q.rows)),
                        "at least " + std::to_string(need) + " pilot trajectories per dataset");
  }
  Selection out;
  out.pilot_rows = std::min(pilot_p.rows, pilot_q.rows);
  for (Score kind : scores) {
    ScoreSelection sel;
    sel.kind = kind;
    std::vector<double> sp, sq;
    if (kind == Score::kIdentity) {
      if (pilot_p.dim != 1)
        throw InternalError("estimate.scores", "identity", "the identity score needs 1-D samples");
      sp = column0(pilot_p);
      sq = column0(pilot_q);
    } else {
      const SampleView fit_p = pilot_p.slice(0, pilot_p.rows / 2);
      const SampleView fit_q = pilot_q.slice(0, pilot_q.rows / 2);
      const SampleView choose_p = pilot_p.slice(fit_p.rows, pilot_p.rows - fit_p.rows);
      const SampleView choose_q = pilot_q.slice(fit_q.rows, pilot_q.rows - fit_q.rows);
      sel.model = kind == Score::kLogistic ? fit_logistic_ratio(fit_p, fit_q, options.logistic)
                                           : fit_kde_ratio(fit_p, fit_q, options.kde);
      sel.prefix = kind == Score::kLogistic ? "logistic-ratio/" : "kde-ratio/";
      sp = sel.model->scores(choose_p);
      sq = sel.model->scores(choose_q);
    }
    sel.plugin_edges =
        propose_edges(view_of(sp), view_of(sq), counted_per_side, options.binning).front();
    // The rigorous methods' cells: pilot quantiles, dense in both tails. (Extending them by
    // the plug-in's bins beyond the pilot's extremes was tried: the Hoelder + Bernstein bound
    // then chose test functions whose range grew with cells the pilot never saw, and lost
    // up to 15 % at alpha 15 - 16 on a Gaussian pair at 10^7; the partition bound's two-cell
    // tail sets reach those counts anyway.)
    sel.fine_edges = quantile_cell_edges(sp, sq, options.bulk_cells);
    sel.fine_position = cell_positions(sel.fine_edges);
    sel.edges = sorted_union(sel.fine_edges, sel.plugin_edges);
    sel.selection.p = tally({sel.fine_edges}, view_of(sp));
    sel.selection.q = tally({sel.fine_edges}, view_of(sq));
    out.scores.push_back(std::move(sel));
  }
  return out;
}

CountResult certified(RigorousResult r) {
  std::vector<Estimate> estimates = r.estimates;
  return {std::move(estimates), std::move(r)};
}

const std::vector<CountMethod>& count_methods() {
  static const std::vector<CountMethod> table = {
#define RDPAUDIT_COUNT_METHOD(id, name, role, preference, run) \
  {config::Method::k##id, config::Row::k##id, run},
#include "rdpaudit/config/count_methods.def"
  };
  return table;
}

std::vector<Estimate> estimate_from_counts(const ScoreSelection& selection,
                                           const std::vector<std::uint64_t>& counts_p,
                                           const std::vector<std::uint64_t>& counts_q,
                                           const std::vector<double>& alphas,
                                           const CountOptions& options, rng::Stream* stream,
                                           std::vector<RigorousResult>* certificates) {
  check_alphas(alphas, "estimate.alphas");
  const std::size_t cells = selection.edges.size() + 1;
  if (counts_p.size() != cells || counts_q.size() != cells) {
    throw InternalError("estimate.counts",
                        std::to_string(counts_p.size()) + " and " + std::to_string(counts_q.size()),
                        std::to_string(cells) + " cells, those of the selection");
  }
  OrderedCells fine;
  fine.position = selection.fine_position;
  fine.selection = selection.selection;
  fine.evaluation.p = coarsen(counts_p, selection.edges, selection.fine_edges);
  fine.evaluation.q = coarsen(counts_q, selection.edges, selection.fine_edges);
  // The methods read the same counts and share nothing else (the plug-in alone draws from
  // `stream`), so they run side by side on the OpenMP threads and are collected in the
  // table's order: the same numbers for any thread count. An exception leaves its method
  // through `failed` and is rethrown here (none may cross the parallel region).
  const std::vector<CountMethod>& methods = count_methods();
  const int count = static_cast<int>(methods.size());
  std::vector<CountResult> results(methods.size());
  std::vector<std::exception_ptr> failed(methods.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (int i = 0; i < count; ++i) {
    const CountMethod& m = methods[i];
    if (!options.runs(m.method)) continue;
    try {
      const std::string row_name = selection.prefix + config::to_string(m.row);
      results[i] = m.run({selection, counts_p, counts_q, fine, alphas, options, stream, row_name});
    } catch (...) {
      failed[i] = std::current_exception();
    }
  }
  for (const std::exception_ptr& e : failed) {
    if (e) std::rethrow_exception(e);
  }
  std::vector<Estimate> out;
  for (CountResult& r : results) {
    out.insert(out.end(), r.estimates.begin(), r.estimates.end());
    if (certificates && r.certificate) certificates->push_back(std::move(*r.certificate));
  }
  return out;
}

}  // namespace rdpaudit::estimate
