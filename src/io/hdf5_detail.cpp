#include "hdf5_detail.hpp"

#include <fmt/core.h>
#include <sys/mman.h>

#include <atomic>
#include <filesystem>

#include "rdpaudit/core/error.hpp"

namespace rdpaudit::io::detail {

namespace {

bool g_unclosed = false;

// Set by on_error when HDF5 reports an allocation failure; read and reset by our own calls.
std::atomic<bool> g_out_of_memory{false};
// HDF5's minor error numbers for a failed allocation, read once the library has started (the
// H5E_ macros would call H5open inside the error handler).
hid_t g_cant_alloc = -1, g_no_space = -1;

herr_t note_allocation_failure(unsigned, const H5E_error2_t* err, void*) {
  if (err->min_num == g_cant_alloc || err->min_num == g_no_space) g_out_of_memory = true;
  return 0;
}

// HDF5 calls this when one of its API functions fails, with that call's error stack: it
// allocates nothing (the stack is walked in place), so it works when memory is gone.
herr_t on_error(hid_t stack, void*) {
  if (H5Ewalk2(stack, H5E_WALK_UPWARD, note_allocation_failure, nullptr) < 0)
    g_out_of_memory = true;  // only a failed allocation stops a walk of a valid stack
  return 0;
}

// The innermost entry of HDF5's error stack: the system call's error when one failed (the
// sec2 driver says "... errno = 28, error message = 'No space left on device' ..."), else the
// library's description of what failed.
herr_t innermost(unsigned n, const H5E_error2_t* err, void* out) {
  if (n == 0) *static_cast<std::string*>(out) = err->desc ? err->desc : "";
  return 0;
}

}  // namespace

void note_unclosed() {
  g_unclosed = true;
}

bool unclosed() {
  return g_unclosed;
}

bool out_of_memory() {
  return g_out_of_memory;
}

void reset_out_of_memory() {
  g_out_of_memory = false;
}

bool start_errors() {
  // H5open makes the library's global state and the error classes; H5Eset_auto2 makes this
  // thread's error stack (HDF5 allocates it on first use and crashes when that allocation
  // fails, so it must exist before memory can run short).
  if (H5open() < 0) return false;
  g_cant_alloc = H5E_CANTALLOC_g;
  g_no_space = H5E_NOSPACE_g;
  return H5Eset_auto2(H5E_DEFAULT, on_error, nullptr) >= 0;
}

[[noreturn]] void fail_memory(const FileInfo* file, const std::string& what) {
  const std::string reason =
      can_map(kHdf5Headroom)
          ? hdf5_reason()
          : fmt::format("less than the {} MiB HDF5 may need is left", kHdf5Headroom >> 20);
  if (!file) throw ResourceError("out of memory in HDF5: cannot " + what + " (" + reason + ")");
  const std::string& path = file->writing ? file->final_path : file->path;
  throw ResourceError(fmt::format(
      "out of memory while {} the {} {}: cannot {} ({}); {}", file->writing ? "writing" : "reading",
      file->kind, path, what, reason,
      file->writing ? "nothing was written there and a file there before is untouched; try "
                      "again with more memory"
                    : "the file may well be intact; try again with more memory"));
}

bool can_map(std::size_t bytes) {
  // An inaccessible mapping counts against the address-space limit like any other and is
  // given back at once; it touches no memory.
  void* p = ::mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return false;
  ::munmap(p, bytes);
  return true;
}

void ensure_headroom(const FileInfo* file, const std::string& what) {
  if (can_map(kHdf5Headroom)) return;
  g_out_of_memory = true;
  fail_memory(file, what);
}

std::string hdf5_reason() {
  std::string desc;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, &desc);
  const auto at = desc.find("error message = '");
  if (at != std::string::npos) {
    const auto begin = at + 17, end = desc.find('\'', begin);
    return desc.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  }
  if (desc.size() > 200) desc = desc.substr(0, 200) + "...";
  return desc.empty() ? "no reason given by HDF5" : desc;
}

[[noreturn]] void fail_write(const FileInfo* file, const std::string& what) {
  if (out_of_memory()) fail_memory(file, what);
  const std::string reason = hdf5_reason();
  if (!file) throw InternalError("HDF5: cannot " + what + " (" + reason + ")");
  std::error_code ec;
  const bool before = !file->final_path.empty() && std::filesystem::exists(file->final_path, ec);
  throw ResourceError(fmt::format(
      "cannot write the {} {}: cannot {} ({}; a full disk or a file size limit?); nothing was "
      "written at {}{}",
      file->kind, file->path, what, reason, file->final_path,
      before ? " (the file there before is untouched)" : ""));
}

[[noreturn]] void fail_read(const FileInfo* file, const std::string& object,
                            const std::string& what) {
  if (out_of_memory()) fail_memory(file, what);
  const std::string reason = hdf5_reason();
  if (!file) throw InternalError("HDF5: cannot " + what + " (" + reason + ")");
  throw InputError(file->path + ": " + object, "unreadable",
                   fmt::format("the {} is damaged: cannot {} ({})", file->kind, what, reason));
}

hid_t check(hid_t id, const FileInfo* file, const std::string& object, const std::string& what) {
  if (id >= 0) return id;
  if (file && !file->writing) fail_read(file, object, what);
  fail_write(file, what);
}

void check_status(herr_t status, const FileInfo* file, const std::string& object,
                  const std::string& what) {
  if (status < 0) check(-1, file, object, what);
}

// Whether the link `name` of `loc` is a group (false for a dataset, or a broken link).
bool is_group(hid_t loc, const std::string& name) {
  const hid_t obj = H5Oopen(loc, name.c_str(), H5P_DEFAULT);
  if (obj < 0) return false;
  const bool group = H5Iget_type(obj) == H5I_GROUP;
  H5Oclose(obj);
  return group;
}

hid_t string_type() {
  const hid_t t = H5Tcopy(H5T_C_S1);
  if (t < 0 || H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
    if (out_of_memory()) fail_memory(nullptr, "make the variable-length string type");
    throw InternalError("HDF5: cannot make the variable-length string type");
  }
  return t;
}

hid_t fixed_string_type(std::size_t width) {
  const hid_t t = H5Tcopy(H5T_C_S1);
  if (t < 0 || H5Tset_size(t, width) < 0 || H5Tset_strpad(t, H5T_STR_NULLPAD) < 0 ||
      H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
    if (out_of_memory()) fail_memory(nullptr, "make a fixed-length string type");
    throw InternalError("HDF5: cannot make a fixed-length string type");
  }
  return t;
}

}  // namespace rdpaudit::io::detail
