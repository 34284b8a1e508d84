// rao_blackwell_renyi's contract: the value is exact_renyi of the sampled mixtures, the
// interval is a statistical one around it (never a bracket), degenerate inputs give honest
// answers and bad input names its key.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "rdpaudit/core/error.hpp"
#include "rdpaudit/exact/gaussian_mixture.hpp"
#include "rdpaudit/exact/rao_blackwell.hpp"

using namespace rdpaudit::estimate;
using namespace rdpaudit::exact;

namespace {

// K "patterns": P's component k at 0 (dim coordinates), P''s shifted by `shift` in the first
// coordinate for 3 patterns in 10 (pattern 0 among them); covariance scale 1 for pattern 0 and
// spread over [top - spread, top] for the others. Deterministic (a golden-ratio sequence): the
// jackknife's rare-pattern guard is a statistic of the patterns, and a test of it must not
// depend on a generator's numbers.
std::pair<GaussianMixture, GaussianMixture> sampled(std::size_t dim, int patterns, double shift,
                                                    double spread = 0.0, double top = 1.0) {
  GaussianMixture p, q;
  p.dim = q.dim = dim;
  p.covariance.assign(dim * dim, 0.0);
  for (std::size_t c = 0; c < dim; ++c) p.covariance[c * dim + c] = 1.0;
  q.covariance = p.covariance;
  for (int k = 0; k < patterns; ++k) {
    const double u = std::fmod(0.6180339887498949 * k, 1.0);
    const double scale = k == 0 ? 1.0 : top - spread * u, held = k % 10 < 3 ? 1.0 : 0.0;
    p.weights.push_back(1.0);
    q.weights.push_back(1.0);
    p.scales.push_back(scale);
    q.scales.push_back(scale);
    for (std::size_t c = 0; c < dim; ++c) {
      p.means.push_back(0.0);
      q.means.push_back(c == 0 ? held * shift : 0.0);
    }
  }
  return {p, q};
}

}  // namespace

TEST_CASE("rao-blackwell: the value is the quadrature of the sampled mixtures, in 1-D and 2-D",
          "[estimate][rao-blackwell]") {
  const std::vector<double> alphas = {1.5, 4.0, 16.0};
  for (std::size_t dim : {std::size_t{1}, std::size_t{2}}) {
    const auto [p, q] = sampled(dim, 256, 0.8, 0.05);
    const auto exact = exact_renyi(p, q, alphas);
    const auto rb = rao_blackwell_renyi(p, q, alphas);
    REQUIRE(rb.size() == exact.size());
    for (std::size_t k = 0; k < rb.size(); ++k) {
      INFO("dim " << dim << ", alpha " << rb[k].alpha << ", direction " << rb[k].direction);
      REQUIRE(rb[k].informative);
      CHECK(rb[k].method == "rao-blackwell");
      CHECK(rb[k].value == Approx(exact[k].value).epsilon(1e-12));
      CHECK(rb[k].lower <= rb[k].value);
      CHECK(rb[k].upper >= rb[k].value);
      // A statistical interval: much wider than the quadrature bracket, never +infinity here.
      CHECK(rb[k].upper - rb[k].lower > 1e3 * (exact[k].upper - exact[k].lower));
      CHECK(std::isfinite(rb[k].upper));
      CHECK(rb[k].interval.find("not a bracket") != std::string::npos);
    }
  }
}

TEST_CASE("rao-blackwell: an order carried by one pattern gets no interval",
          "[estimate][rao-blackwell]") {
  // The widest pattern (scale 1, the others 0.8 - 0.9) is shifted: far out p'/p grows like
  // exp(0.8 x / s_max), so R_alpha at alpha = 16 lives on that single pattern (whether it was
  // drawn decides the value); at alpha = 1.5 it does not.
  const auto [p, q] = sampled(1, 64, 0.8, 0.1, 0.9);
  const auto rb = rao_blackwell_renyi(p, q, {1.5, 16.0});
  for (const Estimate& e : rb) {
    INFO("alpha " << e.alpha << ", direction " << e.direction << ": " << e.interval);
    REQUIRE(e.informative);
    if (e.alpha == 16.0 && e.direction == kBackward) {
      CHECK(std::isinf(e.upper));
      CHECK(e.interval.find("rare patterns") != std::string::npos);
    }
    if (e.alpha == 1.5) CHECK(std::isfinite(e.upper));
  }
}

TEST_CASE("rao-blackwell: identical patterns leave only the quadrature error",
          "[estimate][rao-blackwell]") {
  // Every pattern the same: leaving a group out changes nothing, so se = 0.
  GaussianMixture p = gaussian({0.0}, {1.0}), q = gaussian({0.5}, {1.0});
  p.weights.assign(32, 1.0);
  p.means.assign(32, 0.0);
  q.weights.assign(32, 1.0);
  q.means.assign(32, 0.5);
  for (const Estimate& e : rao_blackwell_renyi(p, q, {2.0, 8.0})) {
    INFO("alpha " << e.alpha);
    CHECK(e.value == Approx(e.alpha * 0.25 / 2.0).epsilon(1e-9));
    CHECK(e.upper - e.lower < 1e-9);
  }
}

TEST_CASE("rao-blackwell: degenerate and bad input", "[estimate][rao-blackwell]") {
  const auto [p, q] = sampled(1, 3, 0.8);
  for (const Estimate& e : rao_blackwell_renyi(p, q, {2.0})) {
    CHECK(e.informative);
    CHECK(e.lower == 0.0);
    CHECK(e.upper == std::numeric_limits<double>::infinity());
    CHECK(e.interval.find("one-sided") != std::string::npos);
  }
  const auto [p8, q8] = sampled(1, 8, 0.8);
  GaussianMixture q7 = q8;
  q7.weights.pop_back();
  q7.means.pop_back();
  q7.scales.pop_back();
  CHECK_THROWS_WITH(rao_blackwell_renyi(p8, q7, {2.0}), Catch::Contains("rao_blackwell.q.weights"));
  RaoBlackwellOptions o;
  o.groups = 1;
  CHECK_THROWS_WITH(rao_blackwell_renyi(p8, q8, {2.0}, o), Catch::Contains("rao_blackwell.groups"));
  o = {};
  o.confidence = 1.0;
  CHECK_THROWS_WITH(rao_blackwell_renyi(p8, q8, {2.0}, o),
                    Catch::Contains("rao_blackwell.confidence"));
  CHECK_THROWS_WITH(rao_blackwell_renyi(p8, q8, {0.5}), Catch::Contains("rao_blackwell.alphas"));
}
