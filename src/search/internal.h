#pragma once
// The search module's parts: the index file (schema, checks, opening), bringing it up to the
// branch, and answering a query from it.

#include <optional>
#include <string>

#include "feeddiff/search.h"
#include "feeddiff/sqlite_db.h"

namespace feeddiff::search_detail {

/// The index's format: a file of another is rebuilt. Bump it with the schema or with what a
/// row holds (the text indexed, the hash).
inline constexpr const char* kIndexFormat = "feeddiff-search-2";

/// Snippet markers: never in indexed text (index_text replaces them) nor in a query.
inline constexpr char kMatchStart = '\x02';
inline constexpr char kMatchEnd = '\x03';

/// The index, open and of this format, with what opening it had to do.
struct OpenIndex {
  sqlite::Db db;
  /// Why it was made anew ("" when an existing file was opened as it was).
  std::string rebuilt;
};

/// Opens the index at path, making it when missing, and making it anew (the old file
/// removed) when it is truncated, not SQLite, or of another format; `rebuilt` says which.
/// force: make it anew whatever it holds, with that reason.
Result<OpenIndex> open_index(const std::string& path, const std::string& force = "");

/// Brings an open index up to the archive's branch, in one transaction.
Result<SearchIndexReport> update_index(const Archive& archive, sqlite::Db& db);

/// The text an item's field is indexed as: markup stripped for summary and content (html),
/// the snippet markers and other control characters replaced by spaces, cut at 256 KiB.
std::string index_text(std::string_view text, bool html);

}  // namespace feeddiff::search_detail
