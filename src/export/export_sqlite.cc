// export_sqlite: the item history of sources as git-history's SQLite schema.
//
// git-history (github.com/simonw/git-history) turns each version of a file into a list of
// records and, with `--id`, keeps one `item` row per identity and one `item_version` row per
// version that differs from the identity's previous one, holding only the columns that changed
// (item_changed says which, NULL included). feeddiff's records are the items normalize reads
// from each recorded version of raw/<source>/response.{xml,json}:
//   {source, id, title, link, published, updated, authors, categories, summary, content,
//    enclosures, extra}
// with empty fields left out (NULL in SQL, as a key a JSON record lacks is in git-history),
// lists and objects as JSON text written the way git-history's jsonify_if_needed writes them
// (Python's json.dumps: ", " and ": " separators, sorted keys, non-ASCII as is), and the
// hashes made as its _hash makes them (SHA-1 of compact JSON, sorted keys, non-ASCII escaped),
// so `_item_id` is what `--id source --id id` gives and `_item_full_hash` what it would record.
// `extra` is every other element of the item, {name: value}, a list of values for a name
// that repeats.
//
// Incremental as git-history is: a run skips the commits the namespace's `commits` rows
// already name, and carries on from each item's last version and hash as stored.

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "export/sqlite_articles.h"
#include "feeddiff/core.h"
#include "feeddiff/export.h"
#include "feeddiff/normalize.h"
#include "feeddiff/sqlite_db.h"

namespace feeddiff {

namespace {

using nlohmann::json;
using sqlite::Db;
using sqlite::Statement;

// The data columns of item and item_version, in table order.
constexpr const char* kColumns[] = {"source",    "id",      "title",      "link",
                                    "published", "updated", "authors",    "categories",
                                    "summary",   "content", "enclosures", "extra"};
constexpr int kColumnCount = static_cast<int>(std::size(kColumns));

using Values = std::vector<std::optional<std::string>>;  // one per kColumns entry

// The schema git-history (through sqlite-utils) writes for `--id`, with feeddiff's columns;
// IF NOT EXISTS so that every run can state it. The view is git-history's, word for word.
std::string schema_sql() {
  std::string data;
  for (const char* column : kColumns) data += fmt::format("   [{}] TEXT,\n", column);
  return fmt::format(R"(CREATE TABLE IF NOT EXISTS [namespaces] (
   [id] INTEGER PRIMARY KEY,
   [name] TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS [idx_namespaces_name]
    ON [namespaces] ([name]);
CREATE TABLE IF NOT EXISTS [commits] (
   [id] INTEGER PRIMARY KEY,
   [namespace] INTEGER REFERENCES [namespaces]([id]),
   [hash] TEXT,
   [commit_at] TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS [idx_commits_namespace_hash]
    ON [commits] ([namespace], [hash]);
CREATE TABLE IF NOT EXISTS [item] (
   [_id] INTEGER PRIMARY KEY,
   [_item_id] TEXT,
{}   [_commit] INTEGER REFERENCES [commits]([id])
);
CREATE UNIQUE INDEX IF NOT EXISTS [idx_item__item_id]
    ON [item] ([_item_id]);
CREATE TABLE IF NOT EXISTS [item_version] (
   [_id] INTEGER PRIMARY KEY,
   [_item] INTEGER REFERENCES [item]([_id]),
   [_version] INTEGER,
   [_commit] INTEGER REFERENCES [commits]([id]),
{}   [_item_full_hash] TEXT
);
CREATE TABLE IF NOT EXISTS [columns] (
   [id] INTEGER PRIMARY KEY,
   [namespace] INTEGER REFERENCES [namespaces]([id]),
   [name] TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS [idx_columns_namespace_name]
    ON [columns] ([namespace], [name]);
CREATE TABLE IF NOT EXISTS [item_changed] (
   [item_version] INTEGER REFERENCES [item_version]([_id]),
   [column] INTEGER REFERENCES [columns]([id]),
   PRIMARY KEY ([item_version], [column])
);
CREATE VIEW IF NOT EXISTS item_version_detail AS select
  commits.commit_at as _commit_at,
  commits.hash as _commit_hash,
  item_version.*,
  (
    select json_group_array(name) from columns
    where id in (
      select column from item_changed
      where item_version = item_version._id
    )
) as _changed_columns
from item_version
  join commits on commits.id = item_version._commit;
CREATE INDEX IF NOT EXISTS [idx_item_version__item]
    ON [item_version] ([_item]);
)",
                     data, data);
}

// Python's json.dumps(value, ensure_ascii=False, sort_keys=True): nlohmann writes strings and
// sorts keys the same way (UTF-8 byte order is code point order), but has no ", " / ": "
// separators, so arrays and objects are joined here.
std::string python_json(const json& value) {
  if (value.is_array()) {
    std::string out = "[";
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (i) out += ", ";
      out += python_json(value[i]);
    }
    return out + "]";
  }
  if (value.is_object()) {
    std::string out = "{";
    bool first = true;
    for (const auto& [key, member] : value.items()) {
      if (!first) out += ", ";
      first = false;
      out += json(key).dump(-1, ' ', false, json::error_handler_t::replace) + ": " +
             python_json(member);
    }
    return out + "}";
  }
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

// git-history's _hash: SHA-1 of json.dumps(record, separators=(",", ":"), sort_keys=True),
// whose default ensure_ascii escapes everything past U+007E as nlohmann's ensure_ascii does.
std::string record_hash(const json& record) {
  return sha1_hex(record.dump(-1, ' ', true, json::error_handler_t::replace));
}

json record_of(const std::string& source, const Item& item) {
  json record = json::object();
  auto put = [&](const char* key, const std::string& value) {
    if (!value.empty()) record[key] = value;
  };
  auto put_list = [&](const char* key, const std::vector<std::string>& values) {
    if (!values.empty()) record[key] = values;
  };
  put("source", source);
  put("id", item.id);
  put("title", item.title);
  put("link", item.link);
  put("published", item.published);
  put("updated", item.updated);
  put_list("authors", item.authors);
  put_list("categories", item.categories);
  put("summary", item.summary);
  put("content", item.content);
  if (!item.enclosures.empty()) {
    json list = json::array();
    for (const auto& e : item.enclosures)
      list.push_back({{"url", e.url}, {"type", e.type}, {"length", e.length}});
    record["enclosures"] = std::move(list);
  }
  if (!item.extra.empty()) {
    json extra = json::object();
    for (const auto& field : item.extra) {
      auto it = extra.find(field.name);
      if (it == extra.end()) {
        extra[field.name] = field.value;
      } else {
        if (!it->is_array()) *it = json::array({*it});
        it->push_back(field.value);
      }
    }
    record["extra"] = std::move(extra);
  }
  return record;
}

Values values_of(const json& record) {
  Values out(kColumnCount);
  for (int i = 0; i < kColumnCount; ++i) {
    auto it = record.find(kColumns[i]);
    if (it == record.end()) continue;
    out[static_cast<std::size_t>(i)] = it->is_string() ? it->get<std::string>() : python_json(*it);
  }
  return out;
}

// `2026-10-01T05:54:04+00:00`, as git-history writes commit_at (Python's isoformat of the
// commit's time; git times are whole seconds).
std::string commit_at(TimeMs t) {
  return format_iso8601_ms(t).substr(0, 19) + "+00:00";
}

std::string column_list(const char* prefix = "") {
  std::string out;
  for (const char* column : kColumns) out += fmt::format("{}[{}]", out.empty() ? "" : ", ", column);
  return prefix + out;
}

std::string placeholders(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += i ? ", ?" : "?";
  return out;
}

struct KnownItem {
  std::int64_t pk = 0;
  std::int64_t version = 0;
  std::string full_hash;
};

// The statements one run uses, prepared once.
struct Statements {
  Statement namespace_insert;
  Statement namespace_select;
  Statement commit_hashes;
  Statement commit_insert;
  Statement column_insert;
  Statement column_select;
  Statement item_select;
  Statement item_insert;
  Statement item_update;
  Statement version_insert;
  Statement changed_insert;
};

Result<Statements> prepare_all(Db& db) {
  std::string item_update = "UPDATE [item] SET ";
  for (const char* column : kColumns) item_update += fmt::format("[{}] = ?, ", column);
  item_update += "[_commit] = ? WHERE [_id] = ?";
  const std::string sql[] = {
      "INSERT OR IGNORE INTO [namespaces] ([name]) VALUES (?)",
      "SELECT [id] FROM [namespaces] WHERE [name] = ?",
      "SELECT [hash] FROM [commits] WHERE [namespace] = ?",
      "INSERT INTO [commits] ([namespace], [hash], [commit_at]) VALUES (?, ?, ?)",
      "INSERT OR IGNORE INTO [columns] ([namespace], [name]) VALUES (?, ?)",
      "SELECT [id] FROM [columns] WHERE [namespace] = ? AND [name] = ?",
      "SELECT " + column_list() + " FROM [item] WHERE [_id] = ?",
      "INSERT INTO [item] ([_item_id], " + column_list() + ", [_commit]) VALUES (" +
          placeholders(kColumnCount + 2) + ")",
      item_update,
      "INSERT INTO [item_version] ([_item], [_version], [_commit], " + column_list() +
          ", [_item_full_hash]) VALUES (" + placeholders(kColumnCount + 4) + ")",
      "INSERT INTO [item_changed] ([item_version], [column]) VALUES (?, ?)",
  };
  std::vector<Statement> prepared;
  for (const auto& s : sql) {
    auto statement = db.prepare(s);
    if (!statement) return statement.error();
    prepared.push_back(std::move(*statement));
  }
  auto take = [&](std::size_t i) { return std::move(prepared[i]); };
  return Statements{take(0), take(1), take(2), take(3), take(4), take(5),
                    take(6), take(7), take(8), take(9), take(10)};
}

// A database that already has an item table must have feeddiff's columns in it, else the
// inserts would fail half-way or mix two kinds of records.
Status check_shape(Db& db) {
  for (const char* table : {"item", "item_version"}) {
    auto info = db.prepare(fmt::format("SELECT [name] FROM pragma_table_info('{}')", table));
    if (!info) return info.error();
    std::set<std::string> have;
    for (;;) {
      auto row = info->step();
      if (!row) return row.error();
      if (!*row) break;
      if (auto name = info->text(0)) have.insert(*name);
    }
    if (have.empty()) continue;
    for (const char* column : kColumns)
      if (!have.count(column))
        return Error{Errc::unsupported,
                     fmt::format("{}: its {} table has no column '{}', so feeddiff did not make "
                                 "it; export to another file",
                                 db.path(), table, column)};
  }
  return Ok{};
}

// Every item's newest version number and hash, by _item_id (SQLite returns the other columns
// of the row that max() picked).
Result<std::unordered_map<std::string, KnownItem>> known_items(Db& db) {
  auto query = db.prepare(
      "SELECT [item].[_item_id], [item].[_id], max([item_version].[_version]), "
      "[item_version].[_item_full_hash] FROM [item] JOIN [item_version] "
      "ON [item_version].[_item] = [item].[_id] GROUP BY [item].[_id]");
  if (!query) return query.error();
  std::unordered_map<std::string, KnownItem> out;
  for (;;) {
    auto row = query->step();
    if (!row) return row.error();
    if (!*row) break;
    out[query->text(0).value_or("")] =
        KnownItem{query->integer(1), query->integer(2), query->text(3).value_or("")};
  }
  return out;
}

class Exporter {
 public:
  Exporter(const Archive& archive, Db& db, Statements& statements,
           std::unordered_map<std::string, KnownItem>& known)
      : archive_(archive), db_(db), s_(statements), known_(known) {}

  Result<SqliteExportSource> run(const std::string& source) {
    SqliteExportSource report;
    report.name = source;
    auto ns = namespace_id(source);
    if (!ns) return ns.error();
    namespace_ = *ns;
    columns_.clear();

    std::set<std::string> done;
    if (auto ok = s_.commit_hashes.bind(1, namespace_); !ok) return ok.error();
    for (;;) {
      auto row = s_.commit_hashes.step();
      if (!row) return row.error();
      if (!*row) break;
      done.insert(s_.commit_hashes.text(0).value_or(""));
    }
    s_.commit_hashes.reset();

    auto commits = archive_.source_log(source, 0);
    if (!commits) return commits.error();
    std::optional<std::string> previous_body;
    for (auto it = commits->rbegin(); it != commits->rend(); ++it) {
      const CommitInfo& commit = *it;
      if (done.count(commit.id)) {
        ++report.already_done;
        continue;
      }
      if (auto ok = s_.commit_insert.bind(1, namespace_); !ok) return ok.error();
      if (auto ok = s_.commit_insert.bind(2, std::string_view(commit.id)); !ok) return ok.error();
      if (auto ok = s_.commit_insert.bind(3, std::string_view(commit_at(commit.commit_time))); !ok)
        return ok.error();
      if (auto ok = s_.commit_insert.run(); !ok) return ok.error();
      const std::int64_t commit_pk = db_.last_insert_rowid();
      ++report.commits;

      auto body = read_body(source, commit.id);
      if (!body) return body.error();
      // A commit that removed the source, or changed only its headers: no item changed.
      if (!*body || *body == previous_body) {
        previous_body = std::move(*body);
        continue;
      }
      previous_body = std::move(*body);
      auto doc = normalize(*previous_body, NormalizeOptions{{}, true, false});
      if (!doc) {
        ++report.unreadable;
        continue;
      }
      if (auto ok = add_items(source, doc->feed, commit_pk, report); !ok) return ok.error();
    }
    auto articles = export_article_versions(archive_, db_, namespace_, source);
    if (!articles) return articles.error();
    report.article_versions = *articles;
    return report;
  }

 private:
  Result<std::int64_t> namespace_id(const std::string& name) {
    if (auto ok = s_.namespace_insert.bind(1, std::string_view(name)); !ok) return ok.error();
    if (auto ok = s_.namespace_insert.run(); !ok) return ok.error();
    if (auto ok = s_.namespace_select.bind(1, std::string_view(name)); !ok) return ok.error();
    auto row = s_.namespace_select.step();
    if (!row) return row.error();
    const std::int64_t id = *row ? s_.namespace_select.integer(0) : 0;
    s_.namespace_select.reset();
    if (!id) return Error{Errc::internal, fmt::format("{}: no namespace '{}'", db_.path(), name)};
    return id;
  }

  Result<std::int64_t> column_id(int column) {
    if (auto it = columns_.find(column); it != columns_.end()) return it->second;
    const std::string_view name = kColumns[column];
    if (auto ok = s_.column_insert.bind(1, namespace_); !ok) return ok.error();
    if (auto ok = s_.column_insert.bind(2, name); !ok) return ok.error();
    if (auto ok = s_.column_insert.run(); !ok) return ok.error();
    if (auto ok = s_.column_select.bind(1, namespace_); !ok) return ok.error();
    if (auto ok = s_.column_select.bind(2, name); !ok) return ok.error();
    auto row = s_.column_select.step();
    if (!row) return row.error();
    const std::int64_t id = *row ? s_.column_select.integer(0) : 0;
    s_.column_select.reset();
    if (!id) return Error{Errc::internal, fmt::format("{}: no column '{}'", db_.path(), name)};
    columns_[column] = id;
    return id;
  }

  // The body recorded at the commit, nullopt when the source has none there.
  Result<std::optional<std::string>> read_body(const std::string& source,
                                               const std::string& commit) {
    auto dir = archive_.source_dir_at(commit, source);
    if (!dir) return dir.error();
    for (const char* file : {"response.xml", "response.json"}) {
      auto body = archive_.read(commit, *dir + file);
      if (!body) return body.error();
      if (*body) return body;
    }
    return std::optional<std::string>();
  }

  Status bind_values(Statement& statement, int first, const Values& values) {
    for (int i = 0; i < kColumnCount; ++i)
      if (auto ok = statement.bind(first + i, values[static_cast<std::size_t>(i)]); !ok) return ok;
    return Ok{};
  }

  Status add_items(const std::string& source, const Feed& feed, std::int64_t commit_pk,
                   SqliteExportSource& report) {
    std::set<std::string> seen;
    for (const Item& item : feed.items) {
      if (!seen.insert(item.id).second) continue;  // a duplicate identity in one version
      const json record = record_of(source, item);
      const std::string item_id = record_hash(json{{"id", item.id}, {"source", source}});
      const std::string full_hash = record_hash(record);
      auto known = known_.find(item_id);
      if (known != known_.end() && known->second.full_hash == full_hash) continue;
      const Values values = values_of(record);

      // The columns to record: all present ones for a new item, else those that differ from
      // the item's row (its previous version, whole).
      Values changed(kColumnCount);
      std::vector<int> changed_columns;
      std::int64_t item_pk = 0;
      std::int64_t version = 1;
      if (known == known_.end()) {
        if (auto ok = s_.item_insert.bind(1, std::string_view(item_id)); !ok) return ok;
        if (auto ok = bind_values(s_.item_insert, 2, values); !ok) return ok;
        if (auto ok = s_.item_insert.bind(kColumnCount + 2, commit_pk); !ok) return ok;
        if (auto ok = s_.item_insert.run(); !ok) return ok;
        item_pk = db_.last_insert_rowid();
        for (int i = 0; i < kColumnCount; ++i)
          if (values[static_cast<std::size_t>(i)]) changed_columns.push_back(i);
        changed = values;
        known = known_.emplace(item_id, KnownItem{item_pk, 0, {}}).first;
        ++report.new_items;
      } else {
        item_pk = known->second.pk;
        version = known->second.version + 1;
        if (auto ok = s_.item_select.bind(1, item_pk); !ok) return ok;
        auto row = s_.item_select.step();
        if (!row) return row.error();
        Values before(kColumnCount);
        if (*row)
          for (int i = 0; i < kColumnCount; ++i)
            before[static_cast<std::size_t>(i)] = s_.item_select.text(i);
        s_.item_select.reset();
        for (int i = 0; i < kColumnCount; ++i) {
          const auto k = static_cast<std::size_t>(i);
          if (values[k] == before[k]) continue;
          changed[k] = values[k];
          changed_columns.push_back(i);
        }
        if (auto ok = bind_values(s_.item_update, 1, values); !ok) return ok;
        if (auto ok = s_.item_update.bind(kColumnCount + 1, commit_pk); !ok) return ok;
        if (auto ok = s_.item_update.bind(kColumnCount + 2, item_pk); !ok) return ok;
        if (auto ok = s_.item_update.run(); !ok) return ok;
      }

      if (auto ok = s_.version_insert.bind(1, item_pk); !ok) return ok;
      if (auto ok = s_.version_insert.bind(2, version); !ok) return ok;
      if (auto ok = s_.version_insert.bind(3, commit_pk); !ok) return ok;
      if (auto ok = bind_values(s_.version_insert, 4, changed); !ok) return ok;
      if (auto ok = s_.version_insert.bind(kColumnCount + 4, std::string_view(full_hash)); !ok)
        return ok;
      if (auto ok = s_.version_insert.run(); !ok) return ok;
      const std::int64_t version_pk = db_.last_insert_rowid();
      for (int column : changed_columns) {
        auto id = column_id(column);
        if (!id) return id.error();
        if (auto ok = s_.changed_insert.bind(1, version_pk); !ok) return ok;
        if (auto ok = s_.changed_insert.bind(2, *id); !ok) return ok;
        if (auto ok = s_.changed_insert.run(); !ok) return ok;
      }
      known->second.version = version;
      known->second.full_hash = full_hash;
      ++report.versions;
    }
    return Ok{};
  }

  const Archive& archive_;
  Db& db_;
  Statements& s_;
  std::unordered_map<std::string, KnownItem>& known_;
  std::int64_t namespace_ = 0;
  std::map<int, std::int64_t> columns_;
};

}  // namespace

Result<SqliteExportReport> export_sqlite(const Archive& archive,
                                         const std::vector<std::string>& sources,
                                         const std::string& db_path) {
  auto db = Db::open(db_path);
  if (!db) return db.error();
  auto transaction = sqlite::Transaction::begin(*db);
  if (!transaction) return transaction.error();
  if (auto ok = check_shape(*db); !ok) return ok.error();
  if (auto ok = db->exec(schema_sql()); !ok) return ok.error();
  if (auto ok = db->exec(article_schema_sql()); !ok) return ok.error();
  auto statements = prepare_all(*db);
  if (!statements) return statements.error();
  auto known = known_items(*db);
  if (!known) return known.error();

  SqliteExportReport report;
  Exporter exporter(archive, *db, *statements, *known);
  for (const auto& source : sources) {
    auto done = exporter.run(source);
    if (!done) return done.error();
    report.sources.push_back(std::move(*done));
  }
  if (auto ok = transaction->commit(); !ok) return ok.error();
  return report;
}

std::string sqlite_version() {
  return sqlite::library_version();
}

}  // namespace feeddiff
