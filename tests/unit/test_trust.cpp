// Trust under faults and bad input: what validate refuses (integers as written, one
// trajectory, noise lost in rounding, runs that cannot fit, contradicting expectations), the
// expectation valid_exact, the sequential stopping rule, checksummed state files, scenario
// group names that sort, and output names within the file system's limit.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <string>

#include "rdpaudit/audit/verdict.hpp"
#include "rdpaudit/bounds/experiment.hpp"
#include "rdpaudit/config/expectations.hpp"
#include "rdpaudit/config/limits.hpp"
#include "rdpaudit/config/load.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/core/sha256.hpp"
#include "rdpaudit/io/hdf5.hpp"
#include "rdpaudit/io/results.hpp"
#include "rdpaudit/io/state_file.hpp"

using namespace rdpaudit;
using audit::Cell;
using audit::Verdict;
using config::Expectation;

namespace {

const std::string kFile = R"(
[experiment]
seed = 1
trajectories = 1000
[model]
loss = "quadratic"
lambda = 1.0
[data]
preset = "quadratic_worst_case"
n = 10
sensitivity = 1.0
[training]
scheme = "full_batch"
eta = 0.1
batch_size = 10
steps = 1
[noise]
step_std = 0.1
)";

std::string error_of(const std::string& text) {
  try {
    bounds::parse_experiment(text, "t.toml");  // as the commands read it
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::string scratch(const std::string& name) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("rdpaudit_trust_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

}  // namespace

TEST_CASE("integer keys are range-checked as written and floats are refused", "[config][trust]") {
  // 2^32 + 1 used to wrap to 1 in an int and pass the range check.
  CHECK(error_of(kFile + "[estimate]\nbootstrap = 4294967297\n") ==
        "estimate.bootstrap = 4294967297 (must be in [0, 10^5])");
  CHECK(error_of(kFile + "[estimate]\npatterns = 4294967297\n") ==
        "estimate.patterns = 4294967297 (must be in [1, 10^6])");
  CHECK(error_of(kFile + "[tally]\nbins = 4294967298\n") ==
        "tally.bins = 4294967298 (must be in [2, 10^6])");
  CHECK(error_of(replaced(kFile, "trajectories = 1000", "trajectories = 1000.0")) ==
        "experiment.trajectories = 1000.0 (must be an integer (write 1000, not a float))");
  // A swept list may still mix 2 and 2.0 (test_config.cpp, "swept values are read in place").
  CHECK(error_of(replaced(kFile, "steps = 1", "steps = [1, 2.0]")) == "no error");
}

TEST_CASE("a key nested past 64 levels is refused with its place, not a crash", "[config][trust]") {
  // toml++ recursed once per level: a 10^5-part dotted key overflowed the stack (SIGSEGV).
  std::string deep = "a";
  for (int i = 0; i < 100000; ++i) deep += ".a";
  CHECK(error_of(kFile + deep + " = 1\n") ==
        "t.toml:19:130: a dotted key or table header nests more than 64 levels (rdpaudit's keys "
        "nest at most 3)");
  std::string header = "[b";
  for (int i = 0; i < 70; ++i) header += " . b";
  CHECK_THAT(error_of(kFile + header + "]\n"), Catch::Contains("nests more than 64 levels"));
  // Dots in comments, strings and numbers are not levels.
  const std::string dots(200, '.');
  std::string alphas = "2";
  for (int i = 0; i < 100; ++i) alphas += ", " + std::to_string(i + 2) + ".5";
  CHECK(error_of(kFile + "# " + dots + "\n[bounds]\nalphas = [" + alphas + "]\nclaim = \"" + dots +
                 "\"\n")
            .find("nests") == std::string::npos);
}

TEST_CASE("one trajectory per dataset is refused, whichever key gives it", "[config][trust]") {
  CHECK(error_of(replaced(kFile, "trajectories = 1000", "trajectories = 1")) ==
        "experiment.trajectories = 1 (leaves 1 trajectory per dataset; at least 2 (the "
        "covariance of the last iterates needs two))");
  config::Overrides o;
  o.trajectories = 1;
  CHECK_THROWS_WITH(config::parse_experiment(kFile, "t.toml", o),
                    Catch::StartsWith("--trajectories = 1 (leaves 1 trajectory"));
  CHECK(error_of(replaced(kFile, "trajectories = 1000", "trajectories = 2")) == "no error");
}

TEST_CASE("a noise lost in rounding at the iterates' size is refused", "[config][trust]") {
  // Poisson, q = 1, a record 1e18 away: one step moves D' by 1e16, the noise is 0.1.
  const std::string poisson =
      replaced(replaced(kFile, "scheme = \"full_batch\"", "scheme = \"poisson\""),
               "batch_size = 10", "sampling_rate = 1.0");
  CHECK(error_of(poisson) == "no error");
  CHECK_THAT(error_of(replaced(poisson, "sensitivity = 1.0", "sensitivity = 1e18")),
             Catch::StartsWith("data.sensitivity = 1e+18 (one step moves the iterates by about "
                               "eta * 1e+18 / b = 1e+16, and the per-step noise std s = 0.1 is "
                               "below 1e-12 of that"));
  CHECK(error_of(replaced(poisson, "sensitivity = 1.0", "sensitivity = 1e10")) == "no error");
}

TEST_CASE("a run that cannot fit in memory is refused, naming the key", "[config][trust]") {
  const auto spec = config::parse_experiment(
      replaced(kFile, "steps = 1", "steps = 1\n[tally]\nraw_samples = 1000"), "t.toml");
  const config::MemoryNeed need = config::run_memory(spec);
  CHECK(need.raw == 2.0 * 1000 * 1 * 8);  // both datasets' raw rows, d = 1
  CHECK(need.total() > need.raw);
  // 10^8 raw samples of d = 8 in 10^4 scenarios: 1.3e14 bytes, on no machine.
  const std::string big = replaced(
      replaced(replaced(kFile, "trajectories = 1000", "trajectories = 100000000"), "lambda = 1.0",
               "lambda = 1.0\ndim = 8"),
      "step_std = 0.1", "step_std = [" + [] {
        std::string v;
        for (int i = 0; i < 10000; ++i) v += (i ? ", " : "") + std::to_string(1 + i);
        return v;
      }() + "]\n[tally]\nraw_samples = 100000000");
  CHECK_THAT(error_of(big), Catch::StartsWith("tally.raw_samples = 100000000 (every scenario "
                                              "keeps 2 x tally.raw_samples raw last iterates"));
}

TEST_CASE("expectations: valid_exact, and contradictions named by both keys", "[config][trust]") {
  const std::string custom = "[[bounds.custom]]\nname = \"mine\"\nformula = \"alpha\"\n";
  CHECK(error_of(kFile + "[bounds]\nexpect_violated = [\"mine\"]\n" + custom +
                 "expect = \"holds\"\n") ==
        "bounds.custom[0].expect = \"holds\" contradicts bounds.expect_violated[0] = \"mine\": "
        "say what is expected once, in one of the two");
  CHECK(error_of(kFile + "[bounds]\nexpect_violated = [\"gaussian_composition\"]\n"
                         "expect_valid_exact = [\"gaussian_composition\"]\n") ==
        "bounds.expect_violated[0] = \"gaussian_composition\" contradicts "
        "bounds.expect_valid_exact[0] = \"gaussian_composition\": say once what a bound is "
        "expected to be found");
  CHECK(error_of(kFile + custom + "expect = \"proven\"\n") ==
        "bounds.custom[0].expect = \"proven\" (must be one of: holds, violated, valid_exact, "
        "informative)");
  // The same statement twice is no contradiction; a list decides an unwritten expect.
  const auto spec =
      config::parse_experiment(kFile +
                                   "[bounds]\nexpect_violated = [\"mine\"]\nexpect_valid_exact = "
                                   "[\"gaussian_composition\"]\n" +
                                   custom + "expect = \"violated\"\n",
                               "t.toml");
  const auto& b = spec.scenarios.front().bounds;
  CHECK(config::stated_expectation(b, "mine") == Expectation::kViolated);
  CHECK(config::stated_expectation(b, "gaussian_composition") == Expectation::kValidExact);
  CHECK_FALSE(config::stated_expectation(b, "ys_thm2.1_naive").has_value());
  const auto unwritten = config::parse_experiment(
      kFile + "[bounds]\nexpect_violated = [\"mine\"]\n" + custom, "t.toml");
  CHECK(config::stated_expectation(unwritten.scenarios.front().bounds, "mine") ==
        Expectation::kViolated);
}

TEST_CASE("valid_exact is met only by valid (exact)", "[audit][trust]") {
  CHECK(audit::meets(Expectation::kValidExact, Verdict::kValidExact));
  CHECK_FALSE(audit::meets(Expectation::kValidExact, Verdict::kNotRejected));
  CHECK_FALSE(audit::meets(Expectation::kValidExact, Verdict::kViolated));
  CHECK(audit::meets(Expectation::kHolds, Verdict::kNotRejected));
  CHECK(audit::meets(Expectation::kHolds, Verdict::kValidExact));
  CHECK_FALSE(audit::meets(Expectation::kHolds, Verdict::kViolatedExact));
  CHECK(audit::meets(Expectation::kViolated, Verdict::kViolatedExact));
  std::vector<Cell> cells(2);
  cells[0].verdict = Verdict::kValidExact;
  cells[1].verdict = Verdict::kNotRejected;
  audit::BoundRow row;
  row.expect = Expectation::kValidExact;
  audit::summarise(row, 0, cells);
  CHECK(row.outcome == Verdict::kNotRejected);
  CHECK_FALSE(row.as_expected);
  cells[1].verdict = Verdict::kNotApplicable;
  audit::summarise(row, 0, cells);
  CHECK(row.outcome == Verdict::kValidExact);
  CHECK(row.as_expected);
}

TEST_CASE("a bound of -inf is violated (exact), +inf valid (exact)", "[audit][trust]") {
  const auto spec =
      config::parse_experiment(kFile +
                                   "[bounds]\nalphas = [2]\naudit = [\"minus\", \"plus\"]\n"
                                   "[[bounds.custom]]\nname = \"minus\"\nformula = \"-1/0\"\n"
                                   "[[bounds.custom]]\nname = \"plus\"\nformula = \"1/0\"\n",
                               "t.toml");
  const auto& s = spec.scenarios.front();
  const audit::BoundTable table = audit::audited_bounds(s);
  estimate::ScenarioEstimates est;
  audit::Auditor auditor(0.05);
  auditor.add(s, table, est, "-", 1000);
  const audit::AuditResult r = auditor.finish();
  REQUIRE(r.cells.size() == 4);
  for (const Cell& c : r.cells) {
    const bool minus = r.bounds[c.bound].name == "minus";
    CHECK(c.verdict == (minus ? Verdict::kViolatedExact : Verdict::kValidExact));
    CHECK_FALSE(c.tested);
  }
}

TEST_CASE("sequential stopping: a bound at or above a fixed interval of R_alpha is decided",
          "[audit][trust]") {
  Cell c;
  c.verdict = Verdict::kNotRejected;
  c.bound_value = 1.0;
  c.estimate = 1.0;
  c.tightness_estimate = 1.0;
  CHECK_FALSE(audit::is_decided(c, 2.0));  // trajectory-based estimate: the margin rule only
  c.estimate_lower = 0.9999999999;
  c.estimate_upper = 1.0000000001;  // the quadrature's bracket: R_alpha at the bound
  CHECK(audit::is_decided(c, 2.0));
  c.estimate_lower = 0.99;
  c.estimate_upper = 1.01;  // a wider interval reaching above the bound: could be violated
  CHECK_FALSE(audit::is_decided(c, 2.0));
  c.bound_value = 1.5;  // a valid bound at 1.5 x: decided (it used to spend the budget)
  c.tightness_estimate = 1.5;
  CHECK(audit::is_decided(c, 2.0));
  c.estimate_upper = INFINITY;  // a one-sided interval says nothing from above
  CHECK_FALSE(audit::is_decided(c, 2.0));
  c.verdict = Verdict::kInconclusive;
  c.estimate_upper = 1.0;
  CHECK_FALSE(audit::is_decided(c, 2.0));

  audit::AuditResult a;
  a.bounds.resize(1);
  a.bounds[0].name = "tight";
  a.cells.assign(3, c);
  for (Cell& x : a.cells) x.verdict = Verdict::kNotRejected, x.estimate_upper = 2.0;
  a.cells[0].alpha = 2;
  const std::string text = audit::undecided_text(a, 2.0, 2);
  CHECK_THAT(text, Catch::StartsWith("  tight, scenario 0, alpha 2, R(P||P'): not rejected, "
                                     "bound / estimate 1.5 < 2 (--decided-margin)\n"));
  CHECK_THAT(text, Catch::EndsWith("  ... and 1 more"));
}

TEST_CASE("SHA-256: incremental updates give the one-shot digest", "[core][trust]") {
  const std::string two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  CHECK(sha256_hex(two_blocks) ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  std::string long_text;
  for (int i = 0; i < 1000; ++i) long_text += static_cast<char>('a' + i % 26);
  for (std::size_t step : {1u, 7u, 63u, 64u, 65u, 500u}) {
    Sha256 h;
    for (std::size_t i = 0; i < long_text.size(); i += step)
      h.update(long_text.data() + i, std::min(step, long_text.size() - i));
    CHECK(h.hex() == sha256_hex(long_text));
  }
}

TEST_CASE("state files: a checksum of the counts, verified on reading", "[io][trust]") {
  io::RunState st;
  st.kind = "part";
  st.identity.config_sha256 = "abc";
  st.identity.seed = 18446744073709551615ULL;
  st.identity.trajectories = 100;
  st.identity.part = 1;
  st.identity.parts = 2;
  io::ScenarioState s;
  s.cells = "fingerprint";
  s.next = {50, 50};
  s.tally[0].ints = {50, 0, 0, 10, 40};
  s.tally[1].ints = {50, 0, 0, 20, 30};
  st.scenarios.push_back(s);
  const std::string path = scratch("part.h5");
  io::write_state(path, st);
  const io::RunState back = io::read_state(path);
  CHECK(back.identity.seed == st.identity.seed);
  CHECK(back.scenarios.at(0).tally[1].ints == s.tally[1].ints);
  CHECK(io::counts_checksum(back) == io::counts_checksum(st));
  // Every counted number and what identifies it enters the checksum.
  io::RunState edited = st;
  edited.scenarios[0].tally[0].ints[3] += 1;
  CHECK(io::counts_checksum(edited) != io::counts_checksum(st));
  edited = st;
  edited.identity.seed -= 1;
  CHECK(io::counts_checksum(edited) != io::counts_checksum(st));
  edited = st;
  edited.scenarios[0].next[1] = 49;
  CHECK(io::counts_checksum(edited) != io::counts_checksum(st));
  CHECK_THROWS_WITH(io::read_state(scratch("missing.h5")), Catch::Contains("does not exist"));
  std::filesystem::remove(path);
}

TEST_CASE("scenario group names sort as numbers, and 2.2 files keep theirs", "[io][trust]") {
  CHECK(io::scenario_group_name(7, 12) == "0007");
  CHECK(io::scenario_group_name(9999, 10000) == "9999");
  CHECK(io::scenario_group_name(7, 10001) == "00007");
  CHECK(io::scenario_group_name(10000, 10001) == "10000");
  CHECK(io::scenario_group_name(99999, 100000) == "99999");
  CHECK(io::scenario_group_name(10000, 10001, 2) == "10000");  // format 2.2: {:04d}
  CHECK(io::scenario_group_name(7, 10001, 2) == "0007");
}

TEST_CASE("an output name whose checkpoint temporary would exceed NAME_MAX is refused",
          "[io][trust]") {
  const std::string dir = std::filesystem::path(scratch("x")).parent_path().string();
  CHECK_NOTHROW(io::check_output_name(dir + "/" + std::string(246, 'x'), "-o"));
  CHECK_THROWS_WITH(io::check_output_name(dir + "/" + std::string(247, 'x'), "-o"),
                    Catch::Contains("(NAME_MAX): at most 246 bytes"));
}

TEST_CASE("writing an unwritable file is a ResourceError naming it, nothing is left",
          "[io][trust]") {
  const std::string path = scratch("no_such_dir/out.h5");
  CHECK_THROWS_AS(io::AtomicFile(path), ResourceError);
  CHECK_FALSE(std::filesystem::exists(path + ".tmp"));
}
