// Counting-state files: the checkpoint of a running run (<out>.ckpt) and the part files of a
// split run (`run --part i/N`). Both hold, per scenario and dataset, the counts and exact
// moment sums of the trajectories counted so far (tally/flat.hpp), with what identifies the
// run that produced them, so that states are only ever added to the same run's.
// Layout (HDF5): root attributes (filetype "rdpaudit-state", state_format, kind, identity,
// look, counts_sha256), one group per scenario "0000", ... with attributes cells (the
// binning's fingerprint), next_d, next_dprime, and datasets {D,Dprime}_ints and
// {D,Dprime}_raw (and {D,Dprime}_pilot while its pilot is unfinished), and /accountants as in a
// results file (io/accountant_record.hpp). counts_sha256 is the SHA-256 of the counts and of what
// identifies them (counts_checksum): a file changed after it was written is refused, never resumed
// or merged.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rdpaudit/config/load.hpp"
#include "rdpaudit/tally/flat.hpp"

namespace rdpaudit::io {

// 2: counts_sha256; 3: the accountant commands' recorded runs (/accountants, as in results);
// 4: an unfinished pilot's rows ({D,Dprime}_pilot)
inline constexpr std::int64_t kStateFormat = 4;

/// What must agree before two counting states may be added or continued.
struct RunIdentity {
  std::string config_sha256, config_text, config_path;
  std::uint64_t seed = 0;
  std::int64_t trajectories = 0;  ///< experiment.trajectories after the overrides
  config::Overrides overrides;    ///< the command line's, to rebuild the spec (merge)
  std::string schedule;           ///< "single run" or the sequential audit's budget and margin
  int part = 1, parts = 1;
  std::string tool;  ///< tool version and git hash: the generator and the kernels
  /// The accountant commands' runs (their outputs): merge uses them and runs nothing.
  std::vector<config::AccountantRun> accountant_runs;

  /// The first field that differs, as "name: here vs there"; empty when they agree.
  /// `compare_part` = false for parts of one run (merge).
  std::string difference(const RunIdentity& other, bool compare_part) const;
};

struct ScenarioState {
  std::string cells;                   ///< tally::fingerprint of the binning the counts belong to
  std::array<std::int64_t, 2> next{};  ///< per dataset (D, D'): ids below were counted
  std::array<tally::FlatTally, 2> tally;
  /// While the scenario's pilot is unfinished (cells empty): per dataset, the last iterates of
  /// the pilot trajectories made so far, ids 0, 1, ..., row-major rows x d.
  std::array<std::vector<double>, 2> pilot;
};

struct RunState {
  std::string kind;  ///< "checkpoint" or "part"
  RunIdentity identity;
  int look = 1;  ///< the sequential audit's look in progress (1 otherwise)
  std::vector<ScenarioState> scenarios;
};

/// SHA-256 over the kind, the run's seed, experiment text digest, trajectories, part, look and
/// every scenario's cells fingerprint, positions and counts (the bytes of ints and raw).
std::string counts_checksum(const RunState& state);

/// Written to `path`.tmp and renamed after a verified close: a reader never sees half a state.
void write_state(const std::string& path, const RunState& state);

/// Throws InputError naming the path, and saying to start again or delete it, when it is
/// missing, damaged, not a state file of this format, or its counts do not match their
/// checksum.
RunState read_state(const std::string& path);

}  // namespace rdpaudit::io
