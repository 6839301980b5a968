#include "cli/item_history.h"

#include <fmt/format.h>
#include <iterator>
#include <string_view>

#include "cli/change.h"
#include "cli/versions.h"
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

// The cache history/<source>: one record a line, each naming a commit of the source, in the
// order of its versions, so that a run reads from git only the versions recorded since the
// last. Lines are appended; a reader stops at the first line that does not name the
// source's next commit (a reset or a replay rewrote the history there, or a crash cut the
// line) and the file is then written anew. The header names feeddiff's version, as the item
// summaries' names do, so that a newer feeddiff recomputes.
struct HistoryRecord {
  enum class Kind { version, unreadable, skipped };
  Kind kind = Kind::version;
  std::string commit;
  std::string observed_at;
  std::string blob;
  std::string detail;  // version: its item summary's cache name; unreadable: the note
};

struct HistoryRecords {
  std::vector<HistoryRecord> list;  // records of the source's first commits, in order
  bool whole = false;               // every line of the file is one of them: append to it
};

std::string history_header() {
  return fmt::format("feeddiff history 1 {}\n", version());
}

void append_record(std::string& out, const HistoryRecord& r) {
  using Kind = HistoryRecord::Kind;
  out += r.kind == Kind::version ? "v" : r.kind == Kind::unreadable ? "u" : "s";
  append_tab_field(out, r.commit);
  if (r.kind != Kind::skipped) {
    append_tab_field(out, r.observed_at);
    append_tab_field(out, r.blob);
    append_tab_field(out, r.detail);
  }
  out += '\n';
}

HistoryRecords read_history_records(const Archive& archive, const std::string& cache,
                                    const std::vector<std::string>& commits) {
  HistoryRecords out;
  auto text = archive.cache_read(cache);
  const std::string header = history_header();
  if (!text || !text->starts_with(header)) return out;
  std::vector<std::string> fields;
  std::size_t at = header.size();
  while (at < text->size()) {
    const std::size_t nl = text->find('\n', at);
    if (nl == std::string::npos) return out;  // cut short
    const std::string_view line = std::string_view(*text).substr(at, nl - at);
    at = nl + 1;
    if (!split_tab_fields(line, fields) || fields.size() < 2) return out;
    const std::size_t k = out.list.size();
    if (k >= commits.size() || fields[1] != commits[k]) return out;
    HistoryRecord r;
    r.commit = std::move(fields[1]);
    if (fields[0] == "s" && fields.size() == 2) {
      r.kind = HistoryRecord::Kind::skipped;
    } else if ((fields[0] == "v" || fields[0] == "u") && fields.size() == 5) {
      r.kind = fields[0] == "v" ? HistoryRecord::Kind::version : HistoryRecord::Kind::unreadable;
      r.observed_at = std::move(fields[2]);
      r.blob = std::move(fields[3]);
      r.detail = std::move(fields[4]);
    } else {
      return out;
    }
    out.list.push_back(std::move(r));
  }
  out.whole = true;
  return out;
}

}  // namespace

std::string observed_time(const CommitInfo& commit) {
  if (const std::string* observed = commit.trailer("Observed-At"))
    if (auto t = parse_iso8601(*observed)) return format_iso8601_ms(*t);
  return format_iso8601_ms(commit.commit_time);
}

Result<SourceHistory> read_source_history(const Archive& archive, const std::string& source) {
  auto ids = archive.source_commit_ids(source);
  if (!ids) return ids.error();
  const std::vector<std::string> commits(std::make_move_iterator(ids->rbegin()),
                                         std::make_move_iterator(ids->rend()));
  if (commits.empty()) return SourceHistory{};
  const std::string cache = source_cache_name("history", source);
  HistoryRecords records = read_history_records(archive, cache, commits);

  SourceHistory out;
  // The last readable version: what the next one is compared with.
  std::string last_blob;
  std::optional<Feed> last_feed = Feed{};  // nullopt: not parsed (its diff came from a cache)
  auto add_version = [&](HistoryVersion v, std::string blob) {
    out.versions.push_back(std::move(v));
    out.blobs.push_back(std::move(blob));
  };

  // What the cache knows: each version's diff is the item summary it names.
  std::size_t k = 0;
  for (; k < records.list.size(); ++k) {
    HistoryRecord& r = records.list[k];
    if (r.kind == HistoryRecord::Kind::skipped) continue;
    HistoryVersion v;
    v.commit = r.commit;
    v.observed_at = r.observed_at;
    if (r.kind == HistoryRecord::Kind::unreadable) {
      v.note = r.detail;
      add_version(std::move(v), r.blob);
      continue;
    }
    auto text = archive.cache_read(r.detail);
    auto diff = text ? decode_item_diff(*text) : std::nullopt;
    if (!diff) break;  // the summary is gone (a gc emptied the cache): read on from git
    out.items.add(out.versions.size(), std::move(*diff));
    add_version(std::move(v), r.blob);
    last_blob = r.blob;
    last_feed = std::nullopt;
  }
  if (k < records.list.size()) {
    records.list.resize(k);
    records.whole = false;
  }
  if (last_blob.empty()) last_feed = Feed{};

  // The versions recorded since, read from git; each becomes a record.
  std::string lines;
  IgnoredFields ignored(archive, source);
  for (; k < commits.size(); ++k) {
    HistoryRecord r;
    r.commit = commits[k];
    auto changes = archive.source_changes(r.commit, source);
    if (!changes) return changes.error();
    const PathChange* change = artifact_change(*changes);
    if (!change) {  // the index says it touched the source: a merge's view, nothing to read
      r.kind = HistoryRecord::Kind::skipped;
      append_record(lines, r);
      continue;
    }
    auto commit = archive.resolve(r.commit);
    if (!commit) return commit.error();
    r.observed_at = observed_time(*commit);
    r.blob = change->kind == ChangeKind::deleted ? "" : change->new_blob;
    HistoryVersion v;
    v.commit = r.commit;
    v.observed_at = r.observed_at;

    const std::vector<std::string>& ignore = ignored.at(r.commit);
    r.detail = item_diff_cache_name(last_blob, r.blob, ignore);
    std::optional<ItemDiff> diff;
    if (auto text = archive.cache_read(r.detail)) diff = decode_item_diff(*text);
    std::optional<Feed> feed;
    if (!diff) {
      if (!last_feed) {
        auto before = parse_version(archive, last_blob);
        ++out.parsed;
        // It parsed when it was read first; were it to fail now, compare with an empty feed.
        last_feed = before ? std::move(*before) : Feed{};
      }
      auto after = parse_version(archive, r.blob);
      if (!r.blob.empty()) ++out.parsed;
      if (!after) {
        r.kind = HistoryRecord::Kind::unreadable;
        r.detail = v.note = fmt::format("its items cannot be read ({})", after.error().message);
        append_record(lines, r);
        add_version(std::move(v), r.blob);
        continue;
      }
      diff = diff_items(*last_feed, *after, ignore);
      archive.cache_write(r.detail, encode_item_diff(*diff));
      feed = std::move(*after);
    }
    append_record(lines, r);
    out.items.add(out.versions.size(), std::move(*diff));
    last_blob = r.blob;
    last_feed = std::move(feed);
    add_version(std::move(v), r.blob);
  }
  if (!lines.empty() && records.whole) {
    archive.cache_append(cache, lines);
  } else if (!lines.empty() || !records.whole) {
    std::string text = history_header();
    for (const HistoryRecord& r : records.list) append_record(text, r);
    archive.cache_write(cache, text + lines);
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
