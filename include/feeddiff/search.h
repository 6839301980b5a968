#pragma once
// search: full-text search over every version of every item the archive recorded, and of
// every article behind an item where a source captures them (docs/articles.md). An index
// (SQLite FTS5, .git/feeddiff/cache/search.sqlite) holds one row per item text: the same
// title, summary and content seen in 500 versions of a feed is one row with its span (the
// first and last version that held it, and the version it was gone from). It is a cache of
// what git holds: it records the commit it covers, is brought up to the branch on each
// search (the commits since, not the history), rewound when that commit left the branch (a
// reset, a sync's replay) and rebuilt when missing, unreadable or of another format.
// docs/search.md has the schema and the query language.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/core.h"
#include "feeddiff/result.h"
#include "feeddiff/store.h"

namespace feeddiff {

/// Bytes of a query at most: a query is something typed, and every word of it costs a pass
/// over the index, so a longer one is refused rather than run.
inline constexpr std::size_t kMaxSearchQueryBytes = 1024;
/// Words, phrases and operators of a query at most.
inline constexpr std::size_t kMaxSearchQueryTerms = 64;
/// Hits returned when the caller does not say.
inline constexpr std::size_t kDefaultSearchLimit = 20;

/// What to look for, and where.
struct SearchQuery {
  /// The query: words (all must match), "a phrase", pref* (a word's beginning), AND, OR,
  /// NOT (binary: a NOT b) and parentheses. Case and accents do not matter.
  std::string text;
  std::vector<std::string> sources;         ///< only these sources (empty: every source)
  std::optional<TimeMs> since;              ///< only text still there at or after this moment
  std::optional<TimeMs> until;              ///< only text that had appeared by this moment
  std::size_t limit = kDefaultSearchLimit;  ///< hits at most
};

/// The FTS5 expression a query stands for, every word and phrase quoted, so nothing in it is
/// FTS5 syntax the user did not mean (a column filter, NEAR, a bare '*'). Errc::usage, one
/// line saying what is wrong, for a query that is empty, too long, has unbalanced quotes or
/// parentheses, an operator with nothing on one side, or a '*' that follows no word.
Result<std::string> search_expression(std::string_view query);

/// One version of a source: its commit and when it was observed (Observed-At, else the
/// commit time).
struct SearchVersion {
  std::string commit;   ///< full id
  TimeMs observed = 0;  ///< when the poller saw it
};

/// A piece of a snippet: text around the match, or the matched words.
struct SnippetRun {
  std::string text;    ///< feed text as it is (escape it to show it)
  bool match = false;  ///< the query matched these words
};

/// An item whose text matched, from the version the match appeared in to the last one that
/// still held it; or the article behind an item, from the article version the match appeared
/// in to the last one that held it.
struct SearchHit {
  std::string source;        ///< the source's name
  std::string item_id;       ///< the item's identity (Item::id)
  std::string title;         ///< its title in the newest matching version
  SearchVersion first;       ///< the first version whose text matched
  SearchVersion last;        ///< the last version whose text matched
  std::size_t versions = 0;  ///< versions of the source from first to last, both counted
  /// The first version after `last` without the match; nullopt: the newest version still
  /// has it.
  std::optional<SearchVersion> gone;
  /// When gone: true when the item was still in that version (its text no longer matched),
  /// false when the item itself had left the feed.
  bool edited_out = false;
  std::vector<SnippetRun> snippet;  ///< a few words around the match, in the newest text
  /// Set when the match is in the text of the article the item links to (a source with
  /// `articles = true`): the page's URL. first, last, versions and gone then count that
  /// article's versions, and gone is always an edit.
  std::optional<std::string> article_url;
};

/// What the index did before the search answered.
struct SearchIndexReport {
  /// none: it covered the branch already; updated: it took in the commits since; rewound:
  /// the commit it covered had left the branch, so what followed the last commit both share
  /// was dropped first; rebuilt: it was made anew (missing, unreadable, another format).
  enum class Action { none, updated, rewound, rebuilt };
  Action action = Action::none;  ///< see Action
  /// For a rebuild of a file that was there, or one found missing: one line why, for stderr.
  std::string note;
  std::string commit;        ///< the branch commit it now covers ("" for none)
  std::size_t commits = 0;   ///< commits that changed a source, read this time
  std::size_t versions = 0;  ///< source versions read
  std::size_t rows = 0;      ///< item texts added
};

/// The hits of a search, newest first (by when the matching text was last new).
struct SearchResult {
  std::vector<SearchHit> hits;  ///< at most the query's limit
  bool more = false;            ///< more hits than the limit
  SearchIndexReport index;      ///< what bringing the index up to date did
};

/// The index's file: .git/feeddiff/cache/search.sqlite.
std::string search_index_path(const Archive& archive);

/// Brings the index up to the branch (see SearchIndexReport), without searching.
Result<SearchIndexReport> update_search_index(const Archive& archive);

/// Brings the index up to the branch, then searches it. Errc::usage for a query
/// search_expression refuses, Errc::not_found for a source the archive never recorded.
Result<SearchResult> search_archive(const Archive& archive, const SearchQuery& query);

/// What the index holds of the feeds' items (not of articles), for tests and the benchmark:
/// each item text's source, item id,
/// the commits of its first and last version, and of the version it was gone from ("" while
/// it is there), sorted. What a walk of git must give again.
struct SearchIndexRow {
  std::string source;   ///< the source
  std::string item_id;  ///< the item's identity
  std::string title;    ///< its title in this text
  std::string first;    ///< commit of the first version holding this text
  std::string last;     ///< commit of the last version holding it
  std::string gone;     ///< commit of the first version without it, "" when none
  /// Ordered by every field, to compare two lists.
  auto operator<=>(const SearchIndexRow&) const = default;
};
/// Every row of the index (up to date first), sorted.
Result<std::vector<SearchIndexRow>> search_index_rows(const Archive& archive);

/// The search as one JSON document (`search --format json`, docs/search.schema.json,
/// `"feeddiff": "search"`, version 1): the query, the hits with their first, last and gone
/// versions and snippet runs, whether more hits were cut and the commit the index is at.
/// Invalid UTF-8 from a feed is replaced rather than failing the whole answer.
std::string search_json(std::string_view query, const SearchResult& result);

/// The search for a terminal (`search`'s text format, docs/search.md): per hit the source
/// and title, the item, `matched FIRST (commit) to LAST (commit), N versions`, when and why
/// it was gone, and the snippet on one line with the match bold (color) or between `**`;
/// then the count, or `No match.`. Feed text is escaped for the terminal.
std::string search_text(const SearchResult& result, bool color);

}  // namespace feeddiff
