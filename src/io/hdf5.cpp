#include "rdpaudit/io/hdf5.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "rdpaudit/core/error.hpp"
#include "rdpaudit/core/interrupt.hpp"

namespace rdpaudit::io {

namespace {

// A file whose close failed stays open inside HDF5, which must then not be ended.
bool g_unclosed = false;

// The innermost entry of HDF5's error stack: the system call's error when one failed (the
// sec2 driver says "... errno = 28, error message = 'No space left on device' ..."), else the
// library's description of what failed.
herr_t innermost(unsigned n, const H5E_error2_t* err, void* out) {
  if (n == 0) *static_cast<std::string*>(out) = err->desc ? err->desc : "";
  return 0;
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

void write_attr(hid_t loc, const FileInfo* file, const std::string& object, const std::string& name,
                hid_t mem_type, hid_t file_type, const std::vector<hsize_t>& dims,
                const void* data) {
  const std::string where = "attribute " + object + "@" + name;
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
  if (!file_) throw InputError(object, value, expected);
  throw InputError(file_->path + ": " + object, value, expected);
}

Group Group::create_group(const std::string& name) const {
  const std::string object = path_of(name);
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
  return H5Lexists(id_, name.c_str(), H5P_DEFAULT) > 0;
}

bool Group::has_attr(const std::string& name) const {
  return H5Aexists(id_, name.c_str()) > 0;
}

Group Group::open_group(const std::string& name) const {
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
    std::vector<std::string> out(n);
    for (std::size_t i = 0; i < n; ++i) {
      const char* p = packed.data() + i * width;
      out[i].assign(p, std::find(p, p + width, '\0'));
    }
    return out;
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
      check_status(H5Dread(set.id, type.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, packed.data()), file_,
                   path_of(name), "read dataset " + path_of(name));
    }
    std::vector<std::string> out(n);
    for (std::size_t i = 0; i < n; ++i) {
      const char* p = packed.data() + i * width;
      out[i].assign(p, std::find(p, p + width, '\0'));
    }
    return out;
  }
  Handle type{string_type(), H5Tclose};
  std::vector<char*> raw(n, nullptr);
  if (!raw.empty()) {
    check_status(H5Dread(set.id, type.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()), file_,
                 path_of(name), "read dataset " + path_of(name));
  }
  return take_strings(raw);
}

namespace {

// Reads back what was written: the file opens, its size on disk covers HDF5's end of
// allocation (a short write leaves it shorter), and every object header can be read.
void verify_written(const FileInfo& info) {
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
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors are reported by our exceptions
  // A strong close degree: H5Fclose closes every object still open, so a failed write
  // leaves nothing for the library to flush (or crash on) when the process ends.
  Handle fapl{check(H5Pcreate(H5P_FILE_ACCESS), &info_, "/", "create file properties"), H5Pclose};
  check_status(H5Pset_fclose_degree(fapl.id, H5F_CLOSE_STRONG), &info_, "/",
               "set the close degree");
  file_ = H5Fcreate(info_.path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.id);
  if (file_ < 0) {
    throw ResourceError(fmt::format("cannot create the {} {}: {}", kind, info_.path,
                                    errno ? std::strerror(errno) : hdf5_reason()));
  }
  interrupt_slot_ = remove_on_interrupt(info_.path);
  root_ = Group(check(H5Gopen2(file_, "/", H5P_DEFAULT), &info_, "/", "open the root group"),
                &info_, "/");
}

AtomicFile::~AtomicFile() {
  root_ = Group();
  if (file_ >= 0 && H5Fclose(file_) < 0) g_unclosed = true;
  if (!committed_) std::remove(info_.path.c_str());
  forget_on_interrupt(interrupt_slot_);
}

void AtomicFile::commit() {
  root_.close();
  // Every group and dataset must be closed (and its errors seen) before the file is: one
  // still open would be closed by H5Fclose without a word.
  const ssize_t open = H5Fget_obj_count(file_, H5F_OBJ_ALL | H5F_OBJ_LOCAL);
  if (open != 1)
    throw InternalError(
        fmt::format("AtomicFile::commit: {} objects of {} still open", open - 1, info_.path));
  const hid_t f = file_;
  file_ = -1;
  if (H5Fclose(f) < 0) {
    g_unclosed = true;
    fail_write(&info_, "close the file");
  }
  verify_written(info_);
  if (!sync_path(info_.path, false)) {
    throw ResourceError(
        fmt::format("cannot write the {} {}: the disk refused to flush it ({}); "
                    "nothing was written at {}",
                    info_.kind, info_.path, std::strerror(errno), info_.final_path));
  }
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
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw InputError(kind, path, "does not exist (or is not a file)");
  if (H5Fis_hdf5(path.c_str()) <= 0)
    throw InputError(kind, path, "is not an HDF5 file (damaged, truncated, or another format)");
  file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file_ < 0)
    throw InputError(kind, path,
                     "cannot be opened as HDF5 (damaged or truncated: " + hdf5_reason() + ")");
  root_ = Group(check(H5Gopen2(file_, "/", H5P_DEFAULT), &info_, "/", "open the root group"),
                &info_, "/");
}

ReadOnlyFile::~ReadOnlyFile() {
  root_ = Group();
  if (file_ >= 0) H5Fclose(file_);
}

void check_output_name(const std::string& path, const std::string& key) {
  namespace fs = std::filesystem;
  const fs::path p(path);
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

void hdf5_start() {
  H5dont_atexit();
}

void hdf5_finish() {
  if (!g_unclosed) H5close();
}

std::string hdf5_version() {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
}

}  // namespace rdpaudit::io
