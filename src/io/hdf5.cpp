#include "rdpaudit/io/hdf5.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "rdpaudit/core/error.hpp"
#include "rdpaudit/core/interrupt.hpp"

namespace rdpaudit::io {

namespace {

hid_t check(hid_t id, const std::string& what) {
  if (id < 0) throw std::runtime_error("HDF5: cannot " + what);
  return id;
}

void check_status(herr_t status, const std::string& what) {
  if (status < 0) throw std::runtime_error("HDF5: cannot " + what);
}

/// Closes an HDF5 identifier with the right function at scope exit.
struct Handle {
  hid_t id;
  herr_t (*close)(hid_t);
  ~Handle() {
    if (id >= 0) close(id);
  }
};

void write_attr(hid_t loc, const std::string& name, hid_t mem_type, hid_t file_type,
                const std::vector<hsize_t>& dims, const void* data) {
  // An empty array is a zero-length simple dataspace with nothing to write.
  const bool empty = !dims.empty() && dims.front() == 0;
  Handle space{
      check(dims.empty() ? H5Screate(H5S_SCALAR)
                         : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
            "create dataspace for attribute " + name),
      H5Sclose};
  Handle attr{check(H5Acreate2(loc, name.c_str(), file_type, space.id, H5P_DEFAULT, H5P_DEFAULT),
                    "create attribute " + name),
              H5Aclose};
  if (!empty) check_status(H5Awrite(attr.id, mem_type, data), "write attribute " + name);
}

hid_t string_type() {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  return t;
}

hid_t fixed_string_type(std::size_t width) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, width);
  H5Tset_strpad(t, H5T_STR_NULLPAD);
  H5Tset_cset(t, H5T_CSET_UTF8);
  return t;
}

void write_dataset(hid_t loc, const std::string& name, hid_t mem_type, hid_t file_type,
                   const Shape& shape, const void* data) {
  std::vector<hsize_t> dims(shape.begin(), shape.end());
  hsize_t total = 1;
  for (auto n : dims) total *= n;
  Handle space{check(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                     "create dataspace for " + name),
               H5Sclose};
  Handle props{H5Pcreate(H5P_DATASET_CREATE), H5Pclose};
  const hsize_t element = H5Tget_size(file_type);
  if (total * element >= 2048 && !dims.empty()) {
    // Chunk along the first axis, about 512 KiB per chunk, and compress. From 2 KiB on: the
    // per-scenario estimate columns (a few kB each) are most of a file; compressing them made
    // paper_fig1 31 % smaller (below 2 KiB the chunk index costs more than deflate saves).
    std::vector<hsize_t> chunk = dims;
    const hsize_t row = std::max<hsize_t>(total / dims[0] * element, 1);
    chunk[0] = std::max<hsize_t>(1, std::min<hsize_t>(dims[0], (hsize_t{1} << 19) / row));
    H5Pset_chunk(props.id, static_cast<int>(chunk.size()), chunk.data());
    H5Pset_deflate(props.id, 4);
  }
  Handle set{
      check(H5Dcreate2(loc, name.c_str(), file_type, space.id, H5P_DEFAULT, props.id, H5P_DEFAULT),
            "create dataset " + name),
      H5Dclose};
  if (total > 0) {
    check_status(H5Dwrite(set.id, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data),
                 "write dataset " + name);
  }
}

}  // namespace

Group& Group::operator=(Group&& other) noexcept {
  if (this != &other) {
    if (id_ >= 0) H5Gclose(id_);
    id_ = other.id_;
    other.id_ = -1;
  }
  return *this;
}

Group::~Group() {
  if (id_ >= 0) H5Gclose(id_);
}

Group Group::create_group(const std::string& name) const {
  return Group(check(H5Gcreate2(id_, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                     "create group " + name));
}

void Group::attr(const std::string& name, const std::string& value) const {
  Handle type{string_type(), H5Tclose};
  const char* p = value.c_str();
  write_attr(id_, name, type.id, type.id, {}, &p);
}

void Group::attr(const std::string& name, double value) const {
  write_attr(id_, name, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, {}, &value);
}

void Group::attr(const std::string& name, std::int64_t value) const {
  write_attr(id_, name, H5T_NATIVE_INT64, H5T_STD_I64LE, {}, &value);
}

void Group::attr(const std::string& name, std::uint64_t value) const {
  write_attr(id_, name, H5T_NATIVE_UINT64, H5T_STD_U64LE, {}, &value);
}

void Group::attr(const std::string& name, const std::vector<std::int64_t>& values) const {
  write_attr(id_, name, H5T_NATIVE_INT64, H5T_STD_I64LE, {values.size()}, values.data());
}

void Group::attr(const std::string& name, const std::vector<double>& values) const {
  write_attr(id_, name, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, {values.size()}, values.data());
}

void Group::attr(const std::string& name, const std::vector<std::string>& values) const {
  Handle type{string_type(), H5Tclose};
  std::vector<const char*> ptrs;
  for (const auto& v : values) ptrs.push_back(v.c_str());
  write_attr(id_, name, type.id, type.id, {values.size()}, ptrs.data());
}

void Group::dataset(const std::string& name, const double* data, const Shape& shape) const {
  write_dataset(id_, name, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, shape, data);
}

void Group::dataset(const std::string& name, const std::int64_t* data, const Shape& shape) const {
  write_dataset(id_, name, H5T_NATIVE_INT64, H5T_STD_I64LE, shape, data);
}

void Group::dataset(const std::string& name, const int* data, const Shape& shape) const {
  write_dataset(id_, name, H5T_NATIVE_INT, H5T_STD_I32LE, shape, data);
}

void Group::dataset(const std::string& name, const std::vector<std::string>& values) const {
  // Fixed-length (the longest value), null-padded UTF-8: compressed like the numbers when
  // large. Variable-length strings would live in HDF5's global heap, which is neither
  // compressed nor small (the 1.x result files were mostly that heap).
  std::size_t width = 1;
  for (const auto& v : values) width = std::max(width, v.size());
  Handle type{fixed_string_type(width), H5Tclose};
  std::vector<char> packed(values.size() * width, '\0');
  for (std::size_t i = 0; i < values.size(); ++i)
    std::copy(values[i].begin(), values[i].end(), packed.begin() + static_cast<long>(i * width));
  write_dataset(id_, name, type.id, type.id, {values.size()}, packed.data());
}

AtomicFile::AtomicFile(const std::string& path) : path_(path), tmp_(path + ".tmp") {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors are reported by our exceptions
  file_ = H5Fcreate(tmp_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file_ < 0) throw std::runtime_error("cannot create results file " + tmp_);
  remove_on_interrupt(tmp_);
  root_ = Group(check(H5Gopen2(file_, "/", H5P_DEFAULT), "open root group"));
}

AtomicFile::~AtomicFile() {
  root_ = Group();
  if (file_ >= 0) H5Fclose(file_);
  if (!committed_) std::remove(tmp_.c_str());
  forget_on_interrupt();
}

void AtomicFile::commit() {
  root_ = Group();
  check_status(H5Fclose(file_), "close " + tmp_);
  file_ = -1;
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    throw std::runtime_error("cannot rename " + tmp_ + " to " + path_);
  }
  committed_ = true;
  forget_on_interrupt();
}

bool Group::has(const std::string& name) const {
  return H5Lexists(id_, name.c_str(), H5P_DEFAULT) > 0;
}

bool Group::has_attr(const std::string& name) const {
  return H5Aexists(id_, name.c_str()) > 0;
}

Group Group::open_group(const std::string& name) const {
  if (!has(name)) throw InputError(name, "<missing>", "group required by the results format");
  return Group(check(H5Gopen2(id_, name.c_str(), H5P_DEFAULT), "open group " + name));
}

namespace {

Handle open_attr(hid_t loc, const std::string& name) {
  if (H5Aexists(loc, name.c_str()) <= 0) {
    throw InputError("@" + name, "<missing>", "attribute required by the results format");
  }
  return Handle{check(H5Aopen(loc, name.c_str(), H5P_DEFAULT), "open attribute " + name), H5Aclose};
}

hssize_t attr_points(hid_t attr) {
  Handle space{H5Aget_space(attr), H5Sclose};
  return H5Sget_simple_extent_npoints(space.id);
}

Handle open_dataset(hid_t loc, const std::string& name) {
  if (H5Lexists(loc, name.c_str(), H5P_DEFAULT) <= 0) {
    throw InputError(name, "<missing>", "dataset required by the results format");
  }
  return Handle{check(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), "open dataset " + name), H5Dclose};
}

hssize_t dataset_points(hid_t set) {
  Handle space{H5Dget_space(set), H5Sclose};
  return H5Sget_simple_extent_npoints(space.id);
}

template <typename T>
std::vector<T> read_numbers(hid_t loc, const std::string& name, hid_t mem_type) {
  Handle set = open_dataset(loc, name);
  std::vector<T> v(static_cast<std::size_t>(dataset_points(set.id)));
  if (!v.empty()) {
    check_status(H5Dread(set.id, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()),
                 "read dataset " + name);
  }
  return v;
}

// Copies variable-length strings read by HDF5 and frees HDF5's buffers.
std::vector<std::string> take_strings(std::vector<char*>& raw) {
  std::vector<std::string> out;
  for (char* p : raw) {
    out.emplace_back(p ? p : "");
    H5free_memory(p);
  }
  return out;
}

}  // namespace

std::string Group::read_string_attr(const std::string& name) const {
  Handle attr = open_attr(id_, name);
  Handle type{string_type(), H5Tclose};
  char* value = nullptr;
  check_status(H5Aread(attr.id, type.id, &value), "read attribute " + name);
  std::string out = value ? value : "";
  H5free_memory(value);
  return out;
}

std::vector<std::string> Group::read_string_attrs(const std::string& name) const {
  Handle attr = open_attr(id_, name);
  Handle type{string_type(), H5Tclose};
  std::vector<char*> raw(static_cast<std::size_t>(attr_points(attr.id)), nullptr);
  if (!raw.empty()) check_status(H5Aread(attr.id, type.id, raw.data()), "read attribute " + name);
  return take_strings(raw);
}

double Group::read_double_attr(const std::string& name) const {
  Handle attr = open_attr(id_, name);
  double v = 0;
  check_status(H5Aread(attr.id, H5T_NATIVE_DOUBLE, &v), "read attribute " + name);
  return v;
}

std::int64_t Group::read_int_attr(const std::string& name) const {
  const auto v = read_int_attrs(name);
  if (v.size() != 1) throw InputError("@" + name, "an array", "must be a scalar");
  return v.front();
}

std::vector<std::int64_t> Group::read_int_attrs(const std::string& name) const {
  Handle attr = open_attr(id_, name);
  std::vector<std::int64_t> v(static_cast<std::size_t>(attr_points(attr.id)));
  check_status(H5Aread(attr.id, H5T_NATIVE_INT64, v.data()), "read attribute " + name);
  return v;
}

std::vector<double> Group::read_doubles(const std::string& name) const {
  return read_numbers<double>(id_, name, H5T_NATIVE_DOUBLE);
}

std::vector<std::int64_t> Group::read_ints(const std::string& name) const {
  return read_numbers<std::int64_t>(id_, name, H5T_NATIVE_INT64);
}

std::vector<std::string> Group::read_strings(const std::string& name) const {
  Handle set = open_dataset(id_, name);
  Handle stored{check(H5Dget_type(set.id), "read the type of " + name), H5Tclose};
  if (H5Tget_class(stored.id) != H5T_STRING) {
    throw InputError(name, "a dataset of numbers", "a dataset of strings");
  }
  if (H5Tis_variable_str(stored.id) <= 0) {  // fixed-length (format 2.0 on)
    const std::size_t width = H5Tget_size(stored.id);
    Handle type{fixed_string_type(width), H5Tclose};
    const auto n = static_cast<std::size_t>(dataset_points(set.id));
    std::vector<char> packed(n * width);
    if (n > 0) {
      check_status(H5Dread(set.id, type.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, packed.data()),
                   "read dataset " + name);
    }
    std::vector<std::string> out(n);
    for (std::size_t i = 0; i < n; ++i) {
      const char* p = packed.data() + i * width;
      out[i].assign(p, std::find(p, p + width, '\0'));
    }
    return out;
  }
  Handle type{string_type(), H5Tclose};
  std::vector<char*> raw(static_cast<std::size_t>(dataset_points(set.id)), nullptr);
  if (!raw.empty()) {
    check_status(H5Dread(set.id, type.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()),
                 "read dataset " + name);
  }
  return take_strings(raw);
}

ReadOnlyFile::ReadOnlyFile(const std::string& path) : path_(path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    throw InputError("RESULTS", path, "an existing HDF5 results file written by rdpaudit run");
  }
  file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file_ < 0) throw InputError("RESULTS", path, "a readable HDF5 file");
  root_ = Group(check(H5Gopen2(file_, "/", H5P_DEFAULT), "open root group"));
}

ReadOnlyFile::~ReadOnlyFile() {
  root_ = Group();
  if (file_ >= 0) H5Fclose(file_);
}

std::string hdf5_version() {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
}

}  // namespace rdpaudit::io
