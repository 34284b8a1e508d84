#include "rdpaudit/search/method.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "rdpaudit/core/error.hpp"

namespace rdpaudit::search {

std::vector<double> Axis::grid() const {
  if (!list.empty()) return list;
  std::vector<double> g;
  const int p = std::max(1, points);
  for (int i = 0; i < p; ++i) {
    double x = p == 1 ? 0.5 * (min + max) : min + (max - min) * i / (p - 1);
    if (i == p - 1 && p > 1) x = max;  // the end point exactly, not min + (max - min)
    if (integer) x = std::round(x);
    if (g.empty() || x != g.back()) g.push_back(x);
  }
  return g;
}

long grid_size(const std::vector<Axis>& axes) {
  long n = 1;
  for (const Axis& a : axes) {
    const long k = static_cast<long>(a.grid().size());
    n = n > (1L << 62) / std::max(1L, k) ? (1L << 62) : n * k;
  }
  return n;
}

void for_each_grid_point(const std::vector<Axis>& axes,
                         const std::function<void(const std::vector<double>&)>& f) {
  std::vector<std::vector<double>> grids;
  for (const Axis& a : axes) grids.push_back(a.grid());
  std::vector<std::size_t> idx(axes.size(), 0);
  for (bool more = !axes.empty(); more;) {
    std::vector<double> x(axes.size());
    for (std::size_t i = 0; i < axes.size(); ++i) x[i] = grids[i][idx[i]];
    f(x);
    more = false;
    for (std::size_t i = axes.size(); i-- > 0;) {
      if (++idx[i] < grids[i].size()) {
        more = true;
        break;
      }
      idx[i] = 0;
    }
  }
}

namespace {

// The first argument is better than the second: larger, a covered point over an uncovered one.
bool better(double v, double best) {
  if (std::isnan(v)) return false;
  return std::isnan(best) || v > best;
}

}  // namespace

Outcome maximise(const std::vector<Axis>& axes, long budget, const Objective& f, double tolerance) {
  if (axes.empty()) throw InternalError("search::maximise: no axes");
  if (grid_size(axes) > budget)
    throw InternalError("search::maximise: the grid is larger than the budget");
  Outcome out;
  std::map<std::vector<double>, std::size_t> seen;
  const auto evaluate = [&](const std::vector<double>& x, const char* phase) -> double {
    const auto it = seen.find(x);
    if (it != seen.end()) return out.trace[it->second].value;
    const Score score = f(x);
    const double v = score.value;
    seen.emplace(x, out.trace.size());
    out.trace.push_back({x, v, std::isnan(v) ? 0.0 : std::max(0.0, score.width), phase});
    if (out.best < 0 ? !std::isnan(v) : better(v, out.trace[out.best].value))
      out.best = static_cast<long>(out.trace.size()) - 1;
    return v;
  };

  for_each_grid_point(axes, [&](const std::vector<double>& x) { evaluate(x, "grid"); });
  std::vector<std::vector<double>> grids;
  for (const Axis& a : axes) grids.push_back(a.grid());

  // Compass search from the best grid point.
  std::vector<double> step(axes.size(), 0.0);
  bool any = false;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const Axis& a = axes[i];
    if (!a.refined()) continue;
    const double spacing =
        grids[i].size() > 1 ? (a.max - a.min) / (grids[i].size() - 1) : 0.5 * (a.max - a.min);
    step[i] = a.integer ? std::max(1.0, std::floor(0.5 * spacing)) : 0.5 * spacing;
    any = true;
  }
  if (!any || out.best < 0) {
    out.stopped = any ? "no covered grid point" : "no refinement (no range axis)";
    return out;
  }
  std::vector<double> x = out.trace[out.best].x;
  double fx = out.trace[out.best].value, width = out.trace[out.best].width;
  while (true) {
    bool improved = false, active = false;
    for (std::size_t i = 0; i < axes.size() && !improved; ++i) {
      if (step[i] <= 0) continue;
      active = true;
      for (double sign : {1.0, -1.0}) {
        std::vector<double> y = x;
        y[i] = std::clamp(x[i] + sign * step[i], axes[i].min, axes[i].max);
        if (axes[i].integer) y[i] = std::round(y[i]);
        if (y[i] == x[i]) continue;
        if (!seen.count(y) && static_cast<long>(out.trace.size()) >= budget) {
          out.stopped = "budget";
          return out;
        }
        const double v = evaluate(y, "refine");
        if (better(v, fx + width)) {
          x = y;
          fx = v;
          width = out.trace[seen.at(y)].width;
          improved = true;
          break;
        }
      }
    }
    if (!active) break;
    if (improved) continue;
    for (std::size_t i = 0; i < axes.size(); ++i) {
      if (step[i] <= 0) continue;
      if (axes[i].integer) {
        step[i] = step[i] <= 1 ? 0.0 : std::floor(0.5 * step[i]);
      } else {
        step[i] *= 0.5;
        if (step[i] < tolerance * (axes[i].max - axes[i].min)) step[i] = 0.0;
      }
    }
  }
  out.stopped = "converged";
  return out;
}

}  // namespace rdpaudit::search
