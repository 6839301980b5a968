#include "store/pack_codec.h"

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace feeddiff::pack {

// ---- zlib ----

void deflate_append(std::string_view data, std::string& out, int level, int window_bits) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    std::abort();  // only when out of memory
  std::size_t written = out.size();
  out.resize(written + deflateBound(&z, static_cast<uLong>(data.size())));
  // zlib counts in 32-bit units: larger objects go through in pieces.
  constexpr std::size_t kPiece = std::size_t{1} << 30;
  int status = Z_OK;
  do {
    const std::size_t take = std::min(data.size(), kPiece);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));  // zlib is not const
    z.avail_in = static_cast<uInt>(take);
    data.remove_prefix(take);
    const int flush = data.empty() ? Z_FINISH : Z_NO_FLUSH;
    do {
      if (out.size() == written) out.resize(written + kPiece / 8);
      const std::size_t room = std::min(out.size() - written, kPiece);
      z.next_out = reinterpret_cast<Bytef*>(out.data() + written);
      z.avail_out = static_cast<uInt>(room);
      status = deflate(&z, flush);
      if (status == Z_STREAM_ERROR) std::abort();  // a misuse of zlib, not a data error
      written += room - z.avail_out;
    } while (z.avail_in != 0 || (flush == Z_FINISH && status != Z_STREAM_END));
  } while (!data.empty());
  out.resize(written);
  deflateEnd(&z);
}

void zlib_compress(std::string_view data, std::string& out) {
  // The fastest level: a pack is written on every poll, and `feeddiff gc` repacks with git's
  // own compression and deltas. libdeflate, not zlib: the whole object is in memory, which is
  // what libdeflate asks, and at its level 1 it compressed bench/poll's 35.3 MB of feeds in
  // 0.091 s to 5.80 MB where zlib's level 1 took 0.190 s for 6.19 MB; compression was a
  // quarter of a cold poll's CPU. Its output is an ordinary zlib stream (RFC 1950).
  using CompressorPtr =
      std::unique_ptr<libdeflate_compressor, decltype(&libdeflate_free_compressor)>;
  // One per thread (the poll compresses on two): a compressor is not to be shared, and making
  // one allocates its hash tables.
  thread_local CompressorPtr compressor(libdeflate_alloc_compressor(1),
                                        &libdeflate_free_compressor);
  if (!compressor) std::abort();  // only when out of memory
  // Compressed into a buffer nothing fills first: resizing a string to the bound zeroed it
  // all, and the kernel then faulted in pages for the whole body where the stream takes a
  // sixth of them (a third of a cold poll's page faults).
  const std::size_t bound = libdeflate_zlib_compress_bound(compressor.get(), data.size());
  const std::unique_ptr<char[]> room(new char[bound]);
  const std::size_t made =
      libdeflate_zlib_compress(compressor.get(), data.data(), data.size(), room.get(), bound);
  if (made == 0) std::abort();  // the bound is always room enough
  out.append(room.get(), made);
}

std::uint32_t crc32(std::uint32_t crc, std::string_view data) {
  return static_cast<std::uint32_t>(
      crc32_z(crc, reinterpret_cast<const Bytef*>(data.data()), data.size()));
}

// ---- git delta ----

namespace {

void put_varint(std::string& out, std::size_t n) {
  do {
    unsigned char b = n & 0x7f;
    n >>= 7;
    if (n) b |= 0x80;
    out.push_back(static_cast<char>(b));
  } while (n);
}

void put_copy(std::string& out, std::size_t offset, std::size_t size) {
  while (size) {
    const std::size_t n = std::min<std::size_t>(size, 0xffffff);
    std::string op(1, '\0');
    unsigned char flags = 0x80;
    for (int i = 0; i < 4; ++i)
      if (const auto b = static_cast<unsigned char>(offset >> (8 * i)); b) {
        flags |= static_cast<unsigned char>(1 << i);
        op.push_back(static_cast<char>(b));
      }
    for (int i = 0; i < 3; ++i)
      if (const auto b = static_cast<unsigned char>(n >> (8 * i)); b) {
        flags |= static_cast<unsigned char>(0x10 << i);
        op.push_back(static_cast<char>(b));
      }
    op[0] = static_cast<char>(flags);
    out += op;
    offset += n;
    size -= n;
  }
}

// One entry of a tree object: "<mode> <name>\0<20-byte id>".
struct TreeEntry {
  std::size_t start = 0;  // of the entry in its tree
  std::size_t end = 0;    // one past its id
  std::string_view name;
  bool is_tree = false;
};

// Reads the entry at pos in tree into e; false when the bytes there are no entry.
bool tree_entry_at(std::string_view tree, std::size_t pos, TreeEntry& e) {
  const std::size_t space = tree.find(' ', pos);
  if (space == std::string_view::npos) return false;
  const std::size_t nul = tree.find('\0', space);
  if (nul == std::string_view::npos || tree.size() - nul - 1 < 20) return false;
  e = TreeEntry{pos, nul + 21, tree.substr(space + 1, nul - space - 1),
                tree.substr(pos, space - pos) == "40000"};
  return true;
}

// git's order of tree entries (base_name_compare): by name, a tree's as if it ended in '/'.
int compare_entries(const TreeEntry& a, const TreeEntry& b) {
  const std::size_t n = std::min(a.name.size(), b.name.size());
  if (const int c = std::memcmp(a.name.data(), b.name.data(), n); c != 0) return c;
  const auto next = [n](const TreeEntry& e) -> unsigned char {
    return n < e.name.size() ? static_cast<unsigned char>(e.name[n]) : (e.is_tree ? '/' : '\0');
  };
  return static_cast<int>(next(a)) - static_cast<int>(next(b));
}

void put_insert(std::string& out, std::string_view data) {
  while (!data.empty()) {
    const std::size_t n = std::min<std::size_t>(127, data.size());
    out.push_back(static_cast<char>(n));
    out.append(data.substr(0, n));
    data.remove_prefix(n);
  }
}

}  // namespace

std::string tree_delta(std::string_view base, std::string_view target) {
  if (target.size() < 64 || base.size() > 0xffffffffu) return {};
  std::string delta;
  put_varint(delta, base.size());
  put_varint(delta, target.size());
  // A merge of the two sorted entry lists: an entry whose bytes are in base is copied, in
  // one op with its neighbours when they follow each other in base too.
  std::size_t copy_from = 0, copy_size = 0, insert_from = 0, insert_size = 0;
  const auto flush = [&] {
    put_copy(delta, copy_from, copy_size);
    copy_size = 0;
    put_insert(delta, target.substr(insert_from, insert_size));
    insert_size = 0;
  };
  TreeEntry b, t;
  bool in_base = !base.empty();  // b is an entry of base not yet passed
  if (in_base && !tree_entry_at(base, 0, b)) return {};
  for (std::size_t pos = 0; pos < target.size();) {
    if (!tree_entry_at(target, pos, t)) return {};
    while (in_base && compare_entries(b, t) < 0) {
      if (b.end == base.size())
        in_base = false;
      else if (!tree_entry_at(base, b.end, b))
        return {};
    }
    const std::size_t size = t.end - t.start;
    if (in_base && b.end - b.start == size &&
        base.compare(b.start, size, target.substr(t.start, size)) == 0) {
      if (insert_size) flush();
      if (copy_size && copy_from + copy_size == b.start) {
        copy_size += size;
      } else {
        flush();
        copy_from = b.start;
        copy_size = size;
      }
    } else {
      if (copy_size) flush();
      if (!insert_size) insert_from = t.start;
      insert_size += size;
    }
    pos = t.end;
    if (delta.size() + insert_size > target.size() / 2) return {};
  }
  flush();
  if (delta.size() > target.size() / 2) return {};
  return delta;
}

std::string prefix_suffix_delta(std::string_view base, std::string_view target) {
  if (target.size() < 64 || base.size() > 0xffffffffu) return {};
  const std::size_t most = std::min(base.size(), target.size());
  std::size_t prefix = 0;
  while (prefix < most && base[prefix] == target[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < most - prefix &&
         base[base.size() - 1 - suffix] == target[target.size() - 1 - suffix])
    ++suffix;
  const std::size_t middle = target.size() - prefix - suffix;
  // Copy ops cost up to 8 bytes each; insert ops one byte per 127.
  if (middle + middle / 127 + 32 > target.size() / 2) return {};
  std::string delta;
  put_varint(delta, base.size());
  put_varint(delta, target.size());
  put_copy(delta, 0, prefix);
  for (std::size_t at = prefix; at < prefix + middle;) {
    const std::size_t n = std::min<std::size_t>(127, prefix + middle - at);
    delta.push_back(static_cast<char>(n));
    delta.append(target.substr(at, n));
    at += n;
  }
  put_copy(delta, base.size() - suffix, suffix);
  return delta;
}

}  // namespace feeddiff::pack
