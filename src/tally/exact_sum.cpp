#include "rdpaudit/tally/exact_sum.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>

namespace rdpaudit::tally {

namespace {
constexpr std::int32_t kMaxPending = 1 << 29;  // |limb| < 2^32 (2^29 + 1) < 2^63
}

void ExactSum::add(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const int e = static_cast<int>((bits >> 52) & 0x7ff);
  if (e == 0x7ff) throw std::invalid_argument("ExactSum::add: not finite");
  std::uint64_t m = bits & ((std::uint64_t{1} << 52) - 1);
  if (e != 0) m |= std::uint64_t{1} << 52;
  if (m == 0) return;
  // x = m 2^(max(e, 1) - 1075): m's lowest bit sits at bit position max(e, 1) - 1 above 2^-1074.
  const int p = (e == 0 ? 1 : e) - 1;
  const int k = p >> 5, r = p & 31;
  // m 2^r < 2^85 as three 32-bit digits: the low 64 bits, and the bits shifted past them.
  const std::uint64_t low = m << r;
  const std::int64_t d0 = static_cast<std::int64_t>(low & 0xffffffffu);
  const std::int64_t d1 = static_cast<std::int64_t>(low >> 32);
  const std::int64_t d2 = r == 0 ? 0 : static_cast<std::int64_t>(m >> (64 - r));
  if (bits >> 63) {
    limb_[k] -= d0;
    limb_[k + 1] -= d1;
    limb_[k + 2] -= d2;
  } else {
    limb_[k] += d0;
    limb_[k + 1] += d1;
    limb_[k + 2] += d2;
  }
  if (++pending_ == kMaxPending) normalize();
}

void ExactSum::normalize() {
  for (int i = 0; i + 1 < kLimbs; ++i) {
    const std::int64_t carry = limb_[i] >> 32;  // floor division by 2^32
    limb_[i] -= carry * (std::int64_t{1} << 32);
    limb_[i + 1] += carry;
  }
  pending_ = 0;
}

void ExactSum::merge(const ExactSum& other) {
  ExactSum o = other;
  o.normalize();
  normalize();
  for (int i = 0; i < kLimbs; ++i) limb_[i] += o.limb_[i];
  normalize();
}

double ExactSum::value() const {
  ExactSum c = *this;
  c.normalize();
  // The top limb carries the sign. A negative sum is negated first, so that the limbs of its
  // magnitude are summed (a negative canonical form has ones up to the top limb, whose
  // weights overflow a double).
  const bool negative = c.limb_[kLimbs - 1] < 0;
  if (negative) {
    for (auto& l : c.limb_) l = -l;
    c.normalize();
  }
  // value = sum_i limb_i 2^(32 i - 1074), summed from the top: a fixed order on the
  // canonical form.
  double out = 0.0;
  for (int i = kLimbs - 1; i >= 0; --i) {
    if (c.limb_[i] != 0) out += std::ldexp(static_cast<double>(c.limb_[i]), 32 * i - 1074);
  }
  return negative ? -out : out;
}

std::vector<std::int64_t> ExactSum::limbs() const {
  ExactSum c = *this;
  c.normalize();
  return {c.limb_.begin(), c.limb_.end()};
}

ExactSum ExactSum::from_limbs(const std::int64_t* limbs) {
  ExactSum s;
  for (int i = 0; i < kLimbs; ++i) s.limb_[i] = limbs[i];
  s.normalize();
  return s;
}

}  // namespace rdpaudit::tally
