#include "rdpaudit/io/accountant_record.hpp"

#include <string>
#include <vector>

namespace rdpaudit::io {

void write_accountant_records(const Group& root, const config::ExperimentSpec& spec) {
  if (spec.accountant_runs.empty()) return;
  const Group all = root.create_group("accountants");
  for (std::size_t k = 0; k < spec.accountant_runs.size(); ++k) {
    const config::AccountantRun& run = spec.accountant_runs[k];
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
  }
}

}  // namespace rdpaudit::io
