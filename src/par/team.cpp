#include "rdpaudit/par/team.hpp"

#include <fmt/core.h>

#include <cstdlib>
#include <stdexcept>

#include "rdpaudit/core/error.hpp"

#ifdef RDPAUDIT_WITH_MPI
#include <mpi.h>
#endif

namespace rdpaudit::par {

namespace {
// The launcher's variable that says how many processes it started (Open MPI's mpirun, PMI
// and PMIx launchers such as srun); 0 when this process was started alone.
int launched_processes() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"}) {
    if (const char* v = std::getenv(name)) return std::atoi(v);
  }
  return 0;
}
}  // namespace

bool built_with_mpi() {
#ifdef RDPAUDIT_WITH_MPI
  return true;
#else
  return false;
#endif
}

#ifdef RDPAUDIT_WITH_MPI

namespace {
bool g_started = false;

template <class T>
MPI_Datatype type_of();
template <>
MPI_Datatype type_of<double>() {
  return MPI_DOUBLE;
}
template <>
MPI_Datatype type_of<std::int64_t>() {
  return MPI_INT64_T;
}

template <class T>
std::vector<std::vector<T>> gather_any(const std::vector<T>& mine) {
  if (!g_started) return {mine};
  const int n = size();
  long long count = static_cast<long long>(mine.size());
  std::vector<long long> counts(static_cast<std::size_t>(n));
  MPI_Gather(&count, 1, MPI_LONG_LONG, counts.data(), 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  std::vector<int> sizes(static_cast<std::size_t>(n)), offsets(static_cast<std::size_t>(n));
  long long total = 0;
  for (int r = 0; r < n; ++r) {
    if (counts[r] > (1LL << 30)) throw std::runtime_error("par::gather: message above 2^30");
    sizes[r] = static_cast<int>(counts[r]);
    offsets[r] = static_cast<int>(total);
    total += counts[r];
  }
  std::vector<T> all(root() ? static_cast<std::size_t>(total) : 0);
  MPI_Gatherv(mine.data(), static_cast<int>(count), type_of<T>(), all.data(), sizes.data(),
              offsets.data(), type_of<T>(), 0, MPI_COMM_WORLD);
  std::vector<std::vector<T>> out;
  if (!root()) return out;
  for (int r = 0; r < n; ++r)
    out.emplace_back(all.begin() + offsets[r], all.begin() + offsets[r] + sizes[r]);
  return out;
}
}  // namespace

Session::Session(int& argc, char**& argv) {
  // Started alone (no launcher): no MPI at all, so that a plain run, validate or check never
  // pays MPI's start-up (nor a singleton's daemon).
  if (launched_processes() == 0) return;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  g_started = true;
}

Session::~Session() {
  if (g_started) MPI_Finalize();
  g_started = false;
}

int rank() {
  int r = 0;
  if (g_started) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int size() {
  int n = 1;
  if (g_started) MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

std::string describe() {
  if (!g_started) return "1 process";
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string v(version, static_cast<std::size_t>(length));
  if (auto cut = v.find_first_of(",\n"); cut != std::string::npos) v = v.substr(0, cut);
  return fmt::format("MPI ({}), {} rank(s)", v, size());
}

std::vector<double> allgather(const std::vector<double>& mine) {
  std::vector<double> out;
  for (const auto& part : gather_any(mine)) out.insert(out.end(), part.begin(), part.end());
  std::int64_t n = broadcast(static_cast<std::int64_t>(out.size()));
  out.resize(static_cast<std::size_t>(n));
  if (g_started) MPI_Bcast(out.data(), static_cast<int>(n), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return out;
}

std::vector<std::vector<std::int64_t>> gather(const std::vector<std::int64_t>& mine) {
  return gather_any(mine);
}

std::vector<std::vector<double>> gather(const std::vector<double>& mine) {
  return gather_any(mine);
}

std::int64_t broadcast(std::int64_t value) {
  if (g_started) MPI_Bcast(&value, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  return value;
}

bool any(bool mine) {
  int v = mine ? 1 : 0, out = v;
  if (g_started) MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return out != 0;
}

void abort(int code) {
  if (g_started && size() > 1) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

#else  // one process

Session::Session(int&, char**&) {
  if (launched_processes() > 1) {
    throw InputError("mpirun / srun", fmt::format("{} processes", launched_processes()),
                     "this rdpaudit was built without MPI (cmake -DRDPAUDIT_MPI=ON with "
                     "libopenmpi-dev installed): each process would run the whole experiment");
  }
}
Session::~Session() = default;
int rank() {
  return 0;
}
int size() {
  return 1;
}
std::string describe() {
  return "no MPI (this build)";
}
std::vector<double> allgather(const std::vector<double>& mine) {
  return mine;
}
std::vector<std::vector<std::int64_t>> gather(const std::vector<std::int64_t>& mine) {
  return {mine};
}
std::vector<std::vector<double>> gather(const std::vector<double>& mine) {
  return {mine};
}
std::int64_t broadcast(std::int64_t value) {
  return value;
}
bool any(bool mine) {
  return mine;
}
void abort(int code) {
  std::exit(code);
}

#endif

}  // namespace rdpaudit::par
