#include "rdpaudit/config/presets.hpp"

#include <cmath>

#include "rdpaudit/core/error.hpp"
#include "rdpaudit/rng/stream.hpp"

namespace rdpaudit::config {

namespace {

int read_n(Reader& r) {
  const long n = r.require_integer("data.n", "number of records n >= 2");
  if (n < 2 || n > 10'000'000) r.fail("data.n", "must be in [2, 10^7]");
  return static_cast<int>(n);
}

int read_differing_index(Reader& r, int n) {
  const long i0 = r.integer("data.differing_index").value_or(0);
  if (i0 < 0 || i0 >= n) {
    r.fail("data.differing_index",
           "must be in [0, " + std::to_string(n - 1) + "] (data.n = " + std::to_string(n) + ")");
  }
  return static_cast<int>(i0);
}

// Quadratic loss lambda/2 ||theta - x||^2: the total gradient moves by lambda*||x_i0 - x'_i0||,
// so all x_i = 0 and x'_i0 = (S_g/lambda) e_1 gives total-gradient sensitivity exactly S_g.
NeighbouringPair quadratic_worst_case(const Scenario& s, Reader& r) {
  NeighbouringPair p;
  p.preset = "quadratic_worst_case";
  const int n = read_n(r);
  const double sg = r.require_number("data.sensitivity", "total-gradient sensitivity S_g > 0");
  if (!(sg > 0)) r.fail("data.sensitivity", "must be > 0");
  p.points = Eigen::MatrixXd::Zero(n, s.dim);
  p.replacement = Eigen::VectorXd::Zero(s.dim);
  p.replacement(0) = sg / s.lambda;
  p.differing_index = read_differing_index(r, n);
  return p;
}

// Linear loss <g_i, theta>: gradients g_i = 0 except g_i0 = +L e_1 in D and -L e_1 in D'
// (each gradient has norm <= L, the replace-one change is 2L: the blog's worst case). With
// data.adjacency = "add_remove", g'_i0 = 0: record i0 against its absence, DP-SGD's worst
// case (the change is L). With model.clip_norm = C, L defaults to C: the record's gradient
// at the clip.
NeighbouringPair linear_worst_case(const Scenario& s, Reader& r) {
  NeighbouringPair p;
  p.preset = "linear_worst_case";
  const int n = read_n(r);
  const bool clipped = std::isfinite(s.clip_norm);
  const double lip =
      clipped && !r.has("data.lipschitz")
          ? s.clip_norm
          : r.require_number("data.lipschitz", "Lipschitz constant L > 0 (or model.clip_norm)");
  if (!(lip > 0)) r.fail("data.lipschitz", "must be > 0");
  p.differing_index = read_differing_index(r, n);
  p.points = Eigen::MatrixXd::Zero(n, s.dim);
  p.points(p.differing_index, 0) = lip;
  p.replacement = Eigen::VectorXd::Zero(s.dim);
  if (r.string("data.adjacency").value_or("") != "add_remove") p.replacement(0) = -lip;
  return p;
}

// A small synthetic classification set: record i has class i mod c, features at the class
// centre (unit vectors spread on a circle in the first two coordinates) plus a seeded
// jitter of std data.jitter. The differing record is replaced by a point of norm
// feature_clip pointing away from its class centre, with the next class's label: an outlier
// whose clipped gradient is as different from the original's as the clip allows.
NeighbouringPair logistic_synthetic(const Scenario& s, Reader& r) {
  NeighbouringPair p;
  p.preset = "logistic_synthetic";
  const int n = read_n(r);
  const double jitter = r.number("data.jitter").value_or(0.3);
  if (!(jitter >= 0)) r.fail("data.jitter", "must be >= 0");
  const long data_seed = r.integer("data.seed").value_or(1);
  if (data_seed < 0) r.fail("data.seed", "must be >= 0");
  const int f = s.features, c = s.classes;
  auto centre = [&](int k) {
    Eigen::VectorXd m = Eigen::VectorXd::Zero(f);
    const double angle = 2.0 * M_PI * k / c;
    m(0) = std::cos(angle);
    if (f > 1) m(1) = std::sin(angle);
    return m;
  };
  rng::Stream stream({static_cast<std::uint64_t>(data_seed), 0, rng::kD, 0, rng::Purpose::kData});
  p.points.resize(n, f);
  p.labels.resize(n);
  for (int i = 0; i < n; ++i) {
    p.labels[i] = i % c;
    Eigen::VectorXd x = centre(p.labels[i]);
    for (int j = 0; j < f; ++j) x(j) += jitter * stream.normal();
    p.points.row(i) = x.transpose();
  }
  p.differing_index = read_differing_index(r, n);
  const int label = p.labels[p.differing_index];
  const double radius = std::isfinite(s.feature_clip) ? s.feature_clip : 1.0;
  p.replacement = -radius * centre(label).normalized();
  p.replacement_label = (label + 1) % c;
  return p;
}

// The crafted-gradient adversary of the hidden-state audits (Annamalai 2024; Cebere et al.
// 2025): the other n - 1 records keep the model's loss at x_i = 0 (quadratic) or g_i = 0
// (linear); record i0 contributes a gradient the user gives (data.gradient or
// data.gradient_formula, read by read_crafted_gradient once T is known) in D and is absent
// from D' (add_remove).
NeighbouringPair crafted_gradient(const Scenario& s, Reader& r) {
  NeighbouringPair p;
  p.preset = "crafted_gradient";
  const int n = read_n(r);
  p.differing_index = read_differing_index(r, n);
  p.points = Eigen::MatrixXd::Zero(n, s.dim);
  p.replacement = Eigen::VectorXd::Zero(s.dim);
  p.crafted = true;
  return p;
}

}  // namespace

const std::vector<std::string>& preset_names() {
  static const std::vector<std::string> names = {"quadratic_worst_case", "linear_worst_case",
                                                 "logistic_synthetic", "crafted_gradient"};
  return names;
}

NeighbouringPair make_preset(const std::string& name, const Scenario& s, Reader& r) {
  const auto need = [&](LossKind loss) {
    if (s.loss != loss) {
      r.fail("data.preset", "preset for model.loss = \"" + to_string(loss) +
                                "\", but model.loss = \"" + to_string(s.loss) + "\"");
    }
  };
  if (name == "quadratic_worst_case") {
    need(LossKind::kQuadratic);
    return quadratic_worst_case(s, r);
  }
  if (name == "linear_worst_case") {
    need(LossKind::kLinear);
    return linear_worst_case(s, r);
  }
  if (name == "logistic_synthetic") {
    need(LossKind::kLogistic);
    return logistic_synthetic(s, r);
  }
  if (name == "crafted_gradient") {
    if (s.loss != LossKind::kQuadratic && s.loss != LossKind::kLinear) {
      r.fail("data.preset",
             "preset for model.loss = \"quadratic\" or \"linear\" (the other "
             "records' losses), but model.loss = \"" +
                 to_string(s.loss) + "\"");
    }
    return crafted_gradient(s, r);
  }
  std::string list;
  for (const auto& n : preset_names()) list += (list.empty() ? "" : ", ") + n;
  r.fail("data.preset", "must be one of: " + list);
}

}  // namespace rdpaudit::config
