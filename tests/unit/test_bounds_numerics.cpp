// Numerical robustness: orders up to 1024 and up to 1e5 epochs give finite, non-NaN values
// for every applicable bound in every scheme, quickly.
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>

#include "rdpaudit/bounds/bounds.hpp"
#include "rdpaudit/bounds/mechanisms.hpp"

using namespace rdpaudit::bounds;

namespace bounds_test {
Params figure_params(BatchScheme scheme, long K, long j0);  // test_bounds_known_answers.cpp
}
using bounds_test::figure_params;

TEST_CASE("alpha up to 1024 and K up to 1e5: finite values, no NaN", "[bounds][numerics]") {
  const std::vector<double> alphas{1.0001, 1.5, 2.0, 10.0, 25.8, 64.0, 512.5, 1023.5, 1024.0};
  const auto start = std::chrono::steady_clock::now();
  std::size_t checked = 0;
  for (BatchScheme scheme :
       {BatchScheme::kFixedOrder, BatchScheme::kShufflePartition, BatchScheme::kShuffleEachEpoch,
        BatchScheme::kSampleWithoutReplacement, BatchScheme::kPoisson, BatchScheme::kFullBatch}) {
    for (long K : {1L, 1000L, 100000L}) {
      for (bool projected : {false, true}) {
        Params p = figure_params(scheme, K, 24);
        if (projected) {  // bounded domain so that the blog's bound applies too
          p.D = 2.0;
          p.L = 4.0;
        }
        if (scheme == BatchScheme::kFullBatch) p.init = Init::kGaussianChourasia;
        for (const BoundValue& v : evaluate_all(p, alphas)) {
          INFO(rdpaudit::config::to_string(scheme)
               << " K=" << K << " " << v.name << " alpha=" << v.alpha);
          if (!v.applicable()) continue;
          CHECK(std::isfinite(*v.value));
          if (v.name != "ys_thm4.2_footnote4_as_printed") CHECK(*v.value >= 0.0);
          ++checked;
        }
      }
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(checked << " values in " << seconds << " s");
  CHECK(checked > 400);
  CHECK(seconds < 10.0);
}

TEST_CASE("extreme noise levels stay finite", "[bounds][numerics]") {
  for (double z : {0.05, 0.3, 1.0, 30.0, 1e4}) {
    for (double q : {1e-6, 0.04, 0.5, 0.999}) {
      for (double alpha : {1.5, 2.0, 100.0, 1024.0}) {
        INFO("z = " << z << ", q = " << q << ", alpha = " << alpha);
        const double m = mtz_poisson_rdp(q, z, alpha);
        const double w = wbk_swor_rdp(q, z, alpha);
        CHECK(std::isfinite(m));
        CHECK(m >= 0.0);
        CHECK(std::isfinite(w));
        CHECK(w >= 0.0);
        CHECK(m <= gaussian_rdp(z, alpha) * (1.0 + 1e-12));  // subsampling never hurts
      }
    }
  }
}

TEST_CASE("Theorem 4.3's recursion for 1e5 epochs of 1000 steps finishes quickly",
          "[bounds][numerics]") {
  Params p = figure_params(BatchScheme::kSampleWithoutReplacement, 100000, 0);
  p.n = 1000;
  p.b = 1;
  p.T = p.K * 1000;  // 1e8 steps
  const auto start = std::chrono::steady_clock::now();
  for (double alpha : {2.0, 10.0, 1024.0}) {
    const BoundValue v = evaluate_bound("ys_thm4.3_sample_wor", p, alpha);
    REQUIRE(v.applicable());
    CHECK(std::isfinite(*v.value));
  }
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 5.0);
}
