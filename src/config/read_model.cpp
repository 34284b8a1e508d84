#include "rdpaudit/config/tables.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::config {

void read_model(Scenario& s, Reader& r) {
  s.loss = pick_enum(r, "model.loss", loss_names(), "the loss family");
  if (s.loss == LossKind::kLogistic) {
    const long f = r.require_integer("model.features", "number of features >= 1");
    const long c = r.integer("model.classes").value_or(2);
    if (f < 1 || f > kMaxDim)
      r.fail("model.features", "must be in [1, " + std::to_string(kMaxDim) + "]");
    if (c < 2 || c > kMaxDim)
      r.fail("model.classes", "must be in [2, " + std::to_string(kMaxDim) + "]");
    if ((f + 1) * c > kMaxDim) {
      r.fail("model.features", "(features + 1) * classes = " + std::to_string((f + 1) * c) +
                                   " parameters, must be <= " + std::to_string(kMaxDim));
    }
    s.features = static_cast<int>(f);
    s.classes = static_cast<int>(c);
    s.dim = static_cast<int>((f + 1) * c);
    s.lambda = r.require_number("model.lambda", "L2 regularisation lambda >= 0");
    if (!(s.lambda >= 0)) r.fail("model.lambda", "must be >= 0");
    s.feature_clip = r.number("model.feature_clip").value_or(kInf);
    if (!(s.feature_clip > 0)) r.fail("model.feature_clip", "must be > 0");
    s.clip_norm = r.number("model.clip_norm").value_or(kInf);
    if (!(s.clip_norm > 0)) r.fail("model.clip_norm", "must be > 0");
  } else {
    const long d = r.integer("model.dim").value_or(1);
    if (d < 1 || d > kMaxDim)
      r.fail("model.dim", "must be in [1, " + std::to_string(kMaxDim) + "]");
    s.dim = static_cast<int>(d);
    if (s.loss == LossKind::kQuadratic) {
      s.lambda = r.require_number("model.lambda", "curvature lambda > 0");
      if (!(s.lambda > 0)) r.fail("model.lambda", "must be > 0");
    }
  }
}

}  // namespace rdpaudit::config
