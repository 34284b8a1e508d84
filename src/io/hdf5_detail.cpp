#include "hdf5_detail.hpp"

#include <fmt/core.h>

#include <filesystem>

#include "rdpaudit/core/error.hpp"

namespace rdpaudit::io::detail {

namespace {

bool g_unclosed = false;

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
  if (t < 0 || H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0)
    throw InternalError("HDF5: cannot make the variable-length string type");
  return t;
}

hid_t fixed_string_type(std::size_t width) {
  const hid_t t = H5Tcopy(H5T_C_S1);
  if (t < 0 || H5Tset_size(t, width) < 0 || H5Tset_strpad(t, H5T_STR_NULLPAD) < 0 ||
      H5Tset_cset(t, H5T_CSET_UTF8) < 0)
    throw InternalError("HDF5: cannot make a fixed-length string type");
  return t;
}

}  // namespace rdpaudit::io::detail
