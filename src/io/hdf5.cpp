#include "rdpaudit/io/hdf5.hpp"

#include <fmt/core.h>
#include <hdf5.h>

#include <algorithm>

#include "hdf5_detail.hpp"
#include "rdpaudit/core/error.hpp"

namespace rdpaudit::io {

using detail::check;
using detail::check_status;
using detail::fixed_string_type;
using detail::Handle;
using detail::is_group;
using detail::string_type;

namespace {

void write_attr(hid_t loc, const FileInfo* file, const std::string& object, const std::string& name,
                hid_t mem_type, hid_t file_type, const std::vector<hsize_t>& dims,
                const void* data) {
  const std::string where = "attribute " + object + "@" + name;
  detail::ensure_headroom(file, "write " + where);
  // An empty array is a zero-length simple dataspace with nothing to write.
  const bool empty = !dims.empty() && dims.front() == 0;
  Handle space{
      check(dims.empty() ? H5Screate(H5S_SCALAR)
                         : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
            file, object, "create the dataspace of " + where),
      H5Sclose};
  Handle attr{check(H5Acreate2(loc, name.c_str(), file_type, space.id, H5P_DEFAULT, H5P_DEFAULT),
                    file, object, "create " + where),
              H5Aclose};
  if (!empty) check_status(H5Awrite(attr.id, mem_type, data), file, object, "write " + where);
  attr.close(file, object, "close " + where);
  space.close(file, object, "close the dataspace of " + where);
}

void write_dataset(hid_t loc, const FileInfo* file, const std::string& object, hid_t mem_type,
                   hid_t file_type, const Shape& shape, const void* data) {
  const std::string where = "dataset " + object;
  detail::ensure_headroom(file, "write " + where);
  std::vector<hsize_t> dims(shape.begin(), shape.end());
  hsize_t total = 1;
  for (auto n : dims) total *= n;
  Handle space{check(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), file,
                     object, "create the dataspace of " + where),
               H5Sclose};
  Handle props{check(H5Pcreate(H5P_DATASET_CREATE), file, object, "create properties"), H5Pclose};
  const hsize_t element = H5Tget_size(file_type);
  if (total * element >= 2048 && !dims.empty()) {
    // Chunk along the first axis, about 512 KiB per chunk, and compress. From 2 KiB on: the
    // per-scenario estimate columns (a few kB each) are most of a file; compressing them made
    // paper_fig1 31 % smaller (below 2 KiB the chunk index costs more than deflate saves).
    std::vector<hsize_t> chunk = dims;
    const hsize_t row = std::max<hsize_t>(total / dims[0] * element, 1);
    chunk[0] = std::max<hsize_t>(1, std::min<hsize_t>(dims[0], (hsize_t{1} << 19) / row));
    check_status(H5Pset_chunk(props.id, static_cast<int>(chunk.size()), chunk.data()), file, object,
                 "set the chunks of " + where);
    check_status(H5Pset_deflate(props.id, 4), file, object, "set the compression of " + where);
  }
  Handle set{check(H5Dcreate2(loc, object.substr(object.rfind('/') + 1).c_str(), file_type,
                              space.id, H5P_DEFAULT, props.id, H5P_DEFAULT),
                   file, object, "create " + where),
             H5Dclose};
  if (total > 0) {
    check_status(H5Dwrite(set.id, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), file, object,
                 "write " + where);
  }
  // Closing a chunked dataset writes its last chunks: a full disk often shows only here.
  set.close(file, object, "write (close) " + where);
  props.close(file, object, "close the properties of " + where);
  space.close(file, object, "close the dataspace of " + where);
}

}  // namespace

Group::Group(Group&& other) noexcept
    : id_(other.id_), file_(other.file_), path_(std::move(other.path_)) {
  other.id_ = -1;
}

Group& Group::operator=(Group&& other) noexcept {
  if (this != &other) {
    if (id_ >= 0) H5Gclose(id_);
    id_ = other.id_;
    file_ = other.file_;
    path_ = std::move(other.path_);
    other.id_ = -1;
  }
  return *this;
}

Group::~Group() {
  if (id_ >= 0) H5Gclose(id_);
}

void Group::close() {
  if (id_ < 0) return;
  const hid_t mine = id_;
  id_ = -1;
  check_status(H5Gclose(mine), file_, path_, "close group " + path_);
}

std::string Group::path_of(const std::string& name) const {
  if (path_.empty() || path_ == "/") return "/" + name;
  return path_ + "/" + name;
}

void Group::fail(const std::string& name, const std::string& value,
                 const std::string& expected) const {
  const std::string object = path_of(name);
  // A lookup that failed for want of memory looks like a missing or unreadable object.
  if (detail::out_of_memory()) detail::fail_memory(file_, "read " + object);
  if (!file_) throw InputError(object, value, expected);
  throw InputError(file_->path + ": " + object, value, expected);
}

Group Group::create_group(const std::string& name) const {
  const std::string object = path_of(name);
  detail::ensure_headroom(file_, "create group " + object);
  return Group(check(H5Gcreate2(id_, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), file_,
                     object, "create group " + object),
               file_, object);
}

void Group::attr(const std::string& name, const std::string& value) const {
  Handle type{string_type(), H5Tclose};
  const char* p = value.c_str();
  write_attr(id_, file_, path_, name, type.id, type.id, {}, &p);
}

void Group::attr(const std::string& name, double value) const {
  write_attr(id_, file_, path_, name, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, {}, &value);
}

void Group::attr(const std::string& name, std::int64_t value) const {
  write_attr(id_, file_, path_, name, H5T_NATIVE_INT64, H5T_STD_I64LE, {}, &value);
}

void Group::attr(const std::string& name, std::uint64_t value) const {
  write_attr(id_, file_, path_, name, H5T_NATIVE_UINT64, H5T_STD_U64LE, {}, &value);
}

void Group::attr(const std::string& name, const std::vector<std::int64_t>& values) const {
  write_attr(id_, file_, path_, name, H5T_NATIVE_INT64, H5T_STD_I64LE, {values.size()},
             values.data());
}

void Group::attr(const std::string& name, const std::vector<double>& values) const {
  write_attr(id_, file_, path_, name, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, {values.size()},
             values.data());
}

void Group::attr(const std::string& name, const std::vector<std::string>& values) const {
  Handle type{string_type(), H5Tclose};
  std::vector<const char*> ptrs;
  for (const auto& v : values) ptrs.push_back(v.c_str());
  write_attr(id_, file_, path_, name, type.id, type.id, {values.size()}, ptrs.data());
}

void Group::dataset(const std::string& name, const double* data, const Shape& shape) const {
  write_dataset(id_, file_, path_of(name), H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, shape, data);
}

void Group::dataset(const std::string& name, const std::int64_t* data, const Shape& shape) const {
  write_dataset(id_, file_, path_of(name), H5T_NATIVE_INT64, H5T_STD_I64LE, shape, data);
}

void Group::dataset(const std::string& name, const int* data, const Shape& shape) const {
  write_dataset(id_, file_, path_of(name), H5T_NATIVE_INT, H5T_STD_I32LE, shape, data);
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
  write_dataset(id_, file_, path_of(name), type.id, type.id, {values.size()}, packed.data());
}

bool Group::has(const std::string& name) const {
  const htri_t exists = H5Lexists(id_, name.c_str(), H5P_DEFAULT);
  check_status(exists < 0 ? -1 : 0, file_, path_of(name), "look up " + path_of(name));
  return exists > 0;
}

bool Group::has_attr(const std::string& name) const {
  const htri_t exists = H5Aexists(id_, name.c_str());
  check_status(exists < 0 ? -1 : 0, file_, path_ + "@" + name,
               "look up attribute " + path_ + "@" + name);
  return exists > 0;
}

Group Group::open_group(const std::string& name) const {
  detail::ensure_headroom(file_, "open " + path_of(name));
  if (!has(name)) fail(name, "<missing>", "a group the " + file_->kind + " format requires");
  const std::string object = path_of(name);
  if (!is_group(id_, name))
    fail(name, "not a group", "a group the " + file_->kind + " format requires");
  return Group(check(H5Gopen2(id_, name.c_str(), H5P_DEFAULT), file_, object, "open " + object),
               file_, object);
}

std::vector<std::string> Group::group_names() const {
  std::vector<std::string> names;
  const auto collect = [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
    static_cast<std::vector<std::string>*>(out)->emplace_back(name);
    return 0;
  };
  hsize_t index = 0;
  detail::ensure_headroom(file_, "list the members of " + path_);
  check_status(H5Literate(id_, H5_INDEX_NAME, H5_ITER_INC, &index, collect, &names), file_, path_,
               "list the members of " + path_);
  std::vector<std::string> groups;
  for (const auto& n : names) {
    if (is_group(id_, n)) groups.push_back(n);
  }
  return groups;
}

namespace {

Handle open_attr(const Group& g, const FileInfo* file, const std::string& name) {
  detail::ensure_headroom(file, "read attribute " + g.path() + "@" + name);
  if (H5Aexists(g.id(), name.c_str()) <= 0)
    g.fail("@" + name, "<missing>", "an attribute the format requires");
  return Handle{check(H5Aopen(g.id(), name.c_str(), H5P_DEFAULT), file, g.path() + "@" + name,
                      "open attribute " + g.path() + "@" + name),
                H5Aclose};
}

hssize_t attr_points(hid_t attr) {
  Handle space{H5Aget_space(attr), H5Sclose};
  return space.id < 0 ? -1 : H5Sget_simple_extent_npoints(space.id);
}

Handle open_dataset(const Group& g, const FileInfo* file, const std::string& name) {
  detail::ensure_headroom(file, "read dataset " + g.path_of(name));
  if (H5Lexists(g.id(), name.c_str(), H5P_DEFAULT) <= 0)
    g.fail(name, "<missing>", "a dataset the format requires");
  const std::string object = g.path_of(name);
  return Handle{
      check(H5Dopen2(g.id(), name.c_str(), H5P_DEFAULT), file, object, "open dataset " + object),
      H5Dclose};
}

hssize_t dataset_points(hid_t set) {
  Handle space{H5Dget_space(set), H5Sclose};
  return space.id < 0 ? -1 : H5Sget_simple_extent_npoints(space.id);
}

H5T_class_t type_class(hid_t obj, bool dataset) {
  Handle type{dataset ? H5Dget_type(obj) : H5Aget_type(obj), H5Tclose};
  return type.id < 0 ? H5T_NO_CLASS : H5Tget_class(type.id);
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

// Splits n fixed-length strings of `width` bytes each (NUL-padded) as HDF5 read them.
std::vector<std::string> unpack_fixed(const std::vector<char>& packed, std::size_t n,
                                      std::size_t width) {
  std::vector<std::string> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const char* p = packed.data() + i * width;
    out[i].assign(p, std::find(p, p + width, '\0'));
  }
  return out;
}

// A count of elements read from a damaged file could ask for any amount of memory: refuse
// more than a results file can hold (2^40 elements).
std::size_t element_count(hssize_t n, const Group& g, const std::string& name) {
  if (n < 0 || n > (hssize_t{1} << 40)) g.fail(name, "unreadable", "a readable extent");
  return static_cast<std::size_t>(n);
}

}  // namespace

std::string Group::read_string_attr(const std::string& name) const {
  const auto v = read_string_attrs(name);
  if (v.size() != 1) fail("@" + name, fmt::format("{} values", v.size()), "a single string");
  return v.front();
}

std::vector<std::string> Group::read_string_attrs(const std::string& name) const {
  Handle attr = open_attr(*this, file_, name);
  if (type_class(attr.id, false) != H5T_STRING) fail("@" + name, "not text", "a string attribute");
  Handle stored{H5Aget_type(attr.id), H5Tclose};
  const std::size_t n = element_count(attr_points(attr.id), *this, "@" + name);
  if (H5Tis_variable_str(stored.id) <= 0) {
    const std::size_t width = H5Tget_size(stored.id);
    Handle type{fixed_string_type(width), H5Tclose};
    std::vector<char> packed(n * width);
    if (n > 0)
      check_status(H5Aread(attr.id, type.id, packed.data()), file_, path_of("@" + name),
                   "read attribute " + path_of("@" + name));
    return unpack_fixed(packed, n, width);
  }
  Handle type{string_type(), H5Tclose};
  std::vector<char*> raw(n, nullptr);
  if (!raw.empty())
    check_status(H5Aread(attr.id, type.id, raw.data()), file_, path_of("@" + name),
                 "read attribute " + path_of("@" + name));
  return take_strings(raw);
}

double Group::read_double_attr(const std::string& name) const {
  Handle attr = open_attr(*this, file_, name);
  const H5T_class_t c = type_class(attr.id, false);
  if (c != H5T_FLOAT && c != H5T_INTEGER) fail("@" + name, "not a number", "a number");
  if (attr_points(attr.id) != 1) fail("@" + name, "an array", "a single number");
  double v = 0;
  check_status(H5Aread(attr.id, H5T_NATIVE_DOUBLE, &v), file_, path_of("@" + name),
               "read attribute " + path_of("@" + name));
  return v;
}

std::int64_t Group::read_int_attr(const std::string& name) const {
  const auto v = read_int_attrs(name);
  if (v.size() != 1) fail("@" + name, "an array", "a single integer");
  return v.front();
}

std::vector<std::int64_t> Group::read_int_attrs(const std::string& name) const {
  Handle attr = open_attr(*this, file_, name);
  if (type_class(attr.id, false) != H5T_INTEGER)
    fail("@" + name, "not an integer", "an integer attribute");
  std::vector<std::int64_t> v(element_count(attr_points(attr.id), *this, "@" + name));
  if (!v.empty())
    check_status(H5Aread(attr.id, H5T_NATIVE_INT64, v.data()), file_, path_of("@" + name),
                 "read attribute " + path_of("@" + name));
  return v;
}

namespace {

template <typename T>
std::vector<T> read_numbers(const Group& g, const FileInfo* file, const std::string& name,
                            hid_t mem_type, bool integers) {
  Handle set = open_dataset(g, file, name);
  const H5T_class_t c = type_class(set.id, true);
  if (integers ? c != H5T_INTEGER : (c != H5T_FLOAT && c != H5T_INTEGER))
    g.fail(name, c == H5T_STRING ? "text" : "not numbers",
           integers ? "a dataset of integers" : "a dataset of numbers");
  std::vector<T> v(element_count(dataset_points(set.id), g, name));
  if (!v.empty()) {
    detail::ensure_headroom(file, "read dataset " + g.path_of(name));
    check_status(H5Dread(set.id, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), file,
                 g.path_of(name), "read dataset " + g.path_of(name));
  }
  return v;
}

}  // namespace

std::vector<double> Group::read_doubles(const std::string& name) const {
  return read_numbers<double>(*this, file_, name, H5T_NATIVE_DOUBLE, false);
}

std::vector<std::int64_t> Group::read_ints(const std::string& name) const {
  return read_numbers<std::int64_t>(*this, file_, name, H5T_NATIVE_INT64, true);
}

Shape Group::shape_of(const std::string& name) const {
  Handle set = open_dataset(*this, file_, name);
  Handle space{check(H5Dget_space(set.id), file_, path_of(name), "read the extent of " + name),
               H5Sclose};
  const int rank = H5Sget_simple_extent_ndims(space.id);
  if (rank < 0 || rank > 32) fail(name, "unreadable", "a readable extent");
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space.id, dims.data(), nullptr);
  return Shape(dims.begin(), dims.end());
}

std::vector<std::string> Group::read_strings(const std::string& name) const {
  Handle set = open_dataset(*this, file_, name);
  Handle stored{check(H5Dget_type(set.id), file_, path_of(name), "read the type of " + name),
                H5Tclose};
  if (H5Tget_class(stored.id) != H5T_STRING) fail(name, "numbers", "a dataset of strings");
  const std::size_t n = element_count(dataset_points(set.id), *this, name);
  if (H5Tis_variable_str(stored.id) <= 0) {  // fixed-length (format 2.0 on)
    const std::size_t width = H5Tget_size(stored.id);
    Handle type{fixed_string_type(width), H5Tclose};
    std::vector<char> packed(n * width);
    if (n > 0) {
      detail::ensure_headroom(file_, "read dataset " + path_of(name));
      check_status(H5Dread(set.id, type.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, packed.data()), file_,
                   path_of(name), "read dataset " + path_of(name));
    }
    return unpack_fixed(packed, n, width);
  }
  Handle type{string_type(), H5Tclose};
  std::vector<char*> raw(n, nullptr);
  if (!raw.empty()) {
    detail::ensure_headroom(file_, "read dataset " + path_of(name));
    check_status(H5Dread(set.id, type.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()), file_,
                 path_of(name), "read dataset " + path_of(name));
  }
  return take_strings(raw);
}

}  // namespace rdpaudit::io
