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

// The python/ folder of this binary's tree: the source tree it was built from, or, for an
// installed binary whose source tree is gone, <prefix>/share/rdpaudit/python (cmake --install).
std::string python_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(RDPAUDIT_PYTHON_DIR, ec)) return RDPAUDIT_PYTHON_DIR;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share" / "rdpaudit" / "python";
    if (fs::is_directory(installed, ec)) return installed.string();
  }
  throw InputError("plot", RDPAUDIT_PYTHON_DIR,
                   "the plotting scripts are not there (a moved source tree?); reinstall with "
                   "cmake --install");
}

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
  // The plots go into a folder, made where missing: a file (or anything else) at --out would
  // fail in Python's makedirs with a traceback after the results were read.
  std::error_code ec;
  if (!out_dir.empty() && std::filesystem::exists(out_dir, ec) &&
      !std::filesystem::is_directory(out_dir, ec))
    throw InputError("--out", out_dir, "a folder for the plots (made if missing); a file is there");
  const char* env = std::getenv("RDPAUDIT_PYTHON");
  const std::string python = env && *env ? env : "/usr/bin/python3";
  // The reader this binary's tree ships (python/rdpaudit) comes first on the path: it knows the
  // format this binary writes, whichever copy of the package is installed.
  const char* user_path = std::getenv("PYTHONPATH");
  const std::string dir = python_dir();
  const std::string python_path =
      dir + (user_path && *user_path ? std::string(":") + user_path : "");
  std::string command = "PYTHONPATH=" + quoted(python_path) + " " + quoted(python) + " " +
                        quoted(dir + "/plots/audit_plots.py") + " " + quoted(file);
  if (!out_dir.empty()) command += " --out " + quoted(out_dir);
  const int status = std::system(command.c_str());
  if (status == -1) return 1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace rdpaudit::app
