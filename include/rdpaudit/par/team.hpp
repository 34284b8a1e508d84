// The processes of one run: MPI ranks when rdpaudit is built with MPI and started by mpirun
// or srun, else one process. Everything a run exchanges between ranks goes through here:
// pilot rows (allgather), the counting states of a slab (gathered on rank 0 in rank order),
// and rank 0's decisions (broadcast). Without MPI every call is the identity.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rdpaudit::par {

/// Starts MPI when built with it (MPI_Init_thread, funneled: only the thread that called
/// it talks to MPI; OpenMP threads never do) and finalizes it on destruction. One per
/// process, in main. Without MPI: refuses to run as one of several processes of a launcher
/// (OMPI_COMM_WORLD_SIZE, PMI_SIZE > 1): each would write the same file.
class Session {
 public:
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};

/// Ids [begin, end): the share `index` (0-based) of `parts` contiguous shares of the ids
/// first ... first + count - 1, as even as whole ids allow. The one rule by which ranks split
/// the pilot and each slab and by which `--part i/N` splits a run: every way of splitting
/// the same ids gives the same shares.
struct Share {
  std::int64_t begin = 0, end = 0;
};
inline Share share(std::int64_t first, std::int64_t count, int index, int parts) {
  return {first + count * index / parts, first + count * (index + 1) / parts};
}

/// The world's ranks.
int rank();
int size();
inline bool root() {
  return rank() == 0;
}
/// "MPI (Open MPI 4.1.4), 4 ranks on host1, host2" or "no MPI (this build)".
std::string describe();
bool built_with_mpi();

/// Every rank's values concatenated in rank order, on every rank.
std::vector<double> allgather(const std::vector<double>& mine);
/// Every rank's vector on rank 0, in rank order (other ranks get an empty result).
std::vector<std::vector<std::int64_t>> gather(const std::vector<std::int64_t>& mine);
std::vector<std::vector<double>> gather(const std::vector<double>& mine);
/// Rank 0's value on every rank.
std::int64_t broadcast(std::int64_t value);
/// True on every rank when `mine` is true on any rank.
bool any(bool mine);
/// Ends every rank with `code` (after an error found by one rank only).
[[noreturn]] void abort(int code);

}  // namespace rdpaudit::par
