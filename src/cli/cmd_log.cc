// feeddiff log [NAME] [-n N]

#include <fmt/format.h>
#include <algorithm>
#include <map>
#include <optional>

#include "cli/command.h"
#include "feeddiff/changes.h"
#include "feeddiff/render.h"

namespace feeddiff::cli {

namespace {

struct LogOptions {
  std::string source;
  std::size_t limit = 0;
  std::string format = "text";
  bool items = false;
  bool cosmetic = false;  // list cosmetic-only changes instead of folding them
};

// "2026-10-01 05:54": when a commit was observed, to the minute, UTC.
std::string observed_when(const CommitInfo& c) {
  std::string when = format_iso8601_ms(c.commit_time).substr(0, 16);
  if (const std::string* observed = c.trailer("Observed-At"))
    if (auto t = parse_iso8601(*observed)) when = format_iso8601_ms(*t).substr(0, 16);
  if (when.size() > 10) when[10] = ' ';
  return when;
}

// A version whose response was not a feed, or that only took such a response away again:
// no item of the feed changed in it (contract: never item-diffed).
bool no_item_version(const CommitInfo& c) {
  const auto recorded = class_from_trailers(c);
  return is_article_commit(c) || is_backfill_commit(c) ||
         (recorded && (recorded->name == "not-a-feed" || recorded->name == "restored"));
}

// The lines `log --items` prints for one commit's item changes, until `lines` reaches the
// limit (0: none). With `source` not empty (the listing crosses sources), each line names it.
void item_lines(const CommitInfo& c, const CommitItems& items, const std::string& source,
                std::size_t limit, std::string& out, std::size_t& lines) {
  const std::string when = observed_when(c);
  const std::string of = source.empty() ? "" : source + ": ";
  if (items.reverted_to && (!limit || lines < limit)) {
    out += fmt::format("{} {} {:<10} {}{}\n", c.short_id(), when, "reverted", of,
                       items.reverted_to->substr(0, 7));
    ++lines;
  }
  for (const ItemChange& item : items.items.items) {
    if (limit && lines >= limit) break;
    std::string title = item.title.empty() ? item.id : item.title;
    for (char& ch : title)
      if (ch == '\n' || ch == '\r' || ch == '\t') ch = ' ';
    bool cut = false;
    std::string label(cut_chars(title, 100, &cut));
    if (cut) label += "…";
    out += fmt::format("{} {} {:<10} {}{}{}\n", c.short_id(), when, item_change_word(item), of,
                       escape_terminal(label), item.minor ? " [minor]" : "");
    ++lines;
  }
}

// `log NAME --items`: one line per item change, newest commit first, in page order within a
// commit; -n counts lines. Summaries come from the cache as `show` keeps it.
Result<int> log_items(const Archive& archive, const LogOptions& options) {
  auto commits = archive.source_log(options.source, 0);
  if (!commits) return commits.error();
  auto versions = SourceVersions::load(archive, options.source);
  if (!versions) return versions.error();
  std::string out;
  std::size_t lines = 0;
  for (const auto& c : *commits) {
    if (options.limit && lines >= options.limit) break;
    if (no_item_version(c)) continue;
    const auto items = load_items(archive, c.id, options.source, *versions);
    if (!items) continue;  // the first version, or one that does not parse
    item_lines(c, *items, "", options.limit, out, lines);
  }
  if (lines == 0) out = fmt::format("No item change of '{}' recorded yet.\n", options.source);
  write_out(out);
  return 0;
}

// `log --items` without NAME: every source's item changes, newest commit first, each line
// naming its source. With -n the history is read in growing batches until N lines are
// found, so a short listing reads a short stretch of it.
Result<int> log_items_everywhere(const Archive& archive, const LogOptions& options) {
  std::map<std::string, SourceVersions> versions;  // each source's, read once
  std::string out;
  std::size_t lines = 0, done = 0;
  std::size_t batch = options.limit ? std::max<std::size_t>(options.limit, 32) : 0;
  for (;;) {
    auto commits = archive.log("", batch);
    if (!commits) return commits.error();
    for (std::size_t k = done; k < commits->size(); ++k) {
      if (options.limit && lines >= options.limit) break;
      const CommitInfo& c = (*commits)[k];
      const std::string* source = c.trailer("Source");
      if (!source || !check_source_name(*source) || no_item_version(c)) continue;
      auto it = versions.find(*source);
      if (it == versions.end()) {
        auto loaded = SourceVersions::load(archive, *source);
        if (!loaded) continue;
        it = versions.emplace(*source, std::move(*loaded)).first;
      }
      const auto items = load_items(archive, c.id, *source, it->second);
      if (items) item_lines(c, *items, *source, options.limit, out, lines);
    }
    const bool whole = !batch || commits->size() < batch;
    done = commits->size();
    if (whole || (options.limit && lines >= options.limit)) break;
    batch *= 4;
  }
  for (auto& [name, v] : versions) v.save();
  if (lines == 0) out = "No item change recorded yet.\n";
  write_out(out);
  return 0;
}

// " [items] 1 added": a change's class, and its summary unless the title says it already.
std::string class_note(const ChangeClass& cls, const std::string& title) {
  std::string out = fmt::format(" [{}]", cls.name == "not-a-feed" ? "not a feed" : cls.name);
  if (!cls.summary.empty() && title.find(cls.summary) == std::string::npos)
    out += " " + cls.summary;
  return out;
}

// look: the commits were read from git, not from the log cache's records (change_class).
std::vector<LogEntry> log_entries(const Archive& archive, const std::vector<CommitInfo>& commits,
                                  bool look) {
  std::vector<LogEntry> out;
  for (const auto& c : commits) {
    LogEntry e;
    e.id = c.id;
    e.short_id = c.short_id();
    e.title = c.title;
    if (const std::string* s = c.trailer("Source")) e.source = *s;
    e.timestamp = format_iso8601_ms(c.author_time);
    if (const std::string* observed = c.trailer("Observed-At")) e.observed_at = *observed;
    if (const std::string* status = c.trailer("Status")) e.status = *status;
    if (const auto cls = change_class(archive, c, look)) {
      e.change_class = cls->name;
      if (cls->name == "not-a-feed")
        e.not_a_feed = cls->summary;
      else if (!cls->summary.empty())
        e.item_summary = cls->summary;
    }
    out.push_back(std::move(e));
  }
  return out;
}

Result<int> log(const Globals& globals, const LogOptions& options) {
  if (!options.source.empty())
    if (auto ok = check_source_name(options.source); !ok) return ok.error();
  if (options.items && options.format == "json")
    return Error{Errc::usage, "log --items has no JSON form yet; use show --format json"};
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  if (options.items)
    return options.source.empty() ? log_items_everywhere(*archive, options)
                                  : log_items(*archive, options);
  // With -n, the newest N commits are read; without, the source's cache of them.
  auto commits = options.source.empty() ? archive->log("", options.limit)
                 : options.limit        ? archive->source_log(options.source, options.limit)
                                        : source_changes(*archive, options.source);
  if (!commits) return commits.error();
  if (!options.source.empty()) {
    // Its article versions too (docs/articles.md), by commit time.
    commits = with_article_commits(*archive, options.source, std::move(*commits), options.limit);
    if (!commits) return commits.error();
  }
  const bool look = options.source.empty() || options.limit;  // else records: Summary-Key
  if (options.format == "json") {
    write_out(render_log_json(log_entries(*archive, *commits, look)));
    return 0;
  }
  std::string out;
  std::size_t folded = 0;
  for (const auto& c : *commits) {
    const auto cls = change_class(*archive, c, look);
    if (cls && cls->name == "cosmetic" && !options.cosmetic) {
      ++folded;
      continue;
    }
    out += fmt::format("{} {} {}{}\n", c.short_id(), observed_when(c), escape_terminal(c.title),
                       cls ? escape_terminal(class_note(*cls, c.title)) : std::string());
  }
  if (folded)
    out += fmt::format("… {} cosmetic change{} not shown (--cosmetic to list {})\n",
                       with_thousands(folded), folded == 1 ? "" : "s", folded == 1 ? "it" : "them");
  if (commits->empty() && !options.source.empty())
    out = fmt::format("No recorded change of '{}' yet.\n", options.source);
  write_out(out);
  return 0;
}

}  // namespace

Command log_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand("log", "List the recorded changes, newest first");
  auto options = std::make_shared<LogOptions>();
  app->add_option("NAME", options->source, "Only this source's changes");
  app->add_option("-n", options->limit,
                  "At most the newest N changes, folded cosmetic ones included (with --items, N "
                  "lines)")
      ->type_name("N");
  app->add_flag("--items", options->items,
                "One line per item change (added, removed, aged out, changed, moved, "
                "reappeared, duplicate; and reverted versions), newest first: of source NAME, "
                "or of every source, each line naming it");
  app->add_flag("--cosmetic", options->cosmetic,
                "List cosmetic-only changes too (only volatile fields such as lastBuildDate "
                "changed); they are folded into one line by default");
  app->add_option("--format", options->format, "text (default) or json (docs/json.md)")
      ->check(CLI::IsMember({"text", "json"}));
  app->footer(R"(Each line: short commit id, when it was observed (UTC), the commit title, and the
change's class in brackets with its item summary: [first] a source's first version,
[items] an item was added, removed, aged out, reappeared or changed, [minor] only minor
edits, moves or channel fields, [cosmetic] only volatile fields, [not a feed] the response
was no feed (archived, never item-diffed), [restored] the feed came back as it was,
[article] an article's first capture or edit with what changed in it, [article-uncertain]
an article page archived whose extraction is in doubt, and why (never an edit). The
class is read from the commit's Change-Class and Item-Summary trailers; a commit recorded
before feeddiff wrote them shows it when .git/feeddiff/cache holds its summary (after a
`show`), else none. Cosmetic changes are folded into one line unless --cosmetic is given.
JSON lists every change with its class.
With --items: short commit id, when, the item's kind and its title ([minor] when an
insignificant rule of feeddiff.toml matched it); a version byte for byte an earlier one
shows as `reverted <commit>`. The item summaries come from .git/feeddiff/cache, computed
once when missing.

Examples:
  feeddiff log                 every change, cosmetic ones folded
  feeddiff log --cosmetic      every change
  feeddiff log pytorch -n 5    the last five changes of one source
  feeddiff log --items -n 20   the last twenty item changes, of every source
  feeddiff log --format json   for scripts (schema: docs/json.md)
  feeddiff show <id>           then look at one)");
  return {app, [options, &globals] { return log(globals, *options); }};
}

}  // namespace feeddiff::cli
