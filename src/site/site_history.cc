#include "site/site_history.h"

#include <fmt/format.h>
#include <algorithm>
#include <optional>
#include <unordered_map>
#include <vector>

#include "feeddiff/core.h"
#include "feeddiff/diff.h"
#include "feeddiff/normalize.h"
#include "feeddiff/render.h"
#include "site/site_backfilled.h"

namespace feeddiff::site {

namespace fs = std::filesystem;

namespace {

// The state's first line names its format; a state of another format is not read, and the
// set is built anew.
constexpr std::string_view kHistoryStateFormat = "feeddiff-history 1";

// What the set is at: the newest version applied, the pages sealed, and the items of the
// current document (at most a page's worth) with everything each shows.
struct HistoryState {
  std::string tip;
  std::size_t archives = 0;
  std::string updated;
  std::vector<HistoryFeedItem> current;  // as they entered the set, oldest first
};

fs::path history_state_path(const fs::path& state_dir, const std::string& source) {
  return state_dir / "complete" / source;
}

std::string join_lines(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) {
    if (!out.empty()) out += '\n';
    out += name;
  }
  return out;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  std::size_t at = 0;
  for (std::size_t end; (end = text.find('\n', at)) != std::string::npos; at = end + 1)
    out.push_back(text.substr(at, end - at));
  out.push_back(text.substr(at));
  return out;
}

std::string state_text(const HistoryState& state) {
  std::string out(kHistoryStateFormat);
  append_tab_field(out, state.tip);
  append_tab_field(out, std::to_string(state.archives));
  append_tab_field(out, state.updated);
  out += '\n';
  for (const HistoryFeedItem& item : state.current) {
    out += item.deleted ? "deleted" : item.backfilled ? "backfilled" : "entry";
    for (const std::string* field : {&item.id, &item.recorded_at, &item.commit, &item.title,
                                     &item.link, &item.published, &item.summary, &item.content})
      append_tab_field(out, *field);
    append_tab_field(out, join_lines(item.authors));
    out += '\n';
  }
  return out;
}

// The state kept for the source; an empty one (the set starts over) when it is missing, of
// another format or does not read back.
HistoryState load_state(const fs::path& path) {
  HistoryState state;
  auto text = read_file(path.string());
  if (!text) return state;
  std::vector<std::string> fields;
  std::size_t at = 0;
  bool first = true;
  while (at < text->size()) {
    std::size_t end = text->find('\n', at);
    if (end == std::string::npos) return HistoryState{};  // cut short
    const std::string_view line = std::string_view(*text).substr(at, end - at);
    at = end + 1;
    if (!split_tab_fields(line, fields)) return HistoryState{};
    if (first) {
      first = false;
      if (fields.size() != 4 || fields[0] != kHistoryStateFormat) return HistoryState{};
      state.tip = fields[1];
      state.archives = std::strtoull(fields[2].c_str(), nullptr, 10);
      state.updated = fields[3];
      continue;
    }
    if (fields.size() != 10 ||
        (fields[0] != "entry" && fields[0] != "deleted" && fields[0] != "backfilled"))
      return HistoryState{};
    HistoryFeedItem item;
    item.deleted = fields[0] == "deleted";
    item.backfilled = fields[0] == "backfilled";
    item.id = fields[1];
    item.recorded_at = fields[2];
    item.commit = fields[3];
    item.title = fields[4];
    item.link = fields[5];
    item.published = fields[6];
    item.summary = fields[7];
    item.content = fields[8];
    item.authors = split_lines(fields[9]);
    state.current.push_back(std::move(item));
  }
  return state;
}

// The feed's date of an item as RFC 3339, or "" when it has none that reads as a date.
std::string published_of(const Item& item) {
  const auto seconds = parse_feed_date(item.published.empty() ? item.updated : item.published);
  return seconds ? format_iso8601_ms(*seconds * 1000) : std::string();
}

// One thing that happened to an item in a version the set has not applied yet.
struct PendingEvent {
  std::size_t version = 0;
  bool removed = false;
  std::size_t position = 0;  // in its feed: the new one for an entry, the old one when removed
  const ItemLife* life = nullptr;
  const ItemEvent* event = nullptr;
};

// The item of the parsed version that an event names: at its position when the ids agree
// (the same model diff_items read), else the first with its id.
const Item* find_item(const Feed& feed, const PendingEvent& e) {
  if (e.position < feed.items.size() && feed.items[e.position].id == e.life->id)
    return &feed.items[e.position];
  for (const Item& item : feed.items)
    if (item.id == e.life->id) return &item;
  return nullptr;
}

void upsert(std::vector<HistoryFeedItem>& current, HistoryFeedItem item) {
  for (HistoryFeedItem& held : current)
    if (held.id == item.id) {
      held = std::move(item);  // edited again before its page was sealed: its place stays
      return;
    }
  current.push_back(std::move(item));
}

// The item of a feed's own archive as the set shows it: dated by itself (its published, else
// updated, time), and never later than the walk that found it, so that any version feeddiff
// observes of it later is newer (RFC 5005's most recently updated entry wins).
HistoryFeedItem backfilled_item(const BackfillItem& from, const BackfillEvent& event) {
  HistoryFeedItem item;
  item.id = from.id;
  item.backfilled = true;
  item.commit = event.commit;
  item.recorded_at = from.date.empty() ? event.observed_at : std::min(from.date, event.observed_at);
  item.title = from.title;
  item.link = from.link;
  item.published = from.date;
  return item;
}

std::string newest_time(const std::vector<HistoryFeedItem>& items, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n && i < items.size(); ++i) out = std::max(out, items[i].recorded_at);
  return out;
}

}  // namespace

std::string history_feeds_dir(const std::string& source) {
  return "sources/" + source + "/history/";
}

bool has_history_feeds(const fs::path& state_dir, const std::string& source) {
  std::error_code ec;
  return fs::exists(history_state_path(state_dir, source), ec);
}

Result<HistoryFeedsReport> write_history_feeds(const Archive& archive, const fs::path& top,
                                               const fs::path& state_dir, const std::string& source,
                                               const std::string& feed_id,
                                               const SourceHistory& history, std::size_t page_items,
                                               const WriteFile& write, bool new_backfill) {
  page_items = std::max<std::size_t>(page_items, 1);
  HistoryFeedsReport report;
  const fs::path state_path = history_state_path(state_dir, source);
  HistoryState state = load_state(state_path);
  const auto& versions = history.versions;
  // The versions after the one the set was brought to; all of them when it is new, or when
  // that version left the source's history (a reset): the set is then made again from the
  // start, and its pages come out as they were for the versions both histories share.
  std::size_t start = 0;
  bool found = false;
  for (std::size_t k = versions.size(); !state.tip.empty() && k-- > 0;)
    if (versions[k].commit == state.tip) {
      start = k + 1;
      found = true;
      break;
    }
  const std::size_t old_archives = state.archives;
  if (!found) {
    state = HistoryState{};
    report.restarted = true;
  }
  report.versions = versions.size() - start;

  // Only what changes the set: items first seen, edited, back, or pulled (an item that aged
  // out of the feed's window stays an entry: the publisher did not take it back).
  std::vector<PendingEvent> events;
  for (const ItemLife& life : history.items.lives())
    for (auto it = life.events.rbegin(); it != life.events.rend() && it->version >= start; ++it) {
      PendingEvent e{it->version, false, 0, &life, &*it};
      switch (it->kind) {
        case ItemEvent::Kind::first_seen:
        case ItemEvent::Kind::changed:
        case ItemEvent::Kind::reappeared:
          e.position = it->change.new_index;
          break;
        case ItemEvent::Kind::removed:
          if (it->change.aged_out) continue;
          e.removed = true;
          e.position = it->change.old_index;
          break;
        case ItemEvent::Kind::moved:
          continue;
      }
      events.push_back(e);
    }
  // In a version, pulled items first, then the others from the feed's bottom up: feeds list
  // the newest first, so the set's order is the order items appeared.
  std::sort(events.begin(), events.end(), [](const PendingEvent& a, const PendingEvent& b) {
    if (a.version != b.version) return a.version < b.version;
    if (a.removed != b.removed) return a.removed;
    return a.position > b.position;
  });

  const fs::path dir = top / history_feeds_dir(source);
  auto seal = [&]() -> Status {
    HistoryFeedPage page;
    page.source = source;
    page.feed_id = feed_id;
    page.number = ++state.archives;
    page.archives = state.archives;
    page.items.assign(state.current.begin(),
                      state.current.begin() + static_cast<std::ptrdiff_t>(page_items));
    page.updated = newest_time(page.items, page.items.size());
    state.current.erase(state.current.begin(),
                        state.current.begin() + static_cast<std::ptrdiff_t>(page_items));
    ++report.sealed;
    if (auto ok =
            write(dir / fmt::format("archive-{}.atom", page.number), render_history_atom(page));
        !ok)
      return ok;
    return write(dir / fmt::format("archive-{}.json", page.number), render_history_json(page));
  };

  // The publisher's archive (backfill commits): read when the set is made anew or a backfill
  // commit of the source is new; each one's new items enter the set after the versions
  // observed before it, so a set made anew places them where an incremental run did.
  std::vector<BackfillEvent> backfills;
  const fs::path backfill_mark = state_path.string() + ".backfill";
  if (new_backfill || report.restarted) {
    auto all = backfill_events(archive, source);
    if (!all) return all.error();
    std::string applied;
    if (auto mark = read_file(backfill_mark.string()); mark && !report.restarted) applied = *mark;
    auto from = all->begin();
    for (auto it = all->begin(); !applied.empty() && it != all->end(); ++it)
      if (it->commit == applied) from = it + 1;
    backfills.assign(std::make_move_iterator(from), std::make_move_iterator(all->end()));
    std::error_code ec;
    fs::create_directories(state_path.parent_path(), ec);
    if (all->empty())
      fs::remove(backfill_mark, ec);
    else if (auto ok = write_file_replace(backfill_mark.string(), all->back().commit); !ok)
      return ok.error();
  }
  std::unordered_map<std::string, std::size_t> first_seen;
  if (!backfills.empty())
    for (const ItemLife& life : history.items.lives()) first_seen.emplace(life.id, life.first_seen);
  std::size_t next_backfill = 0;
  // Applies the backfill commits observed before `until` (all when empty); next_version is
  // the first version not yet applied. An item feeddiff observed before is not taken in.
  auto apply_backfills = [&](const std::string& until, std::size_t next_version) -> Status {
    for (; next_backfill < backfills.size() &&
           (until.empty() || backfills[next_backfill].observed_at < until);
         ++next_backfill) {
      const BackfillEvent& event = backfills[next_backfill];
      for (const BackfillItem& from : event.items) {
        if (auto seen = first_seen.find(from.id);
            seen != first_seen.end() && seen->second < next_version)
          continue;
        HistoryFeedItem item = backfilled_item(from, event);
        state.updated = std::max(state.updated, item.recorded_at);
        upsert(state.current, std::move(item));
        while (state.current.size() >= page_items)
          if (auto ok = seal(); !ok) return ok;
      }
    }
    return Ok{};
  };

  const NormalizeOptions model_only{{}, true, false};
  for (std::size_t i = 0; i < events.size();) {
    const std::size_t v = events[i].version;
    if (auto ok = apply_backfills(versions[v].observed_at, v); !ok) return ok.error();
    std::size_t end = i;
    bool wants_feed = false;
    for (; end < events.size() && events[end].version == v; ++end)
      wants_feed = wants_feed || !events[end].removed;
    // The version's feed, for the items it shows: its blob read and parsed once.
    std::optional<Document> parsed;
    if (wants_feed && v < history.blobs.size() && !history.blobs[v].empty()) {
      auto body = archive.read_blob(history.blobs[v]);
      if (!body) return body.error();
      if (auto doc = normalize(*body, model_only)) parsed = std::move(*doc);
      ++report.parsed;
    }
    const HistoryVersion& version = versions[v];
    for (; i < end; ++i) {
      const PendingEvent& e = events[i];
      HistoryFeedItem item;
      item.id = e.life->id;
      item.recorded_at = version.observed_at;
      item.commit = version.commit;
      if (e.removed) {
        item.deleted = true;
      } else {
        const Item* from = parsed ? find_item(parsed->feed, e) : nullptr;
        if (!from) continue;  // the version could not be read: its items wait for the next
        item.title = from->title;
        item.link = from->link;
        item.published = published_of(*from);
        item.authors = from->authors;
        item.summary = from->summary;
        item.content = from->content;
      }
      state.updated = std::max(state.updated, item.recorded_at);
      upsert(state.current, std::move(item));
    }
    // Sealed as soon as it fills, version by version: a page holds the same items however
    // many versions each run brought.
    while (state.current.size() >= page_items)
      if (auto ok = seal(); !ok) return ok.error();
  }
  if (auto ok = apply_backfills("", versions.size()); !ok) return ok.error();
  if (!versions.empty()) state.tip = versions.back().commit;
  report.archives = state.archives;

  HistoryFeedPage current;
  current.source = source;
  current.feed_id = feed_id;
  current.archives = state.archives;
  current.updated = state.updated;
  current.items = state.current;
  if (auto ok = write(dir / "current.atom", render_history_atom(current)); !ok) return ok.error();
  if (auto ok = write(dir / "current.json", render_history_json(current)); !ok) return ok.error();
  // Pages of a set made again that no longer has so many: they named versions that left.
  for (std::size_t n = state.archives + 1; report.restarted && n <= old_archives; ++n)
    for (const char* ext : {"atom", "json"}) {
      std::error_code ec;
      fs::remove(dir / fmt::format("archive-{}.{}", n, ext), ec);
    }
  // The state is the site's, not a page: not counted among the files written.
  const std::string text = state_text(state);
  if (auto old = read_file(state_path.string()); !old || *old != text) {
    std::error_code ec;
    fs::create_directories(state_path.parent_path(), ec);
    if (auto ok = write_file_replace(state_path.string(), text); !ok) return ok.error();
  }
  return report;
}

}  // namespace feeddiff::site
