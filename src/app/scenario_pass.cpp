#include "scenario_pass.hpp"

#include <chrono>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "rdpaudit/par/team.hpp"
#include "rdpaudit/tally/flat.hpp"

namespace rdpaudit::app {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

tally::Tally& side(ScenarioRun& run, int dataset) {
  return dataset == 0 ? run.tallies.d : run.tallies.dprime;
}

}  // namespace

sim::TrajectoryIds rank_share(std::int64_t first, std::int64_t count) {
  const auto [begin, end] = par::share(first, count, par::rank(), par::size());
  return {begin, end - begin};
}

Eigen::MatrixXd pilot_slab(const config::Scenario& s, std::uint64_t seed, int dataset,
                           std::int64_t first, std::int64_t count) {
  const sim::Dataset which = dataset == 0 ? sim::kPilotD : sim::kPilotDPrime;
  if (par::size() == 1) return sim::simulate_last_iterates(s, seed, which, first, count);
  const sim::TrajectoryIds mine = rank_share(first, count);
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const RowMajor part = sim::simulate_last_iterates(s, seed, which, mine.first, mine.count);
  const std::vector<double> all =
      par::allgather(std::vector<double>(part.data(), part.data() + part.size()));
  return Eigen::Map<const RowMajor>(all.data(), count, s.dim);
}

ScenarioRun cells_from_pilot(const config::Scenario& s, std::int64_t planned,
                             const Eigen::MatrixXd& pilot_d, const Eigen::MatrixXd& pilot_dprime) {
  // One pilot on streams of its own places the plot histograms and the estimators' score
  // cells: independent of every counted trajectory.
  ScenarioRun run;
  run.binning = sim::plot_binning(s, pilot_d, pilot_dprime);
  run.selection = estimate::select_scenario(s, pilot_d, pilot_dprime, planned, run.binning);
  run.tallies.d = tally::Tally(run.binning, 0);
  run.tallies.dprime = tally::Tally(run.binning, 0);
  return run;
}

ScenarioRun choose_cells(const config::Scenario& s, std::uint64_t seed, std::int64_t planned,
                         Progress* progress) {
  const auto start = std::chrono::steady_clock::now();
  const std::int64_t pilot = sim::pilot_trajectories(s);
  // D's pilot first, then D''s (statements: the order the rows are made in).
  const Eigen::MatrixXd pilot_d = pilot_slab(s, seed, 0, 0, pilot);
  const Eigen::MatrixXd pilot_dprime = pilot_slab(s, seed, 1, 0, pilot);
  ScenarioRun run = cells_from_pilot(s, planned, pilot_d, pilot_dprime);
  if (progress) progress->advance(2 * pilot * s.steps);
  run.tallies.seconds = seconds_since(start);
  return run;
}

tally::Tally count_share(const config::Scenario& s, std::uint64_t seed, const ScenarioRun& run,
                         int dataset, std::int64_t first, std::int64_t count, Progress* progress) {
  return sim::count_dataset(s, run.binning, seed, dataset == 0 ? sim::kD : sim::kDPrime,
                            rank_share(first, count), par::size() == 1 ? progress : nullptr);
}

void append_shares(const config::Scenario& s, ScenarioRun& run, int dataset, tally::Tally mine,
                   std::int64_t count, Progress* progress) {
  const int ranks = par::size();
  if (ranks == 1) {
    side(run, dataset).append(mine);
    return;
  }
  const tally::FlatTally flat = tally::flatten(mine);
  const auto ints = par::gather(flat.ints);
  const auto raw = par::gather(flat.raw);
  if (!par::root()) return;
  for (int q = 0; q < ranks; ++q) {  // rank order: the raw rows stay in id order
    const auto k = static_cast<std::size_t>(q);
    side(run, dataset).append(tally::unflatten(run.binning, tally::FlatTally{ints[k], raw[k]}));
  }
  if (progress) progress->advance(count * s.steps);
}

void estimate_and_audit(const config::Scenario& s, std::uint64_t seed, ScenarioRun& run,
                        const audit::BoundTable& bounds, const audit::ClaimTable& claims,
                        std::int64_t counted, audit::Auditor& auditor) {
  const auto start = std::chrono::steady_clock::now();
  run.estimates = estimate::estimate_scenario(s, run.selection, run.tallies, seed);
  run.estimates.seconds = seconds_since(start);
  auditor.add(s, bounds, run.estimates, describe_point(s), counted);
  auditor.add_claims(s, claims, run.estimates);
}

}  // namespace rdpaudit::app
