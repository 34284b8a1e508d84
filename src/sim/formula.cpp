#include "rdpaudit/sim/formula.hpp"

#include <muParser.h>

#include <array>
#include <atomic>
#include <utility>

#include "rdpaudit/config/loss.hpp"

namespace rdpaudit::sim {

namespace {

std::atomic<std::uint64_t> g_next_formula{1};

/// A compiled formula with the variables it reads (their addresses are bound into it).
struct Compiled {
  std::uint64_t id = 0;
  double theta = 0, x = 0;
  mu::Parser parser;
};

/// This thread's compiled formulas: the simulator runs one or two (D and D') at a time, so
/// a few slots, the least recently compiled replaced.
struct ThreadParsers {
  std::array<std::unique_ptr<Compiled>, 4> slots;
  std::size_t next = 0;

  Compiled& get(std::uint64_t id, const std::string& text) {
    for (auto& c : slots) {
      if (c && c->id == id) return *c;
    }
    auto c = std::make_unique<Compiled>();
    c->id = id;
    c->parser.DefineVar(config::kGradientNames[0], &c->theta);
    c->parser.DefineVar(config::kGradientNames[1], &c->x);
    c->parser.SetExpr(text);
    auto& slot = slots[next];
    next = (next + 1) % slots.size();
    slot = std::move(c);
    return *slot;
  }
};

Compiled& compiled(std::uint64_t id, const std::string& text) {
  thread_local ThreadParsers parsers;
  return parsers.get(id, text);
}

}  // namespace

FormulaGradient::FormulaGradient(std::string text)
    : text_(std::make_shared<const std::string>(std::move(text))),
      id_(g_next_formula.fetch_add(1)) {}

double FormulaGradient::operator()(double theta, double x) const {
  Compiled& c = compiled(id_, *text_);
  c.theta = theta;
  c.x = x;
  return c.parser.Eval();
}

void FormulaGradient::add_batch(const double* theta, int d, const double* x, const int* idx,
                                int count, double inv_norm, double* g) const {
  Compiled& c = compiled(id_, *text_);
  for (int k = 0; k < d; ++k) {
    c.theta = theta[k];
    double sum = 0;
    for (int m = 0; m < count; ++m) {
      c.x = x[static_cast<long>(idx[m]) * d + k];
      sum += c.parser.Eval();
    }
    g[k] += inv_norm * sum;
  }
}

}  // namespace rdpaudit::sim
