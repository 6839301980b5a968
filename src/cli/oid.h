#pragma once
// Object ids held in 20 bytes rather than a 72-byte hex string: what the commands keep one of
// per version of a whole history (site's lists, the versions of a source).

#include <array>
#include <cstddef>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "feeddiff/core.h"

namespace feeddiff::cli {

/// A SHA-1 object id, as bytes.
using Oid = std::array<unsigned char, 20>;

/// The id that 40 lowercase hex digits spell; nullopt for anything else.
inline std::optional<Oid> parse_oid(std::string_view hex) {
  if (hex.size() != 40) return std::nullopt;
  auto nibble = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  };
  Oid out{};
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int high = nibble(hex[2 * i]), low = nibble(hex[2 * i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    out[i] = static_cast<unsigned char>(high << 4 | low);
  }
  return out;
}

/// The id of 40 hex digits the caller has checked (all zeros for anything else).
inline Oid to_oid(std::string_view hex) {
  return parse_oid(hex).value_or(Oid{});
}

/// The 40 lowercase hex digits of an id.
inline std::string to_hex(const Oid& oid) {
  return hex_encode(oid.data(), oid.size());
}

/// Hashes an id for unordered containers: its first bytes are already uniform.
struct OidHash {
  /// The id's first eight bytes.
  std::size_t operator()(const Oid& oid) const noexcept {
    std::size_t h;
    std::memcpy(&h, oid.data(), sizeof h);
    return h;
  }
};

}  // namespace feeddiff::cli
