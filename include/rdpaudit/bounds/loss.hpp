// The constants (lambda, beta, S_g, L) of the loss families rdpaudit simulates, for the
// bounds: defined with each family in config/loss.hpp. Callers copy them into Params and may
// override any of them.
#pragma once

#include "rdpaudit/config/loss.hpp"

namespace rdpaudit::bounds {

using config::derive_loss_constants;
using config::LossConstants;
using config::LossDescription;

}  // namespace rdpaudit::bounds
