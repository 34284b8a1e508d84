#include "rdpaudit/io/state_file.hpp"

#include <fmt/core.h>

#include <filesystem>

#include "rdpaudit/core/activity.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/core/sha256.hpp"
#include "rdpaudit/io/accountant_record.hpp"
#include "rdpaudit/io/hdf5.hpp"
#include "rdpaudit/io/results.hpp"

namespace rdpaudit::io {

namespace {

constexpr const char* kStateFileType = "rdpaudit-state";

Shape shape1(std::size_t n) {
  return {static_cast<std::uint64_t>(n)};
}

const char* side_name(int k) {
  return k == 0 ? "D" : "Dprime";
}

// As in results files (scenario_group_name): names that sort as numbers.
std::string group_name(std::size_t i, std::size_t count) {
  return scenario_group_name(static_cast<std::int64_t>(i), static_cast<std::int64_t>(count));
}

void hash_int(Sha256& h, std::int64_t v) {
  h.update(&v, sizeof v);
}

void hash_text(Sha256& h, const std::string& s) {
  hash_int(h, static_cast<std::int64_t>(s.size()));
  h.update(s.data(), s.size());
}

// A decimal integer in [0, 2^64 - 1] (the seed is stored as text: the whole uint64 range).
bool parse_u64(const std::string& text, std::uint64_t& out) {
  if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos)
    return false;
  std::uint64_t v = 0;
  for (char c : text) {
    const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;
    v = v * 10 + digit;
  }
  out = v;
  return true;
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

std::string counts_checksum(const RunState& state) {
  Sha256 h;
  hash_text(h, state.kind);
  hash_text(h, state.identity.config_sha256);
  hash_text(h, std::to_string(state.identity.seed));
  hash_int(h, state.identity.trajectories);
  hash_int(h, state.identity.part);
  hash_int(h, state.identity.parts);
  hash_int(h, state.look);
  for (const config::AccountantRun& run : state.identity.accountant_runs) {
    hash_text(h, run.bound);
    for (const std::string& a : run.command) hash_text(h, a);
    hash_text(h, run.input);
    hash_text(h, run.output);
  }
  hash_int(h, static_cast<std::int64_t>(state.scenarios.size()));
  for (const ScenarioState& s : state.scenarios) {
    hash_text(h, s.cells);
    hash_int(h, s.next[0]);
    hash_int(h, s.next[1]);
    for (const tally::FlatTally& t : s.tally) {
      hash_int(h, static_cast<std::int64_t>(t.ints.size()));
      h.update(t.ints.data(), t.ints.size() * sizeof(std::int64_t));
      hash_int(h, static_cast<std::int64_t>(t.raw.size()));
      h.update(t.raw.data(), t.raw.size() * sizeof(double));
    }
    for (const std::vector<double>& rows : s.pilot) {
      hash_int(h, static_cast<std::int64_t>(rows.size()));
      h.update(rows.data(), rows.size() * sizeof(double));
    }
  }
  return h.hex();
}

void write_state(const std::string& path, const RunState& state) {
  const Activity writing(
      fmt::format("writing the {} {}", state.kind == "part" ? "part file" : "checkpoint", path));
  AtomicFile file(path, state.kind == "part" ? "part file" : "checkpoint");
  const Group& root = file.root();
  root.attr("filetype", kStateFileType);
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
  root.attr("counts_sha256", counts_checksum(state));
  write_accountant_records(root, id.accountant_runs);
  for (std::size_t i = 0; i < state.scenarios.size(); ++i) {
    const ScenarioState& s = state.scenarios[i];
    Group g = root.create_group(group_name(i, state.scenarios.size()));
    g.attr("cells", s.cells);
    g.attr("next_d", s.next[0]);
    g.attr("next_dprime", s.next[1]);
    for (int k = 0; k < 2; ++k) {
      const tally::FlatTally& t = s.tally[static_cast<std::size_t>(k)];
      g.dataset(fmt::format("{}_ints", side_name(k)), t.ints.data(), shape1(t.ints.size()));
      g.dataset(fmt::format("{}_raw", side_name(k)), t.raw.data(), shape1(t.raw.size()));
      const std::vector<double>& pilot = s.pilot[static_cast<std::size_t>(k)];
      if (!pilot.empty())
        g.dataset(fmt::format("{}_pilot", side_name(k)), pilot.data(), shape1(pilot.size()));
    }
    g.close();
  }
  file.commit();
}

namespace {

RunState read_state_unchecked(const ReadOnlyFile& file) {
  const Group& root = file.root();
  if (!root.has_attr("filetype") || root.read_string_attr("filetype") != kStateFileType)
    root.fail("@filetype",
              root.has_attr("filetype") ? root.read_string_attr("filetype") : "<missing>",
              "an rdpaudit checkpoint or part file");
  const std::int64_t format = root.read_int_attr("state_format");
  if (format != kStateFormat)
    root.fail("@state_format", std::to_string(format),
              fmt::format("state format {}, the one this rdpaudit reads (a checkpoint or part of "
                          "another version: start again with this one)",
                          kStateFormat));
  RunState st;
  st.kind = root.read_string_attr("kind");
  if (st.kind != "checkpoint" && st.kind != "part")
    root.fail("@kind", st.kind, "checkpoint or part");
  RunIdentity& id = st.identity;
  id.tool = root.read_string_attr("tool");
  id.config_sha256 = root.read_string_attr("config_sha256");
  id.config_text = root.read_string_attr("config_text");
  id.config_path = root.read_string_attr("config_path");
  const std::string seed = root.read_string_attr("seed");
  if (!parse_u64(seed, id.seed))
    root.fail("@seed", "\"" + seed.substr(0, 40) + "\"", "a decimal integer in [0, 2^64 - 1]");
  id.trajectories = root.read_int_attr("trajectories");
  if (id.trajectories < 1)
    root.fail("@trajectories", std::to_string(id.trajectories), "a count >= 1");
  if (root.read_int_attr("override_seed")) id.overrides.seed = id.seed;
  if (root.read_int_attr("override_trajectories"))
    id.overrides.trajectories = root.read_int_attr("override_trajectories_value");
  id.overrides.scale = root.read_double_attr("scale");
  id.schedule = root.read_string_attr("schedule");
  const std::int64_t part = root.read_int_attr("part"), parts = root.read_int_attr("parts");
  if (parts < 1 || parts > 1'000'000 || part < 1 || part > parts)
    root.fail("@part", fmt::format("{}/{}", part, parts), "i/N with 1 <= i <= N <= 10^6");
  id.part = static_cast<int>(part);
  id.parts = static_cast<int>(parts);
  const std::int64_t look = root.read_int_attr("look");
  if (look < 1 || look > 64) root.fail("@look", std::to_string(look), "a look in [1, 64]");
  st.look = static_cast<int>(look);
  const std::int64_t n = root.read_int_attr("scenarios");
  if (n < 1 || n > 100'000) root.fail("@scenarios", std::to_string(n), "a count in [1, 10^5]");
  const std::string checksum = root.read_string_attr("counts_sha256");
  id.accountant_runs = read_accountant_records(root);
  for (std::int64_t i = 0; i < n; ++i) {
    const Group g =
        root.open_group(group_name(static_cast<std::size_t>(i), static_cast<std::size_t>(n)));
    ScenarioState s;
    s.cells = g.read_string_attr("cells");
    s.next = {g.read_int_attr("next_d"), g.read_int_attr("next_dprime")};
    for (int k = 0; k < 2; ++k) {
      if (s.next[static_cast<std::size_t>(k)] < -1 ||
          s.next[static_cast<std::size_t>(k)] > id.trajectories * 1024)
        g.fail(k == 0 ? "@next_d" : "@next_dprime",
               std::to_string(s.next[static_cast<std::size_t>(k)]), "a trajectory id or -1");
      tally::FlatTally& t = s.tally[static_cast<std::size_t>(k)];
      t.ints = g.read_ints(fmt::format("{}_ints", side_name(k)));
      t.raw = g.read_doubles(fmt::format("{}_raw", side_name(k)));
      const std::string pilot = fmt::format("{}_pilot", side_name(k));
      if (g.has(pilot)) s.pilot[static_cast<std::size_t>(k)] = g.read_doubles(pilot);
    }
    st.scenarios.push_back(std::move(s));
  }
  if (counts_checksum(st) != checksum)
    root.fail("@counts_sha256", checksum.substr(0, 16) + "...",
              "the checksum of the counts stored with it; the counts or what identifies them "
              "were changed after they were written");
  return st;
}

}  // namespace

RunState read_state(const std::string& path) {
  const Activity reading("reading the state file " + path);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw InputError("state file", path, "does not exist (or is not a file)");
  try {
    const ReadOnlyFile file(path, "state file");
    RunState state = read_state_unchecked(file);
    file.finish_reading();
    return state;
  } catch (const InputError& e) {
    // One message naming the file once, and what to do about it.
    const std::string what = e.what();
    const std::string problem = e.key() == "state file" && e.value() == path ? e.expected()
                                : what.rfind(path + ": ", 0) == 0 ? what.substr(path.size() + 2)
                                                                  : what;
    throw InputError("state file", path,
                     "cannot be used: " + problem + "; start again without it or delete it");
  }
}

}  // namespace rdpaudit::io
