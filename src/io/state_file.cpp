#include "rdpaudit/io/state_file.hpp"

#include <fmt/core.h>

#include <filesystem>

#include "rdpaudit/core/error.hpp"
#include "rdpaudit/io/hdf5.hpp"

namespace rdpaudit::io {

namespace {

constexpr const char* kFileType = "rdpaudit-state";

Shape shape1(std::size_t n) {
  return {static_cast<std::uint64_t>(n)};
}

const char* side_name(int k) {
  return k == 0 ? "D" : "Dprime";
}

}  // namespace

std::string RunIdentity::difference(const RunIdentity& o, bool compare_part) const {
  const auto field = [](const char* name, const auto& a, const auto& b) {
    return fmt::format("{}: {} vs {}", name, a, b);
  };
  if (tool != o.tool) return field("rdpaudit build", tool, o.tool);
  if (config_sha256 != o.config_sha256)
    return field("experiment file (SHA-256 of its text)", config_sha256.substr(0, 12),
                 o.config_sha256.substr(0, 12));
  if (seed != o.seed) return field("seed", seed, o.seed);
  if (trajectories != o.trajectories) return field("trajectories", trajectories, o.trajectories);
  if (overrides.scale != o.overrides.scale)
    return field("--scale", overrides.scale, o.overrides.scale);
  if (schedule != o.schedule) return field("schedule", schedule, o.schedule);
  if (parts != o.parts) return field("number of parts", parts, o.parts);
  if (compare_part && part != o.part)
    return field("part", fmt::format("{}/{}", part, parts), fmt::format("{}/{}", o.part, o.parts));
  return {};
}

void write_state(const std::string& path, const RunState& state) {
  AtomicFile file(path);
  const Group& root = file.root();
  root.attr("filetype", kFileType);
  root.attr("state_format", kStateFormat);
  root.attr("kind", state.kind);
  const RunIdentity& id = state.identity;
  root.attr("tool", id.tool);
  root.attr("config_sha256", id.config_sha256);
  root.attr("config_text", id.config_text);
  root.attr("config_path", id.config_path);
  root.attr("seed", std::to_string(id.seed));  // the whole uint64 range, as text
  root.attr("trajectories", id.trajectories);
  root.attr("override_seed", id.overrides.seed.has_value());
  root.attr("override_trajectories", id.overrides.trajectories.has_value());
  if (id.overrides.trajectories)
    root.attr("override_trajectories_value", static_cast<std::int64_t>(*id.overrides.trajectories));
  root.attr("scale", id.overrides.scale);
  root.attr("schedule", id.schedule);
  root.attr("part", id.part);
  root.attr("parts", id.parts);
  root.attr("look", state.look);
  root.attr("scenarios", static_cast<std::int64_t>(state.scenarios.size()));
  for (std::size_t i = 0; i < state.scenarios.size(); ++i) {
    const ScenarioState& s = state.scenarios[i];
    Group g = root.create_group(fmt::format("{:04d}", i));
    g.attr("cells", s.cells);
    g.attr("next_d", s.next[0]);
    g.attr("next_dprime", s.next[1]);
    for (int k = 0; k < 2; ++k) {
      const tally::FlatTally& t = s.tally[static_cast<std::size_t>(k)];
      g.dataset(fmt::format("{}_ints", side_name(k)), t.ints.data(), shape1(t.ints.size()));
      g.dataset(fmt::format("{}_raw", side_name(k)), t.raw.data(), shape1(t.raw.size()));
    }
  }
  file.commit();
}

RunState read_state(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw InputError("state file", path, "does not exist (or is not a file)");
  ReadOnlyFile file(path);
  const Group& root = file.root();
  if (!root.has_attr("filetype") || root.read_string_attr("filetype") != kFileType)
    throw InputError("state file", path,
                     "is not an rdpaudit checkpoint or part file (filetype attribute)");
  if (root.read_int_attr("state_format") != kStateFormat)
    throw InputError("state file", path,
                     fmt::format("has state format {}, this rdpaudit reads {}",
                                 root.read_int_attr("state_format"), kStateFormat));
  RunState st;
  st.kind = root.read_string_attr("kind");
  RunIdentity& id = st.identity;
  id.tool = root.read_string_attr("tool");
  id.config_sha256 = root.read_string_attr("config_sha256");
  id.config_text = root.read_string_attr("config_text");
  id.config_path = root.read_string_attr("config_path");
  id.seed = std::stoull(root.read_string_attr("seed"));
  id.trajectories = root.read_int_attr("trajectories");
  if (root.read_int_attr("override_seed")) id.overrides.seed = id.seed;
  if (root.read_int_attr("override_trajectories"))
    id.overrides.trajectories = root.read_int_attr("override_trajectories_value");
  id.overrides.scale = root.read_double_attr("scale");
  id.schedule = root.read_string_attr("schedule");
  id.part = static_cast<int>(root.read_int_attr("part"));
  id.parts = static_cast<int>(root.read_int_attr("parts"));
  st.look = static_cast<int>(root.read_int_attr("look"));
  const std::int64_t n = root.read_int_attr("scenarios");
  for (std::int64_t i = 0; i < n; ++i) {
    const Group g = root.open_group(fmt::format("{:04d}", i));
    ScenarioState s;
    s.cells = g.read_string_attr("cells");
    s.next = {g.read_int_attr("next_d"), g.read_int_attr("next_dprime")};
    for (int k = 0; k < 2; ++k) {
      tally::FlatTally& t = s.tally[static_cast<std::size_t>(k)];
      t.ints = g.read_ints(fmt::format("{}_ints", side_name(k)));
      t.raw = g.read_doubles(fmt::format("{}_raw", side_name(k)));
    }
    st.scenarios.push_back(std::move(s));
  }
  return st;
}

}  // namespace rdpaudit::io
