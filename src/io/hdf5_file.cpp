// Whole HDF5 files: written to a temporary and renamed after a verified close (AtomicFile),
// opened read-only (ReadOnlyFile); the output name's limit; the library's start and end.
#include <fcntl.h>
#include <fmt/core.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "hdf5_detail.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/core/interrupt.hpp"
#include "rdpaudit/io/hdf5.hpp"

namespace rdpaudit::io {

using detail::check;
using detail::check_status;
using detail::fail_write;
using detail::Handle;
using detail::hdf5_reason;

namespace {

// Reads back what was written: the file opens, its size on disk covers HDF5's end of
// allocation (a short write leaves it shorter), and every object header can be read.
void verify_written(const FileInfo& info) {
  detail::ensure_headroom(&info, "read the closed file back");
  const hid_t f = H5Fopen(info.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) fail_write(&info, "read the closed file back");
  Handle file{f, H5Fclose};
  hsize_t size = 0;
  haddr_t eoa = 0;
  check_status(H5Fget_filesize(f, &size), &info, "/", "read the size of the closed file");
  check_status(H5Fget_eoa(f, &eoa), &info, "/", "read the end of allocation of the closed file");
  if (size < eoa) {
    throw ResourceError(fmt::format(
        "cannot write the {} {}: it holds {} bytes of the {} HDF5 wrote (a full disk or a file "
        "size limit?); nothing was written at {}",
        info.kind, info.path, size, eoa, info.final_path));
  }
#if H5_VERSION_GE(1, 12, 0)
  const auto visit = [](hid_t, const char*, const H5O_info2_t*, void*) -> herr_t { return 0; };
  const herr_t visited =
      H5Ovisit3(f, H5_INDEX_NAME, H5_ITER_NATIVE, visit, nullptr, H5O_INFO_BASIC);
#else
  const auto visit = [](hid_t, const char*, const H5O_info_t*, void*) -> herr_t { return 0; };
  const herr_t visited =
      H5Ovisit2(f, H5_INDEX_NAME, H5_ITER_NATIVE, visit, nullptr, H5O_INFO_BASIC);
#endif
  check_status(visited, &info, "/", "read the closed file's objects back");
  file.close(&info, "/", "close the file read back");
}

// HDF5 cannot report a failure of its own start (the library's state, this thread's error
// stack): it crashes. start_errors makes them when the command starts, while memory is there;
// here, before a file is opened, a refusal is reported as what it is.
void start_or_fail(const FileInfo& info) {
  detail::reset_out_of_memory();
  if (!detail::start_errors()) detail::fail_memory(&info, "start the HDF5 library");
  detail::ensure_headroom(&info, "open the file");
}

// Flushes a file (or directory) to the disk; false when the system refuses.
bool sync_path(const std::string& path, bool directory) {
  const int fd = ::open(path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0 || errno == EINVAL;  // some file systems cannot sync dirs
  ::close(fd);
  return ok;
}

}  // namespace

AtomicFile::AtomicFile(const std::string& path, const std::string& kind) {
  info_.path = path + ".tmp";
  info_.final_path = path;
  info_.kind = kind;
  info_.writing = true;
  check_output_name(path, kind);
  start_or_fail(info_);
  // A strong close degree: H5Fclose closes every object still open, so a failed write
  // leaves nothing for the library to flush (or crash on) when the process ends.
  Handle fapl{check(H5Pcreate(H5P_FILE_ACCESS), &info_, "/", "create file properties"), H5Pclose};
  check_status(H5Pset_fclose_degree(fapl.id, H5F_CLOSE_STRONG), &info_, "/",
               "set the close degree");
  // The temporary is created exclusively (O_EXCL: a symbolic link planted there is never
  // followed); a regular file left there by a killed run is removed first, anything else is
  // refused.
  refuse_irregular_target(info_.path, kind + " temporary");
  refuse_irregular_target(path, kind);
  std::remove(info_.path.c_str());
  file_ = H5Fcreate(info_.path.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.id);
  if (file_ < 0) {
    if (detail::out_of_memory()) detail::fail_memory(&info_, "create the file");
    throw ResourceError(fmt::format("cannot create the {} {}: {}", kind, info_.path,
                                    errno ? std::strerror(errno) : hdf5_reason()));
  }
  interrupt_slot_ = remove_on_interrupt(info_.path);
  root_ = Group(check(H5Gopen2(file_, "/", H5P_DEFAULT), &info_, "/", "open the root group"),
                &info_, "/");
}

AtomicFile::~AtomicFile() {
  root_ = Group();
  if (file_ >= 0 && H5Fclose(file_) < 0) detail::note_unclosed();
  if (!committed_) std::remove(info_.path.c_str());
  forget_on_interrupt(interrupt_slot_);
}

void AtomicFile::commit() {
  // An allocation that failed inside a call whose result we could not check (a lookup that
  // answered "absent") may have left out what the file should hold.
  if (detail::out_of_memory()) detail::fail_memory(&info_, "write the file");
  root_.close();
  // Every group and dataset must be closed (and its errors seen) before the file is: one
  // still open would be closed by H5Fclose without a word.
  const ssize_t open = H5Fget_obj_count(file_, H5F_OBJ_ALL | H5F_OBJ_LOCAL);
  if (open != 1)
    throw InternalError(
        fmt::format("AtomicFile::commit: {} objects of {} still open", open - 1, info_.path));
  // Closing flushes what HDF5 still holds (the last chunks, compressed now).
  detail::ensure_headroom(&info_, "close the file");
  const hid_t f = file_;
  file_ = -1;
  if (H5Fclose(f) < 0) {
    detail::note_unclosed();
    fail_write(&info_, "close the file");
  }
  verify_written(info_);
  if (detail::out_of_memory()) detail::fail_memory(&info_, "read the closed file back");
  if (!sync_path(info_.path, false)) {
    throw ResourceError(
        fmt::format("cannot write the {} {}: the disk refused to flush it ({}); "
                    "nothing was written at {}",
                    info_.kind, info_.path, std::strerror(errno), info_.final_path));
  }
  refuse_irregular_target(info_.final_path, info_.kind);  // only onto a regular file or nothing
  if (std::rename(info_.path.c_str(), info_.final_path.c_str()) != 0) {
    throw ResourceError(fmt::format("cannot rename {} to {}: {}", info_.path, info_.final_path,
                                    std::strerror(errno)));
  }
  committed_ = true;
  forget_on_interrupt(interrupt_slot_);
  interrupt_slot_ = -1;
  const auto dir = std::filesystem::path(info_.final_path).parent_path();
  sync_path(dir.empty() ? "." : dir.string(), true);  // the rename itself, best effort
}

ReadOnlyFile::ReadOnlyFile(const std::string& path, const std::string& kind) {
  info_.path = path;
  info_.kind = kind;
  start_or_fail(info_);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw InputError(kind, path, "does not exist (or is not a file)");
  const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
  if (is_hdf5 <= 0) {
    if (detail::out_of_memory()) detail::fail_memory(&info_, "open the file");
    throw InputError(kind, path, "is not an HDF5 file (damaged, truncated, or another format)");
  }
  file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file_ < 0 && detail::out_of_memory()) detail::fail_memory(&info_, "open the file");
  if (file_ < 0)
    throw InputError(kind, path,
                     "cannot be opened as HDF5 (damaged or truncated: " + hdf5_reason() + ")");
  root_ = Group(check(H5Gopen2(file_, "/", H5P_DEFAULT), &info_, "/", "open the root group"),
                &info_, "/");
}

void ReadOnlyFile::finish_reading() const {
  if (detail::out_of_memory()) detail::fail_memory(&info_, "read the file");
}

ReadOnlyFile::~ReadOnlyFile() {
  root_ = Group();
  if (file_ >= 0) H5Fclose(file_);
}

namespace {

// What a path is, without following a symbolic link: "" when nothing is there or it is a
// regular file, else a word for it.
std::string irregular_kind(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return "";
  if (S_ISREG(st.st_mode)) return "";
  if (S_ISLNK(st.st_mode)) return "a symbolic link";
  if (S_ISDIR(st.st_mode)) return "a directory";
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return "a device";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  return "not a regular file";
}

}  // namespace

void refuse_irregular_target(const std::string& path, const std::string& key) {
  const std::string kind = irregular_kind(path);
  if (!kind.empty()) {
    throw InputError(
        key, path,
        "is " + kind + "; rdpaudit writes a new file or replaces a regular file, nothing else");
  }
}

void check_output_name(const std::string& path, const std::string& key) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  const std::string last = p.filename().string();
  if (last.empty() || last == "." || last == "..")
    throw InputError(key, path, "names a folder; name the file, e.g. " + (p / "x.h5").string());
  const std::string dir = p.parent_path().empty() ? "." : p.parent_path().string();
  // The longest name rdpaudit makes from it: the checkpoint's temporary, <name>.ckpt.tmp.
  constexpr std::size_t kSuffix = sizeof(".ckpt.tmp") - 1;
  errno = 0;
  long limit = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  if (limit <= 0) limit = NAME_MAX;
  const std::size_t name = p.filename().string().size();
  if (name + kSuffix > static_cast<std::size_t>(limit)) {
    throw InputError(key, path.size() > 80 ? path.substr(0, 60) + "..." : path,
                     fmt::format("its name has {} bytes; with the suffix .ckpt.tmp of the "
                                 "checkpoint's temporary it must fit the file system's limit "
                                 "of {} bytes (NAME_MAX): at most {} bytes",
                                 name, limit, static_cast<std::size_t>(limit) - kSuffix));
  }
  if (path.size() + kSuffix >= PATH_MAX) {
    throw InputError(key, path.substr(0, 60) + "...",
                     fmt::format("the path has {} bytes; at most {} (PATH_MAX, with the suffix "
                                 ".ckpt.tmp)",
                                 path.size(), PATH_MAX - 1 - kSuffix));
  }
}

namespace {

// Grows the main thread's stack now. Under an address-space limit (ulimit -v) the kernel
// cannot grow it later, and a deep call (HDF5 opening a file) then dies of SIGSEGV instead
// of meeting a failed allocation it can report; the pages stay mapped once touched.
constexpr std::size_t kStackReserve = 512 * 1024;

[[gnu::noinline]] void reserve_stack() {
  char area[kStackReserve];
  for (std::size_t i = 0; i < kStackReserve; i += 4096) area[i] = 0;
  asm volatile("" : : "r"(area) : "memory");  // the writes must happen
}

}  // namespace

void hdf5_start() {
  // The stack to reserve and what the command needs before its first file (the command line,
  // the library's start): without them every later failure could be a crash.
  if (!detail::can_map(kStackReserve + (std::size_t{2} << 20))) {
    throw ResourceError(
        "out of memory while starting: the address-space limit (ulimit -v) leaves less than "
        "3 MiB above what the program itself occupies");
  }
  reserve_stack();
  H5dont_atexit();
  // Failure here is reported by the first file opened (start_or_fail), naming it.
  detail::start_errors();
}

void hdf5_finish() {
  if (!detail::unclosed()) H5close();
}

std::string hdf5_version() {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
}

}  // namespace rdpaudit::io
