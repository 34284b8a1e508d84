#include "rdpaudit/io/results_reader.hpp"

#include <fmt/core.h>

#include <cmath>

#include "rdpaudit/core/error.hpp"
#include "rdpaudit/io/hdf5.hpp"
#include "rdpaudit/io/results.hpp"

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

audit::AuditResult read_audit(const Group& g) {
  audit::AuditResult a;
  a.level = g.read_double_attr("level");
  a.hypotheses = g.read_int_attr("hypotheses");
  const Group b = g.open_group("bounds");
  const auto name = b.read_strings("name");
  const auto kind = b.read_strings("kind");
  const auto source = b.read_strings("source");
  const auto expect = b.read_strings("expect");
  const auto evidence = b.read_strings("evidence");
  for (std::size_t i = 0; i < name.size(); ++i) {
    audit::BoundRow r;
    r.name = name[i];
    r.kind = kind.at(i);
    r.source = source.at(i);
    if (expect.at(i) != "holds" && expect.at(i) != "violated")
      throw InputError("/audit/bounds/expect", expect[i], "holds or violated");
    r.expect_violated = expect[i] == "violated";
    r.evidence = evidence.at(i);
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
  const auto lower = c.read_doubles("lower");
  const auto lower_method = c.read_strings("lower_method");
  const auto p_value = c.read_doubles("p_value");
  const auto p_holm = c.read_doubles("p_holm");
  const auto verdict = c.read_strings("verdict");
  const auto t_est = c.read_doubles("tightness_estimate");
  const auto t_low = c.read_doubles("tightness_lower");
  const auto note = c.read_strings("note");
  for (std::size_t i = 0; i < scenario.size(); ++i) {
    audit::Cell x;
    x.scenario = static_cast<int>(scenario[i]);
    x.bound = static_cast<std::size_t>(bound.at(i));
    if (x.bound >= a.bounds.size())
      throw InputError("/audit/cells/bound", std::to_string(bound[i]), "a row of /audit/bounds");
    x.alpha = alpha.at(i);
    x.direction = static_cast<int>(direction.at(i));
    x.bound_value = bound_value.at(i);
    x.estimate = estimate.at(i);
    x.estimate_method = estimate_method.at(i);
    x.exact = exact.at(i);
    x.lower = lower.at(i);
    x.lower_method = lower_method.at(i);
    x.p_value = p_value.at(i);
    x.p_holm = p_holm.at(i);
    x.verdict = audit::parse_verdict(verdict.at(i), "/audit/cells/verdict");
    x.tested = std::isfinite(x.bound_value) && x.verdict != audit::Verdict::kNotApplicable;
    x.tightness_estimate = t_est.at(i);
    x.tightness_lower = t_low.at(i);
    x.note = note.at(i);
    a.cells.push_back(std::move(x));
  }
  // Outcomes are recomputed from the cells, not trusted from the file.
  for (std::size_t r = 0; r < a.bounds.size(); ++r) audit::summarise(a.bounds[r], r, a.cells);
  return a;
}

}  // namespace

ResultsSummary read_results(const std::string& path) {
  const ReadOnlyFile file(path);
  const Group& root = file.root();
  ResultsSummary s;
  s.path = path;
  if (root.read_string_attr("filetype") != kFileType) {
    throw InputError("RESULTS", path, std::string("a file of type ") + kFileType);
  }
  const auto version = root.read_int_attrs("format_version");
  if (version.size() != 2 || version[0] != kFormatMajor) {
    throw InputError("format_version", version.empty() ? "?" : std::to_string(version[0]),
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
  const Group scenarios = root.open_group("scenarios");
  for (std::int64_t i = 0; i < count; ++i) {
    const Group g = scenarios.open_group(fmt::format("{:04d}", i));
    ScenarioLine line{i, sweep_point(g), g.read_double_attr("seconds")};
    if (g.has_attr("adjacency")) {
      line.adjacency = config::parse_adjacency(g.read_string_attr("adjacency"),
                                               fmt::format("/scenarios/{:04d}/adjacency", i));
    }
    s.scenarios.push_back(std::move(line));
  }
  s.has_audit = root.has("audit");
  if (s.has_audit) s.audit = read_audit(root.open_group("audit"));
  return s;
}

}  // namespace rdpaudit::io
