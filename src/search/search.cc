// Answering a query: the newest matching item texts from FTS5, one hit per item, each grown
// to the run of versions whose text matched, with a snippet of the newest.

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>
#include <unordered_set>

#include "feeddiff/core.h"
#include "search/internal.h"

namespace feeddiff {

using namespace search_detail;
using sqlite::Db;
using sqlite::Statement;

namespace {

// The columns a query looks in: src is the source filter's, never the user's.
constexpr const char* kTextColumns = "{title summary content article}";

struct Span {
  std::int64_t id = 0;
  std::int64_t first_ord = 0;
  std::optional<std::int64_t> last_ord;  // nullopt while open
  std::optional<std::int64_t> gone_ord;
  bool match = false;
};

// A version of the source's feed, or with an item, of the article behind that item.
Result<SearchVersion> version_at(Db& db, std::int64_t source, std::int64_t ord,
                                 const std::optional<std::string>& article = std::nullopt) {
  auto s = db.prepare(
      article ? "SELECT commit_id, observed FROM article_versions WHERE source = ?1 AND ord = ?2 "
                "AND item = ?3"
              : "SELECT commit_id, observed FROM versions WHERE source = ?1 AND ord = ?2");
  if (!s) return s.error();
  (void)s->bind(1, source);
  (void)s->bind(2, ord);
  if (article) (void)s->bind(3, std::string_view(*article));
  auto row = s->step();
  if (!row) return row.error();
  if (!*row)
    return Error{Errc::internal, fmt::format("search index: no version {} of a source", ord)};
  return SearchVersion{s->text(0).value_or(""), s->integer(1)};
}

std::vector<SnippetRun> snippet_runs(std::string_view marked) {
  std::vector<SnippetRun> out;
  bool match = false;
  std::string text;
  auto flush = [&] {
    if (!text.empty()) out.push_back({std::move(text), match});
    text.clear();
  };
  for (char c : marked) {
    if (c == kMatchStart || c == kMatchEnd) {
      flush();
      match = c == kMatchStart;
    } else {
      text += c;
    }
  }
  flush();
  return out;
}

// A hit's newest matching text: its title and the snippet.
struct Shown {
  std::string title;
  std::string snippet;  // with the match markers
};

// Each MATCH FTS5 answers reads the query's terms anew; for a prefix kept whole (one that
// covers more than kMaxPrefixTerms terms: `1*`) that is a merge of every term it covers, 20
// ms at 1M versions, and a search asks one for each span of each hit and one for each
// snippet: a second in all. Such a query (`wide`) is answered in two passes instead: the
// matching rows read once, and the snippets of every hit in one statement.
class Searcher {
 public:
  // wide: the hits' sources (their src keys, "s1", ...) narrow the two passes to their rows.
  Searcher(Db& db, std::string user_match, bool wide, const std::set<std::int64_t>& sources)
      : db_(db), user_match_(std::move(user_match)), wide_(wide) {
    std::string any;
    for (std::int64_t id : sources) any += fmt::format("{}\"s{}\"", any.empty() ? "" : " OR ", id);
    batch_match_ = any.empty() ? user_match_ : user_match_ + " AND src : (" + any + ")";
  }

  // Whether the span's text matches the user's query.
  Result<bool> matches(std::int64_t span) {
    if (wide_) {
      if (!matching_) {
        auto s = db_.prepare("SELECT rowid FROM text WHERE text MATCH ?1");
        if (!s) return s.error();
        (void)s->bind(1, std::string_view(batch_match_));
        matching_.emplace();
        for (;;) {
          auto row = s->step();
          if (!row) return row.error();
          if (!*row) break;
          matching_->insert(s->integer(0));
        }
      }
      return matching_->count(span) != 0;
    }
    auto s = db_.prepare("SELECT 1 FROM text WHERE text MATCH ?1 AND rowid = ?2");
    if (!s) return s.error();
    (void)s->bind(1, std::string_view(user_match_));
    (void)s->bind(2, span);
    return s->step();
  }

  // The title and snippet of each text, by its rowid; in one statement for a wide query.
  Result<std::map<std::int64_t, Shown>> shown(const std::vector<std::int64_t>& rows) {
    const std::string snippet =
        fmt::format("snippet(text, -1, char({}), char({}), '…', 16)", static_cast<int>(kMatchStart),
                    static_cast<int>(kMatchEnd));
    std::map<std::int64_t, Shown> out;
    auto read = [&](Statement& s) -> Status {
      for (;;) {
        auto row = s.step();
        if (!row) return row.error();
        if (!*row) return Ok{};
        if (!s.is_null(2)) out[s.integer(0)] = {s.text(1).value_or(""), s.text(2).value_or("")};
      }
    };
    if (!wide_) {
      auto s = db_.prepare(fmt::format(
          "SELECT rowid, title, {} FROM text WHERE text MATCH ?1 AND rowid = ?2", snippet));
      if (!s) return s.error();
      for (std::int64_t id : rows) {
        (void)s->bind(1, std::string_view(user_match_));
        (void)s->bind(2, id);
        if (auto ok = read(*s); !ok) return ok.error();
        s->reset();
      }
      return out;
    }
    // The snippet is made for the rows asked for alone: CASE evaluates it only for them. The
    // src phrase cannot win the snippet: a matching row has a query word in a text column,
    // and those come first (FTS5 keeps the first of equal columns).
    if (auto ok = db_.exec("CREATE TEMP TABLE IF NOT EXISTS shown_rows(id INTEGER PRIMARY KEY);"
                           "DELETE FROM temp.shown_rows;");
        !ok)
      return ok.error();
    auto add = db_.prepare("INSERT OR IGNORE INTO temp.shown_rows(id) VALUES(?1)");
    if (!add) return add.error();
    for (std::int64_t id : rows) {
      (void)add->bind(1, id);
      if (auto ok = add->run(); !ok) return ok.error();
    }
    auto s = db_.prepare(fmt::format(
        "SELECT rowid, title, CASE WHEN rowid IN (SELECT id FROM temp.shown_rows) THEN {} END "
        "FROM text WHERE text MATCH ?1",
        snippet));
    if (!s) return s.error();
    (void)s->bind(1, std::string_view(batch_match_));
    if (auto ok = read(*s); !ok) return ok.error();
    return out;
  }

  // The hit of an item whose text `newest` matched.
  // For an article's text, its own versions take the place of the feed's: last_readable is
  // the article's newest version, and a text is only ever gone because it was edited.
  Result<SearchHit> hit(std::int64_t source, const std::string& name, const std::string& item,
                        std::int64_t newest, std::int64_t last_readable, bool article,
                        std::int64_t& newest_row) {
    auto s = db_.prepare(
        "SELECT id, first_ord, last_ord, gone_ord FROM spans WHERE source = ?1 AND article = ?3 "
        "AND item = ?2 ORDER BY first_ord, id");
    if (!s) return s.error();
    (void)s->bind(1, source);
    (void)s->bind(2, std::string_view(item));
    (void)s->bind(3, std::int64_t{article ? 1 : 0});
    std::vector<Span> spans;
    for (;;) {
      auto row = s->step();
      if (!row) return row.error();
      if (!*row) break;
      Span span;
      span.id = s->integer(0);
      span.first_ord = s->integer(1);
      if (!s->is_null(2)) span.last_ord = s->integer(2);
      if (!s->is_null(3)) span.gone_ord = s->integer(3);
      spans.push_back(span);
    }
    auto at =
        std::find_if(spans.begin(), spans.end(), [&](const Span& x) { return x.id == newest; });
    if (at == spans.end()) return Error{Errc::internal, "search index: a hit's span is gone"};
    for (Span& span : spans) {
      auto m = matches(span.id);
      if (!m) return m.error();
      span.match = *m;
    }
    // The run of matching texts around the newest: each taking over from the one before in
    // the version it began (an edit that kept the words).
    auto begin = at, end = at + 1;
    while (begin != spans.begin()) {
      auto before = std::find_if(spans.begin(), spans.end(), [&](const Span& x) {
        return x.match && x.gone_ord && *x.gone_ord == begin->first_ord;
      });
      if (before == spans.end() || before >= begin) break;
      begin = before;
    }
    const Span* last = &*at;
    for (;;) {
      if (!last->gone_ord) break;
      auto after = std::find_if(spans.begin(), spans.end(), [&](const Span& x) {
        return x.match && x.first_ord == *last->gone_ord;
      });
      if (after == spans.end()) break;
      last = &*after;
      end = after + 1;
    }
    (void)end;

    SearchHit hit;
    hit.source = name;
    hit.item_id = item;
    std::optional<std::string> of;
    if (article) {
      of = item;
      auto newest_article = article_newest(source, item);
      if (!newest_article) return newest_article.error();
      last_readable = newest_article->first;
      hit.article_url = std::move(newest_article->second);
    }
    auto first = version_at(db_, source, begin->first_ord, of);
    if (!first) return first.error();
    hit.first = std::move(*first);
    const std::int64_t last_ord = last->gone_ord ? last->last_ord.value_or(last->first_ord)
                                                 : std::max(last_readable, last->first_ord);
    auto last_version = version_at(db_, source, last_ord, of);
    if (!last_version) return last_version.error();
    hit.last = std::move(*last_version);
    hit.versions = static_cast<std::size_t>(last_ord - begin->first_ord + 1);
    if (last->gone_ord) {
      auto gone = version_at(db_, source, *last->gone_ord, of);
      if (!gone) return gone.error();
      hit.gone = std::move(*gone);
      hit.edited_out = std::any_of(spans.begin(), spans.end(),
                                   [&](const Span& x) { return x.first_ord == *last->gone_ord; });
    }
    // The title and snippet come from the newest matching text (shown, for every hit at once).
    newest_row = last->id;
    return hit;
  }

 private:
  // The article's newest version and the URL it was fetched from.
  Result<std::pair<std::int64_t, std::string>> article_newest(std::int64_t source,
                                                              const std::string& item) {
    auto s = db_.prepare(
        "SELECT ord, url FROM article_versions WHERE source = ?1 AND item = ?2 "
        "ORDER BY ord DESC LIMIT 1");
    if (!s) return s.error();
    (void)s->bind(1, source);
    (void)s->bind(2, std::string_view(item));
    auto row = s->step();
    if (!row) return row.error();
    if (!*row) return Error{Errc::internal, "search index: an article without versions"};
    return std::pair{s->integer(0), s->text(1).value_or("")};
  }

  Db& db_;
  std::string user_match_;
  bool wide_;
  std::string batch_match_;  // user_match_ within the hits' sources
  std::optional<std::unordered_set<std::int64_t>> matching_;  // a wide query's rows
};

// A prefix (`"wei"*`) is the one thing FTS5 reads whole: every term it covers merged into one
// list, again for every query that uses it (a hit's spans are each matched and snippeted), 20
// ms a time for a word in every row of 200,000. A one-word ASCII prefix that covers few terms
// is therefore written as those terms (`("weight" OR "weights")`), which FTS5 reads as far as
// it needs; one that covers more stays a prefix.
constexpr int kMaxPrefixTerms = 32;

Result<std::string> expand_prefixes(Db& db, const std::string& expression) {
  if (expression.find("\"*") == std::string::npos) return expression;
  if (auto ok = db.exec(
          "CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_vocab USING fts5vocab(main, text, row)");
      !ok)
    return ok.error();
  auto terms = db.prepare(fmt::format(
      "SELECT term FROM temp.search_vocab WHERE term >= ?1 AND term < ?1 || char(1114111) "
      "LIMIT {}",
      kMaxPrefixTerms + 1));
  if (!terms) return terms.error();
  std::string out;
  for (std::size_t i = 0; i < expression.size();) {
    if (expression[i] != '"') {
      out += expression[i++];
      continue;
    }
    std::size_t end = i + 1;  // the closing quote: one not doubled
    while (end < expression.size() &&
           (expression[end] != '"' || (end + 1 < expression.size() && expression[end + 1] == '"')))
      end += expression[end] == '"' ? 2 : 1;
    const std::string quoted = expression.substr(i, end + 1 - i);
    const std::string word = expression.substr(i + 1, end - i - 1);
    const bool prefix = end + 1 < expression.size() && expression[end + 1] == '*';
    i = end + 1 + (prefix ? 1 : 0);
    const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    });
    if (!prefix || !plain) {
      out += quoted + (prefix ? "*" : "");
      continue;
    }
    std::vector<std::string> found;
    (void)terms->bind(1, std::string_view(to_lower(word)));
    for (;;) {
      auto row = terms->step();
      if (!row) return row.error();
      if (!*row) break;
      found.push_back(terms->text(0).value_or(""));
    }
    terms->reset();
    if (found.empty() || found.size() > kMaxPrefixTerms) {
      out += quoted + "*";
      continue;
    }
    std::string any;
    for (const std::string& term : found) any += (any.empty() ? "\"" : " OR \"") + term + "\"";
    out += "(" + any + ")";
  }
  return out;
}

// Runs the search on an index brought up to date.
Result<SearchResult> run_search(const Archive& archive, Db& db, const SearchQuery& query,
                                const std::string& expression) {
  SearchResult result;
  auto updated = update_index(archive, db);
  if (!updated) return updated.error();
  result.index = std::move(*updated);

  auto expanded = expand_prefixes(db, expression);
  if (!expanded) return expanded.error();
  const std::string user_match = fmt::format("{} : ({})", kTextColumns, *expanded);
  std::string match = user_match;
  if (!query.sources.empty()) {
    std::vector<std::string> keys;
    auto s = db.prepare("SELECT id FROM sources WHERE name = ?1");
    if (!s) return s.error();
    for (const std::string& name : query.sources) {
      (void)s->bind(1, std::string_view(name));
      auto row = s->step();
      if (!row) return row.error();
      if (!*row)
        return Error{Errc::not_found, fmt::format("no recorded version of a source named '{}'",
                                                  escape_terminal(name))};
      keys.push_back(fmt::format("\"s{}\"", s->integer(0)));
      s->reset();
    }
    std::string any;
    for (const std::string& key : keys) any += (any.empty() ? "" : " OR ") + key;
    match += " AND src : (" + any + ")";
  }
  std::string sql =
      "SELECT text.rowid, spans.source, spans.item, sources.name, sources.last_readable, "
      "spans.article "
      "FROM text JOIN spans ON spans.id = text.rowid JOIN sources ON sources.id = spans.source "
      "WHERE text MATCH ?1";
  if (query.until) sql += " AND spans.first_time <= ?2";
  if (query.since) sql += " AND (spans.gone_time IS NULL OR spans.gone_time > ?3)";
  sql += " ORDER BY text.rowid DESC";
  auto s = db.prepare(sql);
  if (!s) return s.error();
  (void)s->bind(1, std::string_view(match));
  if (query.until) (void)s->bind(2, std::int64_t{*query.until});
  if (query.since) (void)s->bind(3, std::int64_t{*query.since});

  struct Found {
    std::int64_t span, source, last_readable;
    std::string name, item;
    bool article;
  };
  std::vector<Found> found;
  // One hit per item, and one per article behind an item.
  std::set<std::tuple<std::int64_t, std::string, bool>> seen;
  for (;;) {
    auto row = s->step();
    if (!row) {
      // The expression was checked; what FTS5 could still refuse is said without SQL.
      if (row.error().code == Errc::io && row.error().message.find("fts5") != std::string::npos)
        return Error{Errc::usage, "search query: not understood"};
      return row.error();
    }
    if (!*row) break;
    auto item = s->text(2).value_or("");
    const bool article = s->integer(5) != 0;
    if (!seen.emplace(s->integer(1), item, article).second) continue;
    if (found.size() == query.limit) {
      result.more = true;
      break;
    }
    found.push_back({s->integer(0), s->integer(1), s->integer(4), s->text(3).value_or(""),
                     std::move(item), article});
  }
  std::set<std::int64_t> hit_sources;
  for (const Found& f : found) hit_sources.insert(f.source);
  Searcher searcher(db, user_match, expanded->find("\"*") != std::string::npos, hit_sources);
  std::vector<std::int64_t> newest_rows;
  for (const Found& f : found) {
    std::int64_t newest_row = 0;
    auto hit =
        searcher.hit(f.source, f.name, f.item, f.span, f.last_readable, f.article, newest_row);
    if (!hit) return hit.error();
    result.hits.push_back(std::move(*hit));
    newest_rows.push_back(newest_row);
  }
  auto shown = searcher.shown(newest_rows);
  if (!shown) return shown.error();
  for (std::size_t i = 0; i < result.hits.size(); ++i)
    if (auto it = shown->find(newest_rows[i]); it != shown->end()) {
      result.hits[i].title = it->second.title;
      result.hits[i].snippet = snippet_runs(it->second.snippet);
    }
  return result;
}

SearchIndexReport* report_of(SearchResult& result) {
  return &result.index;
}
SearchIndexReport* report_of(SearchIndexReport& report) {
  return &report;
}
SearchIndexReport* report_of(std::vector<SearchIndexRow>&) {
  return nullptr;
}

// Runs work on the index, made anew once (with a line why) when it turns out unreadable
// part way: a file damaged past the header's check.
template <typename Work>
auto with_index(const Archive& archive, Work work) -> decltype(work(std::declval<Db&>())) {
  const std::string path = search_index_path(archive);
  std::string note;
  auto first = [&]() -> decltype(work(std::declval<Db&>())) {
    auto index = open_index(path);
    if (!index) return index.error();
    note = index->rebuilt;
    return work(index->db);
  }();
  if (first || first.error().code != Errc::io) {
    if (first && !note.empty())
      if (SearchIndexReport* report = report_of(*first)) {
        report->action = SearchIndexReport::Action::rebuilt;
        report->note = note == "missing" ? "search index missing: built it from the history"
                                         : "search index " + note + ": rebuilt it";
      }
    return first;
  }
  note = "unreadable (" + first.error().message + ")";
  auto index = open_index(path, note);
  if (!index) return index.error();
  auto again = work(index->db);
  if (again)
    if (SearchIndexReport* report = report_of(*again)) {
      report->action = SearchIndexReport::Action::rebuilt;
      report->note = "search index " + note + ": rebuilt it";
    }
  return again;
}

}  // namespace

std::string search_index_path(const Archive& archive) {
  return archive.cache_dir() + "/search.sqlite";
}

Result<SearchIndexReport> update_search_index(const Archive& archive) {
  return with_index(archive, [&](Db& db) { return update_index(archive, db); });
}

Result<SearchResult> search_archive(const Archive& archive, const SearchQuery& query) {
  auto expression = search_expression(query.text);
  if (!expression) return expression.error();
  if (query.limit == 0) return Error{Errc::usage, "--limit must be at least 1"};
  return with_index(archive, [&](Db& db) { return run_search(archive, db, query, *expression); });
}

Result<std::vector<SearchIndexRow>> search_index_rows(const Archive& archive) {
  return with_index(archive, [&](Db& db) -> Result<std::vector<SearchIndexRow>> {
    auto updated = update_index(archive, db);
    if (!updated) return updated.error();
    auto s = db.prepare(
        "SELECT sources.name, spans.item, text.title, f.commit_id, "
        "coalesce(l.commit_id, n.commit_id), coalesce(g.commit_id, '') "
        "FROM spans JOIN sources ON sources.id = spans.source AND spans.article = 0 "
        "JOIN text ON text.rowid = spans.id "
        "JOIN versions f ON f.source = spans.source AND f.ord = spans.first_ord "
        "LEFT JOIN versions l ON l.source = spans.source AND l.ord = spans.last_ord "
        "LEFT JOIN versions n ON n.source = spans.source AND n.ord = sources.last_readable "
        "LEFT JOIN versions g ON g.source = spans.source AND g.ord = spans.gone_ord");
    if (!s) return s.error();
    std::vector<SearchIndexRow> rows;
    for (;;) {
      auto row = s->step();
      if (!row) return row.error();
      if (!*row) break;
      rows.push_back({s->text(0).value_or(""), s->text(1).value_or(""), s->text(2).value_or(""),
                      s->text(3).value_or(""), s->text(4).value_or(""), s->text(5).value_or("")});
    }
    std::sort(rows.begin(), rows.end());
    return rows;
  });
}

}  // namespace feeddiff
