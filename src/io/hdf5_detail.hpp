// The checked HDF5 calls behind io/hdf5.hpp, shared by its two files (groups and datasets in
// hdf5.cpp, whole files in hdf5_file.cpp). Private to io/.
#pragma once

#include <hdf5.h>

#include <string>

#include "rdpaudit/io/hdf5.hpp"

namespace rdpaudit::io::detail {

/// A file whose close failed stays open inside HDF5, which must then not be ended.
void note_unclosed();
bool unclosed();

/// Whether an HDF5 call failed for want of memory since the last reset (seen by the error
/// handler that start_errors installs: an allocation failure anywhere on the error stack).
/// A read that fails then is reported as out of memory, never as a damaged file.
bool out_of_memory();
void reset_out_of_memory();
/// Starts the library and makes this thread's error stack, with our handler instead of
/// HDF5's printing one; false when HDF5 refuses (no memory for the stack). Idempotent.
bool start_errors();
/// Throws ResourceError "out of memory while reading/writing the <kind> <path>" with HDF5's
/// reason (no file: "out of memory in HDF5"; the activity of main names what was done).
[[noreturn]] void fail_memory(const FileInfo* file, const std::string& what);

/// Throws fail_memory's error unless the process can still map kHdf5Headroom bytes: HDF5
/// checks most of its allocations, but not all (some error paths free what a failed one
/// never made, and crash), so no HDF5 call that reads or writes starts without room for its
/// caches and compression buffers. Called before each such call; a syscall pair.
inline constexpr std::size_t kHdf5Headroom = std::size_t{8} << 20;
void ensure_headroom(const FileInfo* file, const std::string& what);
/// Whether `bytes` of address space can still be mapped (false under a ulimit -v that is
/// nearly used up).
bool can_map(std::size_t bytes);

/// The innermost entry of HDF5's error stack: the system call's error when one failed.
std::string hdf5_reason();

/// Throws ResourceError (writing: the object, the temporary, the final path and the reason)
/// or, without a file, InternalError.
[[noreturn]] void fail_write(const FileInfo* file, const std::string& what);
/// Throws InputError naming the file and the object (reading: a damaged file); either throws
/// fail_memory's error instead when an allocation failed.
[[noreturn]] void fail_read(const FileInfo* file, const std::string& object,
                            const std::string& what);
/// `id` when valid; else fail_read or fail_write, as the file is read or written.
hid_t check(hid_t id, const FileInfo* file, const std::string& object, const std::string& what);
void check_status(herr_t status, const FileInfo* file, const std::string& object,
                  const std::string& what);

/// Closes an HDF5 identifier with the right function at scope exit (errors ignored: a
/// failure path); close() closes it now and reports an error.
struct Handle {
  hid_t id;
  herr_t (*closer)(hid_t);
  ~Handle() {
    if (id >= 0) closer(id);
  }
  void close(const FileInfo* file, const std::string& object, const std::string& what) {
    const hid_t mine = id;
    id = -1;
    check_status(closer(mine), file, object, what);
  }
};

/// Whether the link `name` of `loc` is a group (false for a dataset, or a broken link).
bool is_group(hid_t loc, const std::string& name);
hid_t string_type();
hid_t fixed_string_type(std::size_t width);

}  // namespace rdpaudit::io::detail
