// Batch schedules drawn as docs/rng.md defines them: sampling without replacement by rank
// (several steps per word), shuffles by rank among the records left (a 64-bit mask), and both
// exactly uniform.
#include <algorithm>
#include <boost/random/binomial_distribution.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "rdpaudit/config/load.hpp"
#include "rdpaudit/rng/bounded.hpp"
#include "rdpaudit/rng/stream.hpp"
#include "rdpaudit/sim/batches.hpp"

using namespace rdpaudit;

namespace {

config::Scenario scenario(const std::string& scheme, int n, int b, int epochs = 2) {
  const std::string text = R"(
[experiment]
seed = 1
trajectories = 100
[model]
loss = "quadratic"
lambda = 1.0
[data]
preset = "quadratic_worst_case"
n = )" + std::to_string(n) +
                           R"(
sensitivity = 1.0
[training]
scheme = ")" + scheme + R"("
eta = 0.1
batch_size = )" + std::to_string(b) +
                           R"(
epochs = )" + std::to_string(epochs) +
                           R"(
[noise]
sigma = 1.0
)";
  return config::parse_experiment(text, "test.toml").scenarios.at(0);
}

// One trajectory's schedule of `scheme` (n records, batch size b) on batch stream `id`.
struct Schedule {
  Schedule(const std::string& scheme, int n, int b, std::uint64_t id, int epochs = 2)
      : s(scenario(scheme, n, b, epochs)),
        fixed(sim::fixed_order(s)),
        stream({id, 0, 0, id, rng::Purpose::kBatch}),
        batches(s, fixed, stream) {}
  config::Scenario s;
  std::vector<int> fixed;
  rng::Stream stream;
  sim::BatchSchedule batches;
};

// The records picked by ranks, from the definition: rank[k] indexes the records left, in
// ascending order; then the records left, ascending.
std::vector<int> picks_by_rank(int n, const std::vector<std::uint32_t>& rank) {
  std::vector<int> left(n), out;
  std::iota(left.begin(), left.end(), 0);
  for (std::uint32_t r : rank) {
    REQUIRE(r < left.size());
    out.push_back(left[r]);
    left.erase(left.begin() + r);
  }
  out.insert(out.end(), left.begin(), left.end());
  return out;
}

// Pearson's statistic of counts against equal expectations, and whether it lies below the
// chi-square quantile at p = 1e-6 (Wilson-Hilferty): a fixed seed makes the test
// deterministic; the level only decides how large a bias it must detect.
bool looks_uniform(const std::map<std::vector<int>, long>& counts, long cells, long draws) {
  const double expected = static_cast<double>(draws) / cells;
  double x2 = 0;
  for (const auto& [key, c] : counts) x2 += (c - expected) * (c - expected) / expected;
  x2 += (cells - static_cast<long>(counts.size())) * expected;  // cells never seen
  const double k = static_cast<double>(cells - 1), z = 4.75;
  const double quantile = k * std::pow(1 - 2 / (9 * k) + z * std::sqrt(2 / (9 * k)), 3);
  INFO("chi-square " << x2 << " on " << k << " degrees of freedom, 1e-6 quantile " << quantile);
  return counts.size() <= static_cast<std::size_t>(cells) && x2 < quantile;
}

}  // namespace

TEST_CASE("order_by_rank picks the rank-th record left, with and without PDEP", "[sim][batches]") {
  rng::Stream stream({3, 0, 0, 1, rng::Purpose::kTest});
  for (int n : {1, 2, 5, 50, 63, 64}) {
    for (int picks : {0, n / 2, n - 1}) {
      if (picks < 0) continue;
      for (int rep = 0; rep < 50; ++rep) {
        std::vector<std::uint32_t> rank;
        for (int k = 0; k < picks; ++k)
          rank.push_back(
              static_cast<std::uint32_t>(stream.below(static_cast<std::uint64_t>(n - k))));
        const auto want = picks_by_rank(n, rank);
        std::vector<int> got(n, -1);
        sim::detail::order_by_rank(n, rank.data(), picks, got.data(), false);
        INFO("n " << n << " picks " << picks);
        REQUIRE(got == want);
        if (sim::detail::order_by_rank_uses_pdep()) {
          std::fill(got.begin(), got.end(), -1);
          sim::detail::order_by_rank(n, rank.data(), picks, got.data(), true);
          REQUIRE(got == want);
        }
      }
    }
  }
}

TEST_CASE("shuffles are the ranks' picks, every order equally likely", "[sim][batches]") {
  SECTION("an epoch's order is the picks of the ranks drawn from the batch stream") {
    // n = 50, b = 2 (the Figure 2 setting) and n = 11, b = 3 (two records left over).
    for (auto [n, b] : {std::pair{50, 2}, std::pair{11, 3}}) {
      for (const char* scheme : {"shuffle_partition", "shuffle_each_epoch"}) {
        const auto s = scenario(scheme, n, b, 3);
        const auto fixed = sim::fixed_order(s);
        rng::Stream stream({5, 0, 0, 2, rng::Purpose::kBatch}), copy = stream;
        sim::BatchSchedule batches(s, fixed, stream);
        const long m = s.steps_per_epoch, picks = std::min<long>(m * b, n - 1);
        std::vector<std::uint64_t> bounds;
        for (long k = 0; k < picks; ++k) bounds.push_back(static_cast<std::uint64_t>(n - k));
        const rng::BoundedDraws draws(bounds);
        std::vector<int> want;
        for (long t = 0; t < s.steps; ++t) {
          if (t == 0 || (t % m == 0 && std::string(scheme) == "shuffle_each_epoch")) {
            std::vector<std::uint32_t> rank(bounds.size());
            draws.draw(copy, rank.data());
            want = picks_by_rank(n, rank);
          }
          int count = 0;
          const int* idx = batches.next(count);
          INFO(scheme << " n " << n << " step " << t);
          REQUIRE(count == b);
          REQUIRE(std::vector<int>(idx, idx + b) ==
                  std::vector<int>(want.begin() + (t % m) * b, want.begin() + (t % m + 1) * b));
        }
        CHECK(stream.position() == copy.position());
      }
    }
  }
  SECTION("all 120 orders of 5 records, epoch after epoch") {
    Schedule one("shuffle_each_epoch", 5, 2, 3, 1);  // two batches, one record left
    auto& batches = one.batches;
    std::map<std::vector<int>, long> counts;
    const long draws = 120 * 500;
    for (long e = 0; e < draws; ++e) {
      batches.start_epoch();
      std::vector<int> order(batches.batch_at(0), batches.batch_at(0) + 4);
      std::vector<int> all = order;
      std::sort(all.begin(), all.end());
      REQUIRE(std::unique(all.begin(), all.end()) == all.end());
      ++counts[order];  // the first four determine the fifth
    }
    CHECK(looks_uniform(counts, 120, draws));
  }
  SECTION("more than 64 records: Fisher-Yates, each record equally often in each batch") {
    Schedule one("shuffle_each_epoch", 70, 7, 4, 1);
    auto& batches = one.batches;
    std::map<std::vector<int>, long> first_batch_of_record0;
    const long draws = 20000;
    for (long e = 0; e < draws; ++e) {
      batches.start_epoch();
      std::set<int> seen;
      for (long j = 0; j < 10; ++j) {
        for (int k = 0; k < 7; ++k) {
          const int r = batches.batch_at(j)[k];
          seen.insert(r);
          if (r == 0) ++first_batch_of_record0[{static_cast<int>(j)}];
        }
      }
      REQUIRE(seen.size() == 70);
    }
    CHECK(looks_uniform(first_batch_of_record0, 10, draws));
  }
}

TEST_CASE("start_epochs draws what start_epoch draws, schedule by schedule", "[sim][batches]") {
  for (int n : {12, 64, 70}) {
    const auto s = scenario("shuffle_each_epoch", n, 3, 1);
    const auto fixed = sim::fixed_order(s);
    const sim::BatchDraws shared(s);
    std::vector<rng::Stream> a, b;
    for (std::uint64_t j = 0; j < 19; ++j) {
      a.emplace_back(rng::StreamId{7, 0, 0, j, rng::Purpose::kBatch});
      b.emplace_back(rng::StreamId{7, 0, 0, j, rng::Purpose::kBatch});
    }
    std::vector<sim::BatchSchedule> together, alone;
    together.reserve(19);
    alone.reserve(19);
    for (int j = 0; j < 19; ++j) {
      together.emplace_back(s, fixed, shared, a[j]);
      alone.emplace_back(s, fixed, b[j]);
    }
    for (int epoch = 0; epoch < 3; ++epoch) {
      sim::BatchSchedule::start_epochs(together.data(), 19);
      for (int j = 0; j < 19; ++j) {
        alone[j].start_epoch();
        INFO("n " << n << " schedule " << j << " epoch " << epoch);
        REQUIRE(std::vector<int>(together[j].batch_at(0), together[j].batch_at(0) + n / 3 * 3) ==
                std::vector<int>(alone[j].batch_at(0), alone[j].batch_at(0) + n / 3 * 3));
      }
    }
  }
}

TEST_CASE("sampling without replacement by rank: the tuple of each rank, uniform",
          "[sim][batches]") {
  SECTION("ranks count the ordered tuples while they fit in 32 bits") {
    CHECK(sim::BatchSchedule::subset_ranks(50, 2) == 2450);
    CHECK(sim::BatchSchedule::subset_ranks(12, 12) == 479001600);
    CHECK(sim::BatchSchedule::subset_ranks(300, 4) == 0);  // 7.9e9
    CHECK(sim::BatchSchedule::subset_ranks(5, 6) == 0);
  }
  SECTION("subset_of_rank is a bijection onto the ordered tuples of distinct records") {
    std::set<std::vector<int>> tuples;
    for (std::uint32_t r = 0; r < 6 * 5 * 4; ++r) {
      std::vector<int> t(3);
      sim::BatchSchedule::subset_of_rank(6, 3, r, t.data());
      // Digits of r in the radix (6, 5, 4), picked among the records left.
      const std::vector<std::uint32_t> digits = {r / 20, r / 4 % 5, r % 4};
      const auto want = picks_by_rank(6, digits);
      REQUIRE(t == std::vector<int>(want.begin(), want.begin() + 3));
      tuples.insert(t);
    }
    CHECK(tuples.size() == 120);
  }
  SECTION("the Figure 2 setting: 32 steps from 7 words, every ordered pair equally likely") {
    // The ranks of five steps share one word (not one word per step).
    Schedule one("sample_without_replacement", 50, 2, 5);
    auto& batches = one.batches;
    std::map<std::vector<int>, long> counts;
    const long draws = 2450 * 100;
    for (long t = 0; t < draws; ++t) {
      int count = 0;
      const int* idx = batches.next(count);
      REQUIRE(count == 2);
      REQUIRE(idx[0] != idx[1]);
      ++counts[{idx[0], idx[1]}];
    }
    CHECK(looks_uniform(counts, 2450, draws));
    CHECK(static_cast<double>(one.stream.position()) < 0.23 * draws);  // 7 words per 32 steps
  }
  SECTION("next_subset_keys gives the ranks of next_subset_key, chunk by chunk") {
    const auto s = scenario("sample_without_replacement", 9, 4);  // 3024 ranks
    const auto fixed = sim::fixed_order(s);
    rng::Stream s1({9, 0, 0, 6, rng::Purpose::kBatch}), s2 = s1, s3 = s1;
    sim::BatchSchedule one(s, fixed, s1), chunked(s, fixed, s2), records(s, fixed, s3);
    for (int chunk = 0; chunk < 20; ++chunk) {
      std::vector<std::uint32_t> ranks(sim::BatchSchedule::kSubsetChunk);
      chunked.next_subset_keys([&](int i, std::uint32_t r) { ranks[i] = r; });
      for (int i = 0; i < sim::BatchSchedule::kSubsetChunk; ++i) {
        REQUIRE(one.next_subset_key() == ranks[i]);
        std::vector<int> want(4);
        sim::BatchSchedule::subset_of_rank(9, 4, ranks[i], want.data());
        const int* got = records.next_subset();
        REQUIRE(std::vector<int>(got, got + 4) == want);
      }
    }
    CHECK(s1.position() == s2.position());
  }
  SECTION("too many tuples for ranks: offsets, b distinct records, each record as often") {
    for (int b : {4, 13}) {  // picks by counting; a partial Fisher-Yates above 12
      Schedule one("sample_without_replacement", 300, b, 7);
      auto& batches = one.batches;
      std::map<std::vector<int>, long> first, last;
      const long draws = 300 * 100;
      for (long t = 0; t < draws; ++t) {
        int count = 0;
        const int* idx = batches.next(count);
        REQUIRE(std::set<int>(idx, idx + count).size() == static_cast<std::size_t>(b));
        ++first[{idx[0]}];
        ++last[{idx[b - 1]}];
      }
      INFO("b " << b);
      CHECK(looks_uniform(first, 300, draws));
      CHECK(looks_uniform(last, 300, draws));
    }
  }
}

namespace {

// Pearson's statistic of counts against the probabilities p (every cell of p), below the
// chi-square quantile at p = 1e-6 (as looks_uniform).
template <class Key>
bool fits_law(const std::map<Key, long>& counts, const std::map<Key, double>& p, long draws) {
  double x2 = 0;
  for (const auto& [key, prob] : p) {
    const auto it = counts.find(key);
    const double seen = it == counts.end() ? 0.0 : static_cast<double>(it->second);
    x2 += (seen - draws * prob) * (seen - draws * prob) / (draws * prob);
  }
  for (const auto& [key, c] : counts) {
    if (p.count(key) == 0) return false;  // a cell of probability 0
  }
  const double k = static_cast<double>(p.size() - 1), z = 4.75;
  const double quantile = k * std::pow(1 - 2 / (9 * k) + z * std::sqrt(2 / (9 * k)), 3);
  INFO("chi-square " << x2 << " on " << k << " degrees of freedom, 1e-6 quantile " << quantile);
  return x2 < quantile;
}

double choose(int n, int k) {
  if (k < 0 || k > n) return 0;
  double c = 1;
  for (int i = 0; i < k; ++i) c = c * (n - i) / (i + 1);
  return c;
}

}  // namespace

TEST_CASE("distinguished records: those that differ, bitwise, from the row most records copy",
          "[sim][batches]") {
  using V = std::vector<int>;
  const auto of = [](const std::vector<double>& x, int p, const std::vector<int>& labels = {}) {
    return sim::distinguished_records(x.data(), labels.empty() ? nullptr : labels.data(),
                                      static_cast<int>(x.size()) / p, p);
  };
  CHECK(of({0, 0, 0, 0}, 1) == V{});
  CHECK(of({4, 0, 0, 0}, 1) == V{0});                 // the background need not come first
  CHECK(of({1, 2, 1, 2, 1, 2, 2}, 1) == V{0, 2, 4});  // the row of the most records
  CHECK(of({1, 2, 3, 4}, 2) == V{1});                 // rows of two: (1, 2), (3, 4)
  CHECK(of({0.0, -0.0, 0.0}, 1) == V{1});             // bitwise: -0 is another row
  CHECK(of({1, 1, 1}, 1, {0, 1, 0}) == V{1});         // a label makes another record
  CHECK(of({5, 6}, 1) == V{1});                       // a tie: the first record's row
  std::vector<double> many(20, 0.0);
  for (int i = 0; i < 8; ++i) many[static_cast<std::size_t>(2 * i + 1)] = 1.0 + i;
  CHECK(of(many, 1)->size() == 8);
  many[17] = 9.0;  // nine differ from the background: too many
  CHECK(!of(many, 1).has_value());
}

TEST_CASE("shuffles by distinguished records: uniform positions, the background in order",
          "[sim][batches]") {
  for (const std::string scheme : {"shuffle_each_epoch", "shuffle_partition"}) {
    const auto s = scenario(scheme, 5, 2);  // 2 batches, record left out at position 4
    const auto fixed = sim::fixed_order(s);
    const sim::BatchDraws draws(s, {1, 3});
    REQUIRE(draws.by_distinguished);
    CHECK(draws.background == std::vector<int>{0, 2, 4});
    std::map<std::vector<int>, long> pairs;
    const long draws_count = 20 * 2000;
    for (long k = 0; k < draws_count; ++k) {
      rng::Stream stream({3, 0, 0, static_cast<std::uint64_t>(k), rng::Purpose::kBatch});
      sim::BatchSchedule batches(s, fixed, draws, stream);
      batches.start_epoch();
      const std::vector<int> order(batches.batch_at(0), batches.batch_at(0) + 5);
      REQUIRE(std::set<int>(order.begin(), order.end()).size() == 5);
      std::vector<int> background, where(5);
      for (int i = 0; i < 5; ++i) {
        where[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = i;
        if (order[static_cast<std::size_t>(i)] % 2 == 0) background.push_back(order[i]);
      }
      REQUIRE(background == std::vector<int>{0, 2, 4});
      // the positions the schedule reports are those of its order
      const int* at = batches.distinguished_positions();
      const int* rec = batches.distinguished_at_positions();
      REQUIRE(batches.distinguished_count() == 2);
      REQUIRE(at[0] < at[1]);
      for (int j = 0; j < 2; ++j) REQUIRE(order[static_cast<std::size_t>(at[j])] == rec[j]);
      ++pairs[{where[1], where[3]}];
    }
    INFO(scheme);
    CHECK(looks_uniform(pairs, 20, draws_count));  // every ordered pair of positions
  }
}

TEST_CASE("shuffles with no distinguished record draw nothing: the records in index order",
          "[sim][batches]") {
  {
    const auto s = scenario("shuffle_each_epoch", 7, 3);
    const auto fixed = sim::fixed_order(s);
    const sim::BatchDraws draws(s, {});
    rng::Stream stream({3, 0, 0, 1, rng::Purpose::kBatch});
    sim::BatchSchedule batches(s, fixed, draws, stream);
    for (int epoch = 0; epoch < 3; ++epoch) {
      batches.start_epoch();
      CHECK(std::vector<int>(batches.batch_at(0), batches.batch_at(0) + 7) ==
            std::vector<int>{0, 1, 2, 3, 4, 5, 6});
    }
    CHECK(batches.generation() == 1);
    CHECK(stream.position() == 0);
  }
}

namespace {

// The keys of kSelectionRun steps of sampling without replacement by distinguished records
// (s of them), from the definition (docs/rng.md), with exact rationals: draw j of a step
// puts distinguished record j in the batch iff U < left / (n - j), left = b - (chosen
// before), U uniform in [0, 1) in base 256. Its first digit is byte (step s + j) of the
// run's s kSelectionRun / 8 words (low byte first); a draw whose first digit equals the
// probability's, floor(256 left / (n - j)), reads its further digits from the bytes of the
// words after the run (the tied draws in step order), comparing U's remainder with the
// probability's, until they differ. Counts the ties.
std::vector<std::uint32_t> keys_by_definition(rng::Stream& stream, int n, int b, int s,
                                              long& ties) {
  constexpr int run = sim::BatchSchedule::kSelectionRun;
  std::vector<std::uint64_t> words(static_cast<std::size_t>(run * s / 8));
  for (auto& w : words) w = stream();
  const auto byte_of = [&](std::size_t k) {
    return static_cast<long>(words[k / 8] >> 8 * (k % 8) & 0xFF);
  };
  std::uint64_t more = 0;
  int more_left = 0;
  const auto next_byte = [&] {
    if (more_left == 0) {
      more = stream();
      more_left = 8;
    }
    const long c = static_cast<long>(more & 0xFF);
    more >>= 8;
    --more_left;
    return c;
  };
  std::vector<std::uint32_t> keys;
  for (int step = 0; step < run; ++step) {
    std::uint32_t key = 0;
    long left = b;
    for (int j = 0; j < s; ++j) {
      // U < left / m, digit by digit: the remainder of the probability is num / m
      const long m = n - j;
      long num = left, c = byte_of(static_cast<std::size_t>(step * s + j)), digit = 256 * num / m;
      while (c == digit) {
        ++ties;
        num = 256 * num - digit * m;  // the probability's remainder after the tied digit
        digit = 256 * num / m;
        c = next_byte();
      }
      if (c < digit) {
        key |= 1u << j;
        --left;
      }
    }
    keys.push_back(key);
  }
  return keys;
}

}  // namespace

TEST_CASE("sampling without replacement by distinguished records: the definition, exact law",
          "[sim][batches]") {
  struct Case {
    int n, b;
    std::vector<int> distinguished;
    long runs;
  };
  constexpr int run = sim::BatchSchedule::kSelectionRun, chunk = sim::BatchSchedule::kSubsetChunk;
  for (const Case& c :
       {Case{50, 2, {0}, 600}, Case{9, 3, {0, 4, 7}, 150}, Case{300, 2, {5}, 60},
        Case{40, 5, {0, 1, 2, 3, 4, 5, 6, 39}, 40}, Case{6, 6, {1, 2}, 20}, Case{2, 2, {1}, 20},
        Case{12, 1, {}, 20}, Case{64, 32, {3}, 300}, Case{100000, 3, {7}, 20}}) {
    INFO("n " << c.n << " b " << c.b << " s " << c.distinguished.size());
    const auto s = scenario("sample_without_replacement", c.n, c.b);
    const auto fixed = sim::fixed_order(s);
    const sim::BatchDraws draws(s, c.distinguished);
    const int count = static_cast<int>(c.distinguished.size());
    REQUIRE(draws.subset_keys == 1u << count);
    rng::Stream mine({4, 0, 0, 2, rng::Purpose::kBatch}), theirs = mine, chunked = mine;
    sim::BatchSchedule batches(s, fixed, draws, mine), by_chunk(s, fixed, draws, chunked);
    long ties = 0;
    for (long k = 0; k < c.runs; ++k) {
      const auto want = count > 0 ? keys_by_definition(theirs, c.n, c.b, count, ties)
                                  : std::vector<std::uint32_t>(run, 0);
      std::vector<std::uint32_t> got(run);
      for (int r = 0; r < run; r += chunk) {
        by_chunk.next_subset_keys(
            [&](int i, std::uint32_t key) { got[static_cast<std::size_t>(r + i)] = key; });
      }
      REQUIRE(got == want);
      for (int i = 0; i < run; ++i) {
        const int* idx = batches.next_subset();
        std::vector<int> batch(idx, idx + c.b);
        // the distinguished records of the key, then the first background records
        std::vector<int> expect;
        for (int j = 0; j < count; ++j) {
          if (want[static_cast<std::size_t>(i)] >> j & 1) expect.push_back(c.distinguished[j]);
        }
        for (int r : draws.background) {
          if (static_cast<int>(expect.size()) < c.b) expect.push_back(r);
        }
        REQUIRE(batch == expect);
      }
    }
    CHECK(mine.position() == theirs.position());
    CHECK(chunked.position() == theirs.position());
    // ties (about one draw in 256) were met and resolved from further bytes; at n = 64,
    // b = 32 (probability 1/2) a tie leaves a remainder 0, whose next digits tie at 0
    if (c.n == 50 || c.n == 64) CHECK(ties > 100);
  }
  SECTION("each set of distinguished records is in the batch as often as in a uniform b-subset") {
    const int n = 9, b = 3;
    const auto s = scenario("sample_without_replacement", n, b);
    const auto fixed = sim::fixed_order(s);
    const sim::BatchDraws draws(s, {0, 4, 7});
    rng::Stream stream({4, 0, 0, 3, rng::Purpose::kBatch});
    sim::BatchSchedule batches(s, fixed, draws, stream);
    std::map<std::vector<int>, long> counts;
    std::map<std::vector<int>, double> p;
    for (int mask = 0; mask < 8; ++mask) {  // C(6, b - |mask|) / C(9, b) by counting subsets
      const int k = __builtin_popcount(static_cast<unsigned>(mask));
      p[{mask}] = choose(n - 3, b - k) / choose(n, b);
    }
    const long steps = 400000;
    for (long t = 0; t < steps; ++t) ++counts[{static_cast<int>(batches.next_subset_key())}];
    CHECK(fits_law(counts, p, steps));
  }
  SECTION("one distinguished record (the vector path) is in the batch with probability b / n") {
    for (const auto& [n, b] : {std::pair{50, 2}, std::pair{64, 32}, std::pair{3, 2}}) {
      INFO("n " << n << " b " << b);
      const auto s = scenario("sample_without_replacement", n, b);
      const auto fixed = sim::fixed_order(s);
      const sim::BatchDraws draws(s, {0});
      rng::Stream stream({4, 0, 0, 5, rng::Purpose::kBatch});
      sim::BatchSchedule batches(s, fixed, draws, stream);
      std::map<std::vector<int>, long> counts;
      const double in = static_cast<double>(b) / n;
      const std::map<std::vector<int>, double> p = {{{0}, 1 - in}, {{1}, in}};
      const long steps = 400000;
      for (long t = 0; t < steps; ++t) ++counts[{static_cast<int>(batches.next_subset_key())}];
      CHECK(fits_law(counts, p, steps));
    }
  }
}

TEST_CASE("Poisson by distinguished records: the definition, and the law of independent inclusions",
          "[sim][batches][poisson]") {
  // docs/rng.md: per step, distinguished record j is in iff uniform() < q, then the number of
  // background records that join is Binomial(n - s, q) (Boost's sampler) from the same
  // stream; the batch is that many background records, ascending, then the distinguished
  // ones chosen. The count must be Binomial(n - s, q) in law, for a mean below 11 (Boost's
  // inversion) and above (BTRD), and each distinguished record in with probability q.
  struct Case {
    int n, b;  // q = b / n
    std::vector<int> distinguished;
  };
  for (const Case& c :
       {Case{50, 2, {0}}, Case{5000, 50, {3, 4000}}, Case{60000, 256, {59999}}, Case{12, 3, {}}}) {
    INFO("n " << c.n << " b " << c.b << " s " << c.distinguished.size());
    const auto s = scenario("poisson", c.n, c.b);
    const double q = s.sampling_rate;
    REQUIRE(q == Approx(static_cast<double>(c.b) / c.n));
    const auto fixed = sim::fixed_order(s);
    const sim::BatchDraws draws(s, c.distinguished);
    REQUIRE(draws.by_distinguished);
    REQUIRE(draws.counted.others);
    const int count = static_cast<int>(c.distinguished.size()), others = c.n - count;
    rng::Stream mine({4, 0, 0, 6, rng::Purpose::kBatch}), theirs = mine, listed = mine;
    sim::BatchSchedule batches(s, fixed, draws, mine), by_index(s, fixed, draws, listed);
    const boost::random::binomial_distribution<int, double> binomial(others, q);
    // The cells: every count, the two tails (mass below 1e-3 each) pooled into end cells.
    const auto pmf = [&](int k) {
      return std::exp(std::lgamma(others + 1.0) - std::lgamma(k + 1.0) -
                      std::lgamma(others - k + 1.0) + k * std::log(q) +
                      (others - k) * std::log1p(-q));
    };
    int lo = 0, hi = others;
    for (double mass = pmf(0); mass + pmf(lo + 1) < 1e-3; mass += pmf(++lo)) {
    }
    for (double mass = pmf(others); mass + pmf(hi - 1) < 1e-3; mass += pmf(--hi)) {
    }
    std::map<int, double> p;
    for (int k = 0; k <= others; ++k) p[std::clamp(k, lo, hi)] += pmf(k);
    std::map<int, long> counts;
    std::vector<long> in(static_cast<std::size_t>(count), 0);
    const long steps = 200000;
    for (long t = 0; t < steps; ++t) {
      int k = 0;
      const std::uint32_t mask = batches.next_counted(k);
      std::uint32_t want = 0;
      for (int j = 0; j < count; ++j) want |= static_cast<std::uint32_t>(theirs.uniform() < q) << j;
      REQUIRE(mask == want);
      REQUIRE(k == binomial(theirs));
      if (t < 2000) {  // next() lists the same batch
        int size = 0;
        const int* idx = by_index.next(size);
        std::vector<int> expect(draws.background.begin(), draws.background.begin() + k);
        for (int j = 0; j < count; ++j) {
          if (mask >> j & 1) expect.push_back(c.distinguished[static_cast<std::size_t>(j)]);
        }
        REQUIRE(std::vector<int>(idx, idx + size) == expect);
      }
      ++counts[std::clamp(k, lo, hi)];
      for (int j = 0; j < count; ++j) in[static_cast<std::size_t>(j)] += mask >> j & 1;
    }
    CHECK(mine.position() == theirs.position());
    CHECK(fits_law(counts, p, steps));
    for (long seen : in) {  // within 5 binomial standard errors of q steps
      CHECK(std::abs(seen - q * steps) < 5 * std::sqrt(steps * q * (1 - q)));
    }
  }
}

TEST_CASE("Poisson by distinguished records at q = 1: every record, nothing drawn",
          "[sim][batches][poisson]") {
  {
    const auto s = scenario("poisson", 6, 6);
    const auto fixed = sim::fixed_order(s);
    const sim::BatchDraws draws(s, {2});
    rng::Stream stream({4, 0, 0, 7, rng::Purpose::kBatch});
    sim::BatchSchedule batches(s, fixed, draws, stream);
    int size = 0;
    const int* idx = batches.next(size);
    CHECK(std::vector<int>(idx, idx + size) == std::vector<int>{0, 1, 3, 4, 5, 2});
    CHECK(stream.position() == 0);
  }
}

TEST_CASE("random allocation: one uniform step per record and epoch, Binomial(n, 1/t) batches",
          "[sim][batches][allocation]") {
  // n = 12 records, expected batch b = 3: t = 4 steps per epoch, two epochs. Every epoch's
  // batches are disjoint, cover the records and list each batch ascending; record 5's steps
  // in the two epochs are uniform on the 16 pairs (uniform and independent across epochs);
  // a step's batch size is Binomial(12, 1/4).
  const int n = 12, t = 4;
  const long draws = 20000;
  std::map<std::vector<int>, long> steps_of_5;
  std::map<int, long> sizes;
  for (long id = 0; id < draws; ++id) {
    Schedule sched("random_allocation", n, 3, static_cast<std::uint64_t>(id));
    REQUIRE(sched.s.steps_per_epoch == t);
    REQUIRE(sched.batches.inverse_normaliser() == 1.0 / 3.0);
    REQUIRE_FALSE(sched.batches.is_partition());
    std::vector<int> at;
    for (int epoch = 0; epoch < 2; ++epoch) {
      std::vector<int> seen;
      for (int j = 0; j < t; ++j) {
        int count = 0;
        const int* idx = sched.batches.next(count);
        REQUIRE(std::is_sorted(idx, idx + count));
        seen.insert(seen.end(), idx, idx + count);
        if (std::find(idx, idx + count, 5) != idx + count) at.push_back(j);
        if (j == 1) ++sizes[std::min(count, 7)];  // 7 and more pooled (probability 0.014)
      }
      std::sort(seen.begin(), seen.end());
      std::vector<int> all(n);
      std::iota(all.begin(), all.end(), 0);
      REQUIRE(seen == all);
    }
    REQUIRE(at.size() == 2);
    ++steps_of_5[at];
  }
  CHECK(looks_uniform(steps_of_5, t * t, draws));
  std::map<int, double> binomial;
  double below = 0;
  for (int k = 0; k < 7; ++k) {
    binomial[k] = choose(n, k) * std::pow(0.25, k) * std::pow(0.75, n - k);
    below += binomial[k];
  }
  binomial[7] = 1.0 - below;
  CHECK(fits_law(sizes, binomial, draws * 2));
}

TEST_CASE("random allocation: one stream id gives one schedule", "[sim][batches][allocation]") {
  // 12 steps (two epochs and a half of t = 6), each batch followed by -1.
  const auto listed = [](std::uint64_t id) {
    Schedule sched("random_allocation", 30, 5, id);
    std::vector<int> out;
    for (int j = 0; j < 15; ++j) {
      int count = 0;
      const int* idx = sched.batches.next(count);
      out.insert(out.end(), idx, idx + count);
      out.push_back(-1);
    }
    return out;
  };
  CHECK(listed(9) == listed(9));
  CHECK(listed(9) != listed(10));
}

namespace {

// Binomial(m, 1/bins) as docs/rng.md defines the sequential counts of a block of random
// allocation: by inversion where the mean is below 11 (terms P(k) = P(k - 1) ((m + 1) s / k -
// s), s = 1/(bins - 1), from P(0) = exp(m log1p(-1/bins))), otherwise Boost's sampler.
int allocation_count(int m, long bins, rng::Stream& stream) {
  if (bins == 1 || m == 0) return m;
  if (m >= 11.0 * static_cast<double>(bins))
    return boost::random::binomial_distribution<int, double>(m, 1.0 / bins)(stream);
  const double s = 1.0 / static_cast<double>(bins - 1), a = (m + 1) * s;
  double r = std::exp(m * std::log1p(-1.0 / static_cast<double>(bins)));
  double u = stream.uniform();
  int x = 0;
  while (u > r) {
    u -= r;
    ++x;
    const double next = (a / x - s) * r;
    if (next < 0x1.0p-52 && next < r) break;
    r = next;
  }
  return std::min(x, m);
}

// The background counts of one block of random allocation as docs/rng.md defines them: at
// step j of an epoch with `left` steps left and `steps_left` in the trajectory (0: past its
// end), c = min(64, left, steps_left) steps; K ~ Binomial(m, c / left) of the m records not
// yet placed (K = m where c = left), then each of the K records into step x c >> 16 of the
// block for the next 16-bit chunk x (low chunk first) with (x c mod 2^16) >= 2^16 mod c (the
// word's chunks after the K-th record dropped), or, above 16 records a step, Binomial(k, 1 /
// (c - i)) sequentially.
std::vector<int> allocation_block(int& m, long left, long steps_left, rng::Stream& stream) {
  long c = std::min<long>(64, left);
  if (steps_left > 0) c = std::min(c, steps_left);
  std::vector<int> count(static_cast<std::size_t>(c), 0);
  int k = m;
  if (c < left && k > 0)
    k = boost::random::binomial_distribution<int, double>(k, static_cast<double>(c) / left)(stream);
  m -= k;
  if (c == 1) {
    count[0] = k;
  } else if (k <= 16 * c) {
    const auto reject = static_cast<std::uint32_t>(65536 % c);
    while (k > 0) {
      std::uint64_t word = stream();
      for (int h = 0; h < 4 && k > 0; ++h) {
        const auto x =
            static_cast<std::uint32_t>(word >> (16 * h) & 0xFFFF) * static_cast<std::uint32_t>(c);
        if ((x & 0xFFFF) < reject) continue;
        ++count[x >> 16];
        --k;
      }
    }
  } else {
    for (long i = 0; i + 1 < c; ++i) {
      count[static_cast<std::size_t>(i)] = allocation_count(k, c - i, stream);
      k -= count[static_cast<std::size_t>(i)];
    }
    count.back() = k;
  }
  return count;
}

// Random allocation's draws by distinguished records, from a copy of the batch stream: per
// step the mask of the distinguished records there and the background count.
struct AllocationReplica {
  AllocationReplica(const config::Scenario& sc, int dist, int others, const rng::Stream& copy)
      : s(sc), distinguished(dist), background(others), stream(copy) {}
  const config::Scenario& s;
  int distinguished, background;
  rng::Stream stream;
  long step = 0, j = 0;
  int left = 0;
  std::vector<int> at, block;
  std::size_t next = 0;
  std::uint32_t draw(int& others) {
    const long t = s.steps_per_epoch;
    if (j == 0) {
      at.clear();
      for (int k = 0; k < distinguished; ++k) at.push_back(static_cast<int>(stream.below(t)));
      left = background;
    }
    if (next == block.size()) {
      block = allocation_block(left, t - j, s.steps - step, stream);
      next = 0;
    }
    others = block[next++];
    std::uint32_t mask = 0;
    for (int k = 0; k < distinguished; ++k)
      mask |= static_cast<std::uint32_t>(at[static_cast<std::size_t>(k)] == j) << k;
    ++step;
    if (++j == t) j = 0;
    return mask;
  }
};

}  // namespace

TEST_CASE("random allocation by distinguished records: steps, multinomial counts, next()",
          "[sim][batches][allocation]") {
  // n = 12, b = 3: t = 4 steps per epoch, records 5 and 9 distinguished, 10 background
  // records. Against a replica of the definition (docs/rng.md): each epoch, the distinguished
  // records' steps below(t), then the counts a block at a time (here the epoch: each of the 10
  // records in a uniform step). In law: record 5's steps in two epochs uniform on the 16
  // pairs; the count at steps 1 and 3 each Binomial(10, 1/4); each epoch's counts add up to
  // 10.
  const int n = 12, b = 3, t = 4, others = 10;
  const auto s = scenario("random_allocation", n, b);
  REQUIRE(s.steps_per_epoch == t);
  const auto fixed = sim::fixed_order(s);
  const std::vector<int> dist{5, 9};
  const sim::BatchDraws draws(s, dist);
  REQUIRE(draws.by_distinguished);
  REQUIRE(draws.counted.others);
  const long trajectories = 20000;
  std::map<std::vector<int>, long> steps_of_5;
  std::map<int, long> at1, at3;
  for (long id = 0; id < trajectories; ++id) {
    rng::Stream mine({5, 0, 0, static_cast<std::uint64_t>(id), rng::Purpose::kBatch});
    rng::Stream listed = mine;
    AllocationReplica theirs{s, 2, others, mine};
    sim::BatchSchedule batches(s, fixed, draws, mine), by_index(s, fixed, draws, listed);
    std::vector<int> at5;
    for (int epoch = 0; epoch < 2; ++epoch) {
      int total = 0;
      for (int i = 0; i < t; ++i) {
        int k = 0, want_k = 0;
        const std::uint32_t mask = batches.next_counted(k);
        REQUIRE(mask == theirs.draw(want_k));
        REQUIRE(k == want_k);
        int size = 0;
        const int* idx = by_index.next(size);
        std::vector<int> expect(draws.background.begin(), draws.background.begin() + k);
        for (int j = 0; j < 2; ++j) {
          if (mask >> j & 1) expect.push_back(dist[static_cast<std::size_t>(j)]);
        }
        REQUIRE(std::vector<int>(idx, idx + size) == expect);
        total += k;
        if (i == 1) ++at1[std::min(k, 6)];  // 6 and more pooled (probability 0.020)
        if (i == 3) ++at3[std::min(k, 6)];
      }
      REQUIRE(total == others);
      at5.push_back(theirs.at[0]);
    }
    REQUIRE(mine.position() == theirs.stream.position());
    ++steps_of_5[at5];
  }
  CHECK(looks_uniform(steps_of_5, t * t, trajectories));
  std::map<int, double> binomial;
  double below = 0;
  for (int k = 0; k < 6; ++k) {
    binomial[k] = choose(others, k) * std::pow(0.25, k) * std::pow(0.75, others - k);
    below += binomial[k];
  }
  binomial[6] = 1.0 - below;
  CHECK(fits_law(at1, binomial, trajectories * 2));
  CHECK(fits_law(at3, binomial, trajectories * 2));

  SECTION("blocks of a long epoch: the replica, and Binomial(n - s, 1/t) at every block") {
    // n = 1000, b = 4: t = 250; one distinguished record, 999 background ones. Trajectories
    // of T = 250 take blocks of 64, 64, 64 (each K ~ Binomial(m, 64 / L), then the balls into
    // 64 steps) and 58 (the epoch's rest: all m, into 58 steps, 65536 mod 58 = 52 chunk values
    // rejected); T = 150 cuts the third block at 22 steps (the trajectory's end), and calls
    // past it take whole blocks again. The count at steps 0, 64 (a block's first), 130 and
    // 249 (the last) each Binomial(999, 1/250), mean 4.
    const auto long_epoch = scenario("random_allocation", 1000, 4, 1);
    REQUIRE(long_epoch.steps_per_epoch == 250);
    auto cut = long_epoch;
    cut.steps = 150;
    const sim::BatchDraws draws_long(long_epoch, {17});
    const auto fixed_long = sim::fixed_order(long_epoch);
    std::map<int, double> law;
    for (int k = 0; k <= 999; ++k) {
      law[std::min(k, 11)] +=
          std::exp(std::lgamma(1000.0) - std::lgamma(k + 1.0) - std::lgamma(1000.0 - k) +
                   k * std::log(1 / 250.0) + (999 - k) * std::log1p(-1 / 250.0));
    }
    std::map<int, long> at[4];
    const int watched[4] = {0, 64, 130, 249};
    const long draws_count = 20000;
    for (long id = 0; id < draws_count; ++id) {
      const auto& sc = id % 2 == 0 ? long_epoch : cut;
      rng::Stream mine({8, 0, 0, static_cast<std::uint64_t>(id), rng::Purpose::kBatch});
      AllocationReplica theirs{sc, 1, 999, mine};
      sim::BatchSchedule batches(sc, fixed_long, draws_long, mine);
      int total = 0;
      for (int i = 0; i < 250; ++i) {
        int k = 0, want = 0;
        REQUIRE(batches.next_counted(k) == theirs.draw(want));
        REQUIRE(k == want);
        total += k;
        for (int w = 0; w < 4; ++w) {
          if (i == watched[w]) ++at[w][std::min(k, 11)];
        }
      }
      REQUIRE(total == 999);
      REQUIRE(mine.position() == theirs.stream.position());
    }
    for (int w = 0; w < 4; ++w) {
      INFO("step " << watched[w]);
      CHECK(fits_law(at[w], law, draws_count));
    }
  }

  SECTION("next_counted_run: next_counted's masks and counts, in pieces of any length") {
    // n = 200, b = 2: t = 100, blocks of 64 and 36 in each of 3 epochs; records 3 and 150
    // distinguished; counted and inert others.
    const auto s3 = scenario("random_allocation", 200, 2, 3);
    const auto fixed3 = sim::fixed_order(s3);
    for (bool inert : {false, true}) {
      const sim::BatchDraws d3(s3, {3, 150}, inert);
      rng::Stream one({9, 0, 0, 4, rng::Purpose::kBatch}), run = one;
      sim::BatchSchedule by_step(s3, fixed3, d3, one), by_run(s3, fixed3, d3, run);
      const int pieces[] = {7, 13, 32, 1, 64, 31};
      long done = 0;
      for (int p = 0; done < s3.steps; p = (p + 1) % 6) {
        const int len = static_cast<int>(std::min<long>(pieces[p], s3.steps - done));
        std::uint32_t masks[64];
        int counts[64];
        by_run.next_counted_run(len, masks, counts);
        for (int i = 0; i < len; ++i) {
          int k = -1;
          INFO("step " << done + i << " inert " << inert);
          REQUIRE(by_step.next_counted(k) == masks[i]);
          REQUIRE(k == counts[i]);
        }
        done += len;
      }
      REQUIRE(one.position() == run.position());
    }
  }

  SECTION("means of 11 and more: sequential binomials, the law Binomial(n - s, 1/t)") {
    // n = 240, b = 120: t = 2, one block of 2 steps with 239 records (more than 16 a step):
    // the first step's count has mean 119.5 (Boost's sampler); the second takes the rest.
    const auto big = scenario("random_allocation", 240, 120);
    const sim::BatchDraws draws_big(big, {7});
    const auto fixed_big = sim::fixed_order(big);
    std::map<int, long> first;
    std::map<int, double> law;
    const auto pmf = [](int k) {
      return std::exp(std::lgamma(240.0) - std::lgamma(k + 1.0) - std::lgamma(240.0 - k) -
                      239.0 * std::log(2.0));
    };
    for (int k = 0; k <= 239; ++k) law[std::clamp(k, 100, 139)] += pmf(k);
    const long draws_count = 20000;
    for (long id = 0; id < draws_count; ++id) {
      rng::Stream mine({6, 0, 0, static_cast<std::uint64_t>(id), rng::Purpose::kBatch});
      AllocationReplica theirs{big, 1, 239, mine};
      sim::BatchSchedule batches(big, fixed_big, draws_big, mine);
      int k0 = 0, k1 = 0, want = 0;
      batches.next_counted(k0);
      batches.next_counted(k1);
      theirs.draw(want);
      REQUIRE(k0 == want);
      REQUIRE(k0 + k1 == 239);
      ++first[std::clamp(k0, 100, 139)];
    }
    CHECK(fits_law(first, law, draws_count));
  }

  SECTION("inert others: only the distinguished records' steps are drawn") {
    const sim::BatchDraws inert(s, dist, true);
    REQUIRE_FALSE(inert.counted.others);
    rng::Stream mine({5, 0, 0, 1, rng::Purpose::kBatch}), theirs = mine;
    sim::BatchSchedule batches(s, fixed, inert, mine);
    for (int i = 0; i < t; ++i) {
      int k = -1;
      batches.next_counted(k);
      CHECK(k == 0);
    }
    theirs.below(t);
    theirs.below(t);
    CHECK(mine.position() == theirs.position());
  }
}
