// feeddiff log [NAME] [-n N]

#include <fmt/format.h>

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

// `log --items`: one line per item change; -n counts lines. Without NAME each line names
// its source.
Result<int> log_items(const Archive& archive, const LogOptions& options) {
  auto lines = item_log(archive, options.source, options.limit);
  if (!lines) return lines.error();
  std::string out;
  for (const ItemLogLine& line : *lines) {
    std::string title = line.title;
    for (char& ch : title)
      if (ch == '\n' || ch == '\r' || ch == '\t') ch = ' ';
    bool cut = false;
    std::string label(cut_chars(title, 100, &cut));
    if (cut) label += "…";
    out +=
        fmt::format("{} {} {:<10} {}{}{}\n", line.commit.short_id(), observed_minute(line.commit),
                    line.word, options.source.empty() ? line.source + ": " : "",
                    escape_terminal(label), line.minor ? " [minor]" : "");
  }
  if (lines->empty())
    out = options.source.empty()
              ? "No item change recorded yet.\n"
              : fmt::format("No item change of '{}' recorded yet.\n", options.source);
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

Result<int> log(const Globals& globals, const LogOptions& options) {
  if (!options.source.empty())
    if (auto ok = check_source_name(options.source); !ok) return ok.error();
  if (options.items && options.format == "json")
    return Error{Errc::usage, "log --items has no JSON form yet; use show --format json"};
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  if (options.items) return log_items(*archive, options);
  auto commits = change_log(*archive, options.source, options.limit);
  if (!commits) return commits.error();
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
    out += fmt::format("{} {} {}{}\n", c.short_id(), observed_minute(c), escape_terminal(c.title),
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
