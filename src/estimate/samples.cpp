#include "rdpaudit/estimate/samples.hpp"

#include <cmath>
#include <memory>
#include <string>

#include "rdpaudit/core/error.hpp"

namespace rdpaudit::estimate {

std::vector<Estimate> estimate_from_samples(const SampleView& p, const SampleView& q,
                                            const std::vector<double>& alphas,
                                            const SampleOptions& options, rng::Stream* stream,
                                            std::vector<RigorousResult>* certificates) {
  check_alphas(alphas, "samples.alphas");
  if (p.dim != q.dim || p.dim < 1) {
    throw InputError("samples.dim", std::to_string(p.dim) + " and " + std::to_string(q.dim),
                     "P and P' samples need one dimension >= 1");
  }
  if (!(options.selection_fraction > 0.0 && options.selection_fraction < 1.0)) {
    throw InputError("samples.selection_fraction", std::to_string(options.selection_fraction),
                     "must lie in (0, 1)");
  }
  const auto split = [&](const SampleView& v) {
    const auto n_sel = static_cast<std::size_t>(
        std::floor(options.selection_fraction * static_cast<double>(v.rows)));
    return std::make_pair(v.slice(0, n_sel), v.slice(n_sel, v.rows - n_sel));
  };
  const auto [sel_p, eval_p] = split(p);
  const auto [sel_q, eval_q] = split(q);
  if (sel_p.rows < 2 || sel_q.rows < 2 || eval_p.rows < 1 || eval_q.rows < 1) {
    throw InputError("samples.rows", std::to_string(p.rows) + " and " + std::to_string(q.rows),
                     "too few samples to split into selection and evaluation");
  }
  std::vector<Score> scores = options.scores;
  if (scores.empty()) {
    if (p.dim == 1)
      scores = {Score::kIdentity};
    else if (p.dim == 2)
      scores = {Score::kLogistic, Score::kKde};
    else
      scores = {Score::kLogistic};
  }
  std::vector<Estimate> out;
  for (Score s : scores) {
    std::vector<double> sp, sq, ep, eq;
    std::string prefix;
    if (s == Score::kIdentity) {
      if (p.dim != 1)
        throw InputError("samples.scores", "identity", "the identity score needs 1-D samples");
      sp.assign(sel_p.data, sel_p.data + sel_p.rows);
      sq.assign(sel_q.data, sel_q.data + sel_q.rows);
      ep.assign(eval_p.data, eval_p.data + eval_p.rows);
      eq.assign(eval_q.data, eval_q.data + eval_q.rows);
    } else {
      const std::unique_ptr<RatioModel> model =
          s == Score::kLogistic ? fit_logistic_ratio(sel_p, sel_q, options.logistic)
                                : fit_kde_ratio(sel_p, sel_q, options.kde);
      prefix = (s == Score::kLogistic ? "logistic-ratio/" : "kde-ratio/");
      sp = model->scores(sel_p);
      sq = model->scores(sel_q);
      ep = model->scores(eval_p);
      eq = model->scores(eval_q);
    }
    // Plug-in: bins placed from the selection scores, evaluation scores counted.
    const auto edges =
        propose_edges(view_of(sp), view_of(sq), std::max(ep.size(), eq.size()), options.binning);
    const CellCounts counts{tally(edges, view_of(ep)), tally(edges, view_of(eq))};
    for (Estimate& e : histogram_plugin(counts, alphas, options.plugin, stream, {},
                                        prefix + "histogram-plugin")) {
      out.push_back(std::move(e));
    }
    const OrderedCells cells = cells_from_scores(sp, sq, ep, eq, options.bulk_cells);
    RigorousResult rigorous =
        rigorous_lower_bound(cells, alphas, options.rigorous, prefix + "rigorous-cp");
    out.insert(out.end(), rigorous.estimates.begin(), rigorous.estimates.end());
    if (certificates) certificates->push_back(std::move(rigorous));
  }
  return out;
}

}  // namespace rdpaudit::estimate
