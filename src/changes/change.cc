#include "feeddiff/changes.h"

#include <fmt/format.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <algorithm>
#include <cstdint>
#include <latch>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>

#include "changes/changes_internal.h"
#include "feeddiff/config.h"
#include "feeddiff/core.h"
#include "feeddiff/message.h"
#include "feeddiff/normalize.h"

namespace feeddiff {

std::vector<HeaderRow> recorded_rows(const CommitMessage& message) {
  std::vector<HeaderRow> rows;
  for (auto& [name, value] : header_rows(message))
    rows.push_back({std::move(name), std::move(value)});
  return rows;
}

// GitHub /commit/ -> /blob/, GitLab /-/commit/ -> /-/blob/, Codeberg (Gitea) /commit/ ->
// /src/commit/.
std::optional<std::string> forge_file_url(const std::string& commit_url, const std::string& path) {
  auto at = commit_url.rfind("/commit/");
  if (at == std::string::npos) return std::nullopt;
  std::string base = commit_url.substr(0, at);
  const std::string id = commit_url.substr(at + 8);
  if (base.ends_with("/-")) return base + "/blob/" + id + "/" + path;
  if (base.starts_with("https://codeberg.org/")) return base + "/src/commit/" + id + "/" + path;
  return base + "/blob/" + id + "/" + path;
}

std::optional<std::string> forge_commit_url(const std::string& remote, const std::string& id) {
  // git@host:owner/repo(.git), ssh://git@host/owner/repo, https://host/owner/repo(.git)
  std::string host, path;
  if (const UrlParts url = split_url(remote); url.has_authority) {
    if (!url.path.starts_with('/')) return std::nullopt;
    host = url.host;
    path = url.path.substr(1);
  } else if (auto colon = remote.find(':'); colon != std::string::npos) {
    host = remote.substr(0, colon);
    if (auto at = host.find('@'); at != std::string::npos) host = host.substr(at + 1);
    path = remote.substr(colon + 1);
  } else {
    return std::nullopt;
  }
  host = to_lower(host);
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (path.ends_with(".git")) path.resize(path.size() - 4);
  if (path.empty() || path.find("..") != std::string::npos) return std::nullopt;
  if (host == "github.com" || host == "codeberg.org")
    return fmt::format("https://{}/{}/commit/{}", host, path, id);
  if (host == "gitlab.com") return fmt::format("https://gitlab.com/{}/-/commit/{}", path, id);
  return std::nullopt;
}

namespace {

// Versions at least this big are normalized one after the other, not at once: a parse holds
// several times its body (pugixml's tree is 64 bytes a node, the model ~320 bytes an item),
// and two at once would double the peak. Smaller ones (nearly every feed) still overlap.
constexpr std::size_t kOverlapBytes = std::size_t{2} << 20;

// normalize() of `body`, holding `large` while it runs when the body is large.
Result<Document> normalize_side(std::string_view body, const NormalizeOptions& options,
                                std::mutex& large) {
  if (body.size() < kOverlapBytes) return normalize(body, options);
  const std::lock_guard<std::mutex> lock(large);
  Result<Document> doc = normalize(body, options);
#if defined(__GLIBC__)
  // The parse freed its tree into this thread's malloc arena, where the other thread's parse
  // cannot reuse it: give those pages back, or the two parses' trees are resident at once
  // all the same.
  malloc_trim(0);
#endif
  return doc;
}

// normalize() of the two versions of a change off the calling thread, which meanwhile runs
// the raw line diff: a thread each, or one thread for both when both are large (see start).
// Joins before it goes, so declare it after the bodies it reads.
class Normalizing {
 public:
  // With text false, the canonical documents are not written: the item summary needs only
  // the model, and writing the text is ~40% of normalize().
  explicit Normalizing(bool text) : options_{{}, true, text} {}
  Normalizing(const Normalizing&) = delete;
  Normalizing& operator=(const Normalizing&) = delete;
  ~Normalizing() { join(); }

  // A deleted or first version has an empty side: nothing to normalize. Two large versions
  // are normalized one after the other on one thread: the second parse reuses the pages the
  // first freed in that thread's malloc arena, where two threads (or a trim between them)
  // would fault ~100 MB of fresh pages in again for a 20 MB feed.
  void start(std::string_view old_body, std::string_view new_body) {
    if (both_large(old_body, new_body)) {
      try {
        old_side_ = std::thread([this, old_body, new_body] { run_here(old_body, new_body); });
        return;
      } catch (const std::system_error&) {
        // no thread to be had: each side below starts its own, or runs here and now
      }
    }
    start_side(old_body, old_side_, before);
    start_side(new_body, new_side_, after);
  }
  void join() {
    if (old_side_.joinable()) old_side_.join();
    if (new_side_.joinable()) new_side_.join();
  }

  // Whether start() would normalize the two versions one after the other.
  static bool both_large(std::string_view old_body, std::string_view new_body) {
    return old_body.size() >= kOverlapBytes && new_body.size() >= kOverlapBytes;
  }
  // Normalizes both versions on the calling thread, one after the other.
  void run_here(std::string_view old_body, std::string_view new_body) {
    before.emplace(normalize(old_body, options_));
    after.emplace(normalize(new_body, options_));
  }

  std::optional<Result<Document>> before, after;  ///< set once joined, for a non-empty side

 private:
  void start_side(std::string_view body, std::thread& side, std::optional<Result<Document>>& out) {
    if (body.empty() || side.joinable() || out) return;
    try {
      side =
          std::thread([this, body, &out] { out.emplace(normalize_side(body, options_, large_)); });
    } catch (const std::system_error&) {
      out.emplace(normalize(body, options_));  // no thread to be had: here and now
    }
  }

  NormalizeOptions options_;
  std::mutex large_;  // see kOverlapBytes
  std::thread old_side_, new_side_;
};

// The item summary (and, with normalized, the canonical line diff) from what normalize()
// made of the two versions; a side is nullopt when its version is empty (added or deleted).
void summarize_docs(LoadedChange& change, bool normalized, const std::vector<std::string>& ignore,
                    std::optional<Result<Document>>& before, std::optional<Result<Document>>& after,
                    const Insignificant& insignificant = {}) {
  std::string problem;
  if (before && !*before)
    problem = fmt::format("the previous version does not parse ({})", before->error().message);
  if (after && !*after)
    problem = fmt::format("this version does not parse ({})", after->error().message);
  if (!problem.empty()) {
    change.view.items_note = problem + "; no item summary, the diff is of the raw bodies";
    return;
  }
  const Feed empty;
  change.view.items = diff_items(before ? (*before)->feed : empty, after ? (*after)->feed : empty,
                                 ignore, true, insignificant);
  if (normalized) {
    change.old_canonical = before ? std::move((*before)->text) : std::string();
    change.new_canonical = after ? std::move((*after)->text) : std::string();
    change.view.diff_label = "normalized";
    change.view.diff = diff_lines(change.old_canonical, change.new_canonical);
  }
}

// The item summary (and, with normalized, the canonical line diff) and, with raw_diff, the
// raw line diff, which runs while the versions are normalized.
void summarize(LoadedChange& change, bool normalized, const std::vector<std::string>& ignore,
               bool raw_diff, Normalizing& versions) {
  if (raw_diff && Normalizing::both_large(change.old_body, change.new_body)) {
    // Two large versions are parsed here and the raw line diff runs on a thread, not the
    // other way round: the parses make millions of small allocations, which the main malloc
    // arena takes from brk 128 KB at a time, where a thread's arena grows its heap a page (a
    // system call) at a time: ~10,000 of them for a 20 MB feed. The line diff's few large
    // buffers are mapped on their own wherever it runs.
    change.view.diff_label = "raw";
    std::thread raw;
    try {
      raw = std::thread(
          [&change] { change.view.diff = diff_lines(change.old_body, change.new_body); });
    } catch (const std::system_error&) {
      // no thread to be had: the line diff runs after the parses
    }
    versions.run_here(change.old_body, change.new_body);
    if (raw.joinable())
      raw.join();
    else
      change.view.diff = diff_lines(change.old_body, change.new_body);
    summarize_docs(change, normalized, ignore, versions.before, versions.after);
    return;
  }
  versions.start(change.old_body, change.new_body);
  if (raw_diff) {
    change.view.diff_label = "raw";
    change.view.diff = diff_lines(change.old_body, change.new_body);
  }
  versions.join();
  summarize_docs(change, normalized, ignore, versions.before, versions.after);
}

// The two versions of a recorded change, each read from its blob, and normalized when its
// item model is wanted, on a thread of its own: for a typical feed, inflating the blob and
// normalizing it each take about as long as the raw line diff, which runs as soon as both
// bodies are in. Without models, the new version is read on the calling thread, which would
// only wait: a thread costs its stack and a malloc arena of its own. Joins before it goes.
class Versions {
 public:
  Versions(const Archive& archive, LoadedChange& change, bool model, bool text)
      : archive_(archive), change_(change), model_(model), options_{{}, true, text} {}
  Versions(const Versions&) = delete;
  Versions& operator=(const Versions&) = delete;
  ~Versions() { join(); }

  // Starts both sides; an empty blob id is an empty version (added or deleted). Small bodies
  // that need no parse are read here: a thread (its stack, its malloc arena) costs more
  // than inflating a few KB, and show HEAD's common case is one small change.
  void start(const std::string& old_blob, const std::string& new_blob) {
    if (small(old_blob) && small(new_blob)) {
      if (!model_) {
        run(old_blob, change_.old_body, before, old_read_);
        run(new_blob, change_.new_body, after, new_read_);
        return;
      }
      // Read here, normalized on the threads: on another thread each read opens the object
      // database anew (its pack indexes, no delta base cached), which cost a site build more
      // than the inflating itself.
      read(old_blob, change_.old_body, old_read_);
      read(new_blob, change_.new_body, new_read_);
      // Two feeds of a few KB parse here in less time than two threads take to start and
      // stop (a site's first build started two a change: 19,001 at 10,000 changes).
      if (change_.old_body.size() + change_.new_body.size() <= kInlineParseBytes) {
        parse(change_.old_body, before, old_read_);
        parse(change_.new_body, after, new_read_);
        return;
      }
      start_parse(change_.old_body, before, old_read_, old_side_);
      start_parse(change_.new_body, after, new_read_, new_side_);
      return;
    }
    start_side(old_blob, change_.old_body, before, old_read_, old_side_);
    if (model_)
      start_side(new_blob, change_.new_body, after, new_read_, new_side_);
    else
      run(new_blob, change_.new_body, after, new_read_);
  }
  // Waits until both bodies are in change.old_body and change.new_body; the first read error.
  Status wait_bodies() {
    bodies_.wait();
    if (!old_read_) return old_read_.error();
    if (!new_read_) return new_read_.error();
    return Ok{};
  }
  void join() {
    if (old_side_.joinable()) old_side_.join();
    if (new_side_.joinable()) new_side_.join();
  }

  std::optional<Result<Document>> before, after;  ///< once joined, for a non-empty side

 private:
  void run(const std::string& blob, Blob& body, std::optional<Result<Document>>& doc,
           Status& status) {
    read(blob, body, status);
    parse(body, doc, status);
  }
  void read(const std::string& blob, Blob& body, Status& status) {
    if (!blob.empty()) {
      if (auto r = archive_.read_blob(blob))
        body = std::move(*r);
      else
        status = r.error();
    }
    bodies_.count_down();
  }
  void parse(const Blob& body, std::optional<Result<Document>>& doc, const Status& status) {
    if (model_ && status && !body.empty()) doc.emplace(normalize_side(body, options_, large_));
  }
  // A body already read is normalized on a thread (none for an empty one).
  void start_parse(const Blob& body, std::optional<Result<Document>>& doc, const Status& status,
                   std::thread& side) {
    if (body.empty() || !status) return;
    try {
      side = std::thread([this, &body, &doc, &status] { parse(body, doc, status); });
    } catch (const std::system_error&) {
      parse(body, doc, status);  // no thread to be had: here and now
    }
  }
  void start_side(const std::string& blob, Blob& body, std::optional<Result<Document>>& doc,
                  Status& read, std::thread& side) {
    try {
      side = std::thread([this, &blob, &body, &doc, &read] { run(blob, body, doc, read); });
    } catch (const std::system_error&) {
      run(blob, body, doc, read);  // no thread to be had: here and now
    }
  }

  static constexpr std::size_t kSmallBytes = 64 * 1024;
  static constexpr std::size_t kInlineParseBytes = 16 * 1024;
  bool small(const std::string& blob) const {
    if (blob.empty()) return true;
    auto size = archive_.blob_size(blob);
    return size && *size <= kSmallBytes;  // an error is met again, and reported, by the read
  }

  const Archive& archive_;
  LoadedChange& change_;
  const bool model_;
  const NormalizeOptions options_;
  std::latch bodies_{2};
  std::mutex large_;  // see kOverlapBytes
  Status old_read_ = Ok{}, new_read_ = Ok{};
  std::thread old_side_, new_side_;
};

// The source's raw file as a commit changed it (a deletion only when nothing else); any
// source's when source is empty. Either layout (source_of_raw_path). A feed's file
// (response.xml/.json) before its not-a-feed file: the commit of a feed version after
// not-a-feed responses also deletes not-a-feed, and what it changed is the feed.
const PathChange* raw_change(const std::vector<PathChange>& changes, std::string_view source) {
  const PathChange* chosen = nullptr;
  int best = 0;
  for (const auto& c : changes) {
    const auto owner = source_of_raw_path(c.path);
    if (!owner || (!source.empty() && *owner != source)) continue;
    const int rank = (c.kind != ChangeKind::deleted ? 2 : 0) + (is_not_a_feed_path(c.path) ? 1 : 2);
    if (rank >= best) {
      chosen = &c;
      best = rank;
    }
  }
  return chosen;
}

// A source moved from one layout to the other unchanged (`migrate`) did not change: its
// files' deletions and additions of the same blob are dropped.
void drop_moves(std::vector<PathChange>& changes) {
  std::map<std::pair<std::string, std::string>, std::size_t> deleted, added;
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const PathChange& c = changes[i];
    const auto owner = source_of_raw_path(c.path);
    if (!owner || c.kind == ChangeKind::modified) continue;
    std::string key = std::string(*owner) + "/" + c.path.substr(c.path.rfind('/') + 1);
    if (c.kind == ChangeKind::deleted)
      deleted.emplace(std::make_pair(std::move(key), c.old_blob), i);
    else
      added.emplace(std::make_pair(std::move(key), c.new_blob), i);
  }
  std::vector<bool> moved(changes.size(), false);
  for (const auto& [key, i] : deleted)
    if (auto it = added.find(key); it != added.end()) moved[i] = moved[it->second] = true;
  std::size_t i = 0;
  std::erase_if(changes, [&](const PathChange&) { return moved[i++]; });
}

}  // namespace

Result<std::vector<ItemChange::Kind>> parse_only(std::string_view list) {
  std::vector<ItemChange::Kind> out;
  std::string known;
  for (ItemChange::Kind k : kItemKinds)
    known += (known.empty() ? "" : ", ") + std::string(item_kind_name(k));
  std::size_t at = 0;
  while (at <= list.size()) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    const std::string_view word = list.substr(at, comma - at);
    at = comma + 1;
    if (word.empty()) continue;
    const auto kind = item_kind_from_name(word);
    if (!kind)
      return Error{Errc::usage, fmt::format("--only: unknown kind '{}' (known: {})",
                                            escape_terminal(word.substr(0, 40)), known)};
    if (std::find(out.begin(), out.end(), *kind) == out.end()) out.push_back(*kind);
  }
  if (out.empty())
    return Error{Errc::usage, fmt::format("--only: no kind given (known: {})", known)};
  return out;
}

void annotate_history(const Archive& archive, const std::string& source,
                      const std::string& commit_id, const std::string& new_blob,
                      std::optional<ItemDiff>& items, std::optional<std::string>& reverted_to,
                      SourceVersions* versions) {
  if (!versions) {
    // The last source's, for the branch head it was read at: a caller that loads several
    // changes of one source (a source's feed, notify) reads its history once. One only: at
    // 1M changes every source's would be hundreds of MB. A new commit (poll, then its
    // hooks) makes a new key. Guarded: a caller may use threads.
    static std::mutex memo_mutex;
    static std::map<std::string, SourceVersions> memo;
    auto head = archive.resolve("HEAD");
    if (!head) return;
    const std::string key = archive.work_dir() + '\0' + source + '\0' + head->id;
    const std::lock_guard<std::mutex> lock(memo_mutex);
    auto it = memo.find(key);
    if (it == memo.end()) {
      memo.clear();
      auto loaded = SourceVersions::load(archive, source);
      if (!loaded) return;  // the pages go without: nothing is wrong with the change itself
      it = memo.emplace(key, std::move(*loaded)).first;
    }
    it->second.use(archive);
    annotate_history(archive, source, commit_id, new_blob, items, reverted_to, &it->second);
    return;
  }
  const auto ordinal = versions->ordinal(commit_id);
  if (!ordinal) return;
  const bool added =
      items && std::any_of(items->items.begin(), items->items.end(),
                           [](const ItemChange& c) { return c.kind == ItemChange::Kind::added; });
  // Every earlier version is read once, then kept in the cache: on the common path (the
  // newest change, shown or notified after a poll) that is one new version to parse.
  versions->learn(*ordinal);
  if (added)
    mark_reappeared(*items,
                    [&](const std::string& id) { return versions->seen_before(id, *ordinal); });
  reverted_to = versions->reverted_to(new_blob, *ordinal);
}

std::optional<CommitItems> load_items(const Archive& archive, const std::string& commit_id,
                                      const std::string& source, SourceVersions& versions) {
  auto changes = archive.source_changes(commit_id, source);
  if (!changes) return std::nullopt;
  const PathChange* chosen = raw_change(*changes, source);
  // A not-a-feed version (or the restored one that deletes not-a-feed) is no item version.
  if (!chosen || is_not_a_feed_path(chosen->path)) return std::nullopt;
  const FeedRules rules = feed_rules(archive, commit_id, source);
  const std::string name =
      item_diff_cache_name(chosen->old_blob, chosen->new_blob, rules.ignore, rules.insignificant);
  std::optional<ItemDiff> items;
  if (auto text = archive.cache_read(name)) items = decode_item_diff(*text);
  if (!items) {
    const NormalizeOptions model_only{{}, true, false};
    auto model = [&](const std::string& blob) -> std::optional<Result<Document>> {
      if (blob.empty()) return std::nullopt;
      auto body = archive.read_blob(blob);
      if (!body) return Result<Document>(body.error());
      return normalize(*body, model_only);
    };
    auto before = model(chosen->old_blob);
    auto after = model(chosen->new_blob);
    if ((before && !*before) || (after && !*after)) return std::nullopt;
    const Feed empty;
    items = diff_items(before ? (*before)->feed : empty, after ? (*after)->feed : empty,
                       rules.ignore, true, rules.insignificant);
    archive.cache_write(name, encode_item_diff(*items));
  }
  CommitItems out{std::move(*items), std::nullopt};
  std::optional<ItemDiff> annotated(std::move(out.items));
  annotate_history(archive, source, commit_id, chosen->new_blob, annotated, out.reverted_to,
                   &versions);
  out.items = std::move(*annotated);
  return out;
}

void add_feed_summary(LoadedChange& change, bool normalized,
                      const std::vector<std::string>& ignore) {
  Normalizing versions(normalized);
  summarize(change, normalized, ignore, false, versions);
}

void compare_bodies(LoadedChange& change, bool feed, bool normalized,
                    const std::vector<std::string>& ignore) {
  if (feed) {
    Normalizing versions(normalized);
    summarize(change, normalized, ignore, true, versions);
  } else {
    change.view.diff_label = "raw";
    change.view.diff = diff_lines(change.old_body, change.new_body);
  }
}

Result<std::unique_ptr<LoadedChange>> load_change(const Archive& archive,
                                                  const ChangeRequest& request) {
  const std::string_view revision = request.revision, source = request.source;
  const bool normalized = request.normalized, compare = request.compare;
  SourceVersions* known = request.known_versions;
  Result<CommitInfo> commit =
      request.resolved ? Result<CommitInfo>(*request.resolved) : archive.resolve(revision);
  if (!commit) return commit.error();
  // The source a poll's commit names: only its directory is compared (a commit made by hand,
  // or one whose trailer names nothing there, is compared whole).
  const CommitMessage message = message_from_trailers(commit->trailers);
  const std::string hinted =
      !source.empty() ? std::string(source) : message.source.value_or(std::string());
  Result<std::vector<PathChange>> changes = std::vector<PathChange>{};
  // The source's versions, when known, name the version before this one: the old side is
  // read there (most likely just read as the new side of that version's page).
  std::string previous;
  if (known && known->source() == hinted)
    if (const auto k = known->ordinal(commit->id); k && *k > 0) previous = known->commit_at(*k - 1);
  if (!hinted.empty() && check_source_name(hinted))
    changes = archive.source_changes(commit->id, hinted, previous);
  if (!changes) return changes.error();
  if (changes->empty()) {
    changes = archive.changes(commit->id);
    if (!changes) return changes.error();
    drop_moves(*changes);
  }

  const PathChange* chosen = raw_change(*changes, source);
  if (!chosen && source.empty() && !changes->empty()) chosen = &changes->front();
  if (!chosen) {
    if (!source.empty())
      return Error{Errc::not_found,
                   fmt::format("commit {} did not change source '{}'", commit->short_id(), source)};
    return Error{Errc::not_found, fmt::format("commit {} changed no file", commit->short_id())};
  }

  auto out = std::make_unique<LoadedChange>();
  out->commit = *commit;
  ChangeView& v = out->view;
  v.commit_id = commit->id;
  v.title = commit->title;
  v.path = chosen->path;
  v.path_status = chosen->kind == ChangeKind::added     ? "added"
                  : chosen->kind == ChangeKind::deleted ? "deleted"
                                                        : "modified";
  if (message.source)
    v.source = *message.source;
  else if (const auto owner = source_of_raw_path(chosen->path))
    v.source = std::string(*owner);
  v.timestamp_kind = message.origin_date ? "origin" : "observed";
  v.headers = recorded_rows(message);
  if (auto remote = archive.origin_url()) v.forge_url = forge_commit_url(*remote, commit->id);
  v.diff_label = "raw";
  if (!compare) return out;

  // A response that was not a feed (contract: raw/NAME/not-a-feed) is never item-diffed: the
  // page says why it is no feed and shows its line diff. The commit that deletes it alone
  // (the feed came back byte for byte) changed no feed: it says so, and shows no diff.
  if (is_not_a_feed_path(chosen->path)) {
    if (chosen->kind == ChangeKind::deleted) {
      v.items_note = "restored: the feed is back, byte for byte its last feed version";
      return out;
    }
    v.items_note = "not a feed: " + message.not_a_feed.value_or("(no reason recorded)");
  }
  // A raw body is a feed: its item summary comes from the cache, else from normalizing both
  // versions (and then goes to the cache).
  const bool feed =
      source_of_raw_path(chosen->path).has_value() && !is_not_a_feed_path(chosen->path);
  FeedRules rules;
  std::string cache_name;
  std::optional<ItemDiff> cached;
  if (feed) {
    rules = feed_rules(archive, commit->id, v.source);
    cache_name =
        item_diff_cache_name(chosen->old_blob, chosen->new_blob, rules.ignore, rules.insignificant);
    remember_summary_key(archive, *commit, chosen->old_blob.empty() ? "first" : cache_name);
    if (!normalized)
      if (auto text = archive.cache_read(cache_name)) cached = decode_item_diff(*text);
  }
  Versions versions(archive, *out, feed && !cached, normalized);
  versions.start(chosen->old_blob, chosen->new_blob);
  if (auto read = versions.wait_bodies(); !read) return read.error();
  v.stored_bytes = out->new_body.size();
  v.diff = diff_lines(out->old_body, out->new_body);
  versions.join();
  if (!feed) return out;
  if (cached) {
    v.items = std::move(*cached);
  } else {
    summarize_docs(*out, normalized, rules.ignore, versions.before, versions.after,
                   rules.insignificant);
    if (v.items) archive.cache_write(cache_name, encode_item_diff(*v.items));
  }
  if (known && known->source() != v.source) known = nullptr;
  annotate_history(archive, v.source, commit->id, chosen->new_blob, v.items, v.reverted_to, known);
  return out;
}

}  // namespace feeddiff
