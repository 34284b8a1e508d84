// Interval extension of a gradient formula and of its derivative (forward mode): every
// operation maps intervals holding its arguments (and their theta-derivatives) to an interval
// holding its result (and its derivative), so the enclosure of a composition holds the
// function's range over the interval of theta (up to floating-point rounding, as the engine's
// other bounds). Functions with kinks (abs, min, max) are Lipschitz: their derivative, defined
// almost everywhere, lies in the enclosure, which is what the mean value bound of the map
// needs (docs/exact-laws.md).
#include "rdpaudit/exact/formula.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <vector>

namespace rdpaudit::exact {

bool Interval::finite() const {
  return std::isfinite(lo) && std::isfinite(hi) && lo <= hi;
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kPi = 3.141592653589793238462643383279502884;
const Interval kUndefined{kNaN, kNaN};

Interval hull(double a, double b) {
  return {std::min(a, b), std::max(a, b)};
}
Interval add(Interval a, Interval b) {
  return {a.lo + b.lo, a.hi + b.hi};
}
Interval neg(Interval a) {
  return {-a.hi, -a.lo};
}
Interval mul(Interval a, Interval b) {
  const double p[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
  Interval r{p[0], p[0]};
  for (double v : p) {
    if (std::isnan(v)) return kUndefined;
    r.lo = std::min(r.lo, v);
    r.hi = std::max(r.hi, v);
  }
  return r;
}
Interval recip(Interval a) {
  if (!(a.lo > 0 || a.hi < 0)) return kUndefined;  // holds 0
  return {1.0 / a.hi, 1.0 / a.lo};
}
Interval div(Interval a, Interval b) {
  return mul(a, recip(b));
}
Interval join(Interval a, Interval b) {
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}
/// sin over [lo, hi]: the ends, and 1 / -1 where the interval holds pi/2 + 2k pi / -pi/2 + 2k pi.
Interval sin_iv(Interval a) {
  if (!a.finite()) return kUndefined;
  if (a.hi - a.lo >= 2 * kPi) return {-1.0, 1.0};
  Interval r = hull(std::sin(a.lo), std::sin(a.hi));
  const auto holds = [&](double phase) {
    const double k = std::ceil((a.lo - phase) / (2 * kPi));
    return phase + 2 * kPi * k <= a.hi;
  };
  if (holds(0.5 * kPi)) r.hi = 1.0;
  if (holds(-0.5 * kPi)) r.lo = -1.0;
  return r;
}
Interval cos_iv(Interval a) {
  return sin_iv({a.lo + 0.5 * kPi, a.hi + 0.5 * kPi});
}
Interval increasing(Interval a, double (*f)(double)) {
  return {f(a.lo), f(a.hi)};
}
Interval abs_iv(Interval a) {
  if (a.lo >= 0) return a;
  if (a.hi <= 0) return neg(a);
  return {0.0, std::max(-a.lo, a.hi)};
}
Interval square(Interval a) {
  const Interval m = abs_iv(a);
  return {m.lo * m.lo, m.hi * m.hi};
}
Interval cosh_iv(Interval a) {
  const Interval m = abs_iv(a);
  return {std::cosh(m.lo), std::cosh(m.hi)};
}
/// a^n for a whole n.
Interval pow_int(Interval a, long n) {
  if (n == 0) return {1.0, 1.0};
  if (n < 0) return recip(pow_int(a, -n));
  const double e = static_cast<double>(n);
  if (n % 2 == 1) return {std::pow(a.lo, e), std::pow(a.hi, e)};
  const Interval m = abs_iv(a);
  return {std::pow(m.lo, e), std::pow(m.hi, e)};
}

/// A value and its theta-derivative, each enclosed.
struct Dual {
  Interval v, d;
};

Dual chain(Interval v, Interval fprime, Interval d) {
  return {v, mul(fprime, d)};
}

}  // namespace

struct GradientFormula::Node {
  enum Kind { kNumber, kTheta, kX, kNeg, kAdd, kSub, kMul, kDiv, kPow, kCall } kind = kNumber;
  double number = 0;
  std::string name;  // kCall
  std::vector<std::shared_ptr<const Node>> args;

  Dual eval(Interval theta, double x) const {
    switch (kind) {
      case kNumber:
        return {{number, number}, {0.0, 0.0}};
      case kTheta:
        return {theta, {1.0, 1.0}};
      case kX:
        return {{x, x}, {0.0, 0.0}};
      default:
        break;
    }
    const Dual a = args[0]->eval(theta, x);
    if (kind == kNeg) return {neg(a.v), neg(a.d)};
    if (kind == kCall && args.size() == 1) return call(a);
    const Dual b = args[1]->eval(theta, x);
    switch (kind) {
      case kAdd:
        return {add(a.v, b.v), add(a.d, b.d)};
      case kSub:
        return {add(a.v, neg(b.v)), add(a.d, neg(b.d))};
      case kMul:
        return {mul(a.v, b.v), add(mul(a.d, b.v), mul(a.v, b.d))};
      case kDiv: {
        // (a / b)' = (a' - (a / b) b') / b
        const Interval q = div(a.v, b.v);
        return {q, div(add(a.d, neg(mul(q, b.d))), b.v)};
      }
      case kPow:
        return power(a, b);
      default:  // min, max
        return min_max(a, b, name == "max");
    }
  }

  Dual power(const Dual& a, const Dual& b) const {
    const Node& e = *args[1];
    if (e.kind == kNumber && e.number == std::round(e.number) && std::fabs(e.number) <= 64) {
      const long n = std::lround(e.number);
      return chain(pow_int(a.v, n), mul({e.number, e.number}, pow_int(a.v, n - 1)), a.d);
    }
    // a^b = exp(b ln a), a > 0: (a^b)' = a^b (b' ln a + b a' / a)
    if (!(a.v.lo > 0)) return {kUndefined, kUndefined};
    const Interval ln_a = increasing(a.v, std::log);
    const Interval v = increasing(mul(b.v, ln_a), std::exp);
    return {v, mul(v, add(mul(b.d, ln_a), mul(b.v, div(a.d, a.v))))};
  }

  static Dual min_max(const Dual& a, const Dual& b, bool is_max) {
    const Interval v = is_max ? Interval{std::max(a.v.lo, b.v.lo), std::max(a.v.hi, b.v.hi)}
                              : Interval{std::min(a.v.lo, b.v.lo), std::min(a.v.hi, b.v.hi)};
    const bool a_below = a.v.hi < b.v.lo, b_below = b.v.hi < a.v.lo;
    if (a_below) return {v, is_max ? b.d : a.d};
    if (b_below) return {v, is_max ? a.d : b.d};
    return {v, join(a.d, b.d)};
  }

  Dual call(const Dual& a) const {
    const Interval u = a.v;
    if (name == "sin") return chain(sin_iv(u), cos_iv(u), a.d);
    if (name == "cos") return chain(cos_iv(u), neg(sin_iv(u)), a.d);
    if (name == "exp") {
      const Interval v = increasing(u, std::exp);
      return chain(v, v, a.d);
    }
    if (name == "log" || name == "ln" || name == "log2" || name == "log10") {
      if (!(u.lo > 0)) return {kUndefined, kUndefined};
      const double scale = name == "log2"    ? 1.0 / std::log(2.0)
                           : name == "log10" ? 1.0 / std::log(10.0)
                                             : 1.0;
      const Interval v = mul(increasing(u, std::log), {scale, scale});
      return chain(v, mul(recip(u), {scale, scale}), a.d);
    }
    if (name == "sqrt") {
      if (!(u.lo > 0)) return {kUndefined, kUndefined};
      const Interval v = increasing(u, std::sqrt);
      return chain(v, recip(mul({2.0, 2.0}, v)), a.d);
    }
    if (name == "abs") {
      const Interval sign = u.lo > 0   ? Interval{1, 1}
                            : u.hi < 0 ? Interval{-1, -1}
                                       : Interval{-1, 1};
      return chain(abs_iv(u), sign, a.d);
    }
    if (name == "tanh") {
      const Interval v = increasing(u, std::tanh);
      return chain(v, add({1.0, 1.0}, neg(square(v))), a.d);
    }
    if (name == "atan") {
      return chain(increasing(u, std::atan), recip(add({1.0, 1.0}, square(u))), a.d);
    }
    if (name == "sinh") return chain(increasing(u, std::sinh), cosh_iv(u), a.d);
    // cosh
    return chain(cosh_iv(u), increasing(u, std::sinh), a.d);
  }
};

namespace {

using Node = GradientFormula::Node;
using NodePtr = std::shared_ptr<const Node>;

constexpr const char* kNotCovered =
    " (comparisons, conditionals and logic are not covered by the exact engine: a step or a "
    "branch is no map whose derivative bounds it)";

const char* const kUnary[] = {"sin",  "cos", "exp",  "log",  "ln",   "log2", "log10",
                              "sqrt", "abs", "tanh", "sinh", "cosh", "atan"};

/// Recursive descent over muparser's precedence: + - below * / below the signs below ^
/// (right-associative), as muparser 2.3 reads them; the engine checks its values against
/// muparser's before it uses them (chain.cpp).
class Parser {
 public:
  explicit Parser(const std::string& t) : t_(t) {}

  NodePtr parse(std::string& why) {
    NodePtr n = sum();
    skip();
    if (!error_.empty() || pos_ != t_.size()) {
      why = error_.empty() ? "unexpected \"" + t_.substr(pos_, 8) + "\" at position " +
                                 std::to_string(pos_) + kNotCovered
                           : error_;
      return nullptr;
    }
    return n;
  }

 private:
  void skip() {
    while (pos_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < t_.size() && t_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  NodePtr fail(const std::string& what) {
    if (error_.empty()) error_ = what;
    return nullptr;
  }
  static NodePtr make(Node::Kind k, std::vector<NodePtr> args, std::string name = "") {
    auto n = std::make_shared<Node>();
    n->kind = k;
    n->args = std::move(args);
    n->name = std::move(name);
    return n;
  }
  NodePtr sum() {
    NodePtr l = product();
    while (l) {
      if (eat('+')) {
        l = binary(Node::kAdd, l, product());
      } else if (eat('-')) {
        l = binary(Node::kSub, l, product());
      } else {
        break;
      }
    }
    return l;
  }
  NodePtr product() {
    NodePtr l = sign();
    while (l) {
      if (eat('*')) {
        l = binary(Node::kMul, l, sign());
      } else if (eat('/')) {
        l = binary(Node::kDiv, l, sign());
      } else {
        break;
      }
    }
    return l;
  }
  NodePtr binary(Node::Kind k, NodePtr l, NodePtr r) {
    if (!l || !r) return nullptr;
    return make(k, {l, r});
  }
  NodePtr sign() {
    if (eat('-')) {
      NodePtr a = sign();
      return a ? make(Node::kNeg, {a}) : nullptr;
    }
    if (eat('+')) return sign();
    return power();
  }
  NodePtr power() {
    NodePtr base = atom();
    if (base && eat('^')) return binary(Node::kPow, base, sign_power());
    return base;
  }
  // the exponent: a sign, then a power (2^-3, 2^3^2 = 2^9)
  NodePtr sign_power() {
    if (eat('-')) {
      NodePtr a = sign_power();
      return a ? make(Node::kNeg, {a}) : nullptr;
    }
    if (eat('+')) return sign_power();
    return power();
  }
  NodePtr atom() {
    skip();
    if (pos_ >= t_.size()) return fail("the formula ends early");
    const char c = t_[pos_];
    if (c == '(') {
      ++pos_;
      NodePtr n = sum();
      if (!eat(')')) return fail("a parenthesis is not closed");
      return n;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      const char* start = t_.c_str() + pos_;
      char* end = nullptr;
      const double v = std::strtod(start, &end);
      if (end == start) return fail("a number at position " + std::to_string(pos_));
      pos_ += static_cast<std::size_t>(end - start);
      auto n = std::make_shared<Node>();
      n->number = v;
      return n;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t from = pos_;
      while (pos_ < t_.size() &&
             (std::isalnum(static_cast<unsigned char>(t_[pos_])) || t_[pos_] == '_'))
        ++pos_;
      const std::string id = t_.substr(from, pos_ - from);
      if (id == "theta") return make(Node::kTheta, {});
      if (id == "x") return make(Node::kX, {});
      if (id == "_pi" || id == "_e") {
        auto n = std::make_shared<Node>();
        n->number = id == "_pi" ? kPi : std::exp(1.0);
        return n;
      }
      const bool unary = std::find(std::begin(kUnary), std::end(kUnary), id) != std::end(kUnary);
      if (!unary && id != "min" && id != "max") {
        return fail("\"" + id +
                    "\" (the exact engine's enclosures cover theta, x, _pi, _e and sin, cos, "
                    "exp, log, ln, log2, log10, sqrt, abs, tanh, sinh, cosh, atan, min and max "
                    "of two)");
      }
      if (!eat('(')) return fail("\"" + id + "\" without its argument");
      NodePtr a = sum();
      if (!a) return nullptr;
      if (unary) {
        if (!eat(')')) return fail("\"" + id + "\" takes one argument");
        return make(Node::kCall, {a}, id);
      }
      if (!eat(',')) return fail("\"" + id + "\" takes two arguments here");
      NodePtr b = sum();
      if (!b) return nullptr;
      if (!eat(')')) return fail("\"" + id + "\" takes two arguments here");
      return make(Node::kCall, {a, b}, id);
    }
    return fail(std::string("\"") + c + "\" at position " + std::to_string(pos_) + kNotCovered);
  }

  const std::string& t_;
  std::size_t pos_ = 0;
  std::string error_;
};

}  // namespace

std::optional<GradientFormula> GradientFormula::parse(const std::string& text, std::string& why) {
  Parser p(text);
  NodePtr root = p.parse(why);
  if (!root) return std::nullopt;
  GradientFormula f;
  f.root_ = std::move(root);
  return f;
}

void GradientFormula::enclose(double lo, double hi, double x, Interval& value,
                              Interval& slope) const {
  const Dual r = root_->eval({lo, hi}, x);
  value = r.v;
  slope = r.d;
}

double GradientFormula::value(double theta, double x) const {
  const Dual r = root_->eval({theta, theta}, x);
  return r.v.finite() ? 0.5 * (r.v.lo + r.v.hi) : kNaN;
}

}  // namespace rdpaudit::exact
