// `rdpaudit plot RESULTS.h5`: the audit's figures, drawn by python/plots/audit_plots.py
// (h5py and matplotlib from Debian, through /usr/bin/python3 unless $RDPAUDIT_PYTHON says
// otherwise).
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "commands.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/io/results_reader.hpp"

namespace rdpaudit::app {

namespace {

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

int plot_command(const std::string& file, const std::string& out_dir) {
  if (!std::filesystem::is_regular_file(file)) {
    throw InputError("RESULTS", file, "an existing results file");
  }
  // The same checks as check and report (exit 2 on a damaged file) before Python reads it.
  (void)io::read_results(file);
  const char* env = std::getenv("RDPAUDIT_PYTHON");
  const std::string python = env && *env ? env : "/usr/bin/python3";
  // The reader this binary's tree ships (python/rdpaudit) comes first on the path: it knows the
  // format this binary writes, whichever copy of the package is installed.
  const char* user_path = std::getenv("PYTHONPATH");
  const std::string python_path = std::string(RDPAUDIT_PYTHON_DIR) +
                                  (user_path && *user_path ? std::string(":") + user_path : "");
  std::string command = "PYTHONPATH=" + quoted(python_path) + " " + quoted(python) + " " +
                        quoted(std::string(RDPAUDIT_PYTHON_DIR) + "/plots/audit_plots.py") + " " +
                        quoted(file);
  if (!out_dir.empty()) command += " --out " + quoted(out_dir);
  const int status = std::system(command.c_str());
  if (status == -1) return 1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace rdpaudit::app
