// `rdpaudit merge PART... -o OUT`: the parts of a split run (`run --part i/N`, e.g. the jobs
// of an array) into the results file the unsplit run would have written. Each part holds the
// exact counts of its share of the trajectories; the pilot (and so the cells) is computed
// again here, identically, and checked against every part's fingerprint.
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "commands.hpp"
#include "rdpaudit/bounds/experiment.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/core/progress.hpp"
#include "rdpaudit/io/state_file.hpp"
#include "rdpaudit/par/team.hpp"
#include "rdpaudit/tally/flat.hpp"

namespace rdpaudit::app {

namespace {

// Every part of one run, in part order; anything else is refused naming the file.
std::vector<io::RunState> read_parts(const std::vector<std::string>& paths) {
  std::vector<io::RunState> parts;
  std::map<int, std::string> seen;
  for (const auto& path : paths) {
    io::RunState st = io::read_state(path);
    if (st.kind != "part")
      throw InputError("merge", path, "is a checkpoint, not a part file (resume it with --resume)");
    if (!parts.empty()) {
      const std::string diff = parts.front().identity.difference(st.identity, false);
      if (!diff.empty()) {
        throw InputError("merge", path,
                         fmt::format("belongs to another run than {} ({})", paths.front(), diff));
      }
    }
    const int i = st.identity.part;
    if (seen.count(i)) {
      throw InputError("merge", path,
                       fmt::format("is part {}/{} again (also {})", i, st.identity.parts, seen[i]));
    }
    seen[i] = path;
    parts.push_back(std::move(st));
  }
  const int n = parts.front().identity.parts;
  std::string missing;
  for (int i = 1; i <= n; ++i) {
    if (!seen.count(i)) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
  }
  if (!missing.empty())
    throw InputError("merge", fmt::format("{} file(s)", paths.size()),
                     fmt::format("part(s) {} of {} missing", missing, n));
  std::sort(parts.begin(), parts.end(), [](const io::RunState& a, const io::RunState& b) {
    return a.identity.part < b.identity.part;
  });
  return parts;
}

bool same_runs(const std::vector<config::AccountantRun>& a,
               const std::vector<config::AccountantRun>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (a[k].bound != b[k].bound || a[k].command != b[k].command || a[k].input != b[k].input ||
        a[k].output != b[k].output)
      return false;
  }
  return true;
}

}  // namespace

int merge_command(const MergeArgs& args) {
  check_output_path(args.output, true);
  for (const auto& part : args.parts) {  // the results would replace a part being read
    std::error_code ec;
    if (part == args.output || std::filesystem::equivalent(part, args.output, ec))
      throw InputError("-o", args.output,
                       "is one of the part files merged (" + part + "); name a new results file");
  }
  const std::vector<io::RunState> parts = read_parts(args.parts);
  const io::RunIdentity& id = parts.front().identity;
  for (const auto& p : parts) {  // every part ran the same commands and got the same answers
    if (!same_runs(p.identity.accountant_runs, id.accountant_runs))
      throw InputError("merge", fmt::format("part {}/{}", p.identity.part, p.identity.parts),
                       "its accountant commands answered differently from part 1's");
  }
  // A part file's commands never run: their values are the outputs recorded with them.
  const config::ExperimentSpec spec = bounds::parse_experiment(
      id.config_text, id.config_path, id.overrides,
      bounds::CommandPolicy{bounds::CommandUse::kRecorded, id.accountant_runs});
  if (spec.config_sha256 != id.config_sha256 || spec.seed != id.seed ||
      spec.trajectories != id.trajectories) {
    throw InputError("merge", args.parts.front(),
                     "its experiment text does not give back the run it records");
  }
  for (const auto& p : parts) {
    const auto [lo, hi] = par::share(0, spec.trajectories, p.identity.part - 1, p.identity.parts);
    if (p.scenarios.size() != spec.scenarios.size())
      throw InputError("merge", args.parts.front(), "damaged: scenario count");
    for (const auto& s : p.scenarios) {
      if (s.next[0] != hi || s.next[1] != hi || s.tally[0].ints.empty())
        throw InputError("merge", fmt::format("part {}/{}", p.identity.part, p.identity.parts),
                         fmt::format("is incomplete (trajectories {} to {} expected)", lo, hi - 1));
    }
  }
  const int threads = use_threads(args.threads);
  std::int64_t total = 0;
  for (const auto& s : spec.scenarios) total += 2 * sim::pilot_trajectories(s) * s.steps;
  Progress progress(total, true);
  io::ResultsWriter writer(
      args.output, spec,
      io::RunInfo{args.command_line, threads, 1,
                  fmt::format("merged from {} parts (run --part i/{})", id.parts, id.parts)});

  const double level = 1.0 - spec.scenarios.front().estimate.confidence;
  audit::Auditor auditor(level);
  std::vector<ScenarioRun> runs;
  std::vector<audit::BoundTable> bounds;
  std::vector<audit::ClaimTable> claims;
  for (const auto& s : spec.scenarios) {
    progress.set_label(fmt::format("pilot of scenario {}/{}", s.index + 1, spec.scenarios.size()));
    ScenarioRun run = choose_cells(s, spec.seed, spec.trajectories, &progress);
    const std::string cells = tally::fingerprint(run.binning);
    for (const auto& p : parts) {  // part order: the raw rows stay in id order
      const io::ScenarioState& x = p.scenarios[static_cast<std::size_t>(s.index)];
      if (x.cells != cells) {
        throw InputError("merge", fmt::format("part {}/{}", p.identity.part, p.identity.parts),
                         fmt::format("scenario {}: its cells differ from this pilot's (another "
                                     "machine's arithmetic?)",
                                     s.index));
      }
      run.tallies.d.append(tally::unflatten(run.binning, x.tally[0]));
      run.tallies.dprime.append(tally::unflatten(run.binning, x.tally[1]));
    }
    bounds.push_back(audit::audited_bounds(s));
    claims.push_back(audit::audited_claims(s, bounds.back()));
    estimate_and_audit(s, spec.seed, run, bounds.back(), claims.back(), spec.trajectories, auditor);
    runs.push_back(std::move(run));
  }
  progress.finish();
  const audit::AuditResult verdicts = auditor.finish();
  write_results(writer, spec, runs, bounds, claims, verdicts,
                Outcome{spec.trajectories, 1, 1, level, "single run"});
  fmt::print("wrote {} from {} parts ({} scenario(s), {} trajectories per dataset)\n\n",
             args.output, parts.size(), spec.scenarios.size(), spec.trajectories);
  print_audit_counts(verdicts);
  print_bound_table(verdicts);
  return 0;
}

}  // namespace rdpaudit::app
