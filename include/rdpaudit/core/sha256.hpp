// SHA-256 (FIPS 180-4), used to fingerprint the verbatim experiment text in results files.
#pragma once

#include <string>

namespace rdpaudit {

/// Lower-case hex SHA-256 digest of `data`.
std::string sha256_hex(const std::string& data);

}  // namespace rdpaudit
