// Sweep expansion: the keys of an experiment file that may hold a list of values (an axis),
// and the scenarios those lists expand to ("product": every combination, the key written last
// varying fastest; "zip": the i-th value of every list together).
#pragma once

#include <toml++/toml.h>

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "rdpaudit/config/reader.hpp"
#include "rdpaudit/config/scenario.hpp"

namespace rdpaudit::config {

struct SweepAxis {
  std::string key;
  const toml::array* values;
};

/// The swept keys of the document, in file order. Throws InputError for an empty list or an
/// element of the wrong type.
std::vector<SweepAxis> find_sweep_axes(const toml::table& root);

/// How many scenarios the axes expand to under `mode` ("product" or "zip"). Throws InputError
/// for zip lists of unequal length or more than 10^5 scenarios.
std::size_t sweep_size(const std::vector<SweepAxis>& axes, const std::string& mode);

/// Scenario `index` of the expansion: the element each swept key takes (for the Reader, which
/// reads it in place of the list) and the values as stored with the scenario.
struct SweepPoint {
  std::map<std::string, Reader::Swept> swept;
  std::vector<SweepValue> values;  ///< in file order
};
SweepPoint sweep_point(const std::vector<SweepAxis>& axes, const std::string& mode,
                       std::size_t index);

}  // namespace rdpaudit::config
