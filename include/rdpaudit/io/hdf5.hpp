// A thin RAII layer over the HDF5 C API: groups, attributes and datasets of plain arrays.
// Only io/ includes HDF5; callers pass plain pointers and shapes.
//
// Every call is checked. A failure while writing (a full disk, a file size limit) throws
// ResourceError naming the object and the file, with the system's reason; a failure while
// reading throws InputError naming the file and the object (a damaged or foreign file).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rdpaudit::io {

using Shape = std::vector<std::uint64_t>;

/// The file a group belongs to, for messages: its path, what kind of file it is ("results
/// file", "state file"), and while writing the final path the temporary is renamed to.
struct FileInfo {
  std::string path, kind, final_path;
  bool writing = false;
};

/// An open HDF5 group (or the file's root group). Move-only; closes on destruction (errors
/// ignored there: close() reports them).
class Group {
 public:
  Group() = default;
  Group(std::int64_t id, const FileInfo* file, std::string path)
      : id_(id), file_(file), path_(std::move(path)) {}
  Group(Group&& other) noexcept;
  Group& operator=(Group&& other) noexcept;
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;
  ~Group();

  /// Closes the group now, reporting a failure (a write that HDF5 deferred to the close).
  void close();

  Group create_group(const std::string& name) const;

  void attr(const std::string& name, const std::string& value) const;
  void attr(const std::string& name, const char* value) const { attr(name, std::string(value)); }
  void attr(const std::string& name, double value) const;
  void attr(const std::string& name, std::int64_t value) const;
  void attr(const std::string& name, int value) const {
    attr(name, static_cast<std::int64_t>(value));
  }
  void attr(const std::string& name, std::uint64_t value) const;
  void attr(const std::string& name, bool value) const {
    attr(name, static_cast<std::int64_t>(value));
  }
  void attr(const std::string& name, const std::vector<std::int64_t>& values) const;
  void attr(const std::string& name, const std::vector<double>& values) const;
  void attr(const std::string& name, const std::vector<std::string>& values) const;

  /// Datasets (chunked and deflate-compressed when larger than a few kB).
  void dataset(const std::string& name, const double* data, const Shape& shape) const;
  void dataset(const std::string& name, const std::int64_t* data, const Shape& shape) const;
  void dataset(const std::string& name, const int* data, const Shape& shape) const;
  /// A 1-D dataset of fixed-length (the longest value), null-padded UTF-8 strings.
  void dataset(const std::string& name, const std::vector<std::string>& values) const;

  // --- reading (files opened with ReadOnlyFile); each throws InputError naming the object ---
  bool has(const std::string& name) const;       ///< a link of that name exists here
  bool has_attr(const std::string& name) const;  ///< an attribute of that name exists here
  Group open_group(const std::string& name) const;
  std::string read_string_attr(const std::string& name) const;
  std::vector<std::string> read_string_attrs(const std::string& name) const;
  double read_double_attr(const std::string& name) const;
  std::int64_t read_int_attr(const std::string& name) const;  ///< an integer type only
  std::vector<std::int64_t> read_int_attrs(const std::string& name) const;
  /// A whole dataset, flattened row-major, converted to the requested type (read_ints: an
  /// integer dataset only, so that 1.5 is never read as 1).
  std::vector<double> read_doubles(const std::string& name) const;
  std::vector<std::int64_t> read_ints(const std::string& name) const;
  std::vector<std::string> read_strings(const std::string& name) const;
  /// The dataset's dimensions.
  Shape shape_of(const std::string& name) const;
  /// The names of the groups directly in this one, in HDF5's name order.
  std::vector<std::string> group_names() const;

  std::int64_t id() const { return id_; }
  /// "/scenarios/0001" (the root: "/"); `name` below it as shown in messages.
  const std::string& path() const { return path_; }
  std::string path_of(const std::string& name) const;

  /// Throws InputError naming the file and the object `name` of this group: `value` found,
  /// `expected` what the format requires.
  [[noreturn]] void fail(const std::string& name, const std::string& value,
                         const std::string& expected) const;

 private:
  std::int64_t id_ = -1;
  const FileInfo* file_ = nullptr;
  std::string path_;
};

/// A file written to `<path>.tmp` and renamed to `path` by commit() after a verified close:
/// every object is closed with its errors checked, the file is closed, read back (its size
/// against HDF5's end of allocation, every object header), flushed to disk and only then
/// renamed. Destroyed without commit() it removes the temporary, so a failed write leaves
/// nothing at `path` and a file that was there before untouched.
class AtomicFile {
 public:
  /// `kind` names the file in messages ("results file", "checkpoint", "part file").
  explicit AtomicFile(const std::string& path, const std::string& kind = "results file");
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  const Group& root() const { return root_; }
  void commit();

 private:
  FileInfo info_;
  std::int64_t file_ = -1;
  Group root_;
  int interrupt_slot_ = -1;
  bool committed_ = false;
};

/// An existing HDF5 file opened read-only. Throws InputError naming the path if it cannot be
/// opened as HDF5.
class ReadOnlyFile {
 public:
  /// `kind` names the file in messages ("results file", "state file").
  explicit ReadOnlyFile(const std::string& path, const std::string& kind = "results file");
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;
  ~ReadOnlyFile();

  const Group& root() const { return root_; }
  const std::string& path() const { return info_.path; }
  /// Throws ResourceError ("out of memory while reading ...") when an HDF5 call failed for
  /// want of memory while this file was read: a lookup that then answered "absent" would
  /// otherwise pass for what the file holds. Call after the last read.
  void finish_reading() const;

 private:
  FileInfo info_;
  std::int64_t file_ = -1;
  Group root_;
};

/// The suffixes rdpaudit adds to an output path (`.tmp`, `.ckpt`, `.ckpt.tmp`) must keep its
/// last component within the file system's name limit (NAME_MAX, usually 255 bytes): throws
/// InputError(key, path, ...) naming the limit when they would not.
void check_output_name(const std::string& path, const std::string& key);

/// Throws InputError(key, path) when something other than a regular file is at `path` (not
/// following a symbolic link): a link, a directory, a device, a FIFO. Nothing, or a regular
/// file, passes.
void refuse_irregular_target(const std::string& path, const std::string& key);

/// Call first in main, before any other HDF5 use: it starts the library and this thread's
/// error stack while memory is there (HDF5 crashes when it cannot allocate them later, under a
/// memory limit), and the library then ends where hdf5_finish() says, not in an exit handler.
/// Throws ResourceError when the address-space limit leaves too little to start. HDF5 cannot close
/// a file whose last writes failed (a full disk) and crashes when its exit handler tries again;
/// such a file is dropped instead.
void hdf5_start();
/// Ends the HDF5 library unless a file could not be closed (then the process ends without).
void hdf5_finish();

/// "major.minor.release" of the HDF5 library in use.
std::string hdf5_version();

}  // namespace rdpaudit::io
