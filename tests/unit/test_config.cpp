// Experiment files: a valid file expands into the expected scenarios, and every kind of bad
// input raises InputError naming the key path, the value and what was expected.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "rdpaudit/config/load.hpp"
#include "rdpaudit/config/noise.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/core/sha256.hpp"

using namespace rdpaudit;
using namespace rdpaudit::config;

namespace {

const std::string kBase = R"(
[experiment]
seed = 7
trajectories = 1000
[model]
loss = "quadratic"
dim = 1
lambda = 1.0
[data]
preset = "quadratic_worst_case"
n = 50
sensitivity = 4.0
[training]
scheme = "shuffle_partition"
eta = 0.02
batch_size = 2
epochs = 3
[noise]
sigma2 = 4.0
)";

// kBase with the line starting with `key =` replaced by `line` (or appended to [table]).
std::string with(const std::string& key, const std::string& line) {
  std::string text = kBase;
  const auto pos = text.find("\n" + key + " =");
  if (pos != std::string::npos) {
    const auto end = text.find('\n', pos + 1);
    return text.replace(pos + 1, end - pos - 1, line);
  }
  return text + line + "\n";
}

std::string error_of(const std::string& text) {
  try {
    parse_experiment(text, "test.toml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a valid experiment file resolves every default and noise equivalent", "[config]") {
  const auto spec = parse_experiment(kBase, "dir/quick.toml");
  REQUIRE(spec.scenarios.size() == 1);
  CHECK(spec.name == "quick");
  CHECK(spec.seed == 7);
  const Scenario& s = spec.scenarios[0];
  CHECK(s.steps_per_epoch == 25);
  CHECK(s.steps == 75);
  CHECK(s.sensitivity == Approx(4.0));
  CHECK(s.data.replacement(0) == Approx(4.0));
  CHECK(s.step_std == Approx(std::sqrt(2 * 0.02 * 4.0)));
  CHECK(s.sigma == Approx(2.0));
  CHECK(s.blog_sigma == Approx(s.step_std / 0.02));
  CHECK(spec.config_sha256 == sha256_hex(kBase));
}

TEST_CASE("numeric lists expand into a product or a zip of scenarios", "[config]") {
  auto text = with("epochs", "epochs = [1, 2, 4]");
  text = text.replace(text.find("eta = 0.02"), 10, "eta = [0.01, 0.02]");
  const auto product = parse_experiment(text, "t.toml");
  REQUIRE(product.scenarios.size() == 6);
  // The last swept key in the file (epochs) varies fastest.
  CHECK(product.scenarios[1].eta == 0.01);
  CHECK(product.scenarios[1].epochs == 2);
  CHECK(product.scenarios[3].eta == 0.02);
  CHECK(product.scenarios[3].epochs == 1);
  CHECK(product.scenarios[5].steps == 4 * 25);
  CHECK(product.swept_keys == std::vector<std::string>{"training.eta", "training.epochs"});

  auto zip = with("epochs", "epochs = [1, 2]");
  zip = zip.replace(zip.find("eta = 0.02"), 10, "eta = [0.01, 0.02]");
  zip = zip.replace(zip.find("trajectories = 1000"), 19, "trajectories = 1000\nsweep = \"zip\"");
  const auto z = parse_experiment(zip, "t.toml");
  REQUIRE(z.scenarios.size() == 2);
  CHECK(z.scenarios[1].eta == 0.02);
  CHECK(z.scenarios[1].epochs == 2);
}

TEST_CASE("training.scheme may be swept as a list of names", "[config]") {
  const auto spec = parse_experiment(
      with("scheme", "scheme = [\"shuffle_partition\", \"sample_without_replacement\"]"), "t.toml");
  REQUIRE(spec.scenarios.size() == 2);
  CHECK(spec.scenarios[1].scheme == BatchScheme::kSampleWithoutReplacement);
  CHECK(spec.scenarios[1].sweep_point.at(0).text == "sample_without_replacement");
  CHECK(std::isnan(spec.scenarios[1].sweep_point.at(0).number));
  CHECK_THAT(error_of(with("scheme", "scheme = [\"shuffle_partition\", 3]")),
             Catch::Contains("training.scheme[1] = 3 (must be a string)"));
}

TEST_CASE("bad input names the key, the value and what was expected", "[config]") {
  SECTION("unknown key") {
    CHECK_THAT(error_of(with("eta", "etaa = 0.02\neta = 0.02")),
               Catch::Contains("training.etaa = 0.02") && Catch::Contains("unknown key"));
  }
  SECTION("wrong type") {
    CHECK_THAT(error_of(with("eta", "eta = \"fast\"")),
               Catch::Contains("training.eta = \"fast\" (must be a number)"));
  }
  SECTION("missing required key") {
    CHECK_THAT(error_of(with("eta", "")),
               Catch::Contains("training.eta = <missing>") && Catch::Contains("required"));
  }
  SECTION("noise sigma <= 0") {
    CHECK_THAT(error_of(with("sigma2", "sigma2 = 0.0")),
               Catch::Contains("noise.sigma2 = 0.0 (must be > 0)"));
    CHECK_THAT(error_of(with("sigma2", "sigma = -1.0")),
               Catch::Contains("noise.sigma = -1.0 (must be > 0)"));
  }
  SECTION("two noise conventions at once") {
    CHECK_THAT(error_of(with("sigma2", "sigma2 = 4.0\nsigma = 2.0")),
               Catch::Contains("exactly one of"));
  }
  SECTION("batch larger than the dataset") {
    CHECK_THAT(error_of(with("batch_size", "batch_size = 60")),
               Catch::Contains("training.batch_size = 60 (must be in [1, data.n = 50])"));
  }
  SECTION("dimension out of range") {
    CHECK_THAT(error_of(with("dim", "dim = 9")),
               Catch::Contains("model.dim = 9 (must be in [1, 8])"));
    CHECK_THAT(error_of(with("dim", "dim = 0")),
               Catch::Contains("model.dim = 0 (must be in [1, 8])"));
  }
  SECTION("differing index outside the dataset") {
    CHECK_THAT(error_of(with("sensitivity", "sensitivity = 4.0\ndiffering_index = 50")),
               Catch::Contains("data.differing_index = 50 (must be in [0, 49]"));
  }
  SECTION("a bad element of a swept list is named with its position") {
    CHECK_THAT(error_of(with("eta", "eta = [0.1, -0.2]")),
               Catch::Contains("training.eta[1] = -0.2 (must be > 0)"));
  }
  SECTION("epochs and steps together") {
    CHECK_THAT(error_of(with("epochs", "epochs = 3\nsteps = 10")),
               Catch::Contains("exactly one of training.epochs and training.steps"));
  }
  SECTION("unknown scheme") {
    CHECK_THAT(error_of(with("scheme", "scheme = \"shuffle\"")),
               Catch::Contains("training.scheme = \"shuffle\" (must be one of: fixed_order"));
  }
  SECTION("audit keys: unknown bound names, a non-string, a bad expectation") {
    CHECK_THAT(error_of(kBase + "[bounds]\naudit = [\"thm9\"]\n"),
               Catch::Contains("bounds.audit[0]") && Catch::Contains("thm9"));
    CHECK_THAT(error_of(kBase + "[bounds]\nexpect_violated = [\"gaussian_composition\", 3]\n"),
               Catch::Contains("bounds.expect_violated[1]"));
    CHECK_THAT(
        error_of(kBase + "[[bounds.custom]]\nname = \"x\"\nformula = \"1\"\nexpect = \"maybe\"\n"),
        Catch::Contains("bounds.custom[0].expect") && Catch::Contains("maybe"));
  }
  SECTION("TOML syntax error names the line") {
    CHECK_THAT(error_of(kBase + "eta = = 1\n"), Catch::Contains("test.toml:20:"));
  }
  SECTION("estimate keys: an unknown or repeated method, a removed key, a small pilot") {
    CHECK_THAT(error_of(kBase + "[estimate]\nmethods = [\"rigorous-cp\", \"kde\"]\n"),
               Catch::Contains("estimate.methods[1]") && Catch::Contains("kde") &&
                   Catch::Contains("one of: histogram-plugin, rigorous-cp, rigorous-bernstein, "
                                   "exact"));
    CHECK_THAT(error_of(kBase + "[estimate]\nmethods = [\"exact\", \"exact\"]\n"),
               Catch::Contains("estimate.methods[1]") && Catch::Contains("named twice"));
    CHECK_THAT(error_of(kBase + "[estimate]\nvariational_selection_fraction = 0.8\n"),
               Catch::Contains("estimate.variational_selection_fraction") &&
                   Catch::Contains("estimate.pilot"));
    CHECK_THAT(error_of(kBase + "[estimate]\npilot = 10\n"),
               Catch::Contains("estimate.pilot = 10"));
  }
  SECTION("explicit points of the wrong width") {
    const std::string text = R"(
[experiment]
seed = 1
trajectories = 10
[model]
loss = "quadratic"
dim = 2
lambda = 1.0
[data]
points = [[0.0, 0.0], [1.0]]
replacement = [1.0, 1.0]
differing_index = 0
[training]
scheme = "full_batch"
eta = 0.1
steps = 3
[noise]
step_std = 0.1
)";
    CHECK_THAT(error_of(text),
               Catch::Contains("data.points[1]") && Catch::Contains("needs 2 numbers"));
  }
}

TEST_CASE("the paper's noise multiplier converts to Algorithm 1's sigma as Section F.1 states",
          "[config][noise]") {
  // F.1: sigma = sqrt(eta/2) * (1/b) * sigma_mul * S_g/2, and Algorithm 2 adds
  // eta * (1/b) * sigma_mul * (S_g/2) * N(0, I) per step, which must equal sqrt(2 eta sigma^2).
  for (double eta : {0.001, 0.02, 0.5}) {
    for (double sigma_mul : {0.5, 1.1, 8.0}) {
      for (double sg : {0.2, 4.0}) {
        for (double b : {1.0, 2.0, 64.0, 0.6}) {
          const double s = step_std_from_paper_noise_multiplier(sigma_mul, eta, sg, b);
          CHECK(sigma_from_step_std(s, eta) ==
                Approx(std::sqrt(eta / 2) * sigma_mul * sg / (2 * b)).epsilon(1e-14));
          CHECK(paper_noise_multiplier_from_step_std(s, eta, sg, b) ==
                Approx(sigma_mul).epsilon(1e-14));
        }
      }
    }
  }
  // Through an experiment file: the recorded equivalents agree.
  const auto spec = parse_experiment(with("sigma2", "paper_noise_multiplier = 1.5"), "t.toml");
  const Scenario& s = spec.scenarios[0];
  CHECK(s.noise_key == NoiseKey::kPaperNoiseMultiplier);
  CHECK(s.sigma == Approx(std::sqrt(0.02 / 2) * 1.5 * 4.0 / (2 * 2)));
  CHECK(s.paper_noise_multiplier == Approx(1.5));
  CHECK(std::isnan(s.noise_multiplier));  // the quadratic loss has no per-example clip
  CHECK(s.step_std == Approx(0.02 * 1.5 * 4.0 / 4.0));
  // The blog's convention: the iterate receives N(0, eta^2 sigma_blog^2 I).
  CHECK(step_std_from_blog_sigma(3.0, 0.02) == Approx(0.06));
  const auto blog = parse_experiment(with("sigma2", "blog_sigma = 3.0"), "t.toml");
  CHECK(blog.scenarios[0].step_std == Approx(0.06));
  CHECK(blog.scenarios[0].sigma == Approx(0.06 / std::sqrt(0.04)));
}

namespace {

// DP-SGD on logistic regression with per-example clip C = model.clip_norm.
std::string logistic_with_noise(const std::string& noise_line) {
  return R"(
[experiment]
seed = 1
trajectories = 100
[model]
loss = "logistic"
features = 2
lambda = 0.1
feature_clip = 1.0
clip_norm = 0.5
[data]
preset = "logistic_synthetic"
n = 20
[training]
scheme = "shuffle_partition"
eta = 0.1
batch_size = 4
epochs = 1
[noise]
)" + noise_line +
         "\n";
}

}  // namespace

TEST_CASE("noise.noise_multiplier is Opacus' and dp_accounting's z, relative to the clip norm",
          "[config][noise]") {
  // Opacus adds N(0, (z C)^2) to the sum of clipped per-example gradients and divides by the
  // batch size b, so one step adds eta z C / b: z = 1.1, C = 0.5, b = 4, eta = 0.1 -> 0.01375.
  const auto z = parse_experiment(logistic_with_noise("noise_multiplier = 1.1"), "t.toml");
  const Scenario& s = z.scenarios[0];
  CHECK(s.noise_key == NoiseKey::kNoiseMultiplier);
  CHECK(s.step_std == Approx(0.1 * 1.1 * 0.5 / 4).epsilon(1e-15));
  CHECK(s.noise_multiplier == Approx(1.1).epsilon(1e-15));
  // Algorithm 2 clips at S_g/2 = C, so its sigma_mul is the same number and the same noise.
  CHECK(s.sensitivity == Approx(1.0));
  CHECK(s.paper_noise_multiplier == Approx(1.1).epsilon(1e-15));
  const auto paper =
      parse_experiment(logistic_with_noise("paper_noise_multiplier = 1.1"), "t.toml");
  CHECK(paper.scenarios[0].step_std == s.step_std);
  // The committed logistic_cor53 file (noise_multiplier = 4.0, C = 0.5, b = 4, eta = 0.1)
  // simulates the noise it always did: eta sigma_mul S_g / (2b) with S_g = 2C.
  const auto cor53 = parse_experiment(logistic_with_noise("noise_multiplier = 4.0"), "t.toml");
  CHECK(cor53.scenarios[0].step_std == 0.1 * 4.0 * 1.0 / (2.0 * 4));
  // Poisson: the sum is divided by the expected batch size q n (q = 0.03, n = 20: 0.6).
  std::string poisson = logistic_with_noise("noise_multiplier = 1.1");
  const std::string partition = "scheme = \"shuffle_partition\"", batch = "batch_size = 4";
  poisson.replace(poisson.find(partition), partition.size(), "scheme = \"poisson\"");
  poisson.replace(poisson.find(batch), batch.size(), "sampling_rate = 0.03");
  CHECK(parse_experiment(poisson, "t.toml").scenarios[0].step_std ==
        Approx(0.1 * 1.1 * 0.5 / (0.03 * 20)).epsilon(1e-15));
  // Without a per-example clip there is no z: the quadratic loss must say which it means.
  CHECK_THAT(error_of(with("sigma2", "noise_multiplier = 1.5")),
             Catch::Contains("noise.noise_multiplier = 1.5") &&
                 Catch::Contains("per-example clip norm") &&
                 Catch::Contains("noise.paper_noise_multiplier"));
}

TEST_CASE("SHA-256 matches the FIPS 180-2 test vectors", "[core]") {
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("data.adjacency is explicit, derived from the pair, and checked against it",
          "[config][adjacency]") {
  // Every preset replaces one record by another: replace-one neighbours.
  CHECK(parse_experiment(kBase, "t.toml").scenarios[0].data.adjacency == Adjacency::kReplaceOne);
  // A linear-loss record against a zero gradient is absent from every sum: add/remove.
  const std::string linear = R"(
[experiment]
seed = 1
trajectories = 100
[model]
loss = "linear"
[data]
points = [[0.0], [0.0], [0.0], [1.0]]
differing_index = 3
replacement = [0.0]
[training]
scheme = "poisson"
eta = 0.1
sampling_rate = 0.5
steps = 3
[noise]
step_std = 0.1
)";
  CHECK(parse_experiment(linear, "t.toml").scenarios[0].data.adjacency == Adjacency::kAddRemove);
  // ... which is also a replacement, so the user may call it replace_one.
  std::string as_replace = linear;
  as_replace.insert(as_replace.find("replacement ="), "adjacency = \"replace_one\"\n");
  CHECK(parse_experiment(as_replace, "t.toml").scenarios[0].data.adjacency ==
        Adjacency::kReplaceOne);
  // A quadratic pair cannot be add/remove: every record has a gradient.
  CHECK_THAT(
      error_of(with("preset", "preset = \"quadratic_worst_case\"\nadjacency = \"add_remove\"")),
      Catch::Contains("data.adjacency = \"add_remove\"") && Catch::Contains("replace_one pair"));
  CHECK_THAT(error_of(with("preset", "preset = \"quadratic_worst_case\"\nadjacency = \"swap\"")),
             Catch::Contains("data.adjacency = \"swap\"") &&
                 Catch::Contains("must be one of: replace_one, add_remove"));
}
