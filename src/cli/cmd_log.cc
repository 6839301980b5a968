// feeddiff log [NAME] [-n N]

#include <fmt/format.h>

#include "cli/command.h"
#include "feeddiff/render.h"

namespace feeddiff::cli {

namespace {

struct LogOptions {
  std::string source;
  std::size_t limit = 0;
  std::string format = "text";
};

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
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  auto commits = archive->log(options.source.empty() ? "" : "raw/" + options.source, options.limit);
  if (!commits) return commits.error();
  if (options.format == "json") {
    write_out(render_log_json(log_entries(*commits)));
    return 0;
  }
  std::string out;
  for (const auto& c : *commits) {
    std::string when = format_iso8601_ms(c.commit_time).substr(0, 16);
    when[10] = ' ';
    if (const std::string* observed = c.trailer("Observed-At"))
      if (auto t = parse_iso8601(*observed)) when = format_iso8601_ms(*t).substr(0, 16);
    if (when.size() > 10) when[10] = ' ';
    out += fmt::format("{} {} {}\n", c.short_id(), when, escape_terminal(c.title));
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
  app->add_option("-n", options->limit, "At most N changes")->type_name("N");
  app->add_option("--format", options->format, "text (default) or json (docs/json.md)")
      ->check(CLI::IsMember({"text", "json"}));
  app->footer(R"(Each line: short commit id, when it was observed (UTC), and the commit title.

Examples:
  feeddiff log                 every change
  feeddiff log pytorch -n 5    the last five changes of one source
  feeddiff log --format json   for scripts (schema: docs/json.md)
  feeddiff show <id>           then look at one)");
  return {app, [options, &globals] { return log(globals, *options); }};
}

}  // namespace feeddiff::cli
