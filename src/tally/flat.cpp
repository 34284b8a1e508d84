#include "rdpaudit/tally/flat.hpp"

#include <cstring>
#include <stdexcept>

#include "rdpaudit/core/sha256.hpp"

namespace rdpaudit::tally {

namespace {

// Every counts vector of a tally, in the flat order.
template <class T, class F>
void for_each_counts(T& t, F&& f) {
  for (auto& c : t.coordinate) f(c.counts);
  f(t.projection.counts);
  f(t.joint.counts);
  for (auto& c : t.scores) f(c.counts);
}

template <class F>
void for_each_sum(const MomentSums& m, F&& f) {
  for (const auto& s : m.sum) f(s);
  for (const auto& s : m.outer) f(s);
}

}  // namespace

FlatTally flatten(const Tally& t) {
  FlatTally out;
  out.ints = {t.moments.count, t.raw_first, t.raw_cap};
  for_each_counts(t, [&](const std::vector<std::uint64_t>& c) {
    out.ints.insert(out.ints.end(), c.begin(), c.end());
  });
  for_each_sum(t.moments, [&](const ExactSum& s) {
    const auto l = s.limbs();
    out.ints.insert(out.ints.end(), l.begin(), l.end());
  });
  out.raw = t.raw;
  return out;
}

Tally unflatten(const Binning& binning, const FlatTally& flat) {
  Tally t(binning, 0);
  std::size_t need = 3;
  for_each_counts(t, [&](std::vector<std::uint64_t>& c) { need += c.size(); });
  need += (t.moments.sum.size() + t.moments.outer.size()) * ExactSum::kLimbs;
  if (flat.ints.size() != need)
    throw std::invalid_argument("unflatten: the numbers do not fit these cells");
  const std::int64_t* p = flat.ints.data();
  t.moments.count = p[0];
  t.raw_first = p[1];
  t.raw_cap = p[2];
  p += 3;
  for_each_counts(t, [&](std::vector<std::uint64_t>& c) {
    for (auto& x : c) x = static_cast<std::uint64_t>(*p++);
  });
  for (auto& s : t.moments.sum) {
    s = ExactSum::from_limbs(p);
    p += ExactSum::kLimbs;
  }
  for (auto& s : t.moments.outer) {
    s = ExactSum::from_limbs(p);
    p += ExactSum::kLimbs;
  }
  if (flat.raw.size() != static_cast<std::size_t>(t.raw_cap * binning.dim))
    throw std::invalid_argument("unflatten: raw rows do not fit");
  t.raw = flat.raw;
  return t;
}

std::string fingerprint(const Binning& b) {
  std::string bytes;
  const auto put = [&](const std::vector<double>& v) {
    bytes.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
    bytes.push_back('|');
  };
  for (const auto& c : b.coordinate) put(c.index.edges());
  put(b.projection.index.edges());
  put(b.joint.x.edges());
  put(b.joint.y.edges());
  for (const auto& c : b.scores) {
    bytes += c.name;
    put(c.index.edges());
  }
  put(std::vector<double>(b.shift.data(), b.shift.data() + b.shift.size()));
  put(std::vector<double>(b.direction.data(), b.direction.data() + b.direction.size()));
  return sha256_hex(bytes);
}

}  // namespace rdpaudit::tally
