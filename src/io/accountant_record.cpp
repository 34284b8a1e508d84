#include "rdpaudit/io/accountant_record.hpp"

#include <string>
#include <vector>

namespace rdpaudit::io {

void write_accountant_records(const Group& root, const std::vector<config::AccountantRun>& runs) {
  if (runs.empty()) return;
  const Group all = root.create_group("accountants");
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const config::AccountantRun& run = runs[k];
    const Group g = all.create_group(std::to_string(k));
    g.attr("bound", run.bound);
    g.attr("command", run.command);
    g.attr("directory", run.directory);
    std::vector<std::string> files, hashes;
    for (const auto& [file, hash] : run.file_sha256) {
      files.push_back(file);
      hashes.push_back(hash);
    }
    g.attr("files", files);
    g.attr("files_sha256", hashes);
    g.attr("input", run.input);
    g.attr("output", run.output);
    g.attr("how", run.how);
  }
}

std::vector<config::AccountantRun> read_accountant_records(const Group& root) {
  std::vector<config::AccountantRun> runs;
  if (!root.has("accountants")) return runs;
  const Group all = root.open_group("accountants");
  const std::vector<std::string> names = all.group_names();
  for (std::size_t k = 0; k < names.size(); ++k) {
    const std::string name = std::to_string(k);
    if (!all.has(name)) all.fail(name, "<missing>", "one group per run, 0, 1, ...");
    const Group g = all.open_group(name);
    config::AccountantRun run;
    run.bound = g.read_string_attr("bound");
    run.command = g.read_string_attrs("command");
    run.directory = g.read_string_attr("directory");
    const auto files = g.read_string_attrs("files");
    const auto hashes = g.read_string_attrs("files_sha256");
    if (files.size() != hashes.size())
      g.fail("files_sha256", std::to_string(hashes.size()), "one hash per file");
    for (std::size_t f = 0; f < files.size(); ++f)
      run.file_sha256.emplace_back(files[f], hashes[f]);
    run.input = g.read_string_attr("input");
    run.output = g.read_string_attr("output");
    run.how = g.read_string_attr("how");
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace rdpaudit::io
