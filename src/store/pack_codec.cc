#include "store/pack_codec.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

namespace feeddiff::pack {

namespace {

std::uint32_t rotl(std::uint32_t x, int n) {
  return (x << n) | (x >> (32 - n));
}

std::uint32_t load32(const unsigned char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

std::uint64_t load64(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

}  // namespace

// ---- SHA-1 (FIPS 180-4) ----

Sha1::Sha1() : h_{0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0} {}

void Sha1::block(const unsigned char* p) {
  std::uint32_t w[80];
  for (int i = 0; i < 16; ++i)
    w[i] = (std::uint32_t{p[4 * i]} << 24) | (std::uint32_t{p[4 * i + 1]} << 16) |
           (std::uint32_t{p[4 * i + 2]} << 8) | std::uint32_t{p[4 * i + 3]};
  for (int i = 16; i < 80; ++i) w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
  std::uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4];
  for (int i = 0; i < 80; ++i) {
    std::uint32_t f, k;
    if (i < 20) {
      f = (b & c) | (~b & d);
      k = 0x5A827999;
    } else if (i < 40) {
      f = b ^ c ^ d;
      k = 0x6ED9EBA1;
    } else if (i < 60) {
      f = (b & c) | (b & d) | (c & d);
      k = 0x8F1BBCDC;
    } else {
      f = b ^ c ^ d;
      k = 0xCA62C1D6;
    }
    const std::uint32_t t = rotl(a, 5) + f + e + k + w[i];
    e = d;
    d = c;
    c = rotl(b, 30);
    b = a;
    a = t;
  }
  h_[0] += a;
  h_[1] += b;
  h_[2] += c;
  h_[3] += d;
  h_[4] += e;
}

void Sha1::update(std::string_view data) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  std::size_t n = data.size();
  total_ += n;
  if (used_) {
    const std::size_t take = std::min(n, 64 - used_);
    std::memcpy(buf_ + used_, p, take);
    used_ += take;
    p += take;
    n -= take;
    if (used_ < 64) return;
    block(buf_);
    used_ = 0;
  }
  for (; n >= 64; p += 64, n -= 64) block(p);
  std::memcpy(buf_, p, n);
  used_ = n;
}

std::array<unsigned char, 20> Sha1::finish() {
  const std::uint64_t bits = total_ * 8;
  unsigned char pad[72] = {0x80};
  const std::size_t pad_len = (used_ < 56 ? 56 : 120) - used_;
  for (int i = 0; i < 8; ++i) pad[pad_len + i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
  update(std::string_view(reinterpret_cast<const char*>(pad), pad_len + 8));
  std::array<unsigned char, 20> out;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 4; ++j) out[4 * i + j] = static_cast<unsigned char>(h_[i] >> (24 - 8 * j));
  return out;
}

// ---- CRC-32 ----

std::uint32_t crc32(std::uint32_t crc, std::string_view data) {
  static const auto table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (unsigned char b : data) crc = table[(crc ^ b) & 0xff] ^ (crc >> 8);
  return ~crc;
}

// ---- zlib stream with fixed-Huffman deflate (RFC 1950, RFC 1951) ----

namespace {

constexpr std::size_t kWindow = 32768;
constexpr std::size_t kMaxMatch = 258;
constexpr std::size_t kMinMatch = 4;  // the hash covers four bytes
constexpr int kHashBits = 15;
constexpr int kMaxChain = 4;
constexpr std::size_t kIndexWholeMatch = 32;  // longer matches index head and tail only
constexpr std::size_t kIndexHead = 8;
constexpr std::size_t kIndexTail = 4;

struct FixedCodes {
  // Huffman codes are sent most significant bit first; the bit writer fills bytes from the
  // least significant bit, so every code is stored bit-reversed.
  std::uint16_t lit_code[288];
  std::uint8_t lit_bits[288];
  std::uint16_t len_sym[kMaxMatch + 1];  // length -> symbol 257..285
  std::uint16_t len_base[29];
  std::uint8_t len_extra[29];
  std::uint8_t dist_code_rev[30];
  std::uint32_t dist_base[30];
  std::uint8_t dist_extra[30];

  static std::uint16_t reverse(std::uint32_t code, int bits) {
    std::uint16_t r = 0;
    for (int i = 0; i < bits; ++i) r = static_cast<std::uint16_t>((r << 1) | ((code >> i) & 1));
    return r;
  }

  FixedCodes() {
    for (int s = 0; s < 288; ++s) {
      std::uint32_t code;
      int bits;
      if (s < 144) {
        code = 0x30 + s;
        bits = 8;
      } else if (s < 256) {
        code = 0x190 + (s - 144);
        bits = 9;
      } else if (s < 280) {
        code = s - 256;
        bits = 7;
      } else {
        code = 0xC0 + (s - 280);
        bits = 8;
      }
      lit_code[s] = reverse(code, bits);
      lit_bits[s] = static_cast<std::uint8_t>(bits);
    }
    static constexpr std::uint16_t kLenBase[29] = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                                   15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                                   67, 83, 99, 115, 131, 163, 195, 227, 258};
    static constexpr std::uint8_t kLenExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                                   2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    for (int i = 0; i < 29; ++i) {
      len_base[i] = kLenBase[i];
      len_extra[i] = kLenExtra[i];
    }
    for (std::size_t len = 3; len <= kMaxMatch; ++len) {
      int i = 28;
      while (kLenBase[i] > len) --i;
      len_sym[len] = static_cast<std::uint16_t>(257 + i);
    }
    std::uint32_t base = 1;
    for (int i = 0; i < 30; ++i) {
      dist_extra[i] = static_cast<std::uint8_t>(i < 4 ? 0 : (i - 2) / 2);
      dist_base[i] = base;
      base += 1u << dist_extra[i];
      dist_code_rev[i] = static_cast<std::uint8_t>(reverse(static_cast<std::uint32_t>(i), 5));
    }
  }

  int dist_symbol(std::uint32_t d) const {
    // Distances 1..4 have their own codes; above that each pair of codes doubles the range.
    if (d <= 4) return static_cast<int>(d - 1);
    const int log = std::bit_width(d - 1) - 1;  // floor(log2(d - 1))
    return 2 * log + static_cast<int>(((d - 1) >> (log - 1)) & 1);
  }
};

const FixedCodes& codes() {
  static const FixedCodes c;
  return c;
}

class BitWriter {
 public:
  explicit BitWriter(std::string& out) : out_(out) {}
  void put(std::uint32_t value, int bits) {
    acc_ |= std::uint64_t{value} << n_;
    n_ += bits;
    if (n_ >= 32) {
      char b[4] = {static_cast<char>(acc_), static_cast<char>(acc_ >> 8),
                   static_cast<char>(acc_ >> 16), static_cast<char>(acc_ >> 24)};
      out_.append(b, 4);
      acc_ >>= 32;
      n_ -= 32;
    }
  }
  void flush() {
    while (n_ > 0) {
      out_.push_back(static_cast<char>(acc_));
      acc_ >>= 8;
      n_ = std::max(0, n_ - 8);
    }
    acc_ = 0;
    n_ = 0;
  }

 private:
  std::string& out_;
  std::uint64_t acc_ = 0;
  int n_ = 0;
};

std::uint32_t adler32(std::string_view data) {
  std::uint32_t a = 1, b = 0;
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  std::size_t n = data.size();
  while (n) {
    const std::size_t chunk = std::min<std::size_t>(n, 5552);  // no overflow before the modulo
    for (std::size_t i = 0; i < chunk; ++i) {
      a += p[i];
      b += a;
    }
    a %= 65521;
    b %= 65521;
    p += chunk;
    n -= chunk;
  }
  return (b << 16) | a;
}

void put_stored(std::string_view data, std::string& out) {
  do {
    const std::size_t n = std::min<std::size_t>(data.size(), 65535);
    const bool last = n == data.size();
    out.push_back(last ? 1 : 0);
    const auto len = static_cast<std::uint16_t>(n);
    const auto nlen = static_cast<std::uint16_t>(~len);
    const char hdr[4] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8),
                         static_cast<char>(nlen & 0xff), static_cast<char>(nlen >> 8)};
    out.append(hdr, 4);
    out.append(data.substr(0, n));
    data.remove_prefix(n);
  } while (!data.empty());
}

void put_fixed(std::string_view data, std::string& out) {
  const FixedCodes& c = codes();
  BitWriter bits(out);
  bits.put(1, 1);  // BFINAL
  bits.put(1, 2);  // BTYPE 01: fixed Huffman codes
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  const std::size_t n = data.size();
  // Tables sized to the input: a pack holds many small trees and commits, and clearing
  // 256 KiB of tables for each was a measurable part of writing one.
  const int hash_bits = std::clamp(static_cast<int>(std::bit_width(n)), 8, kHashBits);
  const std::size_t window = std::min(kWindow, std::bit_ceil(std::max<std::size_t>(n, 1)));
  const std::size_t window_mask = window - 1;
  std::vector<std::int32_t> head(std::size_t{1} << hash_bits, -1);
  std::vector<std::int32_t> prev(window, -1);
  auto hash = [hash_bits](std::uint32_t v) { return (v * 2654435761u) >> (32 - hash_bits); };
  auto literal = [&](unsigned char b) { bits.put(c.lit_code[b], c.lit_bits[b]); };

  std::size_t pos = 0;
  while (pos + kMinMatch <= n) {
    const std::uint32_t key = load32(p + pos);
    const std::uint32_t h = hash(key);
    std::int32_t cand = head[h];
    head[h] = static_cast<std::int32_t>(pos);
    prev[pos & window_mask] = cand;

    std::size_t best = 0, best_dist = 0;
    const std::size_t limit = std::min(kMaxMatch, n - pos);
    for (int chain = kMaxChain; cand >= 0 && chain > 0; --chain) {
      const auto from = static_cast<std::size_t>(cand);
      if (pos - from > kWindow) break;
      if (load32(p + from) == key) {
        std::size_t len = 4;
        while (len + 8 <= limit) {
          const std::uint64_t diff = load64(p + from + len) ^ load64(p + pos + len);
          if (diff) {
            len += static_cast<std::size_t>(std::countr_zero(diff)) / 8;
            goto measured;
          }
          len += 8;
        }
        while (len < limit && p[from + len] == p[pos + len]) ++len;
      measured:
        len = std::min(len, limit);
        if (len > best) {
          best = len;
          best_dist = pos - from;
          if (len == limit) break;
        }
      }
      const std::int32_t next = prev[from & window_mask];
      if (next >= cand) break;  // the slot was reused by a newer position: chain ends
      cand = next;
    }

    if (best < kMinMatch) {
      literal(p[pos]);
      ++pos;
      continue;
    }
    const int ls = c.len_sym[best] - 257;
    bits.put(c.lit_code[257 + ls], c.lit_bits[257 + ls]);
    if (c.len_extra[ls])
      bits.put(static_cast<std::uint32_t>(best - c.len_base[ls]), c.len_extra[ls]);
    const int ds = c.dist_symbol(static_cast<std::uint32_t>(best_dist));
    bits.put(c.dist_code_rev[ds], 5);
    if (c.dist_extra[ds])
      bits.put(static_cast<std::uint32_t>(best_dist - c.dist_base[ds]), c.dist_extra[ds]);
    // Index the positions inside the match, so later repeats of them are found too.
    // A long match indexes only its start and its end: feeds repeat long runs of markup,
    // and indexing every byte of them was the compressor's main cost for little gain.
    const std::size_t end = pos + best;
    const std::size_t gap_from = best > kIndexWholeMatch ? pos + kIndexHead : end;
    const std::size_t gap_to = best > kIndexWholeMatch ? end - kIndexTail : end;
    for (++pos; pos < end && pos + kMinMatch <= n; ++pos) {
      if (pos == gap_from) {
        pos = gap_to;
        if (pos + kMinMatch > n) break;
      }
      const std::uint32_t hh = hash(load32(p + pos));
      prev[pos & window_mask] = head[hh];
      head[hh] = static_cast<std::int32_t>(pos);
    }
    pos = end;
  }
  for (; pos < n; ++pos) literal(p[pos]);
  bits.put(c.lit_code[256], c.lit_bits[256]);  // end of block
  bits.flush();
}

}  // namespace

void zlib_compress(std::string_view data, std::string& out) {
  out.push_back(static_cast<char>(0x78));  // deflate, 32 KiB window
  out.push_back(static_cast<char>(0x01));  // fastest; (0x78 << 8 | 0x01) % 31 == 0
  const std::size_t start = out.size();
  put_fixed(data, out);
  // Fixed codes spend nine bits on some bytes: incompressible data is stored as is.
  if (out.size() - start > data.size() + 5 * (data.size() / 65535 + 1)) {
    out.resize(start);
    put_stored(data, out);
  }
  const std::uint32_t a = adler32(data);
  const char tail[4] = {static_cast<char>(a >> 24), static_cast<char>(a >> 16),
                        static_cast<char>(a >> 8), static_cast<char>(a)};
  out.append(tail, 4);
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

}  // namespace

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
