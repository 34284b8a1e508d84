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

/// A value and its first and second theta-derivatives, each enclosed (dd undefined where
/// the second derivative is not bounded: a kink of abs, min or max inside the interval).
struct Dual {
  Interval v, d, dd;
};

/// f(u) from the enclosures of f, f' and f'' over u's range: (f o u)' = f'(u) u',
/// (f o u)'' = f''(u) u'^2 + f'(u) u''.
Dual chain(const Dual& u, Interval f, Interval f1, Interval f2) {
  return {f, mul(f1, u.d), add(mul(f2, square(u.d)), mul(f1, u.dd))};
}

}  // namespace

struct GradientFormula::Node {
  enum Kind { kNumber, kTheta, kX, kNeg, kAdd, kSub, kMul, kDiv, kPow, kCall } kind = kNumber;
  double number = 0;
  std::string name;  // kCall
  std::vector<std::shared_ptr<const Node>> args;

  Dual eval(Interval theta, double x) const {
    constexpr Interval kZero{0.0, 0.0};
    switch (kind) {
      case kNumber:
        return {{number, number}, kZero, kZero};
      case kTheta:
        return {theta, {1.0, 1.0}, kZero};
      case kX:
        return {{x, x}, kZero, kZero};
      default:
        break;
    }
    const Dual a = args[0]->eval(theta, x);
    if (kind == kNeg) return {neg(a.v), neg(a.d), neg(a.dd)};
    if (kind == kCall && args.size() == 1) return call(a);
    const Dual b = args[1]->eval(theta, x);
    switch (kind) {
      case kAdd:
        return {add(a.v, b.v), add(a.d, b.d), add(a.dd, b.dd)};
      case kSub:
        return {add(a.v, neg(b.v)), add(a.d, neg(b.d)), add(a.dd, neg(b.dd))};
      case kMul:
        return times(a, b);
      case kDiv:
        return divide(a, b);
      case kPow:
        return power(a, b);
      default:  // min, max
        return min_max(a, b, name == "max");
    }
  }

  // (a b)'' = a'' b + 2 a' b' + a b''
  static Dual times(const Dual& a, const Dual& b) {
    return {mul(a.v, b.v), add(mul(a.d, b.v), mul(a.v, b.d)),
            add(add(mul(a.dd, b.v), mul({2.0, 2.0}, mul(a.d, b.d))), mul(a.v, b.dd))};
  }

  // q = a / b: q' = (a' - q b') / b, q'' = (a'' - 2 q' b' - q b'') / b
  static Dual divide(const Dual& a, const Dual& b) {
    const Interval q = div(a.v, b.v);
    const Interval q1 = div(add(a.d, neg(mul(q, b.d))), b.v);
    const Interval q2 = div(add(a.dd, neg(add(mul({2.0, 2.0}, mul(q1, b.d)), mul(q, b.dd)))), b.v);
    return {q, q1, q2};
  }

  static Dual exp_of(const Dual& a) {
    const Interval v = increasing(a.v, std::exp);
    return chain(a, v, v, v);
  }

  // log to a base (scale = 1 / ln base): f' = scale / u, f'' = -scale / u^2
  static Dual log_of(const Dual& a, double scale) {
    const Interval u = a.v;
    if (!(u.lo > 0)) return {kUndefined, kUndefined, kUndefined};
    return chain(a, mul(increasing(u, std::log), {scale, scale}), mul(recip(u), {scale, scale}),
                 mul(recip(square(u)), {-scale, -scale}));
  }

  Dual power(const Dual& a, const Dual& b) const {
    const Node& e = *args[1];
    if (e.kind == kNumber && e.number == std::round(e.number) && std::fabs(e.number) <= 64) {
      const long n = std::lround(e.number);
      const auto nd = static_cast<double>(n);
      const Interval f1 = n == 0 ? Interval{0.0, 0.0} : mul({nd, nd}, pow_int(a.v, n - 1));
      const Interval f2 = n == 0 || n == 1
                              ? Interval{0.0, 0.0}
                              : mul({nd * (nd - 1), nd * (nd - 1)}, pow_int(a.v, n - 2));
      return chain(a, pow_int(a.v, n), f1, f2);
    }
    // a^b = exp(b ln a), a > 0
    if (!(a.v.lo > 0)) return {kUndefined, kUndefined, kUndefined};
    return exp_of(times(b, log_of(a, 1.0)));
  }

  // a kink where the branches' ranges overlap: the first derivative lies in the hull of the
  // branches' (Lipschitz), the second is not bounded
  static Dual min_max(const Dual& a, const Dual& b, bool is_max) {
    const Interval v = is_max ? Interval{std::max(a.v.lo, b.v.lo), std::max(a.v.hi, b.v.hi)}
                              : Interval{std::min(a.v.lo, b.v.lo), std::min(a.v.hi, b.v.hi)};
    const bool a_below = a.v.hi < b.v.lo, b_below = b.v.hi < a.v.lo;
    if (a_below) return is_max ? Dual{v, b.d, b.dd} : Dual{v, a.d, a.dd};
    if (b_below) return is_max ? Dual{v, a.d, a.dd} : Dual{v, b.d, b.dd};
    return {v, join(a.d, b.d), kUndefined};
  }

  Dual call(const Dual& a) const {
    const Interval u = a.v;
    if (name == "sin") return chain(a, sin_iv(u), cos_iv(u), neg(sin_iv(u)));
    if (name == "cos") return chain(a, cos_iv(u), neg(sin_iv(u)), neg(cos_iv(u)));
    if (name == "exp") return exp_of(a);
    if (name == "log" || name == "ln") return log_of(a, 1.0);
    if (name == "log2") return log_of(a, 1.0 / std::log(2.0));
    if (name == "log10") return log_of(a, 1.0 / std::log(10.0));
    if (name == "sqrt") {
      // f' = 1 / (2 v), f'' = -1 / (4 v^3)
      if (!(u.lo > 0)) return {kUndefined, kUndefined, kUndefined};
      const Interval v = increasing(u, std::sqrt);
      return chain(a, v, recip(mul({2.0, 2.0}, v)), mul({-0.25, -0.25}, recip(pow_int(v, 3))));
    }
    if (name == "abs") {
      if (u.lo > 0) return chain(a, u, {1.0, 1.0}, {0.0, 0.0});
      if (u.hi < 0) return chain(a, neg(u), {-1.0, -1.0}, {0.0, 0.0});
      return {abs_iv(u), mul({-1.0, 1.0}, a.d), kUndefined};  // the kink at 0
    }
    if (name == "tanh") {
      // f' = 1 - v^2, f'' = -2 v (1 - v^2)
      const Interval v = increasing(u, std::tanh), f1 = add({1.0, 1.0}, neg(square(v)));
      return chain(a, v, f1, mul({-2.0, -2.0}, mul(v, f1)));
    }
    if (name == "atan") {
      // f' = 1 / (1 + u^2), f'' = -2 u f'^2
      const Interval f1 = recip(add({1.0, 1.0}, square(u)));
      return chain(a, increasing(u, std::atan), f1, mul({-2.0, -2.0}, mul(u, square(f1))));
    }
    if (name == "sinh") {
      const Interval v = increasing(u, std::sinh);
      return chain(a, v, cosh_iv(u), v);
    }
    // cosh
    const Interval v = cosh_iv(u);
    return chain(a, v, increasing(u, std::sinh), v);
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

void GradientFormula::enclose(double lo, double hi, double x, Interval& value, Interval& slope,
                              Interval& curvature) const {
  const Dual r = root_->eval({lo, hi}, x);
  value = r.v;
  slope = r.d;
  curvature = r.dd;
}

double GradientFormula::value(double theta, double x) const {
  const Dual r = root_->eval({theta, theta}, x);
  return r.v.finite() ? 0.5 * (r.v.lo + r.v.hi) : kNaN;
}

}  // namespace rdpaudit::exact
