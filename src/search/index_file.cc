// The index file: its schema, the checks made before trusting it, and making it anew.

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "search/internal.h"

namespace feeddiff::search_detail {

namespace {

// One row per source version, one per article version, and one per item or article text
// (spans: an article's have article = 1, their ords counting that article's versions), the
// text in FTS5 (without the per-row token counts: hits are ordered by time, never ranked, so
// bm25 has no use). A span's rowid orders it by when its text first appeared (spans_id in
// update.cc), so the newest hits come first without sorting. docs/search.md describes each column.
constexpr const char* kSchema = R"(
PRAGMA journal_mode = DELETE;
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE sources(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,
                     versions INTEGER NOT NULL, last_readable INTEGER NOT NULL);
CREATE TABLE versions(source INTEGER NOT NULL, ord INTEGER NOT NULL, seq INTEGER NOT NULL,
                      commit_id TEXT NOT NULL, observed INTEGER NOT NULL, blob TEXT NOT NULL,
                      readable INTEGER NOT NULL, PRIMARY KEY(source, ord)) WITHOUT ROWID;
CREATE INDEX versions_commit ON versions(commit_id);
CREATE INDEX versions_seq ON versions(seq);
CREATE TABLE article_versions(source INTEGER NOT NULL, item TEXT NOT NULL, ord INTEGER NOT NULL,
                              seq INTEGER NOT NULL, commit_id TEXT NOT NULL,
                              observed INTEGER NOT NULL, url TEXT NOT NULL,
                              PRIMARY KEY(source, item, ord)) WITHOUT ROWID;
CREATE INDEX article_versions_commit ON article_versions(commit_id);
CREATE INDEX article_versions_seq ON article_versions(seq);
CREATE TABLE spans(id INTEGER PRIMARY KEY, source INTEGER NOT NULL, item TEXT NOT NULL,
                   occurrence INTEGER NOT NULL, hash INTEGER NOT NULL, first_ord INTEGER NOT NULL,
                   last_ord INTEGER, gone_ord INTEGER, first_time INTEGER NOT NULL,
                   gone_time INTEGER, article INTEGER NOT NULL DEFAULT 0,
                   first_seq INTEGER NOT NULL DEFAULT 0, gone_seq INTEGER);
CREATE INDEX spans_item ON spans(source, article, item, first_ord);
CREATE VIRTUAL TABLE text USING fts5(title, summary, content, article, src, columnsize = 0,
                                     tokenize = 'unicode61 remove_diacritics 2');
)";

// What is wrong with the file's first page and length, or "" when they agree. A file cut
// short (a disk that filled, a copy interrupted) is found here, before SQLite reads a page
// that is not there; a hot journal beside it means SQLite is to roll back first, so the
// length is not checked then.
std::string check_header(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return "cannot be read";
  if (std::filesystem::exists(path + "-journal", ec)) return "";
  if (size < 100) return fmt::format("{} bytes long", size);
  std::ifstream in(path, std::ios::binary);
  unsigned char h[100];
  if (!in.read(reinterpret_cast<char*>(h), sizeof h)) return "cannot be read";
  if (std::string_view(reinterpret_cast<const char*>(h), 16) !=
      std::string_view("SQLite format 3\0", 16))
    return "not an SQLite file";
  const auto be32 = [&](int at) {
    return std::uint32_t{h[at]} << 24 | std::uint32_t{h[at + 1]} << 16 |
           std::uint32_t{h[at + 2]} << 8 | std::uint32_t{h[at + 3]};
  };
  std::uint64_t page = std::uint32_t{h[16]} << 8 | h[17];
  if (page == 1) page = 65536;
  // The page count in the header is valid when written by the same change as the counter.
  if (be32(24) != be32(92)) return "";
  const std::uint64_t want = page * be32(28);
  if (want != size) return fmt::format("{} bytes long where its header says {}", size, want);
  return "";
}

void remove_file(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
  std::filesystem::remove(path + "-journal", ec);
}

Result<sqlite::Db> create(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  auto db = sqlite::Db::open(path);
  if (!db) return db.error();
  if (auto ok = db->exec(kSchema); !ok) return ok.error();
  auto meta = db->prepare("INSERT INTO meta(key, value) VALUES('format', ?1)");
  if (!meta) return meta.error();
  if (auto ok = meta->bind(1, std::string_view(kIndexFormat)); !ok) return ok.error();
  if (auto ok = meta->run(); !ok) return ok.error();
  return std::move(*db);
}

// Settings of a connection: a larger page cache for the first build's inserts.
Status configure(sqlite::Db& db) {
  return db.exec("PRAGMA cache_size = -32768; PRAGMA temp_store = MEMORY;");
}

}  // namespace

Result<OpenIndex> open_index(const std::string& path, const std::string& force) {
  std::string why = force;
  std::error_code ec;
  if (why.empty() && !std::filesystem::exists(path, ec)) why = "missing";
  if (why.empty())
    if (std::string bad = check_header(path); !bad.empty()) why = "unreadable (" + bad + ")";
  if (why.empty()) {
    auto db = sqlite::Db::open(path);
    if (!db) {
      if (db.error().code == Errc::locked) return db.error();
      why = "unreadable (" + db.error().message + ")";
    } else {
      // The format row, read by a statement finalized before the connection moves.
      auto format = [&]() -> Result<std::optional<std::string>> {
        auto statement = db->prepare("SELECT value FROM meta WHERE key = 'format'");
        if (!statement) return statement.error();
        auto row = statement->step();
        if (!row) return row.error();
        return *row ? statement->text(0) : std::nullopt;
      }();
      if (!format && format.error().code == Errc::locked) return format.error();
      if (format && *format == std::string(kIndexFormat)) {
        if (auto ok = configure(*db); !ok) return ok.error();
        return OpenIndex{std::move(*db), ""};
      }
      why = format ? "of another format" : "unreadable (" + format.error().message + ")";
    }
  }
  remove_file(path);
  auto made = create(path);
  if (!made) return made.error();
  if (auto ok = configure(*made); !ok) return ok.error();
  return OpenIndex{std::move(*made), why};
}

}  // namespace feeddiff::search_detail
