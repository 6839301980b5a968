// SHA-1 (and SHA-256, for the hooks a machine trusts) from libcrypto: the one place feeddiff
// includes OpenSSL. libcrypto is linked already
// (libgit2's SSH transport needs it), and its SHA-1 is faster than a hand-written one.
// Not git's collision-detecting SHA-1: feeddiff only names what it wrote itself.

#include <openssl/evp.h>

#include <cstdlib>

#include "feeddiff/core.h"

namespace feeddiff {

namespace {

// libcrypto fails here only when out of memory or when a configuration disabled SHA-1
// altogether; no archive can be written then, and an error value would change every caller
// of a function that cannot otherwise fail.
void check(int ok) {
  if (ok != 1) std::abort();
}

// The digests fetched from the provider once: EVP_sha1() makes libcrypto 3 look the
// implementation up again on every digest, which was most of the cost of hashing an item id
// (SourceVersions hashes one per item of every version it reads). Kept for the process.
const EVP_MD* fetched(const char* name) {
  const EVP_MD* md = EVP_MD_fetch(nullptr, name, nullptr);
  if (md == nullptr) std::abort();
  return md;
}

const EVP_MD* sha1_md() {
  static const EVP_MD* const md = fetched("SHA1");
  return md;
}

const EVP_MD* sha256_md() {
  static const EVP_MD* const md = fetched("SHA256");
  return md;
}

}  // namespace

struct Sha1::State {
  EVP_MD_CTX* ctx = nullptr;
};

Sha1::Sha1() : state_(std::make_unique<State>()) {
  state_->ctx = EVP_MD_CTX_new();
  if (state_->ctx == nullptr) std::abort();
  check(EVP_DigestInit_ex(state_->ctx, sha1_md(), nullptr));
}

Sha1::~Sha1() {
  EVP_MD_CTX_free(state_->ctx);
}

void Sha1::update(std::string_view data) {
  check(EVP_DigestUpdate(state_->ctx, data.data(), data.size()));
}

std::array<unsigned char, 20> Sha1::finish() {
  std::array<unsigned char, 20> out{};
  unsigned int size = 0;
  check(EVP_DigestFinal_ex(state_->ctx, out.data(), &size));
  check(size == out.size() ? 1 : 0);
  return out;
}

std::array<unsigned char, 20> sha1(std::string_view data) {
  std::array<unsigned char, 20> out{};
  unsigned int size = 0;
  check(EVP_Digest(data.data(), data.size(), out.data(), &size, sha1_md(), nullptr));
  check(size == out.size() ? 1 : 0);
  return out;
}

std::string sha1_hex(std::string_view data) {
  const auto digest = sha1(data);
  return hex_encode(digest.data(), digest.size());
}

std::string sha256_hex(std::string_view data) {
  std::array<unsigned char, 32> digest{};
  unsigned int size = 0;
  check(EVP_Digest(data.data(), data.size(), digest.data(), &size, sha256_md(), nullptr));
  check(size == digest.size() ? 1 : 0);
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

std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t h) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;  // the 64-bit FNV prime
  }
  return h;
}

}  // namespace feeddiff
