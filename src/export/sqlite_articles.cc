// export-sqlite's article versions: one row per article commit, with its trailers and the
// readable text it recorded (article.txt), so that a query finds an article's silent edits
// beside its item's versions.

#include "export/sqlite_articles.h"

#include <fmt/format.h>

#include <set>

#include "feeddiff/message.h"

namespace feeddiff {

namespace {

std::optional<std::string> trailer_of(const CommitInfo& c, std::string_view key) {
  if (const std::string* value = c.trailer(key)) return *value;
  return std::nullopt;
}

// "added", "changed" or "uncertain", as `history` and poll's lines say it.
std::string result_of(const CommitInfo& c) {
  if (c.trailer("Extraction-Uncertain") ||
      (c.trailer("Change-Class") && *c.trailer("Change-Class") == kArticleUncertainClass))
    return "uncertain";
  return c.title.find(": article added: ") != std::string::npos ? "added" : "changed";
}

}  // namespace

std::string article_schema_sql() {
  return R"(CREATE TABLE IF NOT EXISTS [article_version] (
   [_id] INTEGER PRIMARY KEY,
   [namespace] INTEGER REFERENCES [namespaces]([id]),
   [hash] TEXT,
   [observed_at] TEXT,
   [item_id] TEXT,
   [url] TEXT,
   [status] TEXT,
   [result] TEXT,
   [summary] TEXT,
   [title] TEXT,
   [byline] TEXT,
   [published] TEXT,
   [text] TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS [idx_article_version_namespace_hash]
    ON [article_version] ([namespace], [hash]);
CREATE INDEX IF NOT EXISTS [idx_article_version_item_id]
    ON [article_version] ([item_id]);
)";
}

Result<std::size_t> export_article_versions(const Archive& archive, sqlite::Db& db,
                                            std::int64_t namespace_id, const std::string& source) {
  auto commits = archive.log(fmt::format("articles/{}/", source), 0);
  if (!commits) return commits.error();
  if (commits->empty()) return 0;
  auto done_query = db.prepare("SELECT hash FROM article_version WHERE namespace = ?");
  if (!done_query) return done_query.error();
  if (auto ok = done_query->bind(1, namespace_id); !ok) return ok.error();
  std::set<std::string> done;
  for (;;) {
    auto row = done_query->step();
    if (!row) return row.error();
    if (!*row) break;
    done.insert(done_query->text(0).value_or(""));
  }
  auto insert = db.prepare(
      "INSERT INTO article_version (namespace, hash, observed_at, item_id, url, status, result, "
      "summary, title, byline, published, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  if (!insert) return insert.error();
  std::size_t added = 0;
  for (auto it = commits->rbegin(); it != commits->rend(); ++it) {
    const CommitInfo& c = *it;
    const std::string* cls = c.trailer("Change-Class");
    if (done.count(c.id) || !cls || (*cls != kArticleClass && *cls != kArticleUncertainClass))
      continue;
    // The text the commit recorded: the article.txt beside the page it changed.
    auto changes = archive.changes(c.id, "articles/");
    if (!changes) return changes.error();
    std::optional<ArticleFile> text;
    for (const PathChange& change : *changes) {
      if (!change.path.ends_with("/article.txt")) continue;
      auto body = archive.read(c.id, change.path);
      if (!body) return body.error();
      if (*body) text = parse_article_file(**body);
    }
    const std::optional<std::string> values[] = {
        c.id,
        trailer_of(c, "Observed-At"),
        trailer_of(c, "Item-Id"),
        trailer_of(c, "Article-URL"),
        trailer_of(c, "Status"),
        result_of(c),
        trailer_of(c, "Extraction-Uncertain") ? trailer_of(c, "Extraction-Uncertain")
                                              : trailer_of(c, "Article-Summary"),
        text ? std::optional(text->title) : std::nullopt,
        text ? std::optional(text->byline) : std::nullopt,
        text ? std::optional(text->published) : std::nullopt,
        text ? std::optional(text->body) : std::nullopt};
    if (auto ok = insert->bind(1, namespace_id); !ok) return ok.error();
    for (std::size_t i = 0; i < std::size(values); ++i)
      if (auto ok = insert->bind(static_cast<int>(i) + 2, values[i]); !ok) return ok.error();
    if (auto ok = insert->run(); !ok) return ok.error();
    ++added;
  }
  return added;
}

}  // namespace feeddiff
