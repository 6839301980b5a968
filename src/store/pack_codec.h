#pragma once
// The byte-level pieces of a git pack, internal to store: SHA-1 (pack and index checksums),
// CRC-32 (index entries), a zlib stream encoder (object data) and a git delta encoder.
// libgit2 exposes none of these, and zlib is not linked into feeddiff, so they live here,
// small and checked end to end by git itself (the store tests run `git fsck` and
// `git verify-pack` on every pack written).

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace feeddiff::pack {

/// Incremental SHA-1.
class Sha1 {
 public:
  Sha1();
  /// Adds bytes.
  void update(std::string_view data);
  /// The digest; the object is spent afterwards.
  std::array<unsigned char, 20> finish();

 private:
  void block(const unsigned char* p);
  std::uint32_t h_[5];
  unsigned char buf_[64];
  std::size_t used_ = 0;
  std::uint64_t total_ = 0;
};

/// CRC-32 (IEEE 802.3, as zlib and git compute it), continuing from crc.
std::uint32_t crc32(std::uint32_t crc, std::string_view data);

/// Appends a zlib stream (RFC 1950) of data to out: LZ77 with fixed Huffman codes, falling
/// back to stored blocks when that would not be smaller. Fast rather than tight; `feeddiff gc`
/// repacks with git's own compression and deltas.
void zlib_compress(std::string_view data, std::string& out);

/// A git delta (as in packs) that turns base into target, using the common prefix and suffix;
/// empty when such a delta would not save at least half of target.
std::string prefix_suffix_delta(std::string_view base, std::string_view target);

}  // namespace feeddiff::pack
