// Reading an experiment file: the [experiment] table, the command-line overrides, the sweep's
// expansion (sweep.cpp) and, per scenario, every table's reader (tables.hpp) in order.
#include "rdpaudit/config/load.hpp"

#include <fmt/core.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "rdpaudit/config/crafted.hpp"
#include "rdpaudit/config/limits.hpp"
#include "rdpaudit/config/profile.hpp"
#include "rdpaudit/config/reader.hpp"
#include "rdpaudit/config/sweep.hpp"
#include "rdpaudit/config/tables.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/core/sha256.hpp"

namespace rdpaudit::config {
namespace {

constexpr double kMaxTrajectories = 1e12;  // per dataset and scenario, after --scale

Scenario read_scenario(const toml::table& doc, const std::map<std::string, Reader::Swept>& swept,
                       long trajectories, const TrajectorySource& source) {
  Reader r(doc, swept);
  // The [experiment] table is read once for the whole file; mark its keys as known here.
  for (const char* k : {"experiment.name", "experiment.description", "experiment.seed",
                        "experiment.trajectories", "experiment.sweep"}) {
    if (r.has(k)) {
      if (std::string(k) == "experiment.seed" || std::string(k) == "experiment.trajectories") {
        r.integer(k);
      } else {
        r.string(k);
      }
    }
  }
  Scenario s;
  try {
    read_model(s, r);
    read_data(s, r);
    read_adjacency(s, r);
    read_training(s, r);
    read_crafted_gradient(s, r);  // a formula is evaluated at every step t < T
    read_noise(s, r);
    read_init(s, r);
    read_tally(s, r);
    read_bounds(s, r);
    read_estimate(s, r, trajectories);
    read_profile(s, r);
  } catch (const InputError&) {
    r.reject_misspelt();  // a typo's consequence ("noise = <missing>") names the typo instead
    throw;
  }
  r.reject_unused();
  check_scenario_limits(s, r, trajectories, source);
  return s;
}

std::string stem(const std::string& path) {
  auto slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  auto dot = base.rfind('.');
  return dot == std::string::npos ? base : base.substr(0, dot);
}

}  // namespace

ExperimentSpec parse_experiment(const std::string& text, const std::string& source_name,
                                const Overrides& overrides) {
  const toml::table doc = parse_toml(text, source_name);

  // The adversary search's table (docs/experiments.md): `rdpaudit search` reads it and writes
  // the experiment file that the other commands read.
  if (doc.contains("search")) {
    throw InputError("search", "[search]",
                     "a search file: `rdpaudit search FILE -o FOUND.toml` reads it and writes the "
                     "found adversary's experiment file FOUND.toml for `rdpaudit run`");
  }

  ExperimentSpec spec;
  spec.source_path = source_name;
  spec.config_text = text;
  spec.config_sha256 = sha256_hex(text);

  Reader r(doc);
  spec.name = r.string("experiment.name").value_or(stem(source_name));
  // The default results file is results/<name>.h5: a name that is a path would write outside
  // results/ (or into a folder that is not there).
  const bool plain = !spec.name.empty() && spec.name != "." && spec.name != ".." &&
                     spec.name.size() <= 200 && spec.name.find('/') == std::string::npos &&
                     spec.name.find('\0') == std::string::npos;
  if (!plain)
    r.fail("experiment.name", "must be a plain file name (no '/', not . or .., at most 200 bytes)");
  spec.description = r.string("experiment.description").value_or("");
  const long seed = r.require_integer("experiment.seed", "random seed >= 0");
  if (seed < 0) r.fail("experiment.seed", "must be >= 0");
  spec.seed = overrides.seed.value_or(static_cast<std::uint64_t>(seed));
  const long m = r.require_integer("experiment.trajectories", "trajectories per dataset >= 1");
  TrajectorySource source;
  source.key = overrides.trajectories ? "--trajectories" : "experiment.trajectories";
  source.scale = overrides.scale;
  source.simulated = overrides.simulated;
  const long unscaled = overrides.trajectories.value_or(m);
  if (unscaled < 1) {
    if (overrides.trajectories)
      throw InputError("--trajectories", std::to_string(unscaled), "must be >= 1");
    r.fail("experiment.trajectories", "must be >= 1");
  }
  if (!(overrides.scale > 0.0 && overrides.scale <= 1e6)) {
    throw InputError("--scale", fmt::format("{}", overrides.scale), "must be in (0, 10^6]");
  }
  // Checked in double before rounding: 2^63 - 1 trajectories x --scale 10 overflowed a long.
  const double scaled = static_cast<double>(unscaled) * overrides.scale;
  if (scaled > kMaxTrajectories) {
    throw InputError(
        overrides.scale != 1.0 ? "--scale" : source.key,
        overrides.scale != 1.0 ? fmt::format("{}", overrides.scale) : std::to_string(unscaled),
        fmt::format("{} x {} = {:.4g} trajectories per dataset; at most 10^12", unscaled,
                    overrides.scale, scaled));
  }
  spec.trajectories = std::lround(scaled);
  if (spec.trajectories < 1) {
    throw InputError("--scale", fmt::format("{}", overrides.scale),
                     fmt::format("leaves {} x {:g} < 0.5 trajectories per dataset from {} = {}; "
                                 "need --scale >= {:.3g}",
                                 unscaled, overrides.scale, source.key, unscaled, 0.5 / unscaled));
  }
  spec.sweep_mode = r.string("experiment.sweep").value_or("product");
  if (spec.sweep_mode != "product" && spec.sweep_mode != "zip") {
    r.fail("experiment.sweep", "must be \"product\" or \"zip\"");
  }

  const auto axes = find_sweep_axes(doc);
  for (const auto& a : axes) spec.swept_keys.push_back(a.key);
  const std::size_t count = sweep_size(axes, spec.sweep_mode);
  for (std::size_t c = 0; c < count; ++c) {
    SweepPoint point = sweep_point(axes, spec.sweep_mode, c);
    Scenario s = read_scenario(doc, point.swept, spec.trajectories, source);
    s.index = static_cast<int>(c);
    s.sweep_point = std::move(point.values);
    spec.scenarios.push_back(std::move(s));
  }
  if (source.simulated) check_run_memory(spec, source);
  return spec;
}

ExperimentSpec load_experiment(const std::string& path, const Overrides& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("experiment file", path, "cannot be opened");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_experiment(text.str(), path, overrides);
}

}  // namespace rdpaudit::config
