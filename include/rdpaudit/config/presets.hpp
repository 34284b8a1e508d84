// Named neighbouring pairs: the worst-case dataset of each loss family.
#pragma once

#include <string>
#include <vector>

#include "rdpaudit/config/reader.hpp"
#include "rdpaudit/config/scenario.hpp"

namespace rdpaudit::config {

/// Names accepted by data.preset.
const std::vector<std::string>& preset_names();

/// Builds the pair named by data.preset for `s` (loss, dim, lambda, ... already read),
/// reading the preset's own keys (data.n, data.sensitivity, ...) through `r`.
NeighbouringPair make_preset(const std::string& name, const Scenario& s, Reader& r);

}  // namespace rdpaudit::config
