#include <algorithm>
#include <cmath>

#include "rdpaudit/config/tables.hpp"
#include "rdpaudit/config/traits.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::config {

void read_training(Scenario& s, Reader& r) {
  const int n = s.n();
  s.scheme = pick_enum(r, "training.scheme", scheme_names(), "the batch scheme");
  s.eta = r.require_number("training.eta", "step size eta > 0");
  if (!(s.eta > 0)) r.fail("training.eta", "must be > 0");

  const SchemeInfo& scheme = scheme_info(s.scheme);
  const std::string name = scheme.name;
  if (scheme.sizing == BatchSizing::kWholeDataset) {
    const long b = r.integer("training.batch_size").value_or(n);
    if (b != n)
      r.fail("training.batch_size", "must equal data.n = " + std::to_string(n) + " for " + name);
    s.batch_size = n;
    s.steps_per_epoch = 1;
  } else if (scheme.sizing == BatchSizing::kExpected) {
    if (r.has("training.batch_size") == r.has("training.sampling_rate")) {
      r.fail(r.has("training.batch_size") ? "training.sampling_rate" : "training.batch_size",
             "give exactly one of training.batch_size (expected batch size) and "
             "training.sampling_rate for scheme = \"" +
                 name + "\"");
    }
    if (auto q = r.number("training.sampling_rate")) {
      if (!(*q > 0 && *q <= 1)) r.fail("training.sampling_rate", "must be in (0, 1]");
      s.sampling_rate = *q;
    } else {
      const long b = r.require_integer("training.batch_size", "expected batch size");
      if (b < 1 || b > n)
        r.fail("training.batch_size", "must be in [1, data.n = " + std::to_string(n) + "]");
      s.sampling_rate = static_cast<double>(b) / n;
    }
    s.batch_size = static_cast<int>(std::lround(s.sampling_rate * n));
    s.steps_per_epoch = std::max(1L, static_cast<long>(std::floor(1.0 / s.sampling_rate + 1e-9)));
  } else if (scheme.sizing == BatchSizing::kAllocated) {
    // Random allocation (Feldman & Shenfeld, arXiv 2502.08202, "k out of t" with k = 1): t
    // steps per epoch, each record in one of them; b = n/t is the expected batch size and the
    // normaliser, so t must divide n for it to be a whole number of records.
    const long b = r.require_integer("training.batch_size", "expected batch size n/t");
    if (b < 1 || b > n || n % b != 0)
      r.fail("training.batch_size", "must divide data.n = " + std::to_string(n) + " for " + name +
                                        " (t = n/b steps per epoch, each record in one)");
    s.batch_size = static_cast<int>(b);
    s.steps_per_epoch = n / b;
  } else {
    const long b = r.require_integer("training.batch_size", "mini-batch size b");
    if (b < 1 || b > n)
      r.fail("training.batch_size", "must be in [1, data.n = " + std::to_string(n) + "]");
    s.batch_size = static_cast<int>(b);
    s.steps_per_epoch = n / b;  // footnote 3: the last n - floor(n/b) b records are ignored
  }

  if (r.has("training.epochs") == r.has("training.steps")) {
    r.fail(r.has("training.epochs") ? "training.steps" : "training.epochs",
           "give exactly one of training.epochs and training.steps");
  }
  if (auto k = r.integer("training.epochs")) {
    if (*k < 1 || *k > 100'000'000) r.fail("training.epochs", "must be in [1, 10^8]");
    s.epochs = *k;
    s.steps = *k * s.steps_per_epoch;
  } else {
    const long t = *r.integer("training.steps");
    if (t < 1 || t > 1'000'000'000) r.fail("training.steps", "must be in [1, 10^9]");
    s.steps = t;
  }

  if (scheme.fixed_differing_batch) {
    const long natural = s.data.differing_index / s.batch_size;
    const long j0 = r.integer("training.differing_batch").value_or(natural);
    if (j0 < 0 || j0 >= s.steps_per_epoch) {
      r.fail("training.differing_batch",
             "must be in [0, n/b - 1 = " + std::to_string(s.steps_per_epoch - 1) + "]");
    }
    s.differing_batch = static_cast<int>(j0);
  }

  if (auto diam = r.number("training.projection_diameter")) {
    if (!(*diam > 0)) r.fail("training.projection_diameter", "must be > 0");
    s.projection_diameter = *diam;
  }
  s.projection_center = Eigen::VectorXd::Zero(s.dim);
  if (auto c = r.vector("training.projection_center")) {
    if (!std::isfinite(s.projection_diameter)) {
      r.fail("training.projection_center", "needs training.projection_diameter");
    }
    if (static_cast<int>(c->size()) != s.dim) {
      r.fail("training.projection_center", "needs d = " + std::to_string(s.dim) + " numbers");
    }
    s.projection_center = to_vector(*c);
  }
}

void read_init(Scenario& s, Reader& r) {
  s.init_mean = Eigen::VectorXd::Zero(s.dim);
  if (auto m = r.vector("init.mean")) {
    if (static_cast<int>(m->size()) != s.dim)
      r.fail("init.mean", "needs d = " + std::to_string(s.dim) + " numbers");
    s.init_mean = to_vector(*m);
  }
  s.init_std = r.number("init.std").value_or(0.0);
  if (!(s.init_std >= 0)) r.fail("init.std", "must be >= 0");
}

}  // namespace rdpaudit::config
