// Removals classified: an item that aged out of the feed's window (the oldest ones, as newer
// items arrive) versus one pulled while older items stay (diff_items, include/feeddiff/diff.h).

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "feeddiff/diff.h"
#include "feeddiff/normalize.h"

namespace feeddiff {
namespace {

// Item n of a feed that publishes one an hour: a later n is newer.
Item numbered(int n, bool dated) {
  Item it;
  it.id = fmt::format("item-{}", n);
  it.title = fmt::format("Post {}", n);
  if (dated)
    it.published = fmt::format("Sat, {:02} Dec 2026 {:02}:00:00 +0000", 1 + n / 24, n % 24);
  return it;
}

// A window of `size` items ending at item `newest`, newest first (or oldest first).
Feed window(int newest, int size, bool dated, bool oldest_first = false) {
  Feed f;
  f.format = "rss2.0";
  for (int n = newest; n > newest - size && n >= 0; --n) f.items.push_back(numbered(n, dated));
  if (oldest_first) std::reverse(f.items.begin(), f.items.end());
  return f;
}

Feed without(Feed f, const std::string& id) {
  std::erase_if(f.items, [&](const Item& i) { return i.id == id; });
  return f;
}

struct Removals {
  std::vector<std::string> aged_out, removed;
};

Removals removals(const ItemDiff& d) {
  Removals r;
  for (const ItemChange& c : d.items) {
    if (c.kind != ItemChange::Kind::removed) {
      CHECK_FALSE(c.aged_out);  // only a removal ages out
      continue;
    }
    (c.aged_out ? r.aged_out : r.removed).push_back(c.id);
  }
  return r;
}

}  // namespace

TEST_CASE("a feed growing by 3 items a poll with a 20-item window: every removal aged out",
          "[diff]") {
  for (const bool dated : {true, false}) {
    for (const bool oldest_first : {false, true}) {
      // Undated and oldest first is the one order nothing tells: it is read newest first.
      if (!dated && oldest_first) continue;
      INFO("dated " << dated << ", oldest first " << oldest_first);
      std::size_t aged = 0;
      for (int poll = 1; poll <= 10; ++poll) {
        const Feed before = window(19 + 3 * (poll - 1), 20, dated, oldest_first);
        const Feed after = window(19 + 3 * poll, 20, dated, oldest_first);
        const Removals r = removals(diff_items(before, after));
        CHECK(r.removed.empty());
        CHECK(r.aged_out.size() == 3);
        aged += r.aged_out.size();
      }
      CHECK(aged == 30);
    }
  }
}

TEST_CASE("an item pulled from the middle is removed, not aged out, also while others age out",
          "[diff]") {
  for (const bool dated : {true, false}) {
    INFO("dated " << dated);
    const Feed before = window(19, 20, dated);
    // Pulled alone: the older items stay.
    Removals r = removals(diff_items(before, without(before, "item-10")));
    CHECK(r.aged_out.empty());
    CHECK(r.removed == std::vector<std::string>{"item-10"});
    // Pulled while 3 new ones push the 3 oldest out.
    r = removals(diff_items(before, without(window(22, 20, dated), "item-10")));
    CHECK(r.removed == std::vector<std::string>{"item-10"});
    CHECK(r.aged_out == std::vector<std::string>{"item-2", "item-1", "item-0"});
  }
}

TEST_CASE("a feed emptied, nothing new in it, is removals; replaced by new items, aging out",
          "[diff]") {
  const Feed before = window(19, 20, true);
  Feed empty;
  empty.format = "rss2.0";
  Removals r = removals(diff_items(before, empty));
  CHECK(r.aged_out.empty());
  CHECK(r.removed.size() == 20);
  // Every item replaced by newer ones (a busy feed polled rarely).
  r = removals(diff_items(before, window(60, 20, true)));
  CHECK(r.removed.empty());
  CHECK(r.aged_out.size() == 20);
}

TEST_CASE("a feed of sections, each newest first, ages items out at the end of each section",
          "[diff]") {
  // News (items 40..31), then filings of the same hours, each section a window of its own:
  // the corpus's OTC Markets feed is made so.
  const auto sections = [](int news, int filings) {
    Feed f = window(news, 10, true);
    for (Item item : window(filings, 10, true).items) {
      item.id = "filing-" + item.id.substr(5);
      f.items.push_back(std::move(item));
    }
    return f;
  };
  const Feed before = sections(40, 40);
  // One new post pushes the oldest post out, in the middle of the feed, and two new filings
  // the two oldest filings.
  Removals r = removals(diff_items(before, sections(41, 42)));
  CHECK(r.removed.empty());
  CHECK(r.aged_out == std::vector<std::string>{"item-31", "filing-32", "filing-31"});
  // A filing pulled while older filings stay.
  r = removals(diff_items(before, without(before, "filing-35")));
  CHECK(r.removed == std::vector<std::string>{"filing-35"});
  CHECK(r.aged_out.empty());
  // RFC 3339 dates (Atom) read as well as RFC 822 ones.
  Feed atom = before;
  for (Item& item : atom.items) {
    const int n = std::stoi(item.id.substr(item.id.find('-') + 1));
    item.published.clear();
    item.updated = fmt::format("2026-12-{:02}T{:02}:00:00+01:00", 1 + n / 24, n % 24);
  }
  r = removals(diff_items(atom, without(without(atom, "item-31"), "filing-35")));
  CHECK(r.aged_out == std::vector<std::string>{"item-31"});
  CHECK(r.removed == std::vector<std::string>{"filing-35"});
}

TEST_CASE("an undated feed is read newest first unless its dated items point the other way",
          "[diff]") {
  // Undated: the last item is the oldest.
  const Feed undated = window(9, 10, false);
  Removals r = removals(diff_items(undated, without(undated, "item-0")));
  CHECK(r.aged_out == std::vector<std::string>{"item-0"});
  r = removals(diff_items(undated, without(undated, "item-9")));
  CHECK(r.removed == std::vector<std::string>{"item-9"});
  // Oldest first, most items dated (one not): the first item is the oldest.
  Feed rising = window(9, 10, true, true);
  rising.items[5].published.clear();
  r = removals(diff_items(rising, without(rising, "item-0")));
  CHECK(r.aged_out == std::vector<std::string>{"item-0"});
  r = removals(diff_items(rising, without(rising, "item-9")));
  CHECK(r.removed == std::vector<std::string>{"item-9"});
}

TEST_CASE("an aged-out removal reads back from the summary cache as aged out", "[diff]") {
  const Feed before = window(19, 20, true);
  const ItemDiff d = diff_items(before, without(window(22, 20, true), "item-10"));
  const auto back = decode_item_diff(encode_item_diff(d));
  REQUIRE(back);
  const Removals r = removals(*back);
  CHECK(r.removed == std::vector<std::string>{"item-10"});
  CHECK(r.aged_out.size() == 3);
  CHECK(item_change_word(back->items.back()) == std::string("aged out"));
}

TEST_CASE("an item's history records an aged-out removal as such", "[diff][history]") {
  ItemTracker tracker;
  Feed empty;
  tracker.add(0, diff_items(empty, window(19, 20, true)));
  tracker.add(1, diff_items(window(19, 20, true), without(window(22, 20, true), "item-10")));
  const ItemLife* aged = tracker.find("item-0");
  const ItemLife* pulled = tracker.find("item-10");
  REQUIRE(aged);
  REQUIRE(pulled);
  REQUIRE(aged->events.back().kind == ItemEvent::Kind::removed);
  CHECK(aged->events.back().change.aged_out);
  REQUIRE(pulled->events.back().kind == ItemEvent::Kind::removed);
  CHECK_FALSE(pulled->events.back().change.aged_out);
}

}  // namespace feeddiff
