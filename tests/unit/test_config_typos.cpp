// A misspelt key or table is reported as what it is, before what it causes: the message names
// the typo and the key it most likely means, instead of "noise = <missing>" for `sigam2`.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "experiment_support.hpp"
#include "rdpaudit/config/reader.hpp"

namespace rdpaudit {
namespace {

using Catch::Matchers::Contains;

// A complete small experiment; each case replaces one piece of it by a typo.
const std::string kGood = test::quadratic_worst_case(1, 100, 20, 4.0, R"(
[training]
scheme = "fixed_order"
eta = 0.05
batch_size = 2
epochs = 1
[noise]
sigma2 = 4.0
[bounds]
alphas = [2, 4]
)");

std::string with(const std::string& from, const std::string& to) {
  std::string text = kGood;
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

TEST_CASE("ten typos of keys and tables: each message names the typo and the likely key",
          "[config][typos]") {
  REQUIRE(test::input_error_of(kGood) == "no error");
  struct Typo {
    std::string from, to, typo, meant;
  };
  const std::vector<Typo> typos = {
      {"sigma2 = 4.0", "sigam2 = 4.0", "noise.sigam2", "noise.sigma2"},
      {"[training]", "[trainig]", "trainig.", "training."},
      {"[noise]", "[nosie]", "nosie.sigma2", "noise.sigma2"},
      {"batch_size = 2", "batchsize = 2", "training.batchsize", "training.batch_size"},
      {"eta = 0.05", "etta = 0.05", "training.etta", "training.eta"},
      {"epochs = 1", "epoch = 1", "training.epoch", "training.epochs"},
      {"lambda = 1.0", "lamda = 1.0", "model.lamda", "model.lambda"},
      {"sensitivity = 4.0", "sensitivty = 4.0", "data.sensitivty", "data.sensitivity"},
      {"preset = ", "prest = ", "data.prest", "data.preset"},
      {"[model]", "[modle]", "modle.", "model."},
  };
  for (const Typo& t : typos) {
    CAPTURE(t.to);
    const std::string message = test::input_error_of(with(t.from, t.to));
    CHECK_THAT(message, Contains(t.typo) && Contains("did you mean " + t.meant));
  }
}

TEST_CASE("a key that is no typo is still reported as unknown, with no guess", "[config][typos]") {
  const std::string message = test::input_error_of(with("sigma2 = 4.0", "sigma2 = 4.0\nzzz = 1"));
  CHECK_THAT(message, Contains("noise.zzz") && Contains("unknown key"));
  CHECK_THAT(message, !Contains("did you mean"));
}

TEST_CASE("edit distance counts a transposition as one edit", "[config][typos]") {
  CHECK(config::edit_distance("sigma2", "sigam2") == 1);
  CHECK(config::edit_distance("training", "trainig") == 1);
  CHECK(config::edit_distance("eta", "eta") == 0);
  CHECK(config::edit_distance("", "abc") == 3);
  CHECK(config::edit_distance("kitten", "sitting") == 3);
}

}  // namespace
}  // namespace rdpaudit
