// The default grids of Renyi orders. config/ resolves them once, when the file is read
// (BoundsSpec::alphas); the estimators' grid is a function of the resolved scenario.
#pragma once

#include <vector>

#include "rdpaudit/config/scenario.hpp"

namespace rdpaudit::config {

/// The audited orders when bounds.alphas is not given: `rdpaudit bounds`' table and the audit.
const std::vector<double>& default_audited_orders();

/// The estimators' grid: 1.1, 1.2, ..., 10.9, then 11, ..., 64 (dp_accounting's orders up to
/// 63, plus 64), with `extra` merged in, sorted, each order once.
std::vector<double> estimation_orders(const std::vector<double>& extra = {});

/// The orders a scenario's estimators compute: the grid above with estimate.alphas and the
/// audited orders (so every verdict has its estimate).
std::vector<double> estimation_orders(const Scenario& s);

}  // namespace rdpaudit::config
