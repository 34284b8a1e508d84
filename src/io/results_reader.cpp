#include "rdpaudit/io/results_reader.hpp"

#include <fmt/core.h>

#include <cmath>

#include "rdpaudit/core/activity.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/io/hdf5.hpp"
#include "rdpaudit/io/results.hpp"
#include "rdpaudit/io/scenario_check.hpp"

namespace rdpaudit::io {

namespace {

// "key=value ..." with the key's last path component, as `run` prints it.
std::string sweep_point(const Group& g) {
  const auto keys = g.read_string_attrs("sweep_keys");
  const auto texts = g.read_string_attrs("sweep_text");
  std::string out;
  for (std::size_t i = 0; i < keys.size() && i < texts.size(); ++i) {
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", keys[i].substr(keys[i].find('.') + 1),
                       texts[i]);
  }
  return out.empty() ? "-" : out;
}

// Every column of a table must have one row per entry: a ragged table is a damaged file.
void require_rows(const std::string& table, std::size_t rows,
                  std::initializer_list<std::pair<const char*, std::size_t>> columns) {
  for (const auto& [name, size] : columns) {
    if (size != rows) {
      throw InputError(table + "/" + name, fmt::format("{} rows", size),
                       fmt::format("{} rows, one per entry of the table", rows));
    }
  }
}

// A probability read back from a file: a number in [0, 1].
double probability(double p, const std::string& key) {
  if (!(p >= 0.0 && p <= 1.0)) throw InputError(key, fmt::format("{}", p), "a number in [0, 1]");
  return p;
}

audit::AuditResult read_audit(const Group& g, std::int64_t scenario_count) {
  audit::AuditResult a;
  a.level = g.read_double_attr("level");
  if (!(a.level > 0.0 && a.level < 1.0))
    throw InputError("/audit@level", fmt::format("{}", a.level), "a number in (0, 1)");
  a.hypotheses = g.read_int_attr("hypotheses");
  if (a.hypotheses < 0)
    throw InputError("/audit@hypotheses", std::to_string(a.hypotheses), "a count >= 0");
  if (g.has_attr("close_margin")) a.close_margin = g.read_double_attr("close_margin");
  const Group b = g.open_group("bounds");
  const auto name = b.read_strings("name");
  const auto kind = b.read_strings("kind");
  const auto source = b.read_strings("source");
  const auto expect = b.read_strings("expect");
  const auto evidence = b.read_strings("evidence");
  const auto adjacency_note = b.read_strings("adjacency_note");
  require_rows("/audit/bounds", name.size(),
               {{"kind", kind.size()},
                {"source", source.size()},
                {"expect", expect.size()},
                {"evidence", evidence.size()},
                {"adjacency_note", adjacency_note.size()}});
  for (std::size_t i = 0; i < name.size(); ++i) {
    audit::BoundRow r;
    r.name = name[i];
    r.kind = kind.at(i);
    r.source = source.at(i);
    r.expect = config::parse_expectation(expect.at(i), "/audit/bounds/expect");
    r.evidence = evidence.at(i);
    r.adjacency_note = adjacency_note[i];
    a.bounds.push_back(r);
  }
  const Group c = g.open_group("cells");
  const auto scenario = c.read_ints("scenario");
  const auto bound = c.read_ints("bound");
  const auto alpha = c.read_doubles("alpha");
  const auto direction = c.read_ints("direction");
  const auto bound_value = c.read_doubles("bound_value");
  const auto estimate = c.read_doubles("estimate");
  const auto estimate_method = c.read_strings("estimate_method");
  const auto exact = c.read_doubles("exact");
  const auto exact_lower = c.read_doubles("exact_lower");
  const auto exact_upper = c.read_doubles("exact_upper");
  const auto lower = c.read_doubles("lower");
  const auto lower_method = c.read_strings("lower_method");
  const auto p_method = c.read_strings("p_method");
  const auto p_value = c.read_doubles("p_value");
  const auto p_holm = c.read_doubles("p_holm");
  const auto verdict = c.read_strings("verdict");
  const auto t_est = c.read_doubles("tightness_estimate");
  const auto t_low = c.read_doubles("tightness_lower");
  const auto close = c.read_ints("close");
  const auto note = c.read_strings("note");
  // (eps, delta) claim cells (format 2.0 files written before them have no column): their
  // delta in (0, 1), alpha NaN.
  const auto delta =
      c.has("delta") ? c.read_doubles("delta") : std::vector<double>(scenario.size(), audit::kNaN);
  // The exact value's source and the bound inside its bracket (since 2.4).
  const auto exact_method = c.has("exact_method") ? c.read_strings("exact_method")
                                                  : std::vector<std::string>(scenario.size());
  const auto within = c.has("within_exact_bracket") ? c.read_ints("within_exact_bracket")
                                                    : std::vector<std::int64_t>(scenario.size(), 0);
  // What each cell tests (since 2.5): "renyi", "eps_delta" or "mu"; before, from delta.
  const auto quantity =
      c.has("quantity") ? c.read_strings("quantity") : std::vector<std::string>(scenario.size());
  require_rows("/audit/cells", scenario.size(),
               {{"delta", delta.size()},
                {"quantity", quantity.size()},
                {"exact_method", exact_method.size()},
                {"within_exact_bracket", within.size()}});
  require_rows("/audit/cells", scenario.size(),
               {{"bound", bound.size()},
                {"alpha", alpha.size()},
                {"direction", direction.size()},
                {"bound_value", bound_value.size()},
                {"estimate", estimate.size()},
                {"estimate_method", estimate_method.size()},
                {"exact", exact.size()},
                {"exact_lower", exact_lower.size()},
                {"exact_upper", exact_upper.size()},
                {"lower", lower.size()},
                {"lower_method", lower_method.size()},
                {"p_method", p_method.size()},
                {"p_value", p_value.size()},
                {"p_holm", p_holm.size()},
                {"verdict", verdict.size()},
                {"tightness_estimate", t_est.size()},
                {"tightness_lower", t_low.size()},
                {"close", close.size()},
                {"note", note.size()}});
  for (std::size_t i = 0; i < scenario.size(); ++i) {
    audit::Cell x;
    if (scenario[i] < 0 || scenario[i] >= scenario_count) {
      throw InputError("/audit/cells/scenario", std::to_string(scenario[i]),
                       fmt::format("a scenario index in [0, {})", scenario_count));
    }
    x.scenario = static_cast<int>(scenario[i]);
    if (bound[i] < 0 || static_cast<std::size_t>(bound[i]) >= a.bounds.size())
      throw InputError("/audit/cells/bound", std::to_string(bound[i]), "a row of /audit/bounds");
    x.bound = static_cast<std::size_t>(bound[i]);
    x.alpha = alpha[i];
    x.delta = delta[i];
    const std::string& what = quantity[i];
    if (!what.empty() && what != "renyi" && what != "eps_delta" && what != "mu")
      throw InputError("/audit/cells/quantity", what.substr(0, 80), "renyi, eps_delta or mu");
    x.gdp = what == "mu";
    if (x.gdp) {
      if (!std::isnan(x.alpha) || !std::isnan(x.delta))
        throw InputError("/audit/cells/alpha", fmt::format("{}", x.alpha),
                         "NaN (and delta NaN) in a mu cell");
    } else if (!what.empty() && (what == "eps_delta") != x.is_claim()) {
      throw InputError("/audit/cells/quantity", what, "eps_delta exactly where delta is set");
    } else if (x.is_claim() ? !(x.delta > 0.0 && x.delta < 1.0)
                            : !(x.alpha > 1.0 && std::isfinite(x.alpha))) {
      throw InputError(x.is_claim() ? "/audit/cells/delta" : "/audit/cells/alpha",
                       fmt::format("{}", x.is_claim() ? x.delta : x.alpha),
                       x.is_claim() ? "a delta in (0, 1)" : "an order > 1");
    }
    if (direction[i] != 0 && direction[i] != 1)
      throw InputError("/audit/cells/direction", std::to_string(direction[i]), "0 or 1");
    x.direction = static_cast<int>(direction[i]);
    x.bound_value = bound_value.at(i);
    x.estimate = estimate.at(i);
    x.estimate_method = estimate_method.at(i);
    x.exact = exact[i];
    x.exact_lower = exact_lower[i];
    x.exact_upper = exact_upper[i];
    x.exact_method = exact_method[i];
    x.within_exact_bracket = within[i] != 0;
    x.lower = lower[i];
    x.lower_method = lower_method[i];
    x.p_method = p_method[i];
    x.p_value = probability(p_value[i], "/audit/cells/p_value");
    x.p_holm = probability(p_holm[i], "/audit/cells/p_holm");
    x.verdict = audit::parse_verdict(verdict.at(i), "/audit/cells/verdict");
    x.tested = std::isfinite(x.bound_value) && x.verdict != audit::Verdict::kNotApplicable;
    x.tightness_estimate = t_est.at(i);
    x.tightness_lower = t_low.at(i);
    x.close = close[i] != 0;
    x.note = note.at(i);
    a.cells.push_back(std::move(x));
  }
  // Outcomes are recomputed from the cells, not trusted from the file.
  for (std::size_t r = 0; r < a.bounds.size(); ++r) audit::summarise(a.bounds[r], r, a.cells);
  return a;
}

}  // namespace

namespace {

// The scenario's Gaussian-DP rows (estimates/gdp), summarised for `report`.
void read_gdp(const Group& g, ScenarioLine& line) {
  const auto method = g.read_strings("method");
  const auto value = g.read_doubles("value");
  const auto lower = g.read_doubles("lower");
  const auto at = g.read_doubles("epsilon_at");
  const auto max = g.read_doubles("epsilon_max");
  require_rows(g.path(), method.size(),
               {{"value", value.size()},
                {"lower", lower.size()},
                {"epsilon_at", at.size()},
                {"epsilon_max", max.size()}});
  for (std::size_t i = 0; i < method.size(); ++i) {
    if (!(lower[i] >= 0.0) || !(value[i] >= 0.0))
      g.fail("lower", fmt::format("{}", lower[i]), "mu >= 0 (and value >= 0)");
    if (method[i] != "exact-profile") {
      if (!(line.mu_certified >= lower[i])) line.mu_certified = lower[i];
    } else if (!(line.mu_exact >= value[i])) {
      line.mu_exact = value[i];
      line.mu_exact_epsilon = at[i];
      line.mu_exact_at_grid_end = at[i] == max[i];
    }
  }
}

ResultsSummary read_results_unchecked(const std::string& path) {
  const ReadOnlyFile file(path, "results file");
  const Group& root = file.root();
  ResultsSummary s;
  s.path = path;
  if (!root.has_attr("filetype") || root.read_string_attr("filetype") != kFileType)
    root.fail("@filetype",
              root.has_attr("filetype") ? root.read_string_attr("filetype") : "<missing>",
              std::string("a file of type ") + kFileType + " (written by rdpaudit run)");
  const auto version = root.read_int_attrs("format_version");
  if (version.size() != 2 || version[0] != kFormatMajor || version[1] < 0) {
    root.fail("@format_version", version.empty() ? "?" : std::to_string(version[0]),
              fmt::format("major version {}", kFormatMajor));
  }
  s.format_major = version[0];
  s.format_minor = version[1];
  s.experiment_name = root.read_string_attr("experiment_name");
  s.description = root.read_string_attr("description");
  s.created_utc = root.read_string_attr("created_utc");
  s.tool_version = root.read_string_attr("tool_version");
  s.git_hash = root.read_string_attr("git_hash");
  s.command_line = root.read_string_attr("command_line");
  s.config_path = root.read_string_attr("config_path");
  s.threads = root.read_int_attr("threads");
  s.trajectories = root.read_int_attr("trajectories");
  const std::int64_t count = root.read_int_attr("scenario_count");
  if (count < 1 || count > 100'000)
    root.fail("@scenario_count", std::to_string(count), "a count of scenarios in [1, 10^5]");
  const Group scenarios = root.open_group("scenarios");
  if (s.trajectories < 1)
    root.fail("@trajectories", std::to_string(s.trajectories), "a count of trajectories >= 1");
  if (scenarios.group_names().size() != static_cast<std::size_t>(count))
    scenarios.fail("", fmt::format("{} groups", scenarios.group_names().size()),
                   fmt::format("one group per scenario, {} (/@scenario_count)", count));
  for (std::int64_t i = 0; i < count; ++i) {
    const Group g = scenarios.open_group(scenario_group_name(i, count, s.format_minor));
    ScenarioLine line{i, sweep_point(g), g.read_double_attr("seconds")};
    if (g.has_attr("adjacency"))
      line.adjacency =
          config::parse_adjacency(g.read_string_attr("adjacency"), g.path() + "@adjacency");
    const std::int64_t index = g.read_int_attr("index");
    if (index != i)
      g.fail("@index", std::to_string(index), fmt::format("the scenario's index {}", i));
    check_scenario_data(g, s.trajectories);
    if (g.has("estimates") && g.open_group("estimates").has("gdp"))
      read_gdp(g.open_group("estimates").open_group("gdp"), line);
    s.scenarios.push_back(std::move(line));
  }
  s.has_audit = root.has("audit");
  if (s.has_audit) s.audit = read_audit(root.open_group("audit"), count);
  file.finish_reading();
  return s;
}

}  // namespace

ResultsSummary read_results(const std::string& path) {
  const Activity reading("reading the results file " + path);
  try {
    return read_results_unchecked(path);
  } catch (const InputError&) {
    throw;  // names the object of the file that is wrong
  } catch (const std::invalid_argument& e) {
    // What the vocabulary cannot parse (a method name no estimator writes) is bad input too.
    throw InputError("results file", path, std::string("is damaged (") + e.what() + ")");
  }
}

}  // namespace rdpaudit::io
