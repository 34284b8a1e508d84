#include "counting.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "rdpaudit/core/error.hpp"
#include "rdpaudit/core/interrupt.hpp"
#include "rdpaudit/par/team.hpp"
#include "rdpaudit/sim/simulate.hpp"
#include "rdpaudit/tally/flat.hpp"

namespace rdpaudit::app {

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Slabs last about this long: an interrupt is answered within one, and a slab's fixed costs
// (a tally per thread, the gather over ranks) stay negligible.
constexpr double kSlabSeconds = 2.0;

}  // namespace

Counting::Counting(const config::ExperimentSpec& spec, CountingPlan plan, Progress* progress)
    : spec_(spec),
      plan_(std::move(plan)),
      progress_(progress),
      runs_(spec.scenarios.size()),
      prepared_(spec.scenarios.size(), false),
      next_(spec.scenarios.size(), {-1, -1}),
      restored_(spec.scenarios.size()),
      pilots_(spec.scenarios.size()),
      credited_(spec.scenarios.size(), false),
      slab_(std::max<std::int64_t>(4096, 4096 * plan_.threads * par::size())),
      last_checkpoint_(now_seconds()) {}

void Counting::restore(const io::RunState& state) {
  // Rank 0 read the file: every rank learns the positions and an unfinished pilot's rows (each
  // needs them to place the cells), rank 0 keeps the counts.
  look_ = static_cast<int>(par::broadcast(state.look));
  for (std::size_t i = 0; i < next_.size(); ++i) {
    const config::Scenario& s = spec_.scenarios[i];
    for (int k = 0; k < 2; ++k) {
      const auto ku = static_cast<std::size_t>(k);
      const std::int64_t mine = i < state.scenarios.size() ? state.scenarios[i].next[ku] : -1;
      next_[i][ku] = par::broadcast(mine);
      const std::vector<double> rows = par::allgather(
          i < state.scenarios.size() ? state.scenarios[i].pilot[ku] : std::vector<double>{});
      const std::int64_t pilot = sim::pilot_trajectories(s);
      const auto made = static_cast<std::int64_t>(rows.size()) / s.dim;
      if (rows.empty()) continue;
      if (made * s.dim != static_cast<std::int64_t>(rows.size()) || made > pilot) {
        throw InputError("--resume", plan_.checkpoint,
                         fmt::format("scenario {}: {} pilot values, not whole rows of d = {} "
                                     "up to {} rows (a damaged checkpoint)",
                                     s.index, rows.size(), s.dim, pilot));
      }
      Pilot& p = pilots_[i];
      if (p.rows[ku].rows() == 0) p.rows[ku].resize(pilot, s.dim);
      using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
      p.rows[ku].topRows(made) = Eigen::Map<const RowMajor>(rows.data(), made, s.dim);
      p.made[ku] = made;
    }
    if (i < state.scenarios.size()) restored_[i] = state.scenarios[i];
  }
}

void Counting::make_pilot(const config::Scenario& s) {
  const auto i = static_cast<std::size_t>(s.index);
  Pilot& p = pilots_[i];
  const std::int64_t pilot = sim::pilot_trajectories(s);
  // D's pilot first, then D''s, as choose_cells makes them (the rows are their ids' anyway).
  for (std::size_t k = 0; k < 2; ++k) {
    if (p.rows[k].rows() == 0) p.rows[k].resize(pilot, s.dim);
    // Rows restored from a checkpoint count as done, once.
    if (progress_ && p.made[k] > 0) progress_->advance(p.made[k] * s.steps);
    while (p.made[k] < pilot) {
      const double start = now_seconds();
      const std::int64_t n = std::min(pilot - p.made[k], slab_);
      const Eigen::MatrixXd rows = pilot_slab(s, spec_.seed, static_cast<int>(k), p.made[k], n);
      stop_if_requested();  // before the rows join: a checkpoint has whole slabs only
      p.rows[k].middleRows(p.made[k], n) = rows;
      p.made[k] += n;
      if (progress_) progress_->advance(n * s.steps);
      const double took = now_seconds() - start;
      p.seconds += took;
      next_slab_size(n, took);
      between_slabs();
    }
  }
}

ScenarioRun& Counting::prepared(const config::Scenario& s, std::int64_t planned) {
  const auto i = static_cast<std::size_t>(s.index);
  if (prepared_[i]) return runs_[i];
  make_pilot(s);
  const double start = now_seconds();
  Pilot& p = pilots_[i];
  runs_[i] = cells_from_pilot(s, planned, p.rows[0], p.rows[1]);
  runs_[i].tallies.seconds = p.seconds + (now_seconds() - start);
  p = Pilot{};  // the cells hold what the counting needs of it
  prepared_[i] = true;
  if (par::root() && !restored_[i].cells.empty()) {
    const std::string cells = tally::fingerprint(runs_[i].binning);
    if (cells != restored_[i].cells) {
      throw InputError("--resume", plan_.checkpoint,
                       fmt::format("scenario {}: the checkpoint's cells differ from the ones this "
                                   "run's pilot chose (another machine's arithmetic?)",
                                   s.index));
    }
    try {
      runs_[i].tallies.d = tally::unflatten(runs_[i].binning, restored_[i].tally[0]);
      runs_[i].tallies.dprime = tally::unflatten(runs_[i].binning, restored_[i].tally[1]);
    } catch (const std::invalid_argument&) {
      throw InputError("--resume", plan_.checkpoint,
                       fmt::format("scenario {}: damaged counts", s.index));
    }
  }
  return runs_[i];
}

void Counting::count_to(const config::Scenario& s, std::int64_t begin, std::int64_t end) {
  const auto i = static_cast<std::size_t>(s.index);
  for (int k = 0; k < 2; ++k) {
    std::int64_t& next = next_[i][static_cast<std::size_t>(k)];
    if (next < 0) next = begin;
    // Trajectories counted before a resume count as done, once.
    if (progress_ && !credited_[i] && next > begin) progress_->advance((next - begin) * s.steps);
    while (next < end) {
      const std::int64_t n = std::min(end - next, slab_);
      count_slab(s, k, next, n);
      next += n;
      between_slabs();
    }
  }
  credited_[i] = true;
}

void Counting::count_slab(const config::Scenario& s, int dataset, std::int64_t first,
                          std::int64_t n) {
  const double start = now_seconds();
  ScenarioRun& run = runs_[static_cast<std::size_t>(s.index)];
  tally::Tally mine = count_share(s, spec_.seed, run, dataset, first, n, progress_);
  stop_if_requested();  // the slab is incomplete somewhere: drop it everywhere
  append_shares(s, run, dataset, std::move(mine), n, progress_);
  const double took = now_seconds() - start;
  run.tallies.seconds += took;  // pilot and counting, as the results file reports them
  next_slab_size(n, took);
}

void Counting::stop_if_requested() {
  if (!par::any(stop_requested())) return;
  if (par::root()) write_checkpoint();
  throw Stopped{plan_.checkpoint};
}

void Counting::next_slab_size(std::int64_t n, double took) {
  // The next slab lasts about kSlabSeconds (never less than half or more than four times
  // this one); rank 0's clock decides for every rank.
  const auto scaled =
      static_cast<std::int64_t>(static_cast<double>(n) * kSlabSeconds / std::max(1e-3, took));
  slab_ = par::broadcast(std::clamp<std::int64_t>(scaled, std::max<std::int64_t>(1024, n / 2),
                                                  std::max<std::int64_t>(4096, 4 * n)));
}

void Counting::between_slabs() {
  if (plan_.checkpoint.empty() || !par::root() || !(plan_.checkpoint_every > 0)) return;
  if (now_seconds() - last_checkpoint_ < plan_.checkpoint_every) return;
  write_checkpoint();
  last_checkpoint_ = now_seconds();
}

io::RunState Counting::state(const std::string& kind) const {
  io::RunState st;
  st.kind = kind;
  st.identity = plan_.identity;
  st.look = look_;
  for (std::size_t i = 0; i < runs_.size(); ++i) {
    io::ScenarioState x;
    if (prepared_[i]) {
      x.cells = tally::fingerprint(runs_[i].binning);
      x.tally = {tally::flatten(runs_[i].tallies.d), tally::flatten(runs_[i].tallies.dprime)};
      x.next = next_[i];
    } else if (pilots_[i].made[0] + pilots_[i].made[1] > 0) {
      const Pilot& p = pilots_[i];  // its pilot is being made
      x.next = {-1, -1};
      for (std::size_t k = 0; k < 2; ++k) {
        using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
        const RowMajor made = p.rows[k].topRows(p.made[k]);
        x.pilot[k].assign(made.data(), made.data() + made.size());
      }
    } else {
      x = restored_[i];  // not reached yet after a resume (or empty)
      if (x.cells.empty()) x.next = {-1, -1};
    }
    st.scenarios.push_back(std::move(x));
  }
  return st;
}

void Counting::write_checkpoint() {
  if (plan_.checkpoint.empty()) return;
  const double start = now_seconds();
  io::write_state(plan_.checkpoint, state("checkpoint"));
  ++checkpoints_;
  checkpoint_seconds_ += now_seconds() - start;
}

}  // namespace rdpaudit::app
