// The life of each item of a source, from the item diffs of its versions.

#include <algorithm>

#include "feeddiff/diff.h"

namespace feeddiff {

namespace {

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool contains_nocase(std::string_view haystack, std::string_view needle) {
  return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                     [](char a, char b) { return lower(a) == lower(b); }) != haystack.end();
}

}  // namespace

const char* item_event_name(ItemEvent::Kind kind) {
  switch (kind) {
    case ItemEvent::Kind::first_seen:
      return "first_seen";
    case ItemEvent::Kind::changed:
      return "changed";
    case ItemEvent::Kind::moved:
      return "moved";
    case ItemEvent::Kind::removed:
      return "removed";
    case ItemEvent::Kind::reappeared:
      return "reappeared";
  }
  return "changed";
}

ItemLife& ItemTracker::life_of(const ItemChange& change, std::size_t version) {
  auto [it, inserted] = index_.try_emplace(change.id, lives_.size());
  if (inserted) {
    ItemLife life;
    life.id = change.id;
    life.first_seen = version;
    lives_.push_back(std::move(life));
  }
  ItemLife& life = lives_[it->second];
  // A removed item's title is its old one: it is the newest only if none came after it.
  if (!change.title.empty() &&
      std::find(life.titles.begin(), life.titles.end(), change.title) == life.titles.end())
    life.titles.push_back(change.title);
  if (!change.title.empty()) life.title = change.title;
  return life;
}

void ItemTracker::add(std::size_t version, ItemDiff diff) {
  for (ItemChange& change : diff.items) {
    ItemLife& life = life_of(change, version);
    ItemEvent event;
    event.version = version;
    // Kinds other than these four (none today) leave no event.
    if (change.kind == ItemChange::Kind::added) {
      // A second occurrence of a present id is the same item twice, not a new life.
      const bool absent = life.occurrences++ == 0;
      if (!absent) continue;
      event.kind = life.events.empty() ? ItemEvent::Kind::first_seen : ItemEvent::Kind::reappeared;
    } else if (change.kind == ItemChange::Kind::removed) {
      if (life.occurrences > 0) --life.occurrences;
      if (life.occurrences > 0) continue;
      event.kind = ItemEvent::Kind::removed;
    } else if (change.kind == ItemChange::Kind::changed) {
      event.kind = ItemEvent::Kind::changed;
      ++life.edits;
      life.last_changed = version;
    } else if (change.kind == ItemChange::Kind::moved) {
      event.kind = ItemEvent::Kind::moved;
    } else {
      continue;
    }
    event.change = std::move(change);
    life.events.push_back(std::move(event));
  }
}

const ItemLife* ItemTracker::find(std::string_view id) const {
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : &lives_[it->second];
}

std::vector<const ItemLife*> ItemTracker::with_title(std::string_view needle) const {
  std::vector<const ItemLife*> out;
  for (const ItemLife& life : lives_)
    if (std::any_of(life.titles.begin(), life.titles.end(),
                    [&](const std::string& title) { return contains_nocase(title, needle); }))
      out.push_back(&life);
  return out;
}

}  // namespace feeddiff
