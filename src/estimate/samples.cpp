#include "rdpaudit/estimate/samples.hpp"

#include <cmath>
#include <string>

#include "rdpaudit/core/error.hpp"

namespace rdpaudit::estimate {

std::vector<Estimate> estimate_from_samples(const SampleView& p, const SampleView& q,
                                            const std::vector<double>& alphas,
                                            const SampleOptions& options, rng::Stream* stream,
                                            std::vector<RigorousResult>* certificates) {
  check_alphas(alphas, "samples.alphas");
  if (!(options.selection_fraction > 0.0 && options.selection_fraction < 1.0)) {
    throw InternalError("samples.selection_fraction", std::to_string(options.selection_fraction),
                        "must lie in (0, 1)");
  }
  const auto split = [&](const SampleView& v) {
    const auto n = static_cast<std::size_t>(
        std::floor(options.selection_fraction * static_cast<double>(v.rows)));
    if (n < 2 || v.rows - n < 2) {
      throw InternalError("samples.rows", std::to_string(v.rows),
                          "too few samples to split into selection and evaluation");
    }
    return std::make_pair(v.slice(0, n), v.slice(n, v.rows - n));
  };
  const auto [pilot_p, counted_p] = split(p);
  const auto [pilot_q, counted_q] = split(q);
  const Selection selection = select_on_pilot(
      pilot_p, pilot_q, std::max(counted_p.rows, counted_q.rows), options.selection);
  std::vector<Estimate> out;
  for (const ScoreSelection& s : selection.scores) {
    tally::ScoreCells cp = s.counting_cells(), cq = s.counting_cells();
    for (std::size_t i = 0; i < counted_p.rows; ++i) cp.add(counted_p.data + i * counted_p.dim);
    for (std::size_t i = 0; i < counted_q.rows; ++i) cq.add(counted_q.data + i * counted_q.dim);
    for (Estimate& e : estimate_from_counts(s, cp.counts, cq.counts, alphas, options.count, stream,
                                            certificates)) {
      out.push_back(std::move(e));
    }
  }
  return out;
}

}  // namespace rdpaudit::estimate
