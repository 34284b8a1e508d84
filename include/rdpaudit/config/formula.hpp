// The checks every muparser formula of an experiment file passes at `validate`: the crafted
// gradient's data.gradient_formula and the gradient_formula loss's model.gradient.
#pragma once

#include <string>
#include <vector>

#include "rdpaudit/config/reader.hpp"

namespace rdpaudit::config {

/// Compiles `text` once with `names` as muparser constants: an assignment to one (which with
/// variables would compile and overwrite it), an unknown name, a syntax error or a
/// comma-separated list (muparser keeps its last item) is an InputError naming `key`, whose
/// message ends with `names_text` (what the formula may use).
void check_formula(const std::string& text, const char* key, const std::vector<const char*>& names,
                   const char* names_text, Reader& r);

}  // namespace rdpaudit::config
