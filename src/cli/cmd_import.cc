// feeddiff import FILE.opml: add every feed of an OPML subscription list as a source.

#include <fmt/format.h>
#include <cstdio>
#include <iostream>
#include <iterator>

#include "cli/command.h"
#include "feeddiff/render.h"
#include "feeddiff/sources.h"

namespace feeddiff::cli {

namespace {

struct ImportOptions {
  std::string file;
  std::string every = "1h";
  bool dry_run = false;
};

// Feed titles and URLs come from a file someone else wrote: escape them, line by line.
std::string escape_lines(const std::string& text) {
  std::string out;
  for (std::size_t at = 0; at < text.size();) {
    const auto nl = std::min(text.find('\n', at), text.size());
    out += escape_terminal(text.substr(at, nl - at)) + "\n";
    at = nl + 1;
  }
  return out;
}

Result<std::string> read_input(const std::string& file) {
  if (file != "-") return read_file(file);
  std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  return text;
}

// What import says: a line per feed added or already there, then the counts; the skipped
// feeds' lines go to stderr.
int print_import(const ImportPlan& plan, std::size_t feeds, bool dry_run) {
  std::string out, warnings;
  for (const ImportEntry& e : plan.entries) {
    if (e.kind == ImportEntry::Kind::skipped)
      warnings += fmt::format("skipped {}: {}\n", e.shown_url, e.reason);
    else if (e.kind == ImportEntry::Kind::present)
      out += fmt::format("{} is already a source: {}\n", e.shown_url, e.name);
    else
      out += fmt::format("Added {} ({}, every {})\n", e.name, e.source.url,
                         format_duration(e.source.every));
  }
  out += fmt::format("{} {} of {} feed{}", dry_run ? "Would import" : "Imported", plan.added, feeds,
                     feeds == 1 ? "" : "s");
  if (plan.present) out += fmt::format(", {} already there", plan.present);
  if (plan.skipped) out += fmt::format(", {} skipped", plan.skipped);
  out += plan.added && !dry_run ? "; run `feeddiff poll` to fetch them\n" : "\n";
  write_out(escape_lines(out));
  if (!warnings.empty()) {
    std::fflush(stdout);
    std::fputs(escape_lines(warnings).c_str(), stderr);
  }
  return plan.skipped ? 1 : 0;
}

Result<int> import(const Globals& globals, const ImportOptions& options) {
  auto default_every = parse_duration(options.every);
  if (!default_every) return default_every.error();
  if (*default_every < 60'000) return Error{Errc::usage, "--every must be at least 1m (be polite)"};
  auto text = read_input(options.file);
  if (!text) return text.error();
  auto feeds = parse_opml(*text);
  if (!feeds)
    return Error{feeds.error().code, fmt::format("{}: {}", options.file, feeds.error().message)};
  auto edit = open_for_edit(globals.dir);
  if (!edit) return edit.error();
  auto text_before = committed_config(edit->archive, "import");
  if (!text_before) return text_before.error();
  const ImportPlan plan = plan_import(edit->config, *feeds, *default_every);
  if (!options.dry_run)
    if (auto ok = commit_import(*edit, *text_before, plan, current_time); !ok) return ok.error();
  return print_import(plan, feeds->size(), options.dry_run);
}

}  // namespace

Command import_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand("import", "Add every feed of an OPML subscription list");
  auto options = std::make_shared<ImportOptions>();
  app->add_option("FILE", options->file, "The OPML file (- reads standard input)")->required();
  app->add_option("--every", options->every,
                  "Poll interval of feeds the file gives none for (default 1h; at least 1m)")
      ->type_name("DURATION");
  app->add_flag("-n,--dry-run", options->dry_run, "Say what would be added, change nothing");
  app->footer(
      R"(Every <outline> with an xmlUrl becomes a source, however deeply folders nest them. Its
name comes from the outline's text (or title), made safe: "Ars Technica" becomes
ars-technica, with -2, -3 added when a name is taken. A feed whose URL is already a source
is left alone, so importing the same file twice adds nothing. Credentials in a URL go to
.git/feeddiff/credentials, never into feeddiff.toml. All new sources land in one commit,
appended to feeddiff.toml in the list's order; the file's comments and layout stay.

Files written by `feeddiff export-opml` carry each source's name, interval and options, so
export then import restores the same sources (in name order, as export lists them). Exit code 1 when some feed was skipped
(a URL feeddiff cannot fetch); the others are still added.

Examples:
  feeddiff import subscriptions.opml
  feeddiff import --every 6h --dry-run feeds.opml
  feeddiff -C old export-opml | feeddiff -C new import -)");
  return {app, [options, &globals] { return import(globals, *options); }};
}

}  // namespace feeddiff::cli
