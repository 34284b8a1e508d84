#include "rdpaudit/io/results.hpp"

#include <fmt/core.h>
#include <omp.h>
#include <toml++/toml.h>

#include <Eigen/Core>
#include <boost/version.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "rdpaudit/audit/gdp_mu.hpp"
#include "rdpaudit/bounds/bounds.hpp"
#include "rdpaudit/build_info.hpp"
#include "rdpaudit/io/accountant_record.hpp"
#include "rdpaudit/rng/stream.hpp"

namespace rdpaudit::io {

namespace {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Shape shape(std::int64_t a) {
  return {static_cast<std::uint64_t>(a)};
}
Shape shape(std::int64_t a, std::int64_t b) {
  return {static_cast<std::uint64_t>(a), static_cast<std::uint64_t>(b)};
}

void write_matrix(const Group& g, const std::string& name, const Eigen::MatrixXd& m) {
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rm = m;
  g.dataset(name, rm.data(), shape(m.rows(), m.cols()));
}

void write_vector(const Group& g, const std::string& name, const Eigen::VectorXd& v) {
  g.dataset(name, v.data(), shape(v.size()));
}

void write_edges(const Group& g, const std::string& name, const std::vector<double>& e) {
  g.dataset(name, e.data(), shape(static_cast<std::int64_t>(e.size())));
}

void write_counts(const Group& g, const std::string& name, const std::vector<std::uint64_t>& c,
                  const Shape& dims) {
  const std::vector<std::int64_t> v(c.begin(), c.end());
  g.dataset(name, v.data(), dims);
}

void write_tally(const Group& g, const tally::Tally& t, std::int64_t raw_rows) {
  const int d = t.binning.dim;
  g.attr("trajectories", static_cast<std::int64_t>(t.moments.count));
  const auto width = static_cast<std::int64_t>(t.coordinate.front().counts.size());
  std::vector<std::uint64_t> coord;
  for (const auto& h : t.coordinate) coord.insert(coord.end(), h.counts.begin(), h.counts.end());
  write_counts(g, "coordinate_counts", coord, shape(d, width));
  if (d > 1) {
    write_counts(g, "projection_counts", t.projection.counts,
                 shape(static_cast<std::int64_t>(t.projection.counts.size())));
    write_counts(g, "joint_counts", t.joint.counts,
                 shape(static_cast<std::int64_t>(t.joint.x.cells()),
                       static_cast<std::int64_t>(t.joint.y.cells())));
  }
  // The estimators' score cells: the counts every estimate of the file was computed from.
  for (std::size_t i = 0; i < t.scores.size(); ++i)
    write_counts(g, fmt::format("score_counts_{}", i), t.scores[i].counts,
                 shape(static_cast<std::int64_t>(t.scores[i].counts.size())));
  write_vector(g, "mean", t.mean());
  write_matrix(g, "covariance", t.covariance());
  // Only the first tally.raw_samples rows are written (the rest served the estimators).
  const std::int64_t rows = std::min(raw_rows, t.raw_cap);
  if (rows > 0) g.dataset("samples", t.raw.data(), shape(rows, d));
}

}  // namespace

std::string scenario_group_name(std::int64_t index, std::int64_t count, std::int64_t format_minor) {
  if (format_minor <= 2) return fmt::format("{:04d}", index);
  const int width = std::max<int>(
      4, static_cast<int>(std::to_string(std::max<std::int64_t>(count - 1, 0)).size()));
  return fmt::format("{:0{}d}", index, width);
}

std::string compiler_version() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("g++ ") + __VERSION__;
#else
  return "unknown";
#endif
}

std::string library_versions() {
  return fmt::format("HDF5 {}; Eigen {}.{}.{}; Boost {}.{}.{}; toml++ {}.{}.{}; OpenMP {}",
                     hdf5_version(), EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION, EIGEN_MINOR_VERSION,
                     BOOST_VERSION / 100000, BOOST_VERSION / 100 % 1000, BOOST_VERSION % 100,
                     TOML_LIB_MAJOR, TOML_LIB_MINOR, TOML_LIB_PATCH, _OPENMP);
}

ResultsWriter::ResultsWriter(const std::string& path, const config::ExperimentSpec& spec,
                             const RunInfo& run)
    : file_(path),
      trajectories_(spec.trajectories),
      scenario_count_(static_cast<std::int64_t>(spec.scenarios.size())) {
  const Group& root = file_.root();
  root.attr("filetype", kFileType);
  root.attr("format_version", std::vector<std::int64_t>{kFormatMajor, kFormatMinor});
  root.attr("tool_version", build_info::tool_version);
  root.attr("git_hash", build_info::git_hash);
  root.attr("build_type", build_info::build_type);
  root.attr("compiler", compiler_version());
  root.attr("libraries", library_versions());
  root.attr("hdf5_version", hdf5_version());
  root.attr("generator", rng::kGenerator);
  root.attr("created_utc", utc_now());
  root.attr("command_line", run.command_line);
  root.attr("threads", run.threads);
  root.attr("ranks", run.ranks);
  root.attr("parallel", run.parallel);
  root.attr("experiment_name", spec.name);
  root.attr("description", spec.description);
  root.attr("config_path", spec.source_path);
  root.attr("config_text", spec.config_text);
  root.attr("config_sha256", spec.config_sha256);
  root.attr("seed", static_cast<std::uint64_t>(spec.seed));
  root.attr("sweep_mode", spec.sweep_mode);
  root.attr("swept_keys", spec.swept_keys);
  root.attr("scenario_count", static_cast<std::int64_t>(spec.scenarios.size()));
  write_accountant_records(root, spec.accountant_runs);
  scenarios_ = root.create_group("scenarios");
}

namespace {

// One row per (method, direction, alpha): columns as 1-D datasets.
void write_estimates(const Group& g, const config::Scenario& s,
                     const estimate::ScenarioEstimates& e) {
  g.attr("enabled", s.estimate.enabled);
  g.attr("confidence", s.estimate.confidence);
  g.attr("pilot_per_dataset", static_cast<std::int64_t>(s.estimate.pilot));
  std::vector<std::string> methods;
  for (config::Method m : s.estimate.methods) methods.push_back(config::to_string(m));
  g.attr("methods", methods);
  g.attr("mixture", e.mixture);
  g.dataset("alpha_grid", e.alphas.data(), shape(static_cast<std::int64_t>(e.alphas.size())));
  std::vector<std::string> method, interval, reason;
  std::vector<int> direction, informative;
  std::vector<double> alpha, value, lower, upper;
  for (const auto& x : e.estimates) {
    method.push_back(x.method);
    interval.push_back(x.interval);
    reason.push_back(x.reason);
    direction.push_back(x.direction);
    informative.push_back(x.informative ? 1 : 0);
    alpha.push_back(x.alpha);
    value.push_back(x.value);
    lower.push_back(x.lower);
    upper.push_back(x.upper);
  }
  const auto n = shape(static_cast<std::int64_t>(e.estimates.size()));
  g.dataset("method", method);
  g.dataset("direction", direction.data(), n);
  g.dataset("alpha", alpha.data(), n);
  g.dataset("value", value.data(), n);
  g.dataset("lower", lower.data(), n);
  g.dataset("upper", upper.data(), n);
  g.dataset("informative", informative.data(), n);
  g.dataset("interval", interval);
  g.dataset("reason", reason);
}

void write_bounds(const Group& g, const audit::BoundTable& b, config::Adjacency scenario) {
  g.dataset("alphas", b.orders.data(), shape(static_cast<std::int64_t>(b.orders.size())));
  g.dataset("names", b.names);
  g.dataset(
      "values", b.values.data(),
      shape(static_cast<std::int64_t>(b.names.size()), static_cast<std::int64_t>(b.orders.size())));
  g.dataset("reasons", b.reasons);
  // The neighbouring relation each bound's source assumes (the scenario's for a custom one).
  std::vector<std::string> adjacency;
  for (const auto& name : b.names)
    adjacency.push_back(config::to_string(bounds::bound_adjacency(name, scenario)));
  g.dataset("adjacency", adjacency);
}

// The privacy profiles (estimates/profile): one row per (method, direction), the eps grid
// and the deltas as attributes-like datasets, values as rows x grid matrices.
void write_profile(const Group& g, const config::Scenario& s,
                   const std::vector<estimate::ProfileEstimate>& rows) {
  const auto& eps = s.profile.epsilons;
  const auto& deltas = s.profile.deltas;
  g.dataset("epsilons", eps.data(), shape(static_cast<std::int64_t>(eps.size())));
  g.dataset("deltas", deltas.data(), shape(static_cast<std::int64_t>(deltas.size())));
  std::vector<std::string> method, interval;
  std::vector<int> direction;
  std::vector<double> dv, dl, du, ev, el, eu;
  for (const auto& r : rows) {
    method.push_back(r.method);
    interval.push_back(r.interval);
    direction.push_back(r.direction);
    dv.insert(dv.end(), r.delta_value.begin(), r.delta_value.end());
    dl.insert(dl.end(), r.delta_lower.begin(), r.delta_lower.end());
    du.insert(du.end(), r.delta_upper.begin(), r.delta_upper.end());
    ev.insert(ev.end(), r.epsilon_value.begin(), r.epsilon_value.end());
    el.insert(el.end(), r.epsilon_lower.begin(), r.epsilon_lower.end());
    eu.insert(eu.end(), r.epsilon_upper.begin(), r.epsilon_upper.end());
  }
  const auto n = static_cast<std::int64_t>(rows.size());
  g.dataset("method", method);
  g.dataset("interval", interval);
  g.dataset("direction", direction.data(), shape(n));
  const Shape by_eps = shape(n, static_cast<std::int64_t>(eps.size()));
  const Shape by_delta = shape(n, static_cast<std::int64_t>(deltas.size()));
  g.dataset("delta_value", dv.data(), by_eps);
  g.dataset("delta_lower", dl.data(), by_eps);
  g.dataset("delta_upper", du.data(), by_eps);
  g.dataset("epsilon_value", ev.data(), by_delta);
  g.dataset("epsilon_lower", el.data(), by_delta);
  g.dataset("epsilon_upper", eu.data(), by_delta);
}

void write_claims(const Group& g, const audit::ClaimTable& c) {
  g.dataset("deltas", c.orders.data(), shape(static_cast<std::int64_t>(c.orders.size())));
  g.dataset("names", c.names);
  g.dataset("kinds", c.kinds);
  g.dataset("sources", c.sources);
  g.dataset(
      "values", c.values.data(),
      shape(static_cast<std::int64_t>(c.names.size()), static_cast<std::int64_t>(c.orders.size())));
  g.dataset("reasons", c.reasons);
  g.dataset("mu", c.mu.data(), shape(static_cast<std::int64_t>(c.mu.size())));
}

// The Gaussian-DP parameter (estimates/gdp): one row per (method, direction).
void write_gdp(const Group& g, const config::Scenario& s,
               const std::vector<audit::GdpEstimate>& rows) {
  const std::vector<double> grid = audit::gdp_epsilon_grid(s.profile.epsilons);
  g.attr("epsilon_grid_max", grid.back());
  g.attr("delta_floor", audit::kMuDeltaFloor);
  std::vector<std::string> method, interval;
  std::vector<int> direction;
  std::vector<double> value, lower, upper, at, max;
  for (const auto& r : rows) {
    method.push_back(r.method);
    interval.push_back(r.interval);
    direction.push_back(r.direction);
    value.push_back(r.value);
    lower.push_back(r.lower);
    upper.push_back(r.upper);
    at.push_back(r.epsilon_at);
    max.push_back(r.epsilon_max);
  }
  const Shape n = shape(static_cast<std::int64_t>(rows.size()));
  g.dataset("method", method);
  g.dataset("interval", interval);
  g.dataset("direction", direction.data(), n);
  g.dataset("value", value.data(), n);
  g.dataset("lower", lower.data(), n);
  g.dataset("upper", upper.data(), n);
  g.dataset("epsilon_at", at.data(), n);
  g.dataset("epsilon_max", max.data(), n);
}

template <typename T, typename F>
std::vector<T> column(const std::vector<audit::Cell>& cells, F f) {
  std::vector<T> out;
  out.reserve(cells.size());
  for (const auto& c : cells) out.push_back(static_cast<T>(f(c)));
  return out;
}

}  // namespace

void ResultsWriter::add_audit(const audit::AuditResult& a) {
  Group g = file_.root().create_group("audit");
  g.attr("level", a.level);
  g.attr("correction", "holm");
  g.attr("hypotheses", a.hypotheses);
  g.attr("violated_cells", a.violated_cells());
  g.attr("close_margin", a.close_margin);
  g.attr("unexpected", a.unexpected());

  Group b = g.create_group("bounds");
  const auto rows = static_cast<std::int64_t>(a.bounds.size());
  std::vector<std::string> name, kind, source, expect, outcome, evidence, adjacency_note;
  std::vector<int> as_expected;
  std::vector<std::int64_t> counts[audit::kVerdictCount], close_cells;
  std::vector<double> min_margin;
  for (const auto& r : a.bounds) {
    name.push_back(r.name);
    kind.push_back(r.kind);
    source.push_back(r.source);
    expect.push_back(config::to_string(r.expect));
    outcome.emplace_back(audit::to_string(r.outcome));
    evidence.push_back(r.evidence);
    adjacency_note.push_back(r.adjacency_note);
    as_expected.push_back(r.as_expected ? 1 : 0);
    for (int k = 0; k < audit::kVerdictCount; ++k) counts[k].push_back(r.counts[k]);
    close_cells.push_back(r.close_cells);
    min_margin.push_back(r.min_margin);
  }
  b.dataset("name", name);
  b.dataset("kind", kind);
  b.dataset("source", source);
  b.dataset("expect", expect);
  b.dataset("outcome", outcome);
  b.dataset("as_expected", as_expected.data(), shape(rows));
  const char* count_names[audit::kVerdictCount] = {"cells_violated_exact", "cells_violated",
                                                   "cells_not_rejected",   "cells_valid_exact",
                                                   "cells_inconclusive",   "cells_not_applicable"};
  for (int k = 0; k < audit::kVerdictCount; ++k)
    b.dataset(count_names[k], counts[k].data(), shape(rows));
  b.dataset("close_cells", close_cells.data(), shape(rows));
  b.dataset("min_margin", min_margin.data(), shape(rows));
  b.dataset("evidence", evidence);
  b.dataset("adjacency_note", adjacency_note);

  Group c = g.create_group("cells");
  const auto& cells = a.cells;
  const Shape n = shape(static_cast<std::int64_t>(cells.size()));
  const auto reals = [&](const char* key, auto f) {
    const auto v = column<double>(cells, f);
    c.dataset(key, v.data(), n);
  };
  const auto texts = [&](const char* key, auto f) {
    c.dataset(key, column<std::string>(cells, f));
  };
  const auto ints = column<std::int64_t>(cells, [](const audit::Cell& x) { return x.scenario; });
  c.dataset("scenario", ints.data(), n);
  const auto bound = column<std::int64_t>(cells, [](const audit::Cell& x) { return x.bound; });
  c.dataset("bound", bound.data(), n);
  reals("alpha", [](const audit::Cell& x) { return x.alpha; });
  reals("delta", [](const audit::Cell& x) { return x.delta; });
  texts("quantity", [](const audit::Cell& x) { return std::string(audit::quantity_name(x)); });
  const auto dir = column<int>(cells, [](const audit::Cell& x) { return x.direction; });
  c.dataset("direction", dir.data(), n);
  reals("bound_value", [](const audit::Cell& x) { return x.bound_value; });
  reals("estimate", [](const audit::Cell& x) { return x.estimate; });
  texts("estimate_method", [](const audit::Cell& x) { return x.estimate_method; });
  reals("exact", [](const audit::Cell& x) { return x.exact; });
  reals("exact_lower", [](const audit::Cell& x) { return x.exact_lower; });
  reals("exact_upper", [](const audit::Cell& x) { return x.exact_upper; });
  texts("exact_method", [](const audit::Cell& x) { return x.exact_method; });
  const auto within =
      column<int>(cells, [](const audit::Cell& x) { return x.within_exact_bracket ? 1 : 0; });
  c.dataset("within_exact_bracket", within.data(), n);
  reals("lower", [](const audit::Cell& x) { return x.lower; });
  texts("lower_method", [](const audit::Cell& x) { return x.lower_method; });
  texts("p_method", [](const audit::Cell& x) { return x.p_method; });
  reals("p_value", [](const audit::Cell& x) { return x.p_value; });
  reals("p_holm", [](const audit::Cell& x) { return x.p_holm; });
  texts("verdict", [](const audit::Cell& x) { return std::string(audit::to_string(x.verdict)); });
  reals("tightness_estimate", [](const audit::Cell& x) { return x.tightness_estimate; });
  reals("tightness_lower", [](const audit::Cell& x) { return x.tightness_lower; });
  const auto close = column<int>(cells, [](const audit::Cell& x) { return x.close ? 1 : 0; });
  c.dataset("close", close.data(), n);
  texts("note", [](const audit::Cell& x) { return x.note; });
}

void ResultsWriter::add_scenario(const config::Scenario& s, const sim::ScenarioTallies& t,
                                 const estimate::ScenarioEstimates& est,
                                 const audit::BoundTable& bounds, const audit::ClaimTable* claims) {
  Group g = scenarios_.create_group(scenario_group_name(s.index, scenario_count_));
  g.attr("index", s.index);
  std::vector<std::string> keys, texts;
  std::vector<double> values;
  for (const auto& v : s.sweep_point) {
    keys.push_back(v.key);
    values.push_back(v.number);
    texts.push_back(v.text);
  }
  g.attr("sweep_keys", keys);
  g.attr("sweep_values", values);
  g.attr("sweep_text", texts);
  // model
  g.attr("loss", config::to_string(s.loss));
  g.attr("dim", s.dim);
  g.attr("features", s.features);
  g.attr("classes", s.classes);
  g.attr("lambda", s.lambda);
  g.attr("feature_clip", s.feature_clip);
  g.attr("clip_norm", s.clip_norm);
  // training
  g.attr("eta", s.eta);
  g.attr("n", s.n());
  g.attr("batch_size", s.batch_size);
  g.attr("scheme", config::to_string(s.scheme));
  g.attr("adjacency", config::to_string(s.data.adjacency));  // data.adjacency
  g.attr("epochs", static_cast<std::int64_t>(s.epochs));
  g.attr("steps", static_cast<std::int64_t>(s.steps));
  g.attr("steps_per_epoch", static_cast<std::int64_t>(s.steps_per_epoch));
  g.attr("differing_batch", s.differing_batch);
  g.attr("sampling_rate", s.sampling_rate);
  g.attr("projection_diameter", s.projection_diameter);
  write_vector(g, "projection_center", s.projection_center);
  // noise, in every convention
  g.attr("noise_key", config::to_string(s.noise_key));
  g.attr("noise_value", s.noise_value);
  g.attr("step_std", s.step_std);
  g.attr("sigma", s.sigma);
  g.attr("sigma2", s.sigma * s.sigma);
  g.attr("noise_multiplier", s.noise_multiplier);
  g.attr("paper_noise_multiplier", s.paper_noise_multiplier);
  g.attr("blog_sigma", s.blog_sigma);
  g.attr("sensitivity", s.sensitivity);
  // initial parameters
  write_vector(g, "init_mean", s.init_mean);
  g.attr("init_std", s.init_std);
  // data
  Group data = g.create_group("data");
  data.attr("preset", s.data.preset);
  data.attr("differing_index", s.data.differing_index);
  data.attr("replacement_label", s.data.replacement_label);
  write_matrix(data, "points", s.data.points);
  write_vector(data, "replacement", s.data.replacement);
  if (!s.data.labels.empty()) {
    data.dataset("labels", s.data.labels.data(),
                 shape(static_cast<std::int64_t>(s.data.labels.size())));
  }
  // binning
  const auto& b = t.d.binning;
  Group bin = g.create_group("binning");
  bin.attr("source", b.source);
  bin.attr("pilot_trajectories", static_cast<std::int64_t>(s.pilot_trajectories));
  bin.attr("bins", s.bins);
  std::vector<double> edges;
  for (const auto& a : b.coordinate) {
    const auto& e = a.index.edges();
    edges.insert(edges.end(), e.begin(), e.end());
  }
  bin.dataset("coordinate_edges", edges.data(),
              shape(b.dim, static_cast<std::int64_t>(b.coordinate.front().index.edges().size())));
  write_vector(bin, "moment_shift", b.shift);
  if (b.dim > 1) {
    write_vector(bin, "projection_direction", b.direction);
    write_edges(bin, "projection_edges", b.projection.index.edges());
    write_edges(bin, "joint_edges_x", b.joint.x.edges());
    write_edges(bin, "joint_edges_y", b.joint.y.edges());
  }
  std::vector<std::string> score_names;
  for (std::size_t i = 0; i < b.scores.size(); ++i) {
    score_names.push_back(b.scores[i].name);
    write_edges(bin, fmt::format("score_edges_{}", i), b.scores[i].index.edges());
  }
  bin.attr("score_names", score_names);
  g.attr("seconds", t.seconds);               // pilot and counting (simulation)
  g.attr("estimation_seconds", est.seconds);  // estimation from the counts, after them
  write_tally(g.create_group("D"), t.d, s.raw_cap);
  write_tally(g.create_group("Dprime"), t.dprime, s.raw_cap);
  write_estimates(g.create_group("estimates"), s, est);
  write_bounds(g.create_group("bounds"), bounds, s.data.adjacency);
  if (s.profile.enabled) {
    write_profile(g.create_group("estimates/profile"), s, est.profile);
    write_gdp(g.create_group("estimates/gdp"), s, audit::gdp_estimates(s, est));
    if (claims) write_claims(g.create_group("claims"), *claims);
  }
}

void ResultsWriter::add_outcome(std::int64_t counted, int looks, int looks_planned,
                                double level_per_look, const std::string& stop_reason) {
  const Group& root = file_.root();
  root.attr("trajectories", counted);
  root.attr("first_round_trajectories", trajectories_);
  root.attr("looks", static_cast<std::int64_t>(looks));
  root.attr("looks_planned", static_cast<std::int64_t>(looks_planned));
  root.attr("level_per_look", level_per_look);
  root.attr("stop_reason", stop_reason);
}

void ResultsWriter::commit() {
  scenarios_.close();
  file_.commit();
}

}  // namespace rdpaudit::io
