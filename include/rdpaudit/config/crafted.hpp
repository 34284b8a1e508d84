// The crafted-gradient adversary (data.preset = "crafted_gradient"): the differing record
// contributes a gradient given by the user at every step, a vector or a formula in the step,
// as in the hidden-state audits (Annamalai 2024; Cebere et al. 2025).
#pragma once

#include "rdpaudit/config/reader.hpp"
#include "rdpaudit/config/scenario.hpp"

namespace rdpaudit::config {

/// Largest T * d of a formula's table of per-step gradients (8 doubles each: 80 MB).
inline constexpr double kMaxCraftedValues = 1e7;

/// Reads data.gradient (d numbers, every step) or data.gradient_formula (a muparser
/// expression in t, k, T, d) into s.data, once s.steps is known. A formula is evaluated at
/// every step t = 0 ... T-1 and coordinate k = 0 ... d-1 here, so that `validate` rejects
/// one that is not finite anywhere. Throws InputError naming the key.
void read_crafted_gradient(Scenario& s, Reader& r);

}  // namespace rdpaudit::config
