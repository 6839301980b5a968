#pragma once
// export: the archive in the formats other tools read. The recorded versions as a WARC/1.1
// file with its CDXJ index (export_warc), for web archives' replay and indexing tools; and
// the archive's item history as an SQLite database in the schema of Simon Willison's
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
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/result.h"
#include "feeddiff/store.h"

namespace feeddiff {

/// What one export run added for one source.
struct SqliteExportSource {
  std::string name;                  ///< the source (and git-history namespace)
  std::size_t commits = 0;           ///< commits of raw/<name>/ exported by this run
  std::size_t versions = 0;          ///< item_version rows added
  std::size_t new_items = 0;         ///< item rows added (first versions)
  std::size_t unreadable = 0;        ///< versions whose body normalize could not read (no items)
  std::size_t already_done = 0;      ///< commits a previous run had exported (skipped)
  std::size_t article_versions = 0;  ///< article_version rows added (docs/articles.md)
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

/// What export_warc is asked for.
struct WarcExportOptions {
  std::vector<std::string> sources;  ///< the sources, in this order
  /// A commit: only the versions recorded after it (its descendants) are written, the
  /// revisit records of older bodies referring to the ids an export of those wrote. Empty:
  /// every version.
  std::string since;
  std::string warc_path;  ///< the WARC file to write (gzip members), replaced whole
  std::string cdxj_path;  ///< the CDXJ index of it to write, replaced whole
  std::string software;   ///< the warcinfo record's `software`, e.g. "feeddiff 0.1.0"
  TimeMs created = 0;     ///< the warcinfo record's WARC-Date
};

/// What one export_warc run wrote for one source.
struct WarcExportSource {
  std::string name;           ///< the source
  std::size_t responses = 0;  ///< response records (a body not seen before)
  std::size_t revisits = 0;   ///< revisit records (a body the source recorded before)
  std::size_t skipped = 0;    ///< commits of its files that are no recorded response
};

/// What one export_warc run wrote.
struct WarcExportReport {
  std::vector<WarcExportSource> sources;  ///< one per source asked for, in order
  std::string head;                       ///< the commit the export reaches (for a next since)
  std::uint64_t bytes = 0;                ///< the WARC file's size
};

/// Writes the recorded versions of sources (each source's oldest first) as a WARC/1.1 file:
/// a warcinfo record, then for each version commit a response record (status line, the
/// recorded headers, the body as stored) or, for a body the source recorded before, a revisit
/// record; each record one gzip member; and the CDXJ index of the records (SURT, 14-digit
/// time, then url, mime, status, digest, length, offset, filename), sorted. src/export/
/// export_warc.cc says what stands in for what the archive does not record. Errc::io naming
/// the file that cannot be written; nothing is left half written.
Result<WarcExportReport> export_warc(const Archive& archive, const WarcExportOptions& options);

/// The SURT key the CDXJ index sorts a URL by (`http://www.Example.com:80/a?b=1&a=2` ->
/// `com,example)/a?a=2&b=1`).
std::string warc_surt(std::string_view url);

}  // namespace feeddiff
