#include "rdpaudit/config/loss.hpp"
#include "rdpaudit/config/tables.hpp"

namespace rdpaudit::config {

// model.loss, then the keys of that family (its row of loss_families(), src/config/loss.cpp).
void read_model(Scenario& s, Reader& r) {
  s.loss = pick_enum(r, "model.loss", loss_names(), "the loss family");
  loss_family(s.loss).read_model(s, r);
}

}  // namespace rdpaudit::config
