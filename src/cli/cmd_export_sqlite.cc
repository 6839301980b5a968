// feeddiff export-sqlite [NAME...] --db FILE: the item history in git-history's schema.

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/input.h"
#include "feeddiff/export.h"

namespace feeddiff::cli {

namespace {

struct ExportSqliteOptions {
  std::vector<std::string> sources;
  std::string db;
};

Result<int> export_sqlite_run(const Globals& globals, const ExportSqliteOptions& options) {
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  auto sources = sources_to_export(*archive, options.sources);
  if (!sources) return sources.error();
  auto report = export_sqlite(*archive, *sources, options.db);
  if (!report) return report.error();
  std::string out;
  for (const auto& s : report->sources) {
    const std::string articles =
        s.article_versions
            ? "; " + plural(s.article_versions, "article version", "article versions")
            : std::string();
    if (!s.commits) {
      out += fmt::format("{}: up to date ({}){}\n", s.name,
                         plural(s.already_done, "commit", "commits"), articles);
      continue;
    }
    out += fmt::format("{}: {}, {} ({})", s.name, plural(s.commits, "new commit", "new commits"),
                       plural(s.versions, "item version", "item versions"),
                       plural(s.new_items, "new item", "new items"));
    if (s.unreadable)
      out += fmt::format("; {} not readable as a feed",
                         plural(s.unreadable, "version was", "versions were"));
    out += articles + "\n";
  }
  write_out(out);
  return 0;
}

}  // namespace

Command export_sqlite_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand(
      "export-sqlite", "Write the item history to an SQLite database, as git-history does");
  auto options = std::make_shared<ExportSqliteOptions>();
  app->add_option("NAME", options->sources, "Only these sources (default: all)");
  app->add_option("--db", options->db, "The database file (made if missing, else added to)")
      ->type_name("FILE")
      ->required();
  app->footer(
      R"(Reads every recorded version of each source, oldest first, and writes its items in the
schema of git-history (git-history file DB FILE --id ...), so Datasette, sqlite3 and
every SQLite tool read it:
  item                  each item's newest version: _id, _item_id, source, id, title,
                        link, published, updated, authors, categories, summary,
                        content, enclosures, extra (lists and objects as JSON), _commit
  item_version          one row per version of an item that changed: _item, _version,
                        _commit, only the columns that changed (others NULL)
  item_changed          which columns each version changed (item_version, column)
  item_version_detail   a view: item_version with _commit_at, _commit_hash and
                        _changed_columns
  commits, namespaces, columns
                        the commits read, the sources (as namespaces), the column names
A later run adds only the commits made since (one transaction: a run that fails or is
killed leaves the file as it was). All sources share the item tables; `source` says whose.

Examples:
  feeddiff export-sqlite --db feeds.db
  feeddiff export-sqlite pytorch --db pytorch.db && datasette pytorch.db
  sqlite3 feeds.db "select d._commit_at, item.title, d._changed_columns
    from item_version_detail d join item on item._id = d._item
    where item.source = 'pytorch' and d._version > 1 order by d._commit_at")");
  return {app, [options, &globals] { return export_sqlite_run(globals, *options); }};
}

}  // namespace feeddiff::cli
