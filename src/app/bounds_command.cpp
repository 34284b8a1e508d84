// `rdpaudit bounds FILE`: every applicable bound of every scenario at every order, as a
// table; optionally the (epsilon, delta) each bound implies, at a given delta or epsilon.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "commands.hpp"
#include "rdpaudit/bounds/conversion.hpp"
#include "rdpaudit/bounds/experiment.hpp"
#include "rdpaudit/bounds/pld.hpp"
#include "rdpaudit/bounds/profile_bounds.hpp"
#include "rdpaudit/bounds/scenario.hpp"
#include "rdpaudit/config/traits.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::app {

namespace {

// The RDP -> (epsilon, delta) grid: Google dp_accounting's default orders (1.1 ... 10.9 in
// steps of 0.1, 11 ... 63, 128, 256, 512, 1024), plus 64, the largest order of the
// estimators' grid (config::estimation_orders).
std::vector<double> conversion_alphas() {
  std::vector<double> a;
  for (int i = 11; i <= 109; ++i) a.push_back(i / 10.0);
  for (int i = 11; i <= 64; ++i) a.push_back(i);
  for (double x : {128.0, 256.0, 512.0, 1024.0}) a.push_back(x);
  return a;
}

// One bound's RDP curve over the conversion grid, converted both ways where asked: Mironov
// 2017 Prop. 3 and Canonne-Kamath-Steinke 2020 Prop. 12 (bounds/conversion.hpp).
struct Conversion {
  bool negative = false;  ///< some order gives a negative value (footnote 4 as printed)
  std::optional<bounds::EpsilonDelta> eps_mironov, eps_improved;
  std::optional<bounds::DeltaEpsilon> delta_mironov, delta_improved;
};

std::map<std::string, Conversion> conversions(const bounds::ScenarioBounds& sb,
                                              const BoundsArgs& args) {
  std::map<std::string, Conversion> out;
  if (!(args.delta > 0) && !(args.epsilon >= 0)) return out;
  // Only the orders where the bound applies: each one gives a valid (epsilon, delta).
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> curves;
  for (const auto& v : bounds::evaluate_scenario(sb, conversion_alphas())) {
    if (!v.applicable()) continue;
    curves[v.name].first.push_back(v.alpha);
    curves[v.name].second.push_back(*v.value);
  }
  for (const auto& [name, curve] : curves) {
    const auto& [a, rdp] = curve;
    Conversion& c = out[name];
    if (*std::min_element(rdp.begin(), rdp.end()) < 0) {
      c.negative = true;  // not an RDP curve (docs/bounds.md section 8), nothing to convert
      continue;
    }
    if (args.delta > 0) {
      c.eps_mironov = bounds::epsilon_mironov(a, rdp, args.delta);
      c.eps_improved = bounds::epsilon_improved(a, rdp, args.delta);
    }
    if (args.epsilon >= 0) {
      c.delta_mironov = bounds::delta_mironov(a, rdp, args.epsilon);
      c.delta_improved = bounds::delta_improved(a, rdp, args.epsilon);
    }
  }
  return out;
}

std::string cell(const bounds::BoundValue& v) {
  if (!v.applicable()) return "n/a";
  return std::isinf(*v.value) ? "inf" : fmt::format("{:.6g}", *v.value);
}

// "0.123457 @12": a converted value and the order that attains it.
template <typename T>
std::string at_order(const std::optional<T>& x, double T::*value) {
  return x ? fmt::format("{:.6g} @{:g}", (*x).*value, x->alpha) : std::string("n/a");
}

// The built-in privacy-profile bounds: eps at --delta (else at profile.deltas, else 1e-5),
// delta at --epsilon; reasons where one does not apply (with --show-reasons, or when none
// applies anywhere, one line).
void print_profile_bounds(const config::Scenario& s, const bounds::ScenarioBounds& sb,
                          const BoundsArgs& args) {
  const std::vector<double> deltas = args.delta > 0              ? std::vector<double>{args.delta}
                                     : !s.profile.deltas.empty() ? s.profile.deltas
                                                                 : std::vector<double>{1e-5};
  const auto eps = bounds::epsilon_bounds_of(sb, deltas);
  std::vector<bounds::ProfileValue> del;
  if (args.epsilon >= 0) del = bounds::delta_bounds_of(sb, {args.epsilon});
  const bool any = std::any_of(eps.begin(), eps.end(),
                               [](const bounds::ProfileValue& v) { return v.applicable(); });
  if (!any && !args.show_reasons) return;
  fmt::print("  privacy-profile bounds (docs/bounds.md section 10):\n");
  for (const auto& v : eps) {
    fmt::print("    {:<34} eps at delta = {:<8g} {}\n", v.name, v.at,
               v.applicable() ? fmt::format("{:.6g}", *v.value) : "n/a: " + v.not_applicable);
  }
  for (const auto& v : del) {
    fmt::print("    {:<34} delta at eps = {:<8g} {}\n", v.name, v.at,
               v.applicable() ? fmt::format("{:.6g}", *v.value) : "n/a: " + v.not_applicable);
  }
}

// Poisson scenarios: the PLD accountant's certified bracket of the same composition as
// mtz19_poisson_composition (sampled Gaussian, add/remove, T steps; docs/pld.md), at --delta
// and --epsilon.
void print_pld_composition(const config::Scenario& s, const bounds::ScenarioBounds& sb,
                           const BoundsArgs& args) {
  if (s.scheme != config::BatchScheme::kPoisson || (!(args.delta > 0) && !(args.epsilon >= 0))) {
    return;
  }
  const auto& p = sb.params;
  const double q = bounds::sampling_rate(p), z = bounds::step_noise_ratio(p);
  const auto line = [&](const std::string& what, auto&& f) {
    try {
      const bounds::pld::Interval r = f();
      fmt::print("    {:<34} {} in [{:.6g}, {:.6g}]\n", "PLD composition (add/remove)", what,
                 r.lower, r.upper);
    } catch (const InputError& e) {
      fmt::print("    {:<34} {} n/a: {}\n", "PLD composition (add/remove)", what, e.what());
    }
  };
  fmt::print("  PLD accountant, q = {:g}, z = {:g}, T = {} (docs/pld.md):\n", q, z, p.T);
  const auto add_remove = bounds::pld::Adjacency::kAddRemove;
  if (args.delta > 0) {
    line(fmt::format("eps at delta = {:g}", args.delta),
         [&] { return bounds::pld::epsilon_poisson_gaussian(q, z, p.T, args.delta, add_remove); });
  }
  if (args.epsilon >= 0) {
    line(fmt::format("delta at eps = {:g}", args.epsilon),
         [&] { return bounds::pld::delta_poisson_gaussian(q, z, p.T, args.epsilon, add_remove); });
  }
}

void print_scenario(const config::Scenario& s, const std::vector<double>& alphas,
                    const BoundsArgs& args) {
  const auto sb = bounds::bounds_of(s);
  const auto& p = sb.params;
  const std::string batch =
      config::scheme_info(s.scheme).sizing == config::BatchSizing::kExpected
          ? fmt::format("q = {:g} (q n = {:g})", s.sampling_rate, bounds::batch_normaliser(p))
          : fmt::format("b = {}", p.b);
  fmt::print(
      "\nscenario {} ({}): {} loss, {}, {} pair, n = {}, {}, eta = {:g}, sigma^2 = {:.6g}, "
      "K = {}, T = {}\n",
      s.index, describe_point(s), config::to_string(s.loss), config::to_string(s.scheme),
      config::to_string(s.data.adjacency), p.n, batch, p.eta, bounds::alg1_sigma2(p), p.K, p.T);
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
  if (args.delta > 0) header += fmt::format("  {:>18} {:>18}", "eps Mironov @a", "eps improved @a");
  if (args.epsilon >= 0)
    header += fmt::format("  {:>18} {:>18}", "delta Mironov @a", "delta improved @a");
  fmt::print("{}\n", header);

  const auto conv = conversions(sb, args);
  std::vector<std::string> reasons, relations;
  for (const auto& name : names) {
    const auto& row = by_name[name];
    // A bound that applies at any order is kept by --applicable; its reasons are listed for
    // the orders where it does not.
    const auto na = std::find_if(row.begin(), row.end(),
                                 [](const bounds::BoundValue* v) { return !v->applicable(); });
    const bool any = std::any_of(row.begin(), row.end(),
                                 [](const bounds::BoundValue* v) { return v->applicable(); });
    if (!any && !args.show_reasons) continue;
    std::string line = fmt::format("  {:<34}", name);
    for (const auto* v : row) line += fmt::format(" {:>11}", cell(*v));
    const auto c = conv.find(name);
    if (c != conv.end() && c->second.negative) {
      line += fmt::format("  {:>37}", "(negative RDP)");
    } else {
      const Conversion none;
      const Conversion& x = c != conv.end() ? c->second : none;
      if (args.delta > 0) {
        line +=
            fmt::format("  {:>18} {:>18}", at_order(x.eps_mironov, &bounds::EpsilonDelta::epsilon),
                        at_order(x.eps_improved, &bounds::EpsilonDelta::epsilon));
      }
      if (args.epsilon >= 0) {
        line +=
            fmt::format("  {:>18} {:>18}", at_order(x.delta_mironov, &bounds::DeltaEpsilon::delta),
                        at_order(x.delta_improved, &bounds::DeltaEpsilon::delta));
      }
    }
    fmt::print("{}\n", line);
    if (na != row.end()) {
      reasons.push_back(name + (any ? fmt::format(" (at alpha = {:g})", (*na)->alpha) : "") + ": " +
                        (*na)->not_applicable);
    }
    const std::string note =
        bounds::adjacency_mismatch(name, row.front()->adjacency, s.data.adjacency, s.data.absent);
    if (any && !note.empty()) relations.push_back(note);
  }
  if (!reasons.empty()) {
    fmt::print("  not applicable:\n");
    for (const auto& r : reasons) fmt::print("    {}\n", r);
  }
  if (!relations.empty()) {
    fmt::print("  neighbouring relation:\n");
    for (const auto& r : relations) fmt::print("    {}\n", r);
  }
  print_profile_bounds(s, sb, args);
  print_pld_composition(s, sb, args);
}

std::string csv_field(const std::string& text) {
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string full(double x) {
  return fmt::format("{:.17g}", x);
}

// The CSV's conversion columns of one bound: empty where it has no (epsilon, delta).
std::string csv_conversions(const std::map<std::string, Conversion>& conv, const std::string& name,
                            const BoundsArgs& args) {
  const auto c = conv.find(name);
  const bool ok = c != conv.end() && !c->second.negative;
  std::string out;
  if (args.delta > 0) {
    out +=
        ok ? fmt::format(",{},{},{},{}", full(c->second.eps_mironov->epsilon),
                         full(c->second.eps_mironov->alpha), full(c->second.eps_improved->epsilon),
                         full(c->second.eps_improved->alpha))
           : std::string(",,,,");
  }
  if (args.epsilon >= 0) {
    out += ok ? fmt::format(",{},{},{},{}", full(c->second.delta_mironov->delta),
                            full(c->second.delta_mironov->alpha),
                            full(c->second.delta_improved->delta),
                            full(c->second.delta_improved->alpha))
              : std::string(",,,,");
  }
  return out;
}

void print_csv(const config::ExperimentSpec& spec, const BoundsArgs& args) {
  std::string header =
      "scenario,sweep,scheme,adjacency,K,T,j0,bound,kind,bound_adjacency,alpha,value,not_"
      "applicable";
  if (args.delta > 0) header += ",eps_mironov,alpha_mironov,eps_improved,alpha_improved";
  if (args.epsilon >= 0)
    header += ",delta_mironov,alpha_delta_mironov,delta_improved,alpha_delta_improved";
  fmt::print("{}\n", header);
  for (const auto& s : spec.scenarios) {
    const auto& alphas = !args.alphas.empty() ? args.alphas : s.bounds.alphas;
    const auto sb = bounds::bounds_of(s);
    const auto conv = conversions(sb, args);
    for (const auto& v : bounds::evaluate_scenario(sb, alphas)) {
      if (!v.applicable() && !args.show_reasons) continue;
      fmt::print("{},{},{},{},{},{},{},{},{},{},{},{},{}{}\n", s.index,
                 csv_field(describe_point(s)), config::to_string(s.scheme),
                 config::to_string(s.data.adjacency), sb.params.K, sb.params.T, sb.params.j0,
                 v.name, bounds::kind_name(v.kind), config::to_string(v.adjacency), full(v.alpha),
                 v.applicable() ? full(*v.value) : std::string(), csv_field(v.not_applicable),
                 csv_conversions(conv, v.name, args));
    }
  }
}

}  // namespace

int bounds_command(const BoundsArgs& args) {
  config::Overrides evaluate_only;  // the bounds need no simulation: no run-only checks
  evaluate_only.simulated = false;
  const auto spec =
      bounds::load_experiment(args.file, evaluate_only, bounds::consent_from(args.allow_commands));
  if (args.csv) {
    print_csv(spec, args);
    return 0;
  }
  fmt::print(
      "analytic Renyi-DP bounds (upper bounds on R_alpha of the last iterate) for {} ({} "
      "scenario(s)); docs/bounds.md describes each bound\n",
      spec.name, spec.scenarios.size());
  const char* grid = "alpha in 1.1..10.9 (step 0.1), 11..64, 128, 256, 512, 1024";
  if (args.delta > 0) {
    fmt::print("epsilon at delta = {:g}: minimised over {} (@: the order)\n", args.delta, grid);
  }
  if (args.epsilon >= 0) {
    fmt::print("delta at epsilon = {:g}: minimised over {} (@: the order)\n", args.epsilon, grid);
  }
  for (const auto& s : spec.scenarios) {
    const auto& alphas = !args.alphas.empty() ? args.alphas : s.bounds.alphas;
    print_scenario(s, alphas, args);
  }
  return 0;
}

}  // namespace rdpaudit::app
