#include "rdpaudit/core/memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

namespace rdpaudit {

std::uint64_t memory_limit() {
  std::uint64_t limit = 0;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0)
    limit = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
  for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    struct rlimit r {};
    if (::getrlimit(resource, &r) == 0 && r.rlim_cur != RLIM_INFINITY) {
      const auto cur = static_cast<std::uint64_t>(r.rlim_cur);
      limit = limit == 0 ? cur : std::min(limit, cur);
    }
  }
  return limit;
}

}  // namespace rdpaudit
