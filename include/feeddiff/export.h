#pragma once
// export: the archive's item history as an SQLite database in the schema of Simon Willison's
// git-history (`git-history file DB FILE --id ...`), which git-scraping users query with
// Datasette and every other SQLite tool: tables namespaces, commits, item, item_version (only
// the columns that changed since the item's previous version), columns, item_changed, and the
// view item_version_detail. SQLite through sqlite_db.h (libsqlite3 from Debian).
//
// Where feeddiff differs from git-history, and why (src/export/export_sqlite.cc has details):
//  - every source goes into the same item tables, with a `source` column, so that one query
//    spans them; the source is the namespace its commits and columns belong to (git-history
//    names the tables after the namespace instead: `--namespace pytorch` makes `pytorch`,
//    `pytorch_version`, ...);
//  - an item is identified by its source and its feed identity, as `--id source --id id`
//    would; a later duplicate of an identity in one version is skipped, as
//    `--ignore-duplicate-ids` does;
//  - the item table holds each item's newest version whole: a field that disappeared is NULL
//    there (git-history leaves the old value);
//  - a version whose body cannot be read as a feed records its commit and no items.

#include <cstddef>
#include <string>
#include <vector>

#include "feeddiff/result.h"
#include "feeddiff/store.h"

namespace feeddiff {

/// What one export run added for one source.
struct SqliteExportSource {
  std::string name;              ///< the source (and git-history namespace)
  std::size_t commits = 0;       ///< commits of raw/<name>/ exported by this run
  std::size_t versions = 0;      ///< item_version rows added
  std::size_t new_items = 0;     ///< item rows added (first versions)
  std::size_t unreadable = 0;    ///< versions whose body normalize could not read (no items)
  std::size_t already_done = 0;  ///< commits a previous run had exported (skipped)
};

/// What one export run added, source by source in the order asked.
struct SqliteExportReport {
  std::vector<SqliteExportSource> sources;  ///< one per source asked for
};

/// Exports the item history of each source (every commit that touched raw/<name>/, oldest
/// first) into the SQLite database at db_path, made if missing. Commits a previous run
/// exported are skipped, so a later run adds only the newer ones. The whole run is one
/// transaction: a run that fails or is killed leaves the database as it was. Errc::io for
/// what SQLite refuses (naming db_path), Errc::unsupported when db_path holds an `item` table
/// of another shape (e.g. one git-history wrote from other data).
Result<SqliteExportReport> export_sqlite(const Archive& archive,
                                         const std::vector<std::string>& sources,
                                         const std::string& db_path);

/// The version of the SQLite library in use (sqlite3_libversion), e.g. "3.40.1".
std::string sqlite_version();

}  // namespace feeddiff
