// ItemTracker: the life of each item from a sequence of feed versions, diffed as
// `feeddiff history` diffs them (each version against the last one before it).

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "diff/item_helpers.h"
#include "feeddiff/diff.h"

namespace feeddiff {
using namespace test;
namespace {

// Tracks the versions, each diffed against the one before (the first against no feed).
ItemTracker track(const std::vector<std::vector<Item>>& versions) {
  ItemTracker tracker;
  Feed before;
  for (std::size_t v = 0; v < versions.size(); ++v) {
    Feed after;
    after.items = versions[v];
    tracker.add(v, diff_items(before, after));
    before = std::move(after);
  }
  return tracker;
}

std::vector<std::pair<ItemEvent::Kind, std::size_t>> events(const ItemLife& life) {
  std::vector<std::pair<ItemEvent::Kind, std::size_t>> out;
  for (const ItemEvent& e : life.events) out.emplace_back(e.kind, e.version);
  return out;
}

using K = ItemEvent::Kind;

TEST_CASE("an item's life: first seen, edited, moved, removed, reappeared", "[diff][history]") {
  const ItemTracker t = track({
      {item("a", "Alpha"), item("b", "Beta")},
      {item("a", "Alpha, revised"), item("b", "Beta")},
      {item("b", "Beta"), item("a", "Alpha, revised")},
      {item("b", "Beta")},
      {item("b", "Beta")},
      {item("a", "Alpha, revised"), item("b", "Beta")},
  });
  REQUIRE(t.lives().size() == 2);
  const ItemLife* a = t.find("a");
  REQUIRE(a);
  // Version 2 reorders the two: one of them is the mover.
  const ItemLife* b = t.find("b");
  REQUIRE(b);
  const bool a_moved = std::any_of(a->events.begin(), a->events.end(),
                                   [](const ItemEvent& e) { return e.kind == K::moved; });
  const bool b_moved = std::any_of(b->events.begin(), b->events.end(),
                                   [](const ItemEvent& e) { return e.kind == K::moved; });
  CHECK(a_moved != b_moved);
  auto a_events = events(*a);
  std::erase_if(a_events, [](const auto& e) { return e.first == K::moved; });
  CHECK(a_events == std::vector<std::pair<K, std::size_t>>{
                        {K::first_seen, 0}, {K::changed, 1}, {K::removed, 3}, {K::reappeared, 5}});
  CHECK(a->first_seen == 0);
  CHECK(a->edits == 1);
  CHECK(a->last_changed == std::optional<std::size_t>(1));
  CHECK(a->present());
  CHECK(a->title == "Alpha, revised");
  CHECK(a->titles == std::vector<std::string>{"Alpha", "Alpha, revised"});
  // The edit keeps its field's before and after.
  REQUIRE(a->events[1].change.changes.size() == 1);
  CHECK(a->events[1].change.changes[0].field == "title");
  CHECK(a->events[1].change.changes[0].old_value == "Alpha");
  CHECK(a->events[1].change.changes[0].new_value == "Alpha, revised");

  CHECK(b->edits == 0);
  CHECK_FALSE(b->last_changed);
  CHECK(t.with_title("alpha").size() == 1);
  CHECK(t.with_title("A").size() == 2);
  CHECK(t.find("c") == nullptr);
}

TEST_CASE("an id repeated in a feed is one item, removed when its last occurrence goes",
          "[diff][history]") {
  const ItemTracker t = track({
      {item("a", "A"), item("a", "A")},
      {item("a", "A")},
      {},
  });
  REQUIRE(t.lives().size() == 1);
  const ItemLife& a = t.lives().front();
  CHECK(events(a) == std::vector<std::pair<K, std::size_t>>{{K::first_seen, 0}, {K::removed, 2}});
  CHECK_FALSE(a.present());
}

}  // namespace
}  // namespace feeddiff
