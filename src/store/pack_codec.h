#pragma once
// The byte-level pieces of a git pack, internal to store: CRC-32 (index entries) from zlib,
// zlib streams (object data) from libdeflate, gzip members from zlib, and a git delta
// encoder, which no linked library offers (libgit2 keeps its own internal). Checked end to end by
// git itself: the store tests run `git fsck` and `git verify-pack` on every pack written. Pack and
// index checksums are core's Sha1.

#include <cstdint>
#include <string>
#include <string_view>

namespace feeddiff::pack {

/// zlib's CRC-32 (as git's index records it), continuing from crc.
std::uint32_t crc32(std::uint32_t crc, std::string_view data);

/// Appends a zlib stream (RFC 1950) of data to out, at libdeflate's fastest level.
void zlib_compress(std::string_view data, std::string& out);

/// Appends data deflated at level (zlib's -1 to 9) to out, with zlib's window_bits: 8 to 15
/// for a zlib stream, 16 more for a gzip member (RFC 1952).
void deflate_append(std::string_view data, std::string& out, int level, int window_bits);

/// A git delta (as in packs) that turns base into target, using the common prefix and suffix;
/// empty when such a delta would not save at least half of target.
std::string prefix_suffix_delta(std::string_view base, std::string_view target);

/// A git delta that turns tree object base into tree object target entry by entry: runs of
/// entries the two share are copied, the rest inserted, wherever they sit (two versions of a
/// raw/ tree some commits apart differ in scattered entries). Empty when either is no
/// well-formed tree or the delta would not save at least half of target.
std::string tree_delta(std::string_view base, std::string_view target);

}  // namespace feeddiff::pack
