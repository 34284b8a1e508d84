// The readers of an experiment file's tables, one per table. read_scenario (load.cpp) calls
// them in a fixed order because each checks its keys against what earlier tables set: the data
// needs the model's dimension, the training the number of records, the noise the batch size
// and the pair's sensitivity. crafted.hpp and profile.hpp declare the two remaining readers.
#pragma once

#include <Eigen/Dense>
#include <optional>
#include <string>
#include <vector>

#include "rdpaudit/config/reader.hpp"
#include "rdpaudit/config/scenario.hpp"

namespace rdpaudit::config {

void read_model(Scenario& s, Reader& r);                        ///< [model]
void read_data(Scenario& s, Reader& r);                         ///< [data]: the pair D, D'
void read_adjacency(Scenario& s, Reader& r);                    ///< data.adjacency
void read_training(Scenario& s, Reader& r);                     ///< [training]
void read_noise(Scenario& s, Reader& r);                        ///< [noise]
void read_init(Scenario& s, Reader& r);                         ///< [init]
void read_tally(Scenario& s, Reader& r);                        ///< [tally]
void read_bounds(Scenario& s, Reader& r);                       ///< [bounds]
void read_estimate(Scenario& s, Reader& r, long trajectories);  ///< [estimate]

/// A key naming one entry of a vocabulary table (loss_names(), scheme_names(), ...).
template <class Enum>
Enum pick_enum(Reader& r, const std::string& key, const NameTable<Enum>& options,
               const std::string& what) {
  const std::string v = r.require_string(key, what);
  for (const auto& [name, value] : options) {
    if (name == v) return value;
  }
  r.fail(key, "must be one of: " + name_list(options));
}

Eigen::VectorXd to_vector(const std::vector<double>& v);

/// x <- x * min(1, bound / ||x||): feature clipping (logistic) and DP-SGD's per-example clip of
/// a gradient that does not depend on theta (linear, crafted).
template <class Vector>
void clip_to_norm(Vector&& x, double bound) {
  const double norm = x.norm();
  if (norm > bound) x *= bound / norm;
}

/// A list of Renyi orders (bounds.alphas, estimate.alphas): each in (1, 10^4], at most 1000.
std::optional<std::vector<double>> read_orders(Reader& r, const std::string& key);

}  // namespace rdpaudit::config
