// SHA-256 (FIPS 180-4): the fingerprint of the verbatim experiment text in results files and
// the checksum of the counts in checkpoints and part files.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace rdpaudit {

/// Incremental SHA-256: update() with any number of byte ranges, then hex() once.
class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t bytes);
  /// Lower-case hex digest of everything passed to update().
  std::string hex();

 private:
  void block(const unsigned char* p);
  std::array<std::uint32_t, 8> h_;
  std::array<unsigned char, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t length_ = 0;  ///< bytes passed so far
};

/// Lower-case hex SHA-256 digest of `data`.
std::string sha256_hex(const std::string& data);

}  // namespace rdpaudit
