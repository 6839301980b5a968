// Bringing the index up to the branch: the commits since the one it covers, found by walking
// back from the head to it (their number is the cost, not the history's); a rewind when that
// commit left the branch; each source version's items compared with the open spans of its
// source, so that an item text unchanged across versions stays one row.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <unordered_map>

#include "feeddiff/changes.h"
#include "feeddiff/core.h"
#include "feeddiff/message.h"
#include "feeddiff/normalize.h"
#include "search/internal.h"

namespace feeddiff::search_detail {

namespace {

using sqlite::Db;
using sqlite::Statement;
// A text's hash: the first 8 bytes of its SHA-1. An edit whose new text had the same hash
// would keep the old text in the index: a feed could only make that happen by a search of
// about 2^32 SHA-1s per edit, to hide an edit from search alone.
using Hash = std::int64_t;

constexpr std::size_t kMaxFieldBytes = 256 * 1024;

// A span's rowid: when its text first appeared (milliseconds, clamped to 2^42, past year
// 2100) above 20 bits of a counter, so rowid order is first-appearance order and FTS5 can
// hand out the newest hits first. A collision (same millisecond, counter wrapped) moves up.
std::int64_t span_id_base(TimeMs observed, std::uint64_t counter) {
  const std::int64_t t = std::clamp<std::int64_t>(observed, 0, std::int64_t{1} << 42);
  return t << 20 | static_cast<std::int64_t>(counter & 0xfffff);
}

// The change a commit made to one source's feed: a written file over a deleted one, and never
// the not-a-feed file (a response that was no feed is no version of it), as history reads it.
struct SourceVersion {
  std::string source;
  std::string blob;  // "" when the feed was deleted
};

std::vector<SourceVersion> versions_of(const std::vector<PathChange>& changes) {
  std::vector<SourceVersion> out;
  for (const PathChange& c : changes) {
    if (is_not_a_feed_path(c.path)) continue;
    const std::string_view file = std::string_view(c.path).substr(c.path.rfind('/') + 1);
    if (file != "response.xml" && file != "response.json") continue;
    auto name = source_of_raw_path(c.path);
    if (!name) continue;
    const std::string blob = c.kind == ChangeKind::deleted ? "" : c.new_blob;
    auto same = std::find_if(out.begin(), out.end(),
                             [&](const SourceVersion& v) { return v.source == *name; });
    if (same == out.end())
      out.push_back({std::string(*name), blob});
    else if (!blob.empty())
      same->blob = blob;
  }
  return out;
}

struct OpenSpan {
  std::int64_t id = 0;
  Hash hash = 0;
};

// One source as the index has it: its versions so far and the item texts of its newest
// readable version, by item id and occurrence.
struct SourceState {
  std::int64_t id = 0;
  std::int64_t versions = 0;
  std::int64_t last_readable = -1;
  std::string last_blob;  // of the newest version
  bool last_was_readable = true;
  std::unordered_map<std::string, OpenSpan> open;
  bool dirty = false;
};

class Updater {
 public:
  Updater(const Archive& archive, Db& db) : archive_(archive), db_(db) {}

  Result<SearchIndexReport> run();

 private:
  Result<Statement> prepare(const char* sql) { return db_.prepare(sql); }
  Result<SourceState*> state_of(const std::string& name);
  Status index_commit(const std::string& id, std::int64_t seq);
  Status index_article_commit(const CommitInfo& commit, std::int64_t seq);
  Status add_article_version(const std::string& source, const std::string& item,
                             const CommitInfo& commit, std::int64_t seq, const std::string& blob);
  Status add_version(SourceState& state, const std::string& commit, std::int64_t seq,
                     TimeMs observed, const std::string& blob);
  Status rewind(std::int64_t seq);
  Status wipe();
  Status save_states();
  Result<std::optional<std::string>> meta(const char* key);
  Status set_meta(const char* key, const std::string& value);

  const Archive& archive_;
  Db& db_;
  std::unordered_map<std::string, SourceState> states_;
  std::uint64_t counter_ = 0;
  SearchIndexReport report_;
};

Result<std::optional<std::string>> Updater::meta(const char* key) {
  auto s = prepare("SELECT value FROM meta WHERE key = ?1");
  if (!s) return s.error();
  if (auto ok = s->bind(1, std::string_view(key)); !ok) return ok.error();
  auto row = s->step();
  if (!row) return row.error();
  return *row ? s->text(0) : std::nullopt;
}

Status Updater::set_meta(const char* key, const std::string& value) {
  auto s = prepare("INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)");
  if (!s) return s.error();
  if (auto ok = s->bind(1, std::string_view(key)); !ok) return ok;
  if (auto ok = s->bind(2, std::string_view(value)); !ok) return ok;
  return s->run();
}

Result<SourceState*> Updater::state_of(const std::string& name) {
  if (auto it = states_.find(name); it != states_.end()) return &it->second;
  SourceState state;
  auto s = prepare("SELECT id, versions, last_readable FROM sources WHERE name = ?1");
  if (!s) return s.error();
  if (auto ok = s->bind(1, std::string_view(name)); !ok) return ok.error();
  auto row = s->step();
  if (!row) return row.error();
  if (*row) {
    state.id = s->integer(0);
    state.versions = s->integer(1);
    state.last_readable = s->integer(2);
    auto last = prepare("SELECT blob, readable FROM versions WHERE source = ?1 AND ord = ?2");
    if (!last) return last.error();
    (void)last->bind(1, state.id);
    (void)last->bind(2, state.versions - 1);
    auto found = last->step();
    if (!found) return found.error();
    if (*found) {
      state.last_blob = last->text(0).value_or("");
      state.last_was_readable = last->integer(1) != 0;
    }
    auto open = prepare(
        "SELECT id, item, occurrence, hash FROM spans WHERE source = ?1 AND article = 0 AND "
        "gone_ord IS NULL");
    if (!open) return open.error();
    (void)open->bind(1, state.id);
    for (;;) {
      auto r = open->step();
      if (!r) return r.error();
      if (!*r) break;
      OpenSpan span;
      span.id = open->integer(0);
      span.hash = open->integer(3);
      state.open[open->text(1).value_or("") + '\n' + std::to_string(open->integer(2))] = span;
    }
  } else {
    auto add = prepare("INSERT INTO sources(name, versions, last_readable) VALUES(?1, 0, -1)");
    if (!add) return add.error();
    (void)add->bind(1, std::string_view(name));
    if (auto ok = add->run(); !ok) return ok.error();
    state.id = db_.last_insert_rowid();
  }
  return &states_.emplace(name, std::move(state)).first->second;
}

Status Updater::add_version(SourceState& state, const std::string& commit, std::int64_t seq,
                            TimeMs observed, const std::string& blob) {
  const std::int64_t ord = state.versions++;
  state.dirty = true;
  ++report_.versions;
  // A version byte-identical to the one before holds the same items: nothing to read.
  const bool same = ord > 0 && blob == state.last_blob;
  bool readable = same ? state.last_was_readable : true;
  std::optional<Feed> feed;
  if (!same) {
    if (blob.empty()) {
      feed = Feed{};
    } else {
      auto body = archive_.read_blob(blob);
      if (!body) return body.error();
      auto doc = normalize(*body, NormalizeOptions{{}, true, false});
      if (doc)
        feed = std::move(doc->feed);
      else
        readable = false;
    }
  }
  auto version = prepare(
      "INSERT INTO versions(source, ord, seq, commit_id, observed, blob, readable) "
      "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  if (!version) return version.error();
  (void)version->bind(1, state.id);
  (void)version->bind(2, ord);
  (void)version->bind(3, seq);
  (void)version->bind(4, std::string_view(commit));
  (void)version->bind(5, std::int64_t{observed});
  (void)version->bind(6, std::string_view(blob));
  (void)version->bind(7, std::int64_t{readable ? 1 : 0});
  if (auto ok = version->run(); !ok) return ok;
  state.last_blob = blob;
  state.last_was_readable = readable;
  if (!readable) return Ok{};
  if (!feed) {  // the same items as the version before
    state.last_readable = ord;
    return Ok{};
  }

  auto close =
      prepare("UPDATE spans SET last_ord = ?2, gone_ord = ?3, gone_time = ?4 WHERE id = ?1");
  if (!close) return close.error();
  auto insert_span = prepare(
      "INSERT OR IGNORE INTO spans(id, source, item, occurrence, hash, first_ord, first_time) "
      "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  if (!insert_span) return insert_span.error();
  auto insert_text = prepare(
      "INSERT INTO text(rowid, title, summary, content, article, src) "
      "VALUES(?1, ?2, ?3, ?4, '', ?5)");
  if (!insert_text) return insert_text.error();
  const std::string src = "s" + std::to_string(state.id);
  auto close_span = [&](const OpenSpan& span) -> Status {
    (void)close->bind(1, span.id);
    (void)close->bind(2, state.last_readable);
    (void)close->bind(3, ord);
    (void)close->bind(4, std::int64_t{observed});
    return close->run();
  };

  std::unordered_map<std::string, OpenSpan> next;
  std::unordered_map<std::string, std::size_t> occurrences;
  for (const Item& item : feed->items) {
    const std::size_t occurrence = occurrences[item.id]++;
    const std::string key = item.id + '\n' + std::to_string(occurrence);
    if (next.count(key)) continue;
    const std::string title = index_text(item.title, false);
    const std::string summary = index_text(item.summary, true);
    const std::string content = index_text(item.content, true);
    const auto digest = sha1(title + '\0' + summary + '\0' + content);
    Hash hash;
    std::memcpy(&hash, digest.data(), sizeof hash);
    auto open = state.open.find(key);
    if (open != state.open.end()) {
      if (open->second.hash == hash) {
        next.emplace(key, open->second);
        state.open.erase(open);
        continue;
      }
      if (auto ok = close_span(open->second); !ok) return ok;
      state.open.erase(open);
    }
    // A new text of the item: a span and its row of text.
    OpenSpan span;
    span.hash = hash;
    for (std::int64_t id = span_id_base(observed, counter_++);; ++id) {
      (void)insert_span->bind(1, id);
      (void)insert_span->bind(2, state.id);
      (void)insert_span->bind(3, std::string_view(item.id));
      (void)insert_span->bind(4, static_cast<std::int64_t>(occurrence));
      (void)insert_span->bind(5, hash);
      (void)insert_span->bind(6, ord);
      (void)insert_span->bind(7, std::int64_t{observed});
      if (auto ok = insert_span->run(); !ok) return ok;
      if (db_.changes() == 1) {
        span.id = id;
        break;
      }
    }
    (void)insert_text->bind(1, span.id);
    (void)insert_text->bind(2, std::string_view(title));
    (void)insert_text->bind(3, std::string_view(summary));
    (void)insert_text->bind(4, std::string_view(content));
    (void)insert_text->bind(5, std::string_view(src));
    if (auto ok = insert_text->run(); !ok) return ok;
    ++report_.rows;
    next.emplace(key, span);
  }
  // What the version no longer holds is gone from it.
  for (const auto& [key, span] : state.open)
    if (auto ok = close_span(span); !ok) return ok;
  state.open = std::move(next);
  state.last_readable = ord;
  return Ok{};
}

// An article version (docs/articles.md): each article.txt the commit wrote is a version of
// that article's text, one span per distinct text as for an item. Versions whose extraction
// is in doubt are not indexed: a paywall is not the text having gone.
Status Updater::index_article_commit(const CommitInfo& commit, std::int64_t seq) {
  const std::string* kind = commit.trailer("Change-Class");
  if (!kind || *kind != kArticleClass) return Ok{};
  auto changes = archive_.changes(commit.id, "articles/");
  if (!changes) return changes.error();
  bool any = false;
  for (const PathChange& c : *changes) {
    // articles/<source>/<hh>/<key>/article.txt
    std::vector<std::string_view> parts;
    for (std::string_view rest = c.path;;) {
      const auto slash = rest.find('/');
      parts.push_back(rest.substr(0, slash));
      if (slash == std::string_view::npos) break;
      rest.remove_prefix(slash + 1);
    }
    if (c.kind == ChangeKind::deleted || parts.size() != 5 || parts[4] != "article.txt" ||
        !check_source_name(parts[1]))
      continue;
    // The item's id from the trailer when it is the one the directory is named after; the
    // key alone otherwise (a commit anyone could write claims what it likes).
    std::string item(parts[3]);
    if (const std::string* id = commit.trailer("Item-Id");
        id && sha1_hex(*id).substr(0, 20) == parts[3])
      item = *id;
    if (auto ok = add_article_version(std::string(parts[1]), item, commit, seq, c.new_blob); !ok)
      return ok;
    any = true;
  }
  if (any) ++report_.commits;
  return Ok{};
}

Status Updater::add_article_version(const std::string& source, const std::string& item,
                                    const CommitInfo& commit, std::int64_t seq,
                                    const std::string& blob) {
  auto state = state_of(source);
  if (!state) return state.error();
  const std::int64_t source_id = (*state)->id;
  auto next = prepare(
      "SELECT coalesce(max(ord) + 1, 0) FROM article_versions WHERE source = ?1 AND item = ?2");
  if (!next) return next.error();
  (void)next->bind(1, source_id);
  (void)next->bind(2, std::string_view(item));
  if (auto row = next->step(); !row) return row.error();
  const std::int64_t ord = next->integer(0);
  const TimeMs observed = observation_time(commit);
  const std::string* url = commit.trailer("Article-URL");
  auto version = prepare(
      "INSERT INTO article_versions(source, item, ord, seq, commit_id, observed, url) "
      "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  if (!version) return version.error();
  (void)version->bind(1, source_id);
  (void)version->bind(2, std::string_view(item));
  (void)version->bind(3, ord);
  (void)version->bind(4, seq);
  (void)version->bind(5, std::string_view(commit.id));
  (void)version->bind(6, std::int64_t{observed});
  (void)version->bind(7, std::string_view(url ? *url : std::string()));
  if (auto ok = version->run(); !ok) return ok;
  ++report_.versions;

  auto body = archive_.read_blob(blob);
  if (!body) return body.error();
  const ArticleFile file = parse_article_file(*body);
  const std::string title = index_text(file.title, false);
  const std::string text = index_text(file.body, false);
  const auto digest = sha1(title + '\0' + text);
  Hash hash;
  std::memcpy(&hash, digest.data(), sizeof hash);

  auto open = prepare(
      "SELECT id, hash FROM spans WHERE source = ?1 AND article = 1 AND item = ?2 AND "
      "gone_ord IS NULL");
  if (!open) return open.error();
  (void)open->bind(1, source_id);
  (void)open->bind(2, std::string_view(item));
  auto found = open->step();
  if (!found) return found.error();
  if (*found) {
    if (open->integer(1) == hash) return Ok{};
    auto close = prepare(
        "UPDATE spans SET last_ord = ?2, gone_ord = ?3, gone_time = ?4, gone_seq = ?5 "
        "WHERE id = ?1");
    if (!close) return close.error();
    (void)close->bind(1, open->integer(0));
    (void)close->bind(2, ord - 1);
    (void)close->bind(3, ord);
    (void)close->bind(4, std::int64_t{observed});
    (void)close->bind(5, seq);
    if (auto ok = close->run(); !ok) return ok;
  }
  auto insert_span = prepare(
      "INSERT OR IGNORE INTO spans(id, source, item, occurrence, hash, first_ord, first_time, "
      "article, first_seq) VALUES(?1, ?2, ?3, 0, ?4, ?5, ?6, 1, ?7)");
  if (!insert_span) return insert_span.error();
  std::int64_t span = 0;
  for (std::int64_t id = span_id_base(observed, counter_++);; ++id) {
    (void)insert_span->bind(1, id);
    (void)insert_span->bind(2, source_id);
    (void)insert_span->bind(3, std::string_view(item));
    (void)insert_span->bind(4, hash);
    (void)insert_span->bind(5, ord);
    (void)insert_span->bind(6, std::int64_t{observed});
    (void)insert_span->bind(7, seq);
    if (auto ok = insert_span->run(); !ok) return ok;
    if (db_.changes() == 1) {
      span = id;
      break;
    }
  }
  auto insert_text = prepare(
      "INSERT INTO text(rowid, title, summary, content, article, src) "
      "VALUES(?1, ?2, '', '', ?3, ?4)");
  if (!insert_text) return insert_text.error();
  (void)insert_text->bind(1, span);
  (void)insert_text->bind(2, std::string_view(title));
  (void)insert_text->bind(3, std::string_view(text));
  const std::string src = "s" + std::to_string(source_id);
  (void)insert_text->bind(4, std::string_view(src));
  if (auto ok = insert_text->run(); !ok) return ok;
  ++report_.rows;
  return Ok{};
}

// The source a commit poll wrote is about (`S: added (...` or `S: changed (...`, one parent,
// trailer `Source: S`), whose changes are then looked for in raw/S/ alone once store has
// checked the claim against the tree (changed_only_source: a byte compare of the two raw/
// trees, as the per-source index believes a commit); "" for any other commit, whose raw/
// tree is compared with its parent's whole (at 10,000 sources, 7 ms a commit where raw/S/
// alone costs a few µs).
std::string poll_source(const CommitInfo& commit) {
  const std::string* source = commit.trailer("Source");
  if (!source || commit.parents.size() != 1 || !check_source_name(*source)) return "";
  for (const char* kind : {": added (", ": changed ("})
    if (commit.title.starts_with(*source + kind)) return *source;
  return "";
}

Status Updater::index_commit(const std::string& id, std::int64_t seq) {
  auto commit = archive_.resolve(id);
  if (!commit) return commit.error();
  if (is_article_commit(*commit)) {
    if (auto ok = index_article_commit(*commit, seq); !ok) return ok;
    // feeddiff's article commits never touch raw/; one that does (written by anyone) is read
    // for its feeds' versions too, whole, rather than believed.
    auto now = archive_.tree_id(id, "raw");
    if (!now) return now.error();
    std::optional<std::string> before;
    if (!commit->parents.empty()) {
      auto was = archive_.tree_id(commit->parents.front(), "raw");
      if (!was) return was.error();
      before = *was;
    }
    if (*now == before) return Ok{};
  }
  std::string source = poll_source(*commit);  // "" for an article commit: not a poll title
  if (!source.empty()) {
    // A commit anyone can write claims what it likes: one that also rewrote other sources is
    // read whole.
    auto only = archive_.changed_only_source(id, source);
    if (!only) return only.error();
    if (!*only) source.clear();
  }
  auto changes =
      source.empty() ? archive_.changes(id, "raw/") : archive_.source_changes(id, source);
  if (!changes) return changes.error();
  const std::vector<SourceVersion> versions = versions_of(*changes);
  if (versions.empty()) return Ok{};
  const TimeMs observed = observation_time(*commit);
  ++report_.commits;
  for (const SourceVersion& v : versions) {
    auto state = state_of(v.source);
    if (!state) return state.error();
    if (auto ok = add_version(**state, id, seq, observed, v.blob); !ok) return ok;
  }
  return Ok{};
}

Status Updater::save_states() {
  auto s = prepare("UPDATE sources SET versions = ?2, last_readable = ?3 WHERE id = ?1");
  if (!s) return s.error();
  for (auto& [name, state] : states_) {
    if (!state.dirty) continue;
    (void)s->bind(1, state.id);
    (void)s->bind(2, state.versions);
    (void)s->bind(3, state.last_readable);
    if (auto ok = s->run(); !ok) return ok;
  }
  return Ok{};
}

// Drops every version recorded after seq, source by source: the spans they began, and the
// ends they put to the spans before, so each source is as it was after its last version at
// or before seq.
Status Updater::rewind(std::int64_t seq) {
  auto cut = prepare("SELECT source, min(ord) FROM versions WHERE seq > ?1 GROUP BY source");
  if (!cut) return cut.error();
  (void)cut->bind(1, seq);
  std::vector<std::pair<std::int64_t, std::int64_t>> sources;
  for (;;) {
    auto row = cut->step();
    if (!row) return row.error();
    if (!*row) break;
    sources.emplace_back(cut->integer(0), cut->integer(1));
  }
  for (const auto& [source, ord] : sources) {
    const std::string s = std::to_string(source), k = std::to_string(ord);
    const std::string sql = fmt::format(
        "DELETE FROM text WHERE rowid IN (SELECT id FROM spans WHERE source = {0} AND "
        "article = 0 AND first_ord >= {1});"
        "DELETE FROM spans WHERE source = {0} AND article = 0 AND first_ord >= {1};"
        "UPDATE spans SET last_ord = NULL, gone_ord = NULL, gone_time = NULL "
        "WHERE source = {0} AND article = 0 AND gone_ord >= {1};"
        "DELETE FROM versions WHERE source = {0} AND ord >= {1};"
        "UPDATE sources SET versions = {1}, last_readable = coalesce((SELECT max(ord) FROM "
        "versions WHERE source = {0} AND readable = 1), -1) WHERE id = {0};",
        s, k);
    if (auto ok = db_.exec(sql); !ok) return ok;
  }
  // Articles: what their versions after seq began goes, and what they ended is open again.
  const std::string k = std::to_string(seq);
  return db_.exec(fmt::format(
      "DELETE FROM text WHERE rowid IN (SELECT id FROM spans WHERE article = 1 AND "
      "first_seq > {0});"
      "DELETE FROM spans WHERE article = 1 AND first_seq > {0};"
      "UPDATE spans SET last_ord = NULL, gone_ord = NULL, gone_time = NULL, gone_seq = NULL "
      "WHERE article = 1 AND gone_seq > {0};"
      "DELETE FROM article_versions WHERE seq > {0};",
      k));
}

Status Updater::wipe() {
  return db_.exec(
      "DELETE FROM spans; DELETE FROM versions; DELETE FROM article_versions;"
      "DELETE FROM sources;"
      "INSERT INTO text(text) VALUES('delete-all');");
}

Result<SearchIndexReport> Updater::run() {
  auto head = archive_.resolve("HEAD");
  auto tip = meta("tip");
  if (!tip) return tip.error();
  // Up to date: answered without taking the write lock.
  if (head && *tip == head->id) {
    report_.commit = head->id;
    return report_;
  }
  auto transaction = sqlite::Transaction::begin(db_);
  if (!transaction) return transaction.error();
  if (!head) {  // no commit yet: nothing to index
    if (tip->has_value()) {
      if (auto ok = wipe(); !ok) return ok.error();
      if (auto ok = db_.exec("DELETE FROM meta WHERE key = 'tip'"); !ok) return ok.error();
      report_.action = SearchIndexReport::Action::rebuilt;
    }
    if (auto ok = transaction->commit(); !ok) return ok.error();
    return report_;
  }
  report_.commit = head->id;
  if (*tip == head->id) return report_;

  // Back from the head to the commit the index covers, or to the newest commit it indexed
  // (the branch was reset or replayed past the one it covers), or to the root.
  auto known = prepare(
      "SELECT max(seq) FROM (SELECT seq FROM versions WHERE commit_id = ?1 UNION ALL "
      "SELECT seq FROM article_versions WHERE commit_id = ?1)");
  if (!known) return known.error();
  std::vector<std::string> todo;
  bool at_tip = false;
  std::optional<std::int64_t> base;
  Status lookup = Ok{};
  // Every commit: a feed's versions change raw/, an article's articles/ (a commit that
  // changed neither costs a look at its raw/ tree).
  auto walked = archive_.walk_first_parent("", [&](const std::string& id, bool touched) {
    if (tip->has_value() && id == **tip) {
      at_tip = true;
      return false;
    }
    if (!touched) return true;
    (void)known->bind(1, std::string_view(id));
    auto row = known->step();
    if (!row) {
      lookup = row.error();
      return false;
    }
    const bool found = *row && !known->is_null(0);
    if (found) base = known->integer(0);
    known->reset();
    if (found) return false;
    todo.push_back(id);
    return true;
  });
  if (!walked) return walked.error();
  if (!lookup) return lookup.error();

  auto max_seq = [&]() -> Result<std::int64_t> {
    auto s = prepare(
        "SELECT max(coalesce((SELECT max(seq) FROM versions), 0), "
        "coalesce((SELECT max(seq) FROM article_versions), 0))");
    if (!s) return s.error();
    auto row = s->step();
    if (!row) return row.error();
    return s->integer(0);
  };
  auto newest = max_seq();
  if (!newest) return newest.error();
  report_.action = SearchIndexReport::Action::updated;
  if (!at_tip && base && *base < *newest) {
    if (auto ok = rewind(*base); !ok) return ok.error();
    report_.action = SearchIndexReport::Action::rewound;
  } else if (!at_tip && !base && *newest > 0) {
    // Nothing the index holds is on the branch any more: what it holds goes.
    if (auto ok = wipe(); !ok) return ok.error();
    report_.action = SearchIndexReport::Action::rebuilt;
    report_.note = "the search index shared no commit with the branch: rebuilt";
  }
  auto next = max_seq();
  if (!next) return next.error();
  std::int64_t seq = *next;
  for (auto it = todo.rbegin(); it != todo.rend(); ++it)
    if (auto ok = index_commit(*it, ++seq); !ok) return ok.error();
  if (auto ok = save_states(); !ok) return ok.error();
  if (auto ok = set_meta("tip", head->id); !ok) return ok.error();
  if (auto ok = transaction->commit(); !ok) return ok.error();
  return report_;
}

}  // namespace

std::string index_text(std::string_view text, bool html) {
  std::string out = html ? readable_text(text) : std::string(text);
  if (out.size() > kMaxFieldBytes) {
    std::size_t cut = kMaxFieldBytes;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xc0) == 0x80) --cut;
    out.resize(cut);
  }
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') c = ' ';
  return out;
}

Result<SearchIndexReport> update_index(const Archive& archive, sqlite::Db& db) {
  return Updater(archive, db).run();
}

}  // namespace feeddiff::search_detail
