// SipHash-1-3 (Aumasson and Bernstein; the variant Rust's HashMap uses) under a per-process
// random key: a feed cannot know the key, so it cannot choose ids, words or lines that
// collide in diff's tables.

#include <sys/random.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "feeddiff/diff.h"

namespace feeddiff {

namespace {

struct Key {
  std::uint64_t k0, k1;
};

Key make_key() {
  // getrandom(2), not std::random_device: libstdc++'s probes the CPU's instructions first,
  // 15 us of every `feeddiff show` (0.5% of it), for 16 bytes.
  Key key{};
  if (getrandom(&key, sizeof key, 0) == static_cast<ssize_t>(sizeof key)) return key;
  // No entropy source: the clock and an address still keep the key from being known in
  // advance.
  static int anchor;
  const auto now =
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return Key{now * 0x9E3779B97F4A7C15ull, reinterpret_cast<std::uintptr_t>(&anchor) ^ (now >> 17)};
}

const Key& key() {
  static const Key k = make_key();
  return k;
}

constexpr std::uint64_t rotl(std::uint64_t x, int bits) {
  return (x << bits) | (x >> (64 - bits));
}

}  // namespace

std::size_t TextHash::operator()(std::string_view text) const noexcept {
  const Key& k = key();
  std::uint64_t v0 = k.k0 ^ 0x736f6d6570736575ull, v1 = k.k1 ^ 0x646f72616e646f6dull;
  std::uint64_t v2 = k.k0 ^ 0x6c7967656e657261ull, v3 = k.k1 ^ 0x7465646279746573ull;
  auto round = [&] {
    v0 += v1, v1 = rotl(v1, 13), v1 ^= v0, v0 = rotl(v0, 32);
    v2 += v3, v3 = rotl(v3, 16), v3 ^= v2;
    v0 += v3, v3 = rotl(v3, 21), v3 ^= v0;
    v2 += v1, v1 = rotl(v1, 17), v1 ^= v2, v2 = rotl(v2, 32);
  };
  const char* p = text.data();
  const std::size_t n = text.size();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t m;
    std::memcpy(&m, p + i, 8);  // the host's byte order: the key is the host's too
    v3 ^= m;
    round();
    v0 ^= m;
  }
  std::uint64_t last = static_cast<std::uint64_t>(n) << 56;
  for (std::size_t j = 0; i + j < n; ++j)
    last |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i + j])) << (8 * j);
  v3 ^= last;
  round();
  v0 ^= last;
  v2 ^= 0xff;
  round();
  round();
  round();
  return static_cast<std::size_t>(v0 ^ v1 ^ v2 ^ v3);
}

}  // namespace feeddiff
