// `rdpaudit search FILE -o FOUND.toml`: the adversary search over an experiment's [search]
// parameters (search/), evaluated exactly or, where the exact engines do not cover every grid
// point, by a plug-in on samples of its own streams, its trace printed and written as CSV, and the
// chosen adversary written as an ordinary experiment file that `rdpaudit run` audits on fresh
// streams (docs/methods.md, "Searching for the worst adversary").
#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "commands.hpp"
#include "rdpaudit/bounds/experiment.hpp"
#include "rdpaudit/build_info.hpp"
#include "rdpaudit/config/reader.hpp"
#include "rdpaudit/config/sweep.hpp"
#include "rdpaudit/core/activity.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/io/hdf5.hpp"
#include "rdpaudit/search/evaluate.hpp"
#include "rdpaudit/search/method.hpp"
#include "rdpaudit/search/spec.hpp"

namespace rdpaudit::app {
namespace {

using search::Evaluation;
using search::Spec;

std::string describe(const Spec& spec, const std::vector<double>& x) {
  std::string out;
  for (std::size_t i = 0; i < spec.params.size(); ++i) {
    out += fmt::format("{}{} = {}", i ? ", " : "", spec.params[i].key,
                       search::value_text(spec.params[i], x[i]));
  }
  return out;
}

std::string direction_name(int d) {
  return d == 0 ? "forward" : "backward";
}

// Written to `path`.tmp and renamed: a reader never sees half a file, a failure leaves none.
void write_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  io::refuse_irregular_target(tmp, "temporary");
  std::remove(tmp.c_str());  // a regular file a killed run left
  // Exclusive: a symbolic link planted at the temporary is never followed.
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw ResourceError(fmt::format("cannot create {}: {}", tmp, std::strerror(errno)));
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const int e = errno;
      ::close(fd);
      std::remove(tmp.c_str());
      throw ResourceError(fmt::format("cannot write {}: {}", tmp, std::strerror(e)));
    }
    done += static_cast<std::size_t>(w);
  }
  if (::close(fd) != 0) {
    std::remove(tmp.c_str());
    throw ResourceError(fmt::format("cannot write {}: {}", tmp, std::strerror(errno)));
  }
  io::refuse_irregular_target(path, "output");
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw ResourceError(fmt::format("cannot rename {} to {}", tmp, path));
  }
}

// The leading comment block of the input file (its header), kept in the found file.
std::string header_comments(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line) && line.rfind('#', 0) == 0) out += line + "\n";
  return out;
}

// What the value of an evaluation is and its interval, as the found file's header says it.
std::string interval_text(const Evaluation& e) {
  if (e.evaluator == search::Evaluator::kSampled)
    return fmt::format(
        "sampled plug-in, standard error {:.3g}; 68.3 % bootstrap interval "
        "[{:.6g}, {:.6g}]",
        e.resolution, e.lower, e.upper);
  return fmt::format("certified lower end; bracket [{:.6g}, {:.6g}]", e.lower, e.upper);
}

struct Record {
  Evaluation eval;
  double seconds = 0;
};

}  // namespace

int search_command(const SearchArgs& args) {
  std::ifstream in(args.file, std::ios::binary);
  if (!in) throw InputError("experiment file", args.file, "cannot be opened");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const toml::table doc = config::parse_toml(text, args.file);
  const Spec spec = search::read_spec(doc);
  check_output_path(args.output, true);
  const std::string trace_path =
      args.trace.empty()
          ? std::filesystem::path(args.output).replace_extension(".trace.csv").string()
          : args.trace;
  if (trace_path == args.output) throw InputError("--trace", args.trace, "must differ from -o");
  check_output_path(trace_path, true);
  refuse_reading_as_output(args.output, "-o", {args.file});
  refuse_reading_as_output(trace_path, "--trace", {args.file});
  use_threads(args.threads);

  std::vector<search::Axis> axes;
  for (const auto& p : spec.params) axes.push_back(p.axis);

  // One point's experiment, read like any experiment file: a value outside its key's domain is
  // config's InputError, naming the key, with the point added.
  const auto read_point = [&](const std::vector<double>& x) {
    const toml::table point = search::point_document(doc, spec, x);
    const auto swept = config::find_sweep_axes(point);
    if (!swept.empty()) {
      std::ostringstream list;
      list << *swept.front().values;
      throw InputError(swept.front().key, list.str(),
                       "a search point is one scenario: give the key one value, or make it a "
                       "parameter of [search]");
    }
    try {
      return bounds::parse_experiment(search::to_text(point), args.file, {},
                                      bounds::consent_from(args.allow_commands));
    } catch (const InputError& e) {
      if (e.key().empty()) throw;
      throw InputError(e.key(), e.value(),
                       e.expected() + "; at the search point " + describe(spec, x));
    }
  };

  // Each parameter's grid values (the others at their first) are read before any point is
  // evaluated: a range outside its key's domain fails at once, not after minutes of evaluation.
  {
    const Activity reading("reading the search's grid points");
    std::vector<std::vector<double>> grids;
    for (const auto& a : axes) grids.push_back(a.grid());
    for (std::size_t i = 0; i < axes.size(); ++i) {
      for (double v : grids[i]) {
        std::vector<double> x;
        for (std::size_t j = 0; j < axes.size(); ++j) x.push_back(j == i ? v : grids[j].front());
        read_point(x);
      }
    }
  }

  const auto t0 = std::chrono::steady_clock::now();
  // One evaluator for the whole search, so that no exact value is ranked against a sampled
  // one: exact when the exact engines cover every grid point (search.evaluator = "auto"),
  // else sampled; "exact" keeps the points it does not cover out of the ranking.
  search::Evaluator evaluator = spec.evaluator;
  std::string why_sampled;
  if (evaluator == search::Evaluator::kAuto) {
    const Activity checking("checking which grid points the exact engines cover");
    evaluator = search::Evaluator::kExact;
    search::for_each_grid_point(axes, [&](const std::vector<double>& x) {
      if (evaluator == search::Evaluator::kSampled) return;
      const config::ExperimentSpec point = read_point(x);
      const std::string gap = search::exact_gap(point.scenarios.front(), spec, point.seed);
      if (!gap.empty()) {
        evaluator = search::Evaluator::kSampled;
        why_sampled = fmt::format("the exact engines do not cover {} ({})", describe(spec, x), gap);
      }
    });
  } else if (evaluator == search::Evaluator::kSampled) {
    why_sampled = "search.evaluator = \"sampled\"";
  }
  const bool sampled = evaluator == search::Evaluator::kSampled;
  std::vector<Record> records;
  std::string experiment_name;
  fmt::print("search {}: objective {}{}, budget {}\n", args.file, search::to_string(spec.objective),
             spec.objective == search::ObjectiveKind::kRatio ? " / " + spec.bound : "",
             spec.budget);
  if (sampled) {
    fmt::print(
        "evaluator: sampled, the plug-in on {} trajectories per dataset of the search's own "
        "streams (ranked by its value; moves need a gain above its standard error), because {}\n",
        spec.pilot_trajectories, why_sampled);
  } else {
    fmt::print("evaluator: exact (ranked by the certified lower end of each bracket)\n");
  }
  fmt::print("{:>4}  {:<6}  {:>12}  {:>12}  {:>12}  {:>6} {:<8}  {:>7}  {}\n", "#", "phase",
             "value", "lower", "upper", "alpha", "dir", "seconds", "point; engine or why not");
  const search::Objective f = [&](const std::vector<double>& x) {
    const auto start = std::chrono::steady_clock::now();
    const config::ExperimentSpec point = read_point(x);
    experiment_name = point.name;
    Record r;
    r.eval = sampled ? search::evaluate_sampled(point.scenarios.front(), spec, point.seed)
                     : search::evaluate(point.scenarios.front(), spec, point.seed);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const Evaluation& e = r.eval;
    const std::string phase =
        records.size() < static_cast<std::size_t>(search::grid_size(axes)) ? "grid" : "refine";
    if (e.covered) {
      fmt::print("{:>4}  {:<6}  {:>12.6g}  {:>12.6g}  {:>12.6g}  {:>6g} {:<8}  {:>7.2f}  {}; {}\n",
                 records.size(), phase, e.value, e.lower, e.upper, e.alpha,
                 direction_name(e.direction), r.seconds, describe(spec, x), e.how);
    } else {
      fmt::print(
          "{:>4}  {:<6}  {:>12}  {:>12}  {:>12}  {:>6} {:<8}  {:>7.2f}  {}; not covered: {}\n",
          records.size(), phase, "-", "-", "-", "-", "-", r.seconds, describe(spec, x), e.reason);
    }
    std::fflush(stdout);
    records.push_back(r);
    return e.covered ? search::Score(e.value, e.resolution) : search::Score(std::nan(""));
  };
  const search::Outcome outcome = search::maximise(axes, spec.budget, f, spec.tolerance);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (outcome.best < 0) {
    throw InputError("search.params", describe(spec, outcome.trace.front().x) + ", ...",
                     fmt::format("no point of the search has a value ({}); with "
                                 "search.evaluator = \"{}\" (docs/methods.md)",
                                 records.front().eval.reason, search::to_string(spec.evaluator)));
  }
  const auto& best = outcome.trace[outcome.best];
  const Evaluation& e = records[outcome.best].eval;
  long grid = 0;
  for (const auto& t : outcome.trace) grid += t.phase == "grid";

  // The trace: every evaluated point, in order.
  std::string table = "evaluation,phase";
  for (const auto& p : spec.params) table += "," + csv(p.key);
  table += ",evaluator,covered,value,lower,upper,resolution,alpha,direction,bound";
  for (double a : spec.alphas) table += fmt::format(",value_alpha_{}", a);
  table += ",seconds,engine_or_reason\n";
  for (std::size_t i = 0; i < outcome.trace.size(); ++i) {
    const auto& t = outcome.trace[i];
    const Evaluation& r = records[i].eval;
    table += fmt::format("{},{}", i, t.phase);
    for (std::size_t k = 0; k < spec.params.size(); ++k)
      table += "," + csv(search::value_text(spec.params[k], t.x[k]));
    table += "," + search::to_string(r.evaluator);
    std::string orders;
    for (std::size_t k = 0; k < spec.alphas.size(); ++k) {
      const bool known = r.covered && k < r.per_alpha.size() && !std::isnan(r.per_alpha[k]);
      orders += known ? fmt::format(",{:.17g}", r.per_alpha[k]) : std::string(",");
    }
    if (r.covered) {
      table += fmt::format(
          ",1,{:.17g},{:.17g},{:.17g},{:.17g},{},{},{:.17g}{},{:.4f},{}\n", r.value, r.lower,
          r.upper, r.resolution, std::isnan(r.alpha) ? std::string("") : fmt::format("{}", r.alpha),
          direction_name(r.direction), r.bound, orders, records[i].seconds, csv(r.how));
    } else {
      table += fmt::format(",0,,,,,,,{},{:.4f},{}\n", orders, records[i].seconds, csv(r.reason));
    }
  }

  // The found adversary as an ordinary experiment file.
  toml::table found = search::point_document(doc, spec, best.x);
  if (auto* t = found["experiment"].as_table())
    t->insert_or_assign("name", experiment_name + "_found");
  std::string orders;
  for (double a : spec.alphas) orders += fmt::format("{}{}", orders.empty() ? "" : ", ", a);
  const std::string what =
      spec.objective == search::ObjectiveKind::kDelta
          ? fmt::format("delta(eps = {})", spec.epsilon)
          : (spec.objective == search::ObjectiveKind::kRatio
                 ? fmt::format("R_alpha / {} at alpha in {{{}}}", spec.bound, orders)
                 : fmt::format("R_alpha at alpha in {{{}}}", orders));
  std::string head = fmt::format(
      "# {}_found: the adversary found by `rdpaudit search {}` (rdpaudit {} {}).\n"
      "#   point: {}\n"
      "#   objective: {} = {:.6g} ({}{}{}), {}\n"
      "#   evaluator: {}\n"
      "#   evaluations: {} of budget {} ({} grid, {} refinement; {}), wall {:.1f} s; trace: {}\n"
      "# Certify: rdpaudit run <this file> audits it on fresh streams (exact verdicts where "
      "exact; the search's samples, if any, came from streams run never draws).\n"
      "# The searched file's header follows.\n",
      experiment_name, args.file, build_info::tool_version, build_info::git_hash,
      describe(spec, best.x), what, e.value, interval_text(e),
      std::isnan(e.alpha) ? "" : fmt::format(", alpha = {}", e.alpha),
      fmt::format(", {}", direction_name(e.direction)), e.how,
      sampled ? fmt::format("sampled ({} trajectories per dataset on the search's own streams), "
                            "because {}",
                            spec.pilot_trajectories, why_sampled)
              : std::string("exact"),
      outcome.trace.size(), spec.budget, grid, outcome.trace.size() - grid, outcome.stopped, wall,
      trace_path);
  const std::string found_text = head + header_comments(text) + "\n" + search::to_text(found);
  // The found file must read back as the same scenario (it is what `run` will audit).
  (void)bounds::parse_experiment(found_text, args.output, {},
                                 bounds::CommandPolicy{bounds::CommandUse::kList, {}});

  write_file(trace_path, table);
  write_file(args.output, found_text);
  fmt::print("best: {} -> {} = {:.6g} ({}{}, {})\n", describe(spec, best.x), what, e.value,
             interval_text(e), std::isnan(e.alpha) ? "" : fmt::format(", alpha = {}", e.alpha),
             direction_name(e.direction));
  fmt::print("{} evaluations ({} grid, {} refinement; {}), {:.1f} s\n", outcome.trace.size(), grid,
             outcome.trace.size() - grid, outcome.stopped, wall);
  fmt::print("wrote {} and {}\n", args.output, trace_path);
  return 0;
}

}  // namespace rdpaudit::app
