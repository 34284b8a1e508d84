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
  for (const auto& [key, f] :
       {std::pair{"samples.selection_fraction", options.selection_fraction},
        {"samples.variational_selection_fraction", options.variational_selection_fraction}}) {
    if (!(f > 0.0 && f < 1.0)) throw InputError(key, std::to_string(f), "must lie in (0, 1)");
  }
  const auto split = [&](const SampleView& v, double fraction) {
    const auto n_sel = static_cast<std::size_t>(std::floor(fraction * static_cast<double>(v.rows)));
    return std::make_pair(v.slice(0, n_sel), v.slice(n_sel, v.rows - n_sel));
  };
  const auto [sel_p, eval_p] = split(p, options.selection_fraction);
  const auto [sel_q, eval_q] = split(q, options.selection_fraction);
  const std::size_t n_variational_p = split(p, options.variational_selection_fraction).first.rows;
  const std::size_t n_variational_q = split(q, options.variational_selection_fraction).first.rows;
  for (std::size_t rows :
       {sel_p.rows, sel_q.rows, eval_p.rows, eval_q.rows, n_variational_p, n_variational_q}) {
    if (rows < 2) {
      throw InputError("samples.rows", std::to_string(p.rows) + " and " + std::to_string(q.rows),
                       "too few samples to split into selection and evaluation");
    }
  }
  const auto values = [](const SampleView& v) {
    return std::vector<double>(v.data, v.data + v.rows);
  };
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
      sp = values(sel_p);
      sq = values(sel_q);
      ep = values(eval_p);
      eq = values(eval_q);
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
    if (options.run_plugin) {
      const auto edges =
          propose_edges(view_of(sp), view_of(sq), std::max(ep.size(), eq.size()), options.binning);
      const CellCounts counts{tally(edges, view_of(ep)), tally(edges, view_of(eq))};
      for (Estimate& e : histogram_plugin(counts, alphas, options.plugin, stream, {},
                                          prefix + "histogram-plugin")) {
        out.push_back(std::move(e));
      }
    }
    std::vector<RigorousResult> bounds;
    if (options.run_partition) {
      const OrderedCells cells = cells_from_scores(sp, sq, ep, eq, options.bulk_cells);
      bounds.push_back(
          rigorous_lower_bound(cells, alphas, options.rigorous, prefix + "rigorous-cp"));
    }
    if (options.run_bernstein) {
      // The Hoelder + Bernstein bound chooses its test function on rows the score was not
      // fitted to: a learned score is optimistic on its own fitting rows (a KDE ratio much
      // more than a logistic one), and a forecast made there picks test functions that fail on
      // evaluation. Its rows: the identity score's from the first, a learned score's after the
      // score's selection split; the first variational_selection_fraction of all rows choose.
      std::vector<double> vp = s == Score::kIdentity ? values(p) : std::move(ep);
      std::vector<double> vq = s == Score::kIdentity ? values(q) : std::move(eq);
      const auto vsel_p = static_cast<std::ptrdiff_t>(n_variational_p);
      const auto vsel_q = static_cast<std::ptrdiff_t>(n_variational_q);
      if (vp.size() < n_variational_p + 2 || vq.size() < n_variational_q + 2) {
        throw InputError("samples.variational_selection_fraction",
                         std::to_string(options.variational_selection_fraction),
                         "leaves fewer than 2 evaluation rows after the score's selection split");
      }
      const OrderedCells vcells = cells_from_scores(
          {vp.begin(), vp.begin() + vsel_p}, {vq.begin(), vq.begin() + vsel_q},
          {vp.begin() + vsel_p, vp.end()}, {vq.begin() + vsel_q, vq.end()}, options.bulk_cells);
      bounds.push_back(variational_lower_bound(vcells, alphas, options.variational,
                                               prefix + "rigorous-bernstein"));
    }
    for (RigorousResult& r : bounds) {
      out.insert(out.end(), r.estimates.begin(), r.estimates.end());
      if (certificates) certificates->push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace rdpaudit::estimate
