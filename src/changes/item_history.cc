#include "feeddiff/changes.h"

#include <fmt/format.h>
#include <iterator>

#include "changes/changes_internal.h"
#include "feeddiff/config.h"
#include "feeddiff/core.h"
#include "feeddiff/normalize.h"

namespace feeddiff {

namespace {

// The change a commit made to the source's feed: a written file rather than a deleted one
// when it did both (a feed that moved from response.xml to response.json). A response that
// was not a feed (raw/NAME/not-a-feed) is no version of the feed: a commit that changed only
// that has none, and the next feed version is compared with the last one.
const PathChange* artifact_change(const std::vector<PathChange>& changes) {
  const PathChange* chosen = nullptr;
  for (const auto& c : changes)
    if (!is_not_a_feed_path(c.path) && (!chosen || c.kind != ChangeKind::deleted)) chosen = &c;
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

Result<SourceHistory> read_source_history(const Archive& archive, const std::string& source,
                                          std::optional<TimeMs> until) {
  auto ids = archive.source_commit_ids(source);
  if (!ids) return ids.error();
  const std::vector<std::string> commits(std::make_move_iterator(ids->rbegin()),
                                         std::make_move_iterator(ids->rend()));
  if (commits.empty()) return SourceHistory{};
  // One record per commit: "v" commit observed_at blob summary-name for a version, "u" with
  // the note instead of the name for one whose items cannot be read, "s" commit for one
  // with nothing to read.
  SourceRecords records = SourceRecords::load(archive, "history", source, commits);

  SourceHistory out;
  // The last readable version: what the next one is compared with.
  std::string last_blob;
  std::optional<Feed> last_feed = Feed{};  // nullopt: not parsed (its diff came from a cache)
  auto add_version = [&](const std::string& commit, const std::string& observed_at,
                         const std::string& blob, std::string note) {
    HistoryVersion v;
    v.commit = commit;
    v.observed_at = observed_at;
    v.note = std::move(note);
    out.versions.push_back(std::move(v));
    out.blobs.push_back(blob);
  };

  // With until: the versions before the first one observed after it. A prefix of the
  // branch's order, so that each version kept is diffed with the one kept before it.
  bool past = false;
  auto within = [&](const std::string& observed) {
    if (until && !past)
      if (auto t = parse_iso8601(observed); t && *t > *until) past = true;
    return !past;
  };

  // What the cache knows: each version's diff is the item summary it names.
  std::size_t k = 0;
  for (; k < records.records().size(); ++k) {
    const std::vector<std::string>& r = records.records()[k];
    if (r[0] == "s" && r.size() == 2) continue;
    if (r.size() != 5 || (r[0] != "v" && r[0] != "u")) break;
    if (r[0] == "u") {
      if (within(r[2])) add_version(r[1], r[2], r[3], r[4]);
      continue;
    }
    auto text = archive.cache_read(r[4]);
    auto diff = text ? decode_item_diff(*text) : std::nullopt;
    if (!diff) break;  // the summary is gone (a gc emptied the cache): read on from git
    if (within(r[2])) {
      out.items.add(out.versions.size(), std::move(*diff));
      add_version(r[1], r[2], r[3], "");
    }
    last_blob = r[3];
    last_feed = std::nullopt;
  }
  records.keep(k);
  if (last_blob.empty()) last_feed = Feed{};

  // The versions recorded since, read from git; each becomes a record.
  IgnoredFields ignored(archive, source);
  for (; k < commits.size(); ++k) {
    const std::string& id = commits[k];
    // The version before (the index's order): its directory was read at the last step.
    auto changes = archive.source_changes(id, source, k > 0 ? commits[k - 1] : std::string());
    if (!changes) return changes.error();
    const PathChange* change = artifact_change(*changes);
    if (!change) {  // the index says it touched the source: a merge's view, nothing to read
      records.add({"s", id});
      continue;
    }
    auto commit = archive.resolve(id);
    if (!commit) return commit.error();
    const std::string observed_at = observed_time(*commit);
    const std::string blob = change->kind == ChangeKind::deleted ? "" : change->new_blob;

    const std::vector<std::string>& ignore = ignored.at(id);
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
        std::string note = fmt::format("its items cannot be read ({})", after.error().message);
        records.add({"u", id, observed_at, blob, note});
        if (within(observed_at)) add_version(id, observed_at, blob, std::move(note));
        continue;
      }
      diff = diff_items(*last_feed, *after, ignore);
      archive.cache_write(cache_name, encode_item_diff(*diff));
      feed = std::move(*after);
    }
    records.add({"v", id, observed_at, blob, cache_name});
    if (within(observed_at)) {
      out.items.add(out.versions.size(), std::move(*diff));
      add_version(id, observed_at, blob, "");
    }
    last_blob = blob;
    last_feed = std::move(feed);
  }
  records.save(archive);
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

}  // namespace feeddiff
