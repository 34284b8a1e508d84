#include "rdpaudit/bounds/accountant.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "accountant_json.hpp"
#include "rdpaudit/bounds/params.hpp"
#include "rdpaudit/bounds/scenario.hpp"
#include "rdpaudit/config/noise.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/core/sha256.hpp"

namespace rdpaudit::bounds {

namespace detail {

std::string quoted_list(const std::vector<std::string>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += std::string(i ? ", " : "") + "\"" + v[i] + "\"";
  return out + "]";
}

}  // namespace detail

namespace {

using detail::Json;
using detail::json_number;
using detail::json_string;
using detail::JsonParser;
using detail::parse_number;
using detail::quoted_list;
using detail::type_name;

std::string custom_key(std::size_t i, const std::string& leaf) {
  return "bounds.custom[" + std::to_string(i) + "]." + leaf;
}

std::string quoted(const std::string& s) {
  return "\"" + s + "\"";
}

/// The folder relative paths of the experiment file are taken from (its own folder).
std::filesystem::path experiment_folder(const config::ExperimentSpec& spec) {
  const std::filesystem::path folder = std::filesystem::path(spec.source_path).parent_path();
  return folder.empty() ? std::filesystem::path(".") : folder;
}

// ---- the values file ----

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> split_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) cells.push_back(trim(cell));
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

/// A whole cell as a double (strtod: decimal, exponent, inf, nan), or nothing.
struct CsvRow {
  int line;
  std::vector<double> keys;  ///< the swept keys' numbers (NaN for a text key)
  std::vector<std::string> key_text;
  double alpha, value;
};

/// Where a values_file's values go: a custom bound's R_alpha at bounds.alphas, or a claim's
/// eps at profile.deltas.
struct TableTarget {
  std::string key;           ///< bounds.custom[i].values_file or profile.claims[i].values_file
  std::string file;          ///< as written
  std::string order_column;  ///< "alpha" or "delta"
  bool finite_only;          ///< a claimed eps must be finite
  std::function<const std::vector<double>&(const config::Scenario&)> orders;
  std::function<std::vector<double>&(config::Scenario&)> values;
};

constexpr std::uintmax_t kMaxValuesFileBytes = std::uintmax_t{64} << 20;

/// A cell of a values file as a message may quote it: only what could be a key, a name or a
/// number (a file named by mistake is never echoed, whatever it holds).
std::string shown_cell(const std::string& cell) {
  const bool plain = cell.size() <= 40 && std::all_of(cell.begin(), cell.end(), [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
                              c == '+' || c == '-';
                     });
  return plain ? "\"" + cell + "\"" : "(not shown: not a name or a number)";
}

/// The lookup key of a row: its swept cells (a number by its value, a text key as written)
/// and its order; equal keys are the same scenario and order.
std::string row_key(const std::vector<double>& keys, const std::vector<std::string>& text,
                    double order) {
  std::string k;
  const auto add = [&k](double v) {
    if (v == 0) v = 0;  // -0 is 0
    char bytes[sizeof v];
    std::memcpy(bytes, &v, sizeof v);
    k.append(bytes, sizeof v);
  };
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (std::isnan(keys[i])) {
      k += 't' + std::to_string(text[i].size()) + ':' + text[i];
    } else {
      k += 'n';
      add(keys[i]);
    }
  }
  add(order);
  return k;
}

/// Reads a values_file and fills every scenario's values, one per order.
void resolve_values_file(config::ExperimentSpec& spec, const TableTarget& target) {
  const std::string& key = target.key;
  const std::string shown = quoted(target.file);
  const std::string& order_column = target.order_column;
  std::filesystem::path path(target.file);
  if (path.is_relative()) path = experiment_folder(spec) / path;
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    throw InputError(key, shown, "is not a regular file (" + path.string() + ")");
  const auto bytes = std::filesystem::file_size(path, ec);
  if (!ec && bytes > kMaxValuesFileBytes)
    throw InputError(key, shown,
                     fmt::format("is {} bytes; a values file has at most 64 MiB", bytes));
  std::ifstream in(path);
  if (!in)
    throw InputError(
        key, shown,
        "cannot be opened (looked for " + path.string() + ", relative to the experiment file)");
  const std::vector<std::string>& swept = spec.swept_keys;
  std::string line;
  int number = 0;
  std::vector<std::string> header;
  while (header.empty() && std::getline(in, line)) {
    ++number;
    if (!trim(line).empty() && trim(line)[0] != '#') header = split_cells(line);
  }
  if (header.empty()) throw InputError(key, shown, "is empty (a header line is needed)");
  // Column of each swept key, then alpha and value.
  std::vector<std::string> wanted = swept;
  wanted.push_back(order_column);
  wanted.push_back("value");
  std::vector<std::size_t> column(wanted.size(), header.size());
  for (std::size_t h = 0; h < header.size(); ++h) {
    std::size_t w = 0;
    while (w < wanted.size() && wanted[w] != header[h]) ++w;
    if (w == wanted.size()) {
      throw InputError(
          key, shown,
          fmt::format("line {}: unknown column {} (the columns are the swept "
                      "keys, {} and value: {})",
                      number, shown_cell(header[h]), order_column, quoted_list(wanted)));
    }
    if (column[w] != header.size())
      throw InputError(key, shown,
                       fmt::format("line {}: column {} twice", number, shown_cell(header[h])));
    column[w] = h;
  }
  for (std::size_t w = 0; w < wanted.size(); ++w) {
    if (column[w] == header.size()) {
      throw InputError(key, shown,
                       fmt::format("line {}: no column \"{}\" (the columns are the swept keys, "
                                   "{} and value: {})",
                                   number, wanted[w], order_column, quoted_list(wanted)));
    }
  }
  std::vector<CsvRow> rows;
  std::unordered_map<std::string, std::size_t> index;
  while (std::getline(in, line)) {
    ++number;
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    const std::vector<std::string> cells = split_cells(line);
    if (cells.size() != header.size()) {
      throw InputError(
          key, shown,
          fmt::format("line {}: {} cells; the header has {}", number, cells.size(), header.size()));
    }
    CsvRow row{number, {}, {}, 0, 0};
    for (std::size_t w = 0; w < wanted.size(); ++w) {
      const std::string& cell = cells[column[w]];
      const auto v = parse_number(cell);
      // Swept text keys (training.scheme) are compared as written; all else is a number.
      const bool text_key =
          w < swept.size() && std::isnan(spec.scenarios.front().sweep_point[w].number);
      if (!v && !text_key) {
        throw InputError(
            key, shown,
            fmt::format("line {}: {} = {} is not a number", number, wanted[w], shown_cell(cell)));
      }
      if (w == wanted.size() - 1 && target.finite_only && !std::isfinite(*v)) {
        throw InputError(
            key, shown,
            fmt::format("line {}: value = {} is not a finite eps", number, shown_cell(cell)));
      }
      if (w < swept.size()) {
        row.keys.push_back(text_key ? kNaN : *v);
        row.key_text.push_back(cell);
      } else {
        (w == swept.size() ? row.alpha : row.value) = *v;
      }
    }
    // One hash lookup a row and a cell: 10^5 scenarios x orders take no longer to match
    // than to read.
    const auto [at, fresh] = index.emplace(row_key(row.keys, row.key_text, row.alpha), rows.size());
    if (!fresh) {
      throw InputError(key, shown,
                       fmt::format("line {}: a second row for the scenario and {} of line {}",
                                   number, order_column, rows[at->second].line));
    }
    rows.push_back(std::move(row));
  }
  for (config::Scenario& s : spec.scenarios) {
    std::vector<double>& mine = target.values(s);
    mine.clear();
    for (double alpha : target.orders(s)) {
      std::vector<double> keys;
      std::vector<std::string> text;
      for (const config::SweepValue& sv : s.sweep_point) {
        keys.push_back(sv.number);
        text.push_back(sv.text);
      }
      const auto at = index.find(row_key(keys, text, alpha));
      const CsvRow* found = at == index.end() ? nullptr : &rows[at->second];
      if (!found) {
        std::string where;
        for (const config::SweepValue& sv : s.sweep_point)
          where += fmt::format("{} = {}, ", sv.key, sv.text);
        throw InputError(key, shown,
                         fmt::format("no row for {}{} = {:g} (scenario {}; one row per "
                                     "scenario and {})",
                                     where, order_column, alpha, s.index,
                                     order_column == "alpha" ? "order of bounds.alphas"
                                                             : "delta of profile.deltas"));
      }
      mine.push_back(found->value);
    }
  }
}

// ---- the command ----

/// The first `lines` lines of `text` (at most 1000 characters), for a message.
std::string first_lines(const std::string& text, int lines) {
  std::size_t end = 0;
  for (int l = 0; l < lines && end < text.size(); ++l) {
    const std::size_t next = text.find('\n', end);
    end = next == std::string::npos ? text.size() : next + 1;
  }
  std::string out = trim(text.substr(0, end));
  while (!out.empty() && out.back() == '\n') out.pop_back();
  if (out.size() > 1000) out = out.substr(0, 1000) + " ...";
  return out;
}

std::string stderr_part(const CommandResult& r) {
  const std::string head = first_lines(r.err, 5);
  return head.empty() ? "; its stderr is empty" : "; its stderr begins:\n" + head;
}

std::string file_sha256(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  Sha256 h;
  char buffer[1 << 16];
  while (in) {
    in.read(buffer, sizeof buffer);
    h.update(buffer, static_cast<std::size_t>(in.gcount()));
  }
  return h.hex();
}

// The values of custom bound i from the output recorded with the same bound, command and input
// (the checkpoint or part file's): no program runs.
void use_recorded_output(config::ExperimentSpec& spec, std::size_t i, const CommandPolicy& policy,
                         config::AccountantRun record) {
  const std::string key = custom_key(i, "command");
  const config::CustomBoundText& c = spec.scenarios.front().bounds.custom[i];
  const auto same = [&](const config::AccountantRun& r) {
    return r.bound == record.bound && r.command == record.command && r.input == record.input &&
           r.how != "listed";
  };
  const auto found = std::find_if(policy.recorded.begin(), policy.recorded.end(), same);
  if (found == policy.recorded.end()) {
    throw InputError(key, quoted_list(c.command),
                     "has no recorded output for this experiment in the file read (rdpaudit "
                     "never runs a program named in a checkpoint or part file)");
  }
  std::vector<std::vector<double>> values;
  try {
    values = parse_accountant_output(found->output, spec.scenarios.size(),
                                     spec.scenarios.front().bounds.alphas.size());
  } catch (const std::runtime_error& e) {
    throw InputError(key, quoted_list(c.command),
                     std::string("its recorded output is not a values document: ") + e.what());
  }
  for (std::size_t s = 0; s < spec.scenarios.size(); ++s)
    spec.scenarios[s].bounds.custom[i].values = values[s];
  record.output = found->output;
  record.file_sha256 = found->file_sha256;  // the files as they were when it ran
  record.how = "recorded";
  spec.accountant_runs.push_back(std::move(record));
}

void resolve_command(config::ExperimentSpec& spec, std::size_t i, const CommandPolicy& policy) {
  const config::CustomBoundText& c = spec.scenarios.front().bounds.custom[i];
  const std::string key = custom_key(i, "command");
  const std::string shown = quoted_list(c.command);
  const std::filesystem::path folder = experiment_folder(spec);
  config::AccountantRun record;
  record.bound = c.name;
  record.command = c.command;
  record.directory = folder.string();
  for (const std::string& arg : c.command) {
    std::error_code ec;
    std::filesystem::path p(arg);
    if (p.is_relative()) p = folder / p;
    if (!arg.empty() && std::filesystem::is_regular_file(p, ec))
      record.file_sha256.emplace_back(arg, file_sha256(p));
  }
  record.input = accountant_input_json(spec, i);
  if (policy.use == CommandUse::kRefuse) {
    throw InputError(
        key, shown, fmt::format("names a program to run in {}; {}", folder.string(), kConsentHint));
  }
  if (policy.use == CommandUse::kList) {
    record.how = "listed";
    spec.accountant_runs.push_back(std::move(record));
    return;  // its values stay NaN: not applicable until it runs
  }
  if (policy.use == CommandUse::kRecorded) {
    use_recorded_output(spec, i, policy, std::move(record));
    return;
  }
  const CommandResult r =
      run_accountant_command(c.command, folder.string(), record.input, c.timeout_s);
  if (!r.start_error.empty())
    throw InputError(key, shown, "cannot be started in " + folder.string() + ": " + r.start_error);
  if (r.timed_out) {
    throw InputError(key, shown,
                     fmt::format("did not finish within {} = {:g} s and was killed{}",
                                 custom_key(i, "timeout_s"), c.timeout_s, stderr_part(r)));
  }
  if (r.status != 0) {
    throw InputError(key, shown,
                     (r.status > 0 ? fmt::format("exited with status {}", r.status)
                                   : std::string("was killed by a signal")) +
                         stderr_part(r));
  }
  std::vector<std::vector<double>> values;
  try {
    values = parse_accountant_output(r.out, spec.scenarios.size(),
                                     spec.scenarios.front().bounds.alphas.size());
  } catch (const std::runtime_error& e) {
    const std::string head = first_lines(r.out, 3);
    throw InputError(
        key, shown,
        fmt::format("its output is not {{\"values\": [[one value per order] per "
                    "scenario]}}: {}; its output {}{}",
                    e.what(), head.empty() ? "is empty" : "begins: " + head, stderr_part(r)));
  }
  for (std::size_t s = 0; s < spec.scenarios.size(); ++s)
    spec.scenarios[s].bounds.custom[i].values = values[s];
  record.output = r.out;
  record.how = "ran";
  spec.accountant_runs.push_back(std::move(record));
}

}  // namespace

CustomBoundSpec custom_bound_spec(const config::CustomBoundText& c,
                                  const std::vector<double>& alphas) {
  CustomBoundSpec spec{c.name, c.formula, c.conditions};
  if (!c.formula.empty()) return spec;
  spec.tabulated = true;
  spec.alphas = alphas;
  spec.values = c.values;
  spec.values.resize(alphas.size(), kNaN);  // unresolved (config read alone): not applicable
  if (!c.command.empty()) {
    spec.source = "accountant command " + quoted_list(c.command);
  } else if (!c.values_file.empty()) {
    spec.source = "accountant values_file " + quoted(c.values_file);
  } else {
    spec.source = "accountant values";
  }
  return spec;
}

const char* const kConsentHint =
    "rdpaudit runs a program named in an experiment file only with consent: pass "
    "--allow-commands (or set RDPAUDIT_ALLOW_COMMANDS=1) once you have read it; `rdpaudit "
    "validate` lists it and the SHA-256 of its files without running it";

CommandPolicy consent_from(bool flag, CommandUse otherwise) {
  const char* env = std::getenv("RDPAUDIT_ALLOW_COMMANDS");
  const bool allowed = flag || (env != nullptr && std::string(env) == "1");
  return CommandPolicy{allowed ? CommandUse::kRun : otherwise, {}};
}

void resolve_accountant_values(config::ExperimentSpec& spec, const CommandPolicy& policy) {
  if (spec.scenarios.empty()) return;
  const std::vector<double>& alphas = spec.scenarios.front().bounds.alphas;
  const std::size_t count = spec.scenarios.front().bounds.custom.size();
  for (const config::Scenario& s : spec.scenarios) {
    if (s.bounds.alphas != alphas || s.bounds.custom.size() != count ||
        s.profile.claims.size() != spec.scenarios.front().profile.claims.size())
      throw InternalError(
          "resolve_accountant_values: every scenario has the same orders and "
          "custom bounds");
  }
  for (std::size_t i = 0; i < count; ++i) {
    const config::CustomBoundText& c = spec.scenarios.front().bounds.custom[i];
    if (!c.values_file.empty()) {
      resolve_values_file(
          spec,
          {custom_key(i, "values_file"), c.values_file, "alpha", false,
           [](const config::Scenario& s) -> const std::vector<double>& { return s.bounds.alphas; },
           [i](config::Scenario& s) -> std::vector<double>& { return s.bounds.custom[i].values; }});
    }
    if (!c.command.empty()) resolve_command(spec, i, policy);
  }
  const std::size_t claims = spec.scenarios.front().profile.claims.size();
  for (std::size_t i = 0; i < claims; ++i) {
    const config::ClaimText& c = spec.scenarios.front().profile.claims[i];
    if (c.values_file.empty()) continue;
    resolve_values_file(
        spec,
        {"profile.claims[" + std::to_string(i) + "].values_file", c.values_file, "delta", true,
         [](const config::Scenario& s) -> const std::vector<double>& { return s.profile.deltas; },
         [i](config::Scenario& s) -> std::vector<double>& {
           return s.profile.claims[i].epsilons;
         }});
  }
}

std::string accountant_input_json(const config::ExperimentSpec& spec, std::size_t bound) {
  const config::Scenario& first = spec.scenarios.front();
  std::string out = "{\n";
  out += "  \"format\": \"rdpaudit accountant input 1\",\n";
  out += "  \"bound\": " + json_string(first.bounds.custom.at(bound).name) + ",\n";
  out += "  \"experiment\": " + json_string(spec.name) + ",\n";
  out += "  \"orders\": [";
  for (std::size_t a = 0; a < first.bounds.alphas.size(); ++a)
    out += (a ? ", " : "") + json_number(first.bounds.alphas[a]);
  out += "],\n  \"scenarios\": [";
  for (std::size_t k = 0; k < spec.scenarios.size(); ++k) {
    const config::Scenario& s = spec.scenarios[k];
    const Params p = bounds_of(s).params;
    const double b = batch_normaliser(p);
    const double z = std::isnan(p.clip_norm) ? kNaN
                                             : config::noise_multiplier_from_step_std(
                                                   p.step_std, p.eta, p.clip_norm, b);
    std::string sweep;
    for (const config::SweepValue& sv : s.sweep_point) {
      sweep += (sweep.empty() ? "" : ", ") + json_string(sv.key) + ": " +
               (std::isnan(sv.number) ? json_string(sv.text) : json_number(sv.number));
    }
    out += k ? ",\n    {" : "\n    {";
    out += fmt::format("\"index\": {}, \"sweep\": {{{}}},\n", s.index, sweep);
    out += fmt::format("     \"loss\": {}, \"scheme\": {}, \"adjacency\": {},\n",
                       json_string(to_string(s.loss)), json_string(to_string(s.scheme)),
                       json_string(to_string(s.data.adjacency)));
    out += fmt::format(
        "     \"n\": {}, \"b\": {}, \"batch_size\": {}, \"q\": {}, \"T\": {}, \"K\": {}, "
        "\"eta\": {},\n",
        p.n, json_number(b), s.batch_size, json_number(sampling_rate(p)), p.T, p.K,
        json_number(p.eta));
    out += fmt::format("     \"z\": {}, \"C\": {}, \"S_g\": {}, \"step_sensitivity\": {},\n",
                       json_number(z), json_number(p.clip_norm), json_number(p.S_g),
                       json_number(step_sensitivity(p)));
    out += fmt::format(
        "     \"noise\": {{\"key\": {}, \"value\": {}, \"step_std\": {}, \"sigma\": {}, "
        "\"sigma2\": {}, \"paper_noise_multiplier\": {}, \"noise_multiplier\": {}, "
        "\"blog_sigma\": {}, \"step_noise_ratio\": {}}},\n",
        json_string(to_string(s.noise_key)), json_number(s.noise_value), json_number(p.step_std),
        json_number(config::sigma_from_step_std(p.step_std, p.eta)), json_number(alg1_sigma2(p)),
        json_number(alg2_sigma_mul(p)), json_number(z), json_number(blog_sigma(p)),
        json_number(step_noise_ratio(p)));
    out += fmt::format("     \"lambda\": {}, \"beta\": {}, \"L\": {}, \"D\": {}, \"j0\": {}}}",
                       json_number(p.lambda), json_number(p.beta), json_number(p.L),
                       json_number(p.D), p.j0);
  }
  out += "\n  ]\n}\n";
  return out;
}

std::vector<std::vector<double>> parse_accountant_output(const std::string& text,
                                                         std::size_t scenarios,
                                                         std::size_t orders) {
  if (trim(text).empty()) throw std::runtime_error("no output");
  const Json doc = JsonParser(text).document();
  if (doc.type != Json::Type::kObject)
    throw std::runtime_error(fmt::format("the document is {}, not an object", type_name(doc.type)));
  const Json* values = nullptr;
  for (const auto& [k, v] : doc.members)
    if (k == "values") values = &v;
  if (!values) throw std::runtime_error("no key \"values\"");
  if (values->type != Json::Type::kArray || values->items.size() != scenarios) {
    throw std::runtime_error(fmt::format(
        "\"values\" is {}{}; one array per scenario ({}) is needed", type_name(values->type),
        values->type == Json::Type::kArray ? fmt::format(" of {}", values->items.size()) : "",
        scenarios));
  }
  std::vector<std::vector<double>> out(scenarios);
  for (std::size_t s = 0; s < scenarios; ++s) {
    const Json& row = values->items[s];
    if (row.type != Json::Type::kArray || row.items.size() != orders) {
      throw std::runtime_error(fmt::format(
          "values[{}] is {}{}; one value per order of bounds.alphas ({}) is needed", s,
          type_name(row.type),
          row.type == Json::Type::kArray ? fmt::format(" of {}", row.items.size()) : "", orders));
    }
    for (std::size_t a = 0; a < orders; ++a) {
      const Json& v = row.items[a];
      if (v.type != Json::Type::kNumber && v.type != Json::Type::kNull) {
        throw std::runtime_error(
            fmt::format("values[{}][{}] is {}, not a number or null", s, a, type_name(v.type)));
      }
      out[s].push_back(v.type == Json::Type::kNull ? kNaN : v.number);
    }
  }
  return out;
}

}  // namespace rdpaudit::bounds
