// feeddiff log [NAME] [-n N]

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <charconv>
#include <optional>

#include "cli/change.h"
#include "cli/command.h"
#include "cli/source_records.h"
#include "feeddiff/render.h"

namespace feeddiff::cli {

namespace {

struct LogOptions {
  std::string source;
  std::size_t limit = 0;
  std::string format = "text";
  bool items = false;
};

// "2026-10-01 05:54": when a commit was observed, to the minute, UTC.
std::string observed_when(const CommitInfo& c) {
  std::string when = format_iso8601_ms(c.commit_time).substr(0, 16);
  if (const std::string* observed = c.trailer("Observed-At"))
    if (auto t = parse_iso8601(*observed)) when = format_iso8601_ms(*t).substr(0, 16);
  if (when.size() > 10) when[10] = ' ';
  return when;
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
    const auto items = load_items(archive, c.id, options.source, *versions);
    if (!items) continue;  // the first version, or one that does not parse
    const std::string when = observed_when(c);
    if (items->reverted_to && (!options.limit || lines < options.limit)) {
      out += fmt::format("{} {} {:<10} {}\n", c.short_id(), when, "reverted",
                         items->reverted_to->substr(0, 7));
      ++lines;
    }
    for (const ItemChange& item : items->items.items) {
      if (options.limit && lines >= options.limit) break;
      std::string title = item.title.empty() ? item.id : item.title;
      for (char& ch : title)
        if (ch == '\n' || ch == '\r' || ch == '\t') ch = ' ';
      bool cut = false;
      std::string label(cut_chars(title, 100, &cut));
      if (cut) label += "…";
      out += fmt::format("{} {} {:<10} {}{}\n", c.short_id(), when, item_change_word(item),
                         escape_terminal(label), item.minor ? " [minor]" : "");
      ++lines;
    }
  }
  if (lines == 0) out = fmt::format("No item change of '{}' recorded yet.\n", options.source);
  write_out(out);
  return 0;
}

bool parse_time(const std::string& text, TimeMs& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// What `log NAME` prints of a commit: its title, times and these trailers (the first of each).
constexpr std::array<const char*, 3> kLogTrailers = {"Source", "Observed-At", "Status"};

// A commit as its record in the log cache keeps it: "c", id, title, author and committer
// times, then key and value of each of kLogTrailers it has; nullopt for any other line.
std::optional<CommitInfo> from_record(const std::vector<std::string>& r) {
  CommitInfo c;
  if (r.size() < 5 || r.size() % 2 == 0 || r[0] != "c" || !parse_time(r[3], c.author_time) ||
      !parse_time(r[4], c.commit_time))
    return std::nullopt;
  c.id = r[1];
  c.title = r[2];
  for (std::size_t i = 5; i + 1 < r.size(); i += 2) c.trailers.push_back({r[i], r[i + 1]});
  return c;
}

// Every change of a source, newest first, as source_log(name, 0) lists them, from the cache
// log/<source>: one record per commit (its title, times and kLogTrailers), so that the
// commits are read once, not on every call, and what a call costs is the lines it prints.
// The short ids are checked against the objects added since the last call (abbrev/<source>).
Result<std::vector<CommitInfo>> all_changes(const Archive& archive, const std::string& source) {
  auto ids = archive.source_commit_ids(source);
  if (!ids) return ids.error();
  const std::vector<std::string> commits(ids->rbegin(), ids->rend());
  SourceRecords records = SourceRecords::load(archive, "log", source, commits);
  std::vector<CommitInfo> out;
  out.reserve(commits.size());
  for (const auto& r : records.records()) {
    auto c = from_record(r);
    if (!c) break;
    out.push_back(std::move(*c));
  }
  records.keep(out.size());
  for (std::size_t k = out.size(); k < commits.size(); ++k) {
    auto c = archive.resolve(commits[k]);
    if (!c) return archive.source_log(source, 0);  // a record naming no commit: walk instead
    std::vector<std::string> fields = {"c", c->id, c->title, std::to_string(c->author_time),
                                       std::to_string(c->commit_time)};
    for (const char* key : kLogTrailers)
      if (const std::string* value = c->trailer(key)) fields.insert(fields.end(), {key, *value});
    out.push_back(*from_record(fields));  // what a later call reads back
    records.add(std::move(fields));
  }
  records.save(archive);
  auto abbrev = archive.abbreviate(commits, source_cache_name("abbrev", source));
  if (!abbrev) return abbrev.error();
  for (std::size_t i = 0; i < out.size(); ++i) out[i].abbrev = std::move((*abbrev)[i]);
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<LogEntry> log_entries(const std::vector<CommitInfo>& commits) {
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
    out.push_back(std::move(e));
  }
  return out;
}

Result<int> log(const Globals& globals, const LogOptions& options) {
  if (!options.source.empty())
    if (auto ok = check_source_name(options.source); !ok) return ok.error();
  if (options.items && options.source.empty())
    return Error{Errc::usage, "log --items needs a NAME: item changes are a source's"};
  if (options.items && options.format == "json")
    return Error{Errc::usage, "log --items has no JSON form yet; use show --format json"};
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  if (options.items) return log_items(*archive, options);
  // With -n, the newest N commits are read; without, the source's cache of them.
  auto commits = options.source.empty() ? archive->log("", options.limit)
                 : options.limit        ? archive->source_log(options.source, options.limit)
                                        : all_changes(*archive, options.source);
  if (!commits) return commits.error();
  if (options.format == "json") {
    write_out(render_log_json(log_entries(*commits)));
    return 0;
  }
  std::string out;
  for (const auto& c : *commits) {
    out += fmt::format("{} {} {}\n", c.short_id(), observed_when(c), escape_terminal(c.title));
  }
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
  app->add_option("-n", options->limit, "At most N changes (with --items, N lines)")
      ->type_name("N");
  app->add_flag("--items", options->items,
                "One line per item change of source NAME (added, removed, changed, moved, "
                "reappeared, duplicate; and reverted versions), newest first");
  app->add_option("--format", options->format, "text (default) or json (docs/json.md)")
      ->check(CLI::IsMember({"text", "json"}));
  app->footer(R"(Each line: short commit id, when it was observed (UTC), and the commit title.
With --items: short commit id, when, the item's kind and its title ([minor] when an
insignificant rule of feeddiff.toml matched it); a version byte for byte an earlier one
shows as `reverted <commit>`. The item summaries come from .git/feeddiff/cache, computed
once when missing.

Examples:
  feeddiff log                 every change
  feeddiff log pytorch -n 5    the last five changes of one source
  feeddiff log pytorch --items -n 20   the last twenty item changes
  feeddiff log --format json   for scripts (schema: docs/json.md)
  feeddiff show <id>           then look at one)");
  return {app, [options, &globals] { return log(globals, *options); }};
}

}  // namespace feeddiff::cli
