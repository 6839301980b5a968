// The precompressor: a batch's blobs compressed on a thread of their own ahead of the pack.
// What it hands back must be exactly what write_pack would have made itself, so a pack is
// the same bytes whether or not the thread kept up.

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "store/pack_codec.h"
#include "store/precompressor.h"

using namespace feeddiff;

namespace {

std::shared_ptr<const std::string> shared(std::string bytes) {
  return std::make_shared<const std::string>(std::move(bytes));
}

git_oid oid_of(int n) {
  git_oid id{};
  for (int i = 0; i < 4; ++i) id.id[i] = static_cast<unsigned char>(n >> (8 * i));
  id.id[19] = 0x5a;
  return id;
}

std::vector<std::string> bodies() {
  std::mt19937 rng(7);
  std::vector<std::string> out;
  for (std::size_t size : {1024u, 5000u, 70000u, 300000u}) {
    std::string random(size, '\0');
    for (char& c : random) c = static_cast<char>(rng());
    out.push_back(random);
    out.push_back(std::string(size, 'x'));
    std::string text;
    while (text.size() < size)
      text += "<item><title>entry " + std::to_string(rng() % 1000) + "</title></item>\n";
    out.push_back(text);
  }
  return out;
}

}  // namespace

TEST_CASE("the precompressor hands back exactly what the pack writer would compress, once",
          "[store]") {
  const auto all = bodies();
  pack::Precompressor made;
  for (std::size_t i = 0; i < all.size(); ++i)
    REQUIRE(made.submit(oid_of(static_cast<int>(i)), shared(all[i])));
  // Taken newest first: each take waits for its own object, whatever the thread is doing.
  for (std::size_t i = all.size(); i-- > 0;) {
    INFO(i);
    auto got = made.take(oid_of(static_cast<int>(i)));
    REQUIRE(got);
    std::string expected;
    pack::zlib_compress(all[i], expected);
    CHECK(*got == expected);
    CHECK_FALSE(made.take(oid_of(static_cast<int>(i))));
  }
}

TEST_CASE("the precompressor declines small objects and objects it already has", "[store]") {
  pack::Precompressor made;
  CHECK_FALSE(made.submit(oid_of(1), shared(std::string(pack::kPrecompressMinBytes - 1, 'a'))));
  CHECK_FALSE(made.take(oid_of(1)));
  CHECK(made.submit(oid_of(2), shared(std::string(pack::kPrecompressMinBytes, 'a'))));
  CHECK_FALSE(made.submit(oid_of(2), shared(std::string(pack::kPrecompressMinBytes, 'a'))));
  CHECK_FALSE(made.submit(oid_of(3), shared(std::string(pack::kPrecompressMaxQueued + 1, 'b'))));
  CHECK(made.take(oid_of(2)));
}

TEST_CASE("a cleared precompressor forgets what it made and queued", "[store]") {
  pack::Precompressor made;
  for (int i = 0; i < 20; ++i)
    REQUIRE(made.submit(oid_of(i), shared(std::string(200000, 'a' + i % 26))));
  made.clear();
  for (int i = 0; i < 20; ++i) CHECK_FALSE(made.take(oid_of(i)));
  // It keeps working after a clear (the next batch's flush).
  REQUIRE(made.submit(oid_of(99), shared(std::string(4096, 'z'))));
  auto got = made.take(oid_of(99));
  REQUIRE(got);
  std::string expected;
  pack::zlib_compress(std::string(4096, 'z'), expected);
  CHECK(*got == expected);
}
