#include "cli/item_history.h"

#include <fmt/format.h>

#include "cli/change.h"
#include "feeddiff/config.h"
#include "feeddiff/core.h"
#include "feeddiff/normalize.h"

namespace feeddiff::cli {

namespace {

// The change a commit made to the source's artifact: a written file rather than a deleted
// one when it did both (a feed that moved from response.xml to response.json).
const PathChange* artifact_change(const std::vector<PathChange>& changes) {
  const PathChange* chosen = nullptr;
  for (const auto& c : changes)
    if (!chosen || c.kind != ChangeKind::deleted) chosen = &c;
  return chosen;
}

// The item model of a version; only the model is made (no canonical text), as show does for a
// summary.
Result<Feed> parse_version(const Archive& archive, const std::string& blob) {
  if (blob.empty()) return Feed{};
  auto body = archive.read_blob(blob);
  if (!body) return body.error();
  auto doc = normalize(*body, NormalizeOptions{{}, true, false});
  if (!doc) return doc.error();
  return std::move(doc->feed);
}

// The source's ignored fields at a commit, from feeddiff.toml as it was then (as show reads
// them, so that both name the same cached summaries): feed_rules parses each version of the
// file once.
class IgnoredFields {
 public:
  IgnoredFields(const Archive& archive, std::string source)
      : archive_(archive), source_(std::move(source)) {}

  const std::vector<std::string>& at(const std::string& commit) {
    auto blob = archive_.blob_id(commit, "feeddiff.toml");
    const std::string id = blob && *blob ? **blob : std::string();
    if (id == last_blob_ && read_once_) return ignore_;
    read_once_ = true;
    last_blob_ = id;
    ignore_ = feed_rules(archive_, commit, source_).ignore;
    return ignore_;
  }

 private:
  const Archive& archive_;
  std::string source_;
  std::string last_blob_;
  bool read_once_ = false;
  std::vector<std::string> ignore_;
};

}  // namespace

std::string observed_time(const CommitInfo& commit) {
  if (const std::string* observed = commit.trailer("Observed-At"))
    if (auto t = parse_iso8601(*observed)) return format_iso8601_ms(*t);
  return format_iso8601_ms(commit.commit_time);
}

Result<SourceHistory> read_source_history(const Archive& archive, const std::string& source) {
  auto commits = archive.source_log(source, 0);
  if (!commits) return commits.error();
  SourceHistory out;
  IgnoredFields ignored(archive, source);
  // The last readable version: what the next one is compared with.
  std::string last_blob;
  std::optional<Feed> last_feed = Feed{};  // nullopt: not parsed (its diff came from the cache)
  for (auto it = commits->rbegin(); it != commits->rend(); ++it) {
    const CommitInfo& commit = *it;
    auto changes = archive.source_changes(commit.id, source);
    if (!changes) return changes.error();
    const PathChange* change = artifact_change(*changes);
    if (!change) continue;  // log says it touched the source: a merge's view, nothing to read
    const std::size_t version = out.versions.size();
    HistoryVersion v;
    v.commit = commit.id;
    v.observed_at = observed_time(commit);
    const std::string blob = change->kind == ChangeKind::deleted ? "" : change->new_blob;

    const std::vector<std::string>& ignore = ignored.at(commit.id);
    const std::string cache_name = item_diff_cache_name(last_blob, blob, ignore);
    std::optional<ItemDiff> diff;
    if (auto text = archive.cache_read(cache_name)) diff = decode_item_diff(*text);
    std::optional<Feed> feed;
    if (!diff) {
      if (!last_feed) {
        auto before = parse_version(archive, last_blob);
        ++out.parsed;
        // It parsed when it was read first; were it to fail now, compare with an empty feed.
        last_feed = before ? std::move(*before) : Feed{};
      }
      auto after = parse_version(archive, blob);
      if (!blob.empty()) ++out.parsed;
      if (!after) {
        v.note = fmt::format("its items cannot be read ({})", after.error().message);
        out.versions.push_back(std::move(v));
        out.blobs.push_back(blob);
        continue;
      }
      diff = diff_items(*last_feed, *after, ignore);
      archive.cache_write(cache_name, encode_item_diff(*diff));
      feed = std::move(*after);
    }
    out.items.add(version, std::move(*diff));
    last_blob = blob;
    last_feed = std::move(feed);
    out.versions.push_back(std::move(v));
    out.blobs.push_back(blob);
  }
  return out;
}

Result<std::optional<std::string>> item_with_link(const Archive& archive,
                                                  const SourceHistory& history,
                                                  const std::string& link) {
  std::string last;
  for (std::size_t i = history.blobs.size(); i-- > 0;) {
    const std::string& blob = history.blobs[i];
    if (blob.empty() || blob == last || !history.versions[i].note.empty()) continue;
    last = blob;
    auto feed = parse_version(archive, blob);
    if (!feed) continue;
    for (const Item& item : feed->items)
      if (item.link == link) return std::optional<std::string>(item.id);
  }
  return std::optional<std::string>();
}

}  // namespace feeddiff::cli
