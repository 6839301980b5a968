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

}  // namespace

struct Sha1::State {
  EVP_MD_CTX* ctx = nullptr;
};

Sha1::Sha1() : state_(std::make_unique<State>()) {
  state_->ctx = EVP_MD_CTX_new();
  if (state_->ctx == nullptr) std::abort();
  check(EVP_DigestInit_ex(state_->ctx, EVP_sha1(), nullptr));
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
  check(EVP_Digest(data.data(), data.size(), out.data(), &size, EVP_sha1(), nullptr));
  check(size == out.size() ? 1 : 0);
  return out;
}

std::string sha1_hex(std::string_view data) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(40);
  for (unsigned char b : sha1(data)) {
    out += kHex[b >> 4];
    out += kHex[b & 0xF];
  }
  return out;
}

std::string sha256_hex(std::string_view data) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::array<unsigned char, 32> digest{};
  unsigned int size = 0;
  check(EVP_Digest(data.data(), data.size(), digest.data(), &size, EVP_sha256(), nullptr));
  check(size == digest.size() ? 1 : 0);
  std::string out;
  out.reserve(64);
  for (unsigned char b : digest) {
    out += kHex[b >> 4];
    out += kHex[b & 0xF];
  }
  return out;
}

}  // namespace feeddiff
