// `rdpaudit bounds FILE`: every applicable bound of every scenario at every order, as a
// table; optionally the (epsilon, delta) each bound implies.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "commands.hpp"
#include "rdpaudit/bounds/conversion.hpp"
#include "rdpaudit/bounds/scenario.hpp"

namespace rdpaudit::app {

namespace {

// The order grid of Google's dp_accounting (1.1 ... 10.9 in steps of 0.1, 11 ... 64), plus
// a few larger orders, for the RDP -> (epsilon, delta) conversion.
std::vector<double> conversion_alphas() {
  std::vector<double> a;
  for (int i = 11; i <= 109; ++i) a.push_back(i / 10.0);
  for (int i = 11; i <= 64; ++i) a.push_back(i);
  for (double x : {128.0, 256.0, 512.0, 1024.0}) a.push_back(x);
  return a;
}

std::string cell(const bounds::BoundValue& v) {
  if (!v.applicable()) return "n/a";
  return std::isinf(*v.value) ? "inf" : fmt::format("{:.6g}", *v.value);
}

void print_scenario(const config::Scenario& s, const std::vector<double>& alphas,
                    const BoundsArgs& args) {
  const auto sb = bounds::bounds_of(s);
  const auto& p = sb.params;
  fmt::print(
      "\nscenario {} ({}): {} loss, {}, n = {}, b = {}, eta = {:g}, sigma^2 = {:.6g}, "
      "K = {}, T = {}\n",
      s.index, describe_point(s), config::to_string(s.loss), config::to_string(s.scheme), p.n, p.b,
      p.eta, bounds::alg1_sigma2(p), p.K, p.T);
  fmt::print("  constants: lambda = {:g}, beta = {:g}, S_g = {:g}, L = {:g}, D = {:g}, init = {}\n",
             p.lambda, p.beta, p.S_g, p.L, p.D, bounds::init_name(p.init));
  fmt::print("  ({})\n", sb.derivation);
  const auto values = bounds::evaluate_scenario(sb, alphas);

  // Group by bound, keeping the catalogue order.
  std::vector<std::string> names;
  std::map<std::string, std::vector<const bounds::BoundValue*>> by_name;
  for (const auto& v : values) {
    if (!by_name.count(v.name)) names.push_back(v.name);
    by_name[v.name].push_back(&v);
  }
  std::string header = fmt::format("  {:<34}", "bound \\ alpha");
  for (double a : alphas) header += fmt::format(" {:>11g}", a);
  if (args.delta > 0) header += fmt::format("  {:>13} {:>13}", "eps Mironov", "eps improved");
  fmt::print("{}\n", header);

  // (epsilon, delta) of each bound: its RDP curve over the conversion grid, evaluated once.
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> curves;
  if (args.delta > 0) {
    for (const auto& v : bounds::evaluate_scenario(sb, conversion_alphas())) {
      if (!v.applicable()) continue;
      curves[v.name].first.push_back(v.alpha);
      curves[v.name].second.push_back(*v.value);
    }
  }
  std::vector<std::string> reasons;
  for (const auto& name : names) {
    const auto& row = by_name[name];
    if (!row.front()->applicable() && !args.show_reasons) continue;
    std::string line = fmt::format("  {:<34}", name);
    for (const auto* v : row) line += fmt::format(" {:>11}", cell(*v));
    if (args.delta > 0 && curves.count(name)) {
      const auto& [a, rdp] = curves[name];
      if (*std::min_element(rdp.begin(), rdp.end()) < 0) {
        // e.g. Footnote 4 as printed (docs/bounds.md): not an RDP curve, nothing to convert
        line += fmt::format("  {:>27}", "(negative RDP)");
      } else {
        line += fmt::format("  {:>13.6g} {:>13.6g}",
                            bounds::epsilon_mironov(a, rdp, args.delta).epsilon,
                            bounds::epsilon_improved(a, rdp, args.delta).epsilon);
      }
    }
    fmt::print("{}\n", line);
    if (!row.front()->applicable()) reasons.push_back(name + ": " + row.front()->not_applicable);
  }
  if (!reasons.empty()) {
    fmt::print("  not applicable:\n");
    for (const auto& r : reasons) fmt::print("    {}\n", r);
  }
}

std::string csv_field(const std::string& text) {
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void print_csv(const config::ExperimentSpec& spec, const BoundsArgs& args) {
  fmt::print("scenario,sweep,scheme,K,T,j0,bound,kind,alpha,value,not_applicable\n");
  for (const auto& s : spec.scenarios) {
    const auto& alphas = !args.alphas.empty()       ? args.alphas
                         : !s.bounds.alphas.empty() ? s.bounds.alphas
                                                    : bounds::default_table_alphas();
    const auto sb = bounds::bounds_of(s);
    for (const auto& v : bounds::evaluate_scenario(sb, alphas)) {
      if (!v.applicable() && !args.show_reasons) continue;
      fmt::print("{},{},{},{},{},{},{},{},{:.17g},{},{}\n", s.index, csv_field(describe_point(s)),
                 config::to_string(s.scheme), sb.params.K, sb.params.T, sb.params.j0, v.name,
                 bounds::kind_name(v.kind), v.alpha,
                 v.applicable() ? fmt::format("{:.17g}", *v.value) : std::string(),
                 csv_field(v.not_applicable));
    }
  }
}

}  // namespace

int bounds_command(const BoundsArgs& args) {
  config::Overrides evaluate_only;  // the bounds need no simulation: no run-only checks
  evaluate_only.simulated = false;
  const auto spec = config::load_experiment(args.file, evaluate_only);
  if (args.csv) {
    print_csv(spec, args);
    return 0;
  }
  fmt::print(
      "analytic Renyi-DP bounds (upper bounds on R_alpha of the last iterate) for {} ({} "
      "scenario(s)); docs/bounds.md describes each bound\n",
      spec.name, spec.scenarios.size());
  if (args.delta > 0) {
    fmt::print("epsilon at delta = {:g}: minimised over alpha in 1.1..10.9, 11..64, 128..1024\n",
               args.delta);
  }
  for (const auto& s : spec.scenarios) {
    const auto& alphas = !args.alphas.empty()       ? args.alphas
                         : !s.bounds.alphas.empty() ? s.bounds.alphas
                                                    : bounds::default_table_alphas();
    print_scenario(s, alphas, args);
  }
  return 0;
}

}  // namespace rdpaudit::app
