// A thin RAII layer over the HDF5 C API: groups, attributes and datasets of plain arrays.
// Only io/ includes HDF5; callers pass plain pointers and shapes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rdpaudit::io {

using Shape = std::vector<std::uint64_t>;

/// An open HDF5 group (or the file's root group). Move-only; closes on destruction.
class Group {
 public:
  Group() = default;
  explicit Group(std::int64_t id) : id_(id) {}
  Group(Group&& other) noexcept : id_(other.id_) { other.id_ = -1; }
  Group& operator=(Group&& other) noexcept;
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;
  ~Group();

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
  std::int64_t read_int_attr(const std::string& name) const;  ///< any integer type
  std::vector<std::int64_t> read_int_attrs(const std::string& name) const;
  /// A whole dataset, flattened row-major, converted to the requested type.
  std::vector<double> read_doubles(const std::string& name) const;
  std::vector<std::int64_t> read_ints(const std::string& name) const;
  std::vector<std::string> read_strings(const std::string& name) const;

  std::int64_t id() const { return id_; }

 private:
  std::int64_t id_ = -1;
};

/// A results file written to `<path>.tmp` and renamed to `path` by commit(); destroyed
/// without commit() it removes the temporary, so a failed run leaves nothing behind.
class AtomicFile {
 public:
  explicit AtomicFile(const std::string& path);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  const Group& root() const { return root_; }
  void commit();

 private:
  std::string path_, tmp_;
  std::int64_t file_ = -1;
  Group root_;
  bool committed_ = false;
};

/// An existing HDF5 file opened read-only. Throws InputError naming the path if it cannot be
/// opened as HDF5.
class ReadOnlyFile {
 public:
  explicit ReadOnlyFile(const std::string& path);
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;
  ~ReadOnlyFile();

  const Group& root() const { return root_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::int64_t file_ = -1;
  Group root_;
};

/// "major.minor.release" of the HDF5 library in use.
std::string hdf5_version();

}  // namespace rdpaudit::io
