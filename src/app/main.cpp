// rdpaudit command line (work in progress: subcommands land with the config and simulator).
#include <cstdio>

#include "rdpaudit/build_info.hpp"

int main() {
  std::printf("rdpaudit %s (%s)\n", rdpaudit::build_info::tool_version,
              rdpaudit::build_info::git_hash);
  return 0;
}
