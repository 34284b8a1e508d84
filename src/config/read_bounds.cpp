#include <cmath>
#include <string>
#include <utility>

#include "rdpaudit/config/expectations.hpp"
#include "rdpaudit/config/orders.hpp"
#include "rdpaudit/config/reader.hpp"
#include "rdpaudit/config/tables.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::config {

namespace {

std::string custom_key(std::size_t i, const std::string& leaf) {
  return "bounds.custom[" + std::to_string(i) + "]." + leaf;
}

std::string quoted_list(const std::vector<std::string>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", \"" : "\"") + v[i] + "\"";
  return out + "]";
}

// [[bounds.custom]] tables: name, exactly one of formula / values / values_file / command, and
// optional conditions. bounds::check_experiment compiles the formulas, and
// bounds::resolve_accountant_values reads the CSV and runs the command (they need every
// scenario's sweep point and resolved parameters), so that `rdpaudit validate` reports all of it.
std::vector<CustomBoundText> read_custom_bounds(Reader& r, std::size_t orders) {
  std::vector<CustomBoundText> out;
  const toml::array* arr = r.table_array("bounds.custom");
  if (!arr) return out;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const toml::table& t = *arr->get(i)->as_table();
    CustomBoundText c;
    std::vector<std::string> sources;  // which of formula, values, values_file, command
    bool has_timeout = false;
    for (const auto& [key, value] : t) {
      const std::string k(key.str());
      if (k == "name" || k == "formula" || k == "values_file") {
        const auto* str = value.as_string();
        if (!str || str->get().empty()) {
          throw InputError(custom_key(i, k), r.text(custom_key(i, k)),
                           "must be a non-empty string");
        }
        (k == "name" ? c.name : k == "formula" ? c.formula : c.values_file) = str->get();
        if (k != "name") sources.push_back(k);
      } else if (k == "values") {
        const auto* list = value.as_array();
        if (!list || list->empty())
          throw InputError(custom_key(i, k), r.text(custom_key(i, k)),
                           "must be a non-empty array of numbers, one per bounds.alphas order");
        for (std::size_t j = 0; j < list->size(); ++j) {
          const auto v = number_value(*list->get(j));
          if (!v || std::isnan(*v))
            throw InputError(custom_key(i, k) + "[" + std::to_string(j) + "]",
                             r.text(custom_key(i, k)), "must be a number");
          c.values.push_back(*v);
        }
        if (c.values.size() != orders) {
          throw InputError(custom_key(i, k), r.text(custom_key(i, k)),
                           "has " + std::to_string(c.values.size()) +
                               " values; one per bounds.alphas order (" + std::to_string(orders) +
                               ") is needed");
        }
        sources.push_back(k);
      } else if (k == "command") {
        const auto* list = value.as_array();
        if (!list || list->empty())
          throw InputError(custom_key(i, k), r.text(custom_key(i, k)),
                           "must be a non-empty array of strings (the program, then its "
                           "arguments)");
        for (std::size_t j = 0; j < list->size(); ++j) {
          const auto* str = list->get(j)->as_string();
          if (!str || (j == 0 && str->get().empty()))
            throw InputError(custom_key(i, k) + "[" + std::to_string(j) + "]",
                             r.text(custom_key(i, k)),
                             j == 0 ? "must be a non-empty string" : "must be a string");
          c.command.push_back(str->get());
        }
        sources.push_back(k);
      } else if (k == "timeout_s") {
        const auto v = number_value(value);
        if (!v || !(*v > 0 && *v <= 86400))
          throw InputError(custom_key(i, k), r.text(custom_key(i, k)),
                           "must be a number of seconds in (0, 86400]");
        c.timeout_s = *v;
        has_timeout = true;
      } else if (k == "conditions") {
        const auto* list = value.as_array();
        if (!list) throw InputError(custom_key(i, k), "...", "must be an array of strings");
        for (std::size_t j = 0; j < list->size(); ++j) {
          const auto* str = list->get(j)->as_string();
          if (!str)
            throw InputError(custom_key(i, k) + "[" + std::to_string(j) + "]", "...",
                             "must be a string");
          c.conditions.push_back(str->get());
        }
      } else if (k == "expect") {
        const auto* str = value.as_string();
        if (!str) throw InputError(custom_key(i, k), r.text(custom_key(i, k)), "must be a string");
        c.expect = parse_expectation(str->get(), custom_key(i, k));
      } else {
        throw InputError(custom_key(i, k), "...",
                         "unknown key (known: name, formula, values, values_file, command, "
                         "timeout_s, conditions, expect)");
      }
    }
    if (c.name.empty()) throw InputError(custom_key(i, "name"), "<missing>", "required");
    if (sources.empty())
      throw InputError(custom_key(i, "formula"), "<missing>",
                       "required: exactly one of formula, values, values_file, command");
    if (sources.size() > 1)
      throw InputError(custom_key(i, sources[1]), r.text(custom_key(i, sources[1])),
                       "give exactly one of formula, values, values_file, command (also " +
                           custom_key(i, sources[0]) + ")");
    if (has_timeout && c.command.empty())
      throw InputError(custom_key(i, "timeout_s"), r.text(custom_key(i, "timeout_s")),
                       "applies to a command only");
    if (!c.command.empty() && c.command.front().empty())
      throw InputError(custom_key(i, "command"), quoted_list(c.command), "names no program");
    for (const auto& prev : out) {
      if (prev.name == c.name)
        throw InputError(custom_key(i, "name"), "\"" + c.name + "\"", "duplicate bound name");
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

void read_bounds(Scenario& s, Reader& r) {
  auto& b = s.bounds;
  if (auto alphas = read_orders(r, "bounds.alphas")) {
    if (alphas->empty()) r.fail("bounds.alphas", "needs at least one order");
    b.alphas = *alphas;
  } else {
    b.alphas = default_audited_orders();
  }
  const auto positive = [&](const char* key, double& out, bool allow_zero) {
    if (auto v = r.number(key)) {
      if (!(allow_zero ? *v >= 0 : *v > 0))
        r.fail(key, allow_zero ? "must be >= 0" : "must be > 0");
      out = *v;
    }
  };
  positive("bounds.lambda", b.lambda, true);
  positive("bounds.beta", b.beta, true);
  positive("bounds.S_g", b.sensitivity, true);
  positive("bounds.L", b.lipschitz, true);
  positive("bounds.D", b.diameter, false);
  positive("bounds.eps_norm", b.eps_norm, true);
  b.custom = read_custom_bounds(r, b.alphas.size());
  b.exact_verdicts = r.boolean("bounds.exact_verdicts").value_or(true);
  // That each name is a built-in or custom bound, and that each formula compiles, is checked
  // by bounds::check_experiment: config/ knows no bound.
  b.audit = r.strings("bounds.audit").value_or(std::vector<std::string>{});
  b.expect_violated = r.strings("bounds.expect_violated").value_or(std::vector<std::string>{});
  b.expect_valid_exact =
      r.strings("bounds.expect_valid_exact").value_or(std::vector<std::string>{});
  b.expect_holds = r.strings("bounds.expect_holds").value_or(std::vector<std::string>{});
  check_expectations(b, r);
}

}  // namespace rdpaudit::config
