#include "rdpaudit/config/orders.hpp"

#include <algorithm>

namespace rdpaudit::config {

const std::vector<double>& default_audited_orders() {
  static const std::vector<double> alphas = {2, 4, 8, 10, 15, 16, 32, 64};
  return alphas;
}

std::vector<double> estimation_orders(const std::vector<double>& extra) {
  std::vector<double> grid;
  for (int i = 11; i <= 109; ++i) grid.push_back(i / 10.0);
  for (int a = 11; a <= 64; ++a) grid.push_back(a);
  grid.insert(grid.end(), extra.begin(), extra.end());
  std::sort(grid.begin(), grid.end());
  grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  return grid;
}

std::vector<double> estimation_orders(const Scenario& s) {
  std::vector<double> extra = s.estimate.extra_alphas;
  extra.insert(extra.end(), s.bounds.alphas.begin(), s.bounds.alphas.end());
  return estimation_orders(extra);
}

}  // namespace rdpaudit::config
