// SHA-1 (and SHA-256, for the hooks a machine trusts) from libcrypto: the one place feeddiff
// includes OpenSSL. libcrypto is linked already (libgit2's SSH transport needs it), and its
// SHA-1 is faster than a hand-written one. Not git's collision-detecting SHA-1: feeddiff only
// names what it wrote itself.
//
// The digests are libcrypto's own functions (SHA1_Init and the like), not the EVP interface:
// the first EVP digest of a process makes libcrypto 3 load its configuration file, its error
// strings and its providers, 1.8 ms of the 13.7 that `show HEAD` took (13% of it; git show
// takes 12.0). The functions are deprecated in OpenSSL 3 in favour of EVP, not removed, and
// run the same assembly.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

#include <cstdlib>

#include "feeddiff/core.h"

namespace feeddiff {

namespace {

// libcrypto's digests fail only on a null argument; one that did would leave a wrong name in
// the archive, so the process stops instead.
void check(int ok) {
  if (ok != 1) std::abort();
}

}  // namespace

struct Sha1::State {
  SHA_CTX ctx{};
};

Sha1::Sha1() : state_(std::make_unique<State>()) {
  check(SHA1_Init(&state_->ctx));
}

Sha1::~Sha1() = default;

void Sha1::update(std::string_view data) {
  check(SHA1_Update(&state_->ctx, data.data(), data.size()));
}

std::array<unsigned char, 20> Sha1::finish() {
  std::array<unsigned char, 20> out{};
  check(SHA1_Final(out.data(), &state_->ctx));
  return out;
}

std::array<unsigned char, 20> sha1(std::string_view data) {
  std::array<unsigned char, 20> out{};
  SHA_CTX ctx;
  check(SHA1_Init(&ctx));
  check(SHA1_Update(&ctx, data.data(), data.size()));
  check(SHA1_Final(out.data(), &ctx));
  return out;
}

std::string sha1_hex(std::string_view data) {
  const auto digest = sha1(data);
  return hex_encode(digest.data(), digest.size());
}

std::string sha256_hex(std::string_view data) {
  std::array<unsigned char, 32> digest{};
  SHA256_CTX ctx;
  check(SHA256_Init(&ctx));
  check(SHA256_Update(&ctx, data.data(), data.size()));
  check(SHA256_Final(digest.data(), &ctx));
  return hex_encode(digest.data(), digest.size());
}

namespace {
constexpr char kHexDigits[] = "0123456789abcdef";
}  // namespace

std::string hex_encode(const unsigned char* bytes, std::size_t size) {
  std::string out(2 * size, '0');
  for (std::size_t i = 0; i < size; ++i) {
    out[2 * i] = kHexDigits[bytes[i] >> 4];
    out[2 * i + 1] = kHexDigits[bytes[i] & 15];
  }
  return out;
}

std::string hex_encode(std::string_view bytes) {
  return hex_encode(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

std::string hex_u64(std::uint64_t value) {
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, value >>= 4)
    out[static_cast<std::size_t>(i)] = kHexDigits[value & 15];
  return out;
}

// No library feeddiff links offers base32 (OpenSSL has base64 only); it is a few lines.
std::string base32_encode(std::string_view bytes) {
  constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  std::string out;
  out.reserve((bytes.size() + 4) / 5 * 8);
  std::uint64_t buffer = 0;
  int bits = 0;
  for (unsigned char c : bytes) {
    buffer = (buffer << 8) | c;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += kAlphabet[(buffer >> bits) & 31];
    }
  }
  if (bits > 0) out += kAlphabet[(buffer << (5 - bits)) & 31];
  while (out.size() % 8 != 0) out += '=';
  return out;
}

std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t h) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;  // the 64-bit FNV prime
  }
  return h;
}

}  // namespace feeddiff
