// The search method of `rdpaudit search`: a grid over the free parameters, then a compass
// (pattern) search from the grid's best point within the rest of the budget. It knows nothing
// of experiments: it maximises a function of a few bounded, possibly integer coordinates, and
// keeps every point it evaluated (docs/methods.md, "Searching for the worst adversary").
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace rdpaudit::search {

/// One free coordinate. A range axis has `points` grid points from `min` to `max` (rounded to
/// whole numbers and deduplicated when `integer`) and is refined after the grid; a list axis
/// (`list` non-empty) takes only the listed values and is not refined.
struct Axis {
  double min = 0.0;
  double max = 0.0;
  int points = 5;
  bool integer = false;
  std::vector<double> list;

  /// The axis's grid values, in increasing order for a range, in the given order for a list.
  std::vector<double> grid() const;
  bool refined() const { return list.empty() && max > min; }
};

/// The objective at a point: its value (NaN: not covered) and its resolution, how much of a
/// difference between two values is not resolved: an exact bracket's width (0 for a value
/// known exactly), a sampled estimate's standard error.
struct Score {
  double value = 0.0;
  double width = 0.0;
  // Implicit: an objective known exactly may return a bare value (width 0).
  Score(double v = 0.0, double w = 0.0) : value(v), width(w) {}
};

/// One evaluated point.
struct Trial {
  std::vector<double> x;
  double value = 0.0;  ///< the objective; NaN when the point is not covered
  double width = 0.0;  ///< its bracket's width
  std::string phase;   ///< "grid" or "refine"
};

struct Outcome {
  std::vector<Trial> trace;  ///< every evaluation, in order; a point is never evaluated twice
  long best = -1;            ///< index into trace of the largest value; -1 when none is covered
  /// Why the search ended: "converged", "budget", "no refinement (no range axis)" or "no
  /// covered grid point".
  std::string stopped;
};

/// The objective at a point; NaN for "not covered" (never chosen, but kept in the trace).
using Objective = std::function<Score(const std::vector<double>&)>;

/// Maximises `f` over the axes' box: every point of the product grid (its size must be at most
/// `budget`: InternalError otherwise, the caller checks it with grid_size), then a compass
/// search from the best grid point: steps of half the grid spacing along each refined axis,
/// both signs, moving to the first point whose value exceeds the current one by more than the
/// current one's Score::width (a gain the evaluator resolves: an exact bracket's width, a
/// sampled value's standard error), halving every step when none
/// does, until the budget is spent or every step is below `tolerance` x its axis's width
/// (integer axes: below 1). Ties keep the earlier point, so the outcome is deterministic.
Outcome maximise(const std::vector<Axis>& axes, long budget, const Objective& f,
                 double tolerance = 1e-3);

/// Calls f at every point of the product grid, the last axis varying fastest (the order in
/// which maximise evaluates them).
void for_each_grid_point(const std::vector<Axis>& axes,
                         const std::function<void(const std::vector<double>&)>& f);

/// Points of the product grid (saturates at 2^62).
long grid_size(const std::vector<Axis>& axes);

}  // namespace rdpaudit::search
