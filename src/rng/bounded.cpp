#include "rdpaudit/rng/bounded.hpp"

#include <stdexcept>

namespace rdpaudit::rng {

BoundedDraws::BoundedDraws(const std::vector<std::uint64_t>& bounds) : bounds_(bounds) {
  // Greedy grouping: as many consecutive bounds as keep the product below 2^64.
  int k = 0;
  const int n = static_cast<int>(bounds_.size());
  while (k < n) {
    Group g{k, 0, 0};
    std::uint64_t product = 1;
    while (k < n) {
      const std::uint64_t b = bounds_[static_cast<std::size_t>(k)];
      if (b == 0 || b > 0xFFFFFFFFu)
        throw std::invalid_argument("BoundedDraws: bound outside [1, 2^32)");
      const Uint128 next = static_cast<Uint128>(product) * b;
      if (next >> 64) break;
      product = static_cast<std::uint64_t>(next);
      ++g.count;
      ++k;
    }
    g.threshold = (0 - product) % product;  // 2^64 mod product
    groups_.push_back(g);
  }
}

}  // namespace rdpaudit::rng
