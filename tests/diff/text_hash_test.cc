// Item matching hashes ids a feed chooses. libstdc++'s std::hash (MurmurHash64A with a fixed
// seed) lets anyone build any number of ids with one hash, whatever the seed: each 8-byte
// block is mixed on its own and then XORed into the state and multiplied, so flipping the top
// bit of two consecutive mixed blocks cancels out. diff's tables use TextHash instead.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/diff.h"

using namespace feeddiff;

namespace {

constexpr std::uint64_t kMul = (std::uint64_t{0xc6a4a793} << 32) + 0x5bd1e995;

std::uint64_t inverse(std::uint64_t odd) {
  std::uint64_t x = odd;  // Newton: each step doubles the bits that are right
  for (int i = 0; i < 6; ++i) x *= 2 - odd * x;
  return x;
}

// The 8 bytes that libstdc++'s _Hash_bytes mixes into `mixed`:
// mixed = shift_mix(block * kMul) * kMul, with shift_mix(v) = v ^ (v >> 47).
std::string block_for(std::uint64_t mixed) {
  const std::uint64_t inv = inverse(kMul);
  std::uint64_t v = mixed * inv;
  v ^= v >> 47;  // shift_mix is its own inverse for shifts of 32 or more
  const std::uint64_t block = v * inv;
  std::string out(8, '\0');
  std::memcpy(out.data(), &block, 8);
  return out;
}

// 2^bits ids of 16 * bits bytes that std::hash<std::string_view> maps to one value.
std::vector<std::string> colliding_ids(int bits) {
  constexpr std::uint64_t kTop = std::uint64_t{1} << 63;
  std::vector<std::string> pairs[2];
  for (int k = 0; k < bits; ++k) {
    const std::uint64_t a = 0x0123456789abcdefull * (2 * k + 1), b = 0xfedcba9876543210ull + k;
    pairs[0].push_back(block_for(a) + block_for(b));
    pairs[1].push_back(block_for(a ^ kTop) + block_for(b ^ kTop));
  }
  std::vector<std::string> ids;
  for (std::uint64_t n = 0; n < (std::uint64_t{1} << bits); ++n) {
    std::string id;
    for (int k = 0; k < bits; ++k) id += pairs[(n >> k) & 1][k];
    ids.push_back(std::move(id));
  }
  return ids;
}

}  // namespace

TEST_CASE("ids a feed builds to collide under std::hash spread under diff's keyed hash", "[diff]") {
  const std::vector<std::string> ids = colliding_ids(12);  // 4,096 ids
  REQUIRE(std::set<std::string>(ids.begin(), ids.end()).size() == 4096);
#if defined(__GLIBCXX__) && UINTPTR_MAX == UINT64_MAX
  // The attack is real: every id has the same std::hash, so an unordered_map of them is one
  // chain and matching them is quadratic.
  const std::size_t first = std::hash<std::string_view>{}(ids[0]);
  std::size_t same = 0;
  for (const std::string& id : ids) same += std::hash<std::string_view>{}(id) == first;
  CHECK(same == ids.size());
#endif
  std::set<std::size_t> keyed;
  for (const std::string& id : ids) keyed.insert(TextHash{}(id));
  CHECK(keyed.size() == ids.size());
  // And the low bits, which pick a bucket, spread too: no bucket of 4,096 holds more than a
  // few dozen (about 1 each on average).
  std::vector<int> buckets(4096, 0);
  for (const std::string& id : ids) ++buckets[TextHash{}(id)&4095];
  CHECK(*std::max_element(buckets.begin(), buckets.end()) < 32);
}

TEST_CASE("items with ids built to collide are matched one to one", "[diff]") {
  const std::vector<std::string> ids = colliding_ids(12);
  Feed old_feed, new_feed;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    Item item;
    item.id = ids[i];
    item.title = "t" + std::to_string(i);
    old_feed.items.push_back(item);
    if (i % 2 == 0) item.title += " (edited)";
    if (i % 4 != 3) new_feed.items.push_back(item);  // every fourth one leaves
  }
  const ItemDiff d = diff_items(old_feed, new_feed);
  std::size_t changed = 0, removed = 0;
  for (const ItemChange& c : d.items) {
    changed += c.kind == ItemChange::Kind::changed;
    removed += c.kind == ItemChange::Kind::removed;
  }
  CHECK(changed == ids.size() / 2);
  CHECK(removed == ids.size() / 4);
  CHECK(d.items.size() == ids.size() / 2 + ids.size() / 4);
}
