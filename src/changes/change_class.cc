#include "feeddiff/changes.h"

#include <fmt/format.h>

#include "changes/changes_internal.h"
#include "feeddiff/core.h"
#include "feeddiff/render.h"

namespace feeddiff {

std::optional<ChangeClass> class_from_trailers(const CommitInfo& commit) {
  const std::string* name = commit.trailer("Change-Class");
  if (!name || name->empty()) return std::nullopt;
  ChangeClass out{*name, ""};
  if (*name == "not-a-feed") {
    if (const std::string* why = commit.trailer("Not-A-Feed")) out.summary = *why;
  } else if (*name == kArticleUncertainClass) {
    if (const std::string* why = commit.trailer("Extraction-Uncertain")) out.summary = *why;
  } else if (*name == kBackfillClass) {
    if (const std::string* summary = commit.trailer("Backfill-Summary")) out.summary = *summary;
  } else if (*name == kArticleClass) {
    if (const std::string* summary = commit.trailer("Article-Summary")) out.summary = *summary;
  } else if (const std::string* summary = commit.trailer("Item-Summary")) {
    out.summary = *summary;
  }
  return out;
}

std::optional<std::string> summary_key(const Archive& archive, const std::string& commit_id,
                                       const std::string& source) {
  auto changes = archive.source_changes(commit_id, source);
  if (!changes) return std::nullopt;
  // The feed file (response.xml or .json) as the commit changed it; a deletion (the source
  // removed) is no version.
  const PathChange* feed = nullptr;
  for (const PathChange& c : *changes) {
    const auto owner = source_of_raw_path(c.path);
    const bool response = c.path.ends_with("/response.xml") || c.path.ends_with("/response.json");
    if (owner && *owner == source && response && c.kind != ChangeKind::deleted) feed = &c;
  }
  if (!feed) return std::nullopt;
  if (feed->old_blob.empty()) return "first";
  const FeedRules rules = feed_rules(archive, commit_id, source);
  return item_diff_cache_name(feed->old_blob, feed->new_blob, rules.ignore, rules.insignificant);
}

std::optional<ChangeClass> class_from_key(const Archive& archive, const std::string& key) {
  if (key == "first") return ChangeClass{"first", ""};
  if (key.empty()) return std::nullopt;
  const auto text = archive.cache_read(key);
  if (!text) return std::nullopt;
  const auto items = decode_item_diff(*text);
  if (!items) return std::nullopt;
  return ChangeClass{item_diff_class(*items), summarize_items(*items)};
}

std::optional<ChangeClass> change_class(const Archive& archive, const CommitInfo& commit,
                                        bool look) {
  if (auto recorded = class_from_trailers(commit)) return recorded;
  if (const std::string* key = commit.trailer("Summary-Key")) return class_from_key(archive, *key);
  const std::string* source = commit.trailer("Source");
  if (!look || !source || !check_source_name(*source)) return std::nullopt;
  // A commit without trailers was written before poll recorded classes; its class can only
  // come from a summary an earlier command cached, found through the key that command left
  // for the commit. Finding the key again would diff two trees a commit: more than the whole
  // of `log -n 10`.
  const auto key = archive.cache_read(summary_key_entry(commit.id));
  return key ? class_from_key(archive, *key) : std::nullopt;
}

std::string summary_key_entry(const std::string& commit_id) {
  // The program's version in the name: another version's summaries are not this one's
  // (item_diff_cache_name keys them so too).
  return fmt::format("keys/{}-{:016x}", commit_id, fnv1a64(FEEDDIFF_VERSION));
}

void remember_summary_key(const Archive& archive, const CommitInfo& commit,
                          const std::string& key) {
  if (commit.trailer("Change-Class") || commit.trailer("Summary-Key")) return;
  const std::string entry = summary_key_entry(commit.id);
  if (archive.cache_read(entry) != key) archive.cache_write(entry, key);
}

std::string site_items_label(const CommitInfo& commit, const std::optional<ItemDiff>& items) {
  const auto recorded = class_from_trailers(commit);
  if (recorded && recorded->name == "not-a-feed")
    return recorded->summary.empty() ? "not a feed" : "not a feed: " + recorded->summary;
  if (recorded && recorded->name == "restored") return "restored (the feed as it was before)";
  if (!items) return "";
  std::string summary = summarize_items(*items);
  const std::string name = recorded ? recorded->name : item_diff_class(*items);
  if (name == "minor" && !summary.ends_with("(minor)")) return "minor: " + summary;
  if (name == "cosmetic" && !summary.starts_with("cosmetic only")) return "cosmetic: " + summary;
  return summary;
}

}  // namespace feeddiff
