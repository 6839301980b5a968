#pragma once
// export-sqlite's article versions (docs/sqlite.md, docs/articles.md): a table beside
// git-history's, which git-history's own tools ignore. Internal to export.

#include <cstddef>
#include <cstdint>
#include <string>

#include "feeddiff/result.h"
#include "feeddiff/sqlite_db.h"
#include "feeddiff/store.h"

namespace feeddiff {

/// The SQL that makes the article_version table and its index, if missing.
std::string article_schema_sql();

/// Adds a row for each article version of source (the commits that changed
/// articles/<source>/, from the source index) that the namespace has none for yet; the
/// number added.
Result<std::size_t> export_article_versions(const Archive& archive, sqlite::Db& db,
                                            std::int64_t namespace_id, const std::string& source);

}  // namespace feeddiff
