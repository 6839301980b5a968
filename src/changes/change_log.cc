// What `log` lists: the commits, their JSON entries and the item changes of `log --items`.

#include <algorithm>
#include <map>

#include "feeddiff/changes.h"

namespace feeddiff {

namespace {

// A version whose response was not a feed, or that only took such a response away again:
// no item of the feed changed in it (contract: never item-diffed).
bool no_item_version(const CommitInfo& c) {
  const auto recorded = class_from_trailers(c);
  return is_article_commit(c) || is_backfill_commit(c) ||
         (recorded && (recorded->name == "not-a-feed" || recorded->name == "restored"));
}

// The lines of one commit's item changes, until `out` holds limit lines (0: no limit).
void item_lines(const CommitInfo& c, const CommitItems& items, const std::string& source,
                std::size_t limit, std::vector<ItemLogLine>& out) {
  const auto full = [&] { return limit && out.size() >= limit; };
  if (items.reverted_to && !full())
    out.push_back({c, source, "reverted", items.reverted_to->substr(0, 7), false});
  for (const ItemChange& item : items.items.items) {
    if (full()) break;
    out.push_back(
        {c, source, item_change_word(item), item.title.empty() ? item.id : item.title, item.minor});
  }
}

Result<std::vector<ItemLogLine>> source_item_log(const Archive& archive, const std::string& source,
                                                 std::size_t limit) {
  auto commits = archive.source_log(source, 0);
  if (!commits) return commits.error();
  auto versions = SourceVersions::load(archive, source);
  if (!versions) return versions.error();
  std::vector<ItemLogLine> out;
  for (const auto& c : *commits) {
    if (limit && out.size() >= limit) break;
    if (no_item_version(c)) continue;
    const auto items = load_items(archive, c.id, source, *versions);
    if (items) item_lines(c, *items, source, limit, out);  // none: the first, or unparsable
  }
  return out;
}

Result<std::vector<ItemLogLine>> every_item_log(const Archive& archive, std::size_t limit) {
  std::map<std::string, SourceVersions> versions;  // each source's, read once
  std::vector<ItemLogLine> out;
  std::size_t done = 0;
  std::size_t batch = limit ? std::max<std::size_t>(limit, 32) : 0;
  for (;;) {
    auto commits = archive.log("", batch);
    if (!commits) return commits.error();
    for (std::size_t k = done; k < commits->size(); ++k) {
      if (limit && out.size() >= limit) break;
      const CommitInfo& c = (*commits)[k];
      const std::string* source = c.trailer("Source");
      if (!source || !check_source_name(*source) || no_item_version(c)) continue;
      auto it = versions.find(*source);
      if (it == versions.end()) {
        auto loaded = SourceVersions::load(archive, *source);
        if (!loaded) continue;
        it = versions.emplace(*source, std::move(*loaded)).first;
      }
      const auto items = load_items(archive, c.id, *source, it->second);
      if (items) item_lines(c, *items, *source, limit, out);
    }
    const bool whole = !batch || commits->size() < batch;
    done = commits->size();
    if (whole || (limit && out.size() >= limit)) break;
    batch *= 4;
  }
  for (auto& [name, v] : versions) v.save();
  return out;
}

}  // namespace

std::string observed_minute(const CommitInfo& c) {
  std::string when = format_iso8601_ms(c.commit_time).substr(0, 16);
  if (const std::string* observed = c.trailer("Observed-At"))
    if (auto t = parse_iso8601(*observed)) when = format_iso8601_ms(*t).substr(0, 16);
  if (when.size() > 10) when[10] = ' ';
  return when;
}

Result<std::vector<CommitInfo>> change_log(const Archive& archive, const std::string& source,
                                           std::size_t limit) {
  if (source.empty()) return archive.log("", limit);
  // With a limit, the newest commits from git; without, the source's cache of them.
  auto commits = limit ? archive.source_log(source, limit) : source_changes(archive, source);
  if (!commits) return commits.error();
  // Its article versions too (docs/articles.md), by commit time.
  return with_article_commits(archive, source, std::move(*commits), limit);
}

std::vector<LogEntry> log_entries(const Archive& archive, const std::vector<CommitInfo>& commits,
                                  bool look) {
  std::vector<LogEntry> out;
  for (const auto& c : commits) {
    LogEntry e;
    e.id = c.id;
    e.short_id = c.short_id();
    e.title = c.title;
    if (const std::string* s = c.trailer("Source")) e.source = *s;
    e.timestamp = format_iso8601_ms(c.author_time);
    if (const std::string* observed = c.trailer("Observed-At")) e.observed_at = *observed;
    if (const std::string* status = c.trailer("Status")) e.status = *status;
    if (const auto cls = change_class(archive, c, look)) {
      e.change_class = cls->name;
      if (cls->name == "not-a-feed")
        e.not_a_feed = cls->summary;
      else if (!cls->summary.empty())
        e.item_summary = cls->summary;
    }
    out.push_back(std::move(e));
  }
  return out;
}

Result<std::vector<ItemLogLine>> item_log(const Archive& archive, const std::string& source,
                                          std::size_t limit) {
  return source.empty() ? every_item_log(archive, limit) : source_item_log(archive, source, limit);
}

}  // namespace feeddiff
