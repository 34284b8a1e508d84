// What a loss family implies about a neighbouring pair, computed where the file is read: the
// noise conventions relative to S_g (noise.paper_noise_multiplier) need it before any bound.
#pragma once

#include "rdpaudit/config/scenario.hpp"

namespace rdpaudit::config {

/// S_g of the scenario's pair: the l2 sensitivity of the total gradient sum_i grad l(theta; x_i)
/// when record i0 is replaced (or, for a crafted record, removed).
double pair_sensitivity(const Scenario& s);

}  // namespace rdpaudit::config
