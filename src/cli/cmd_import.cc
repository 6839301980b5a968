// feeddiff import FILE.opml: add every feed of an OPML subscription list as a source.

#include <fmt/format.h>
#include <array>
#include <cstdio>
#include <iostream>
#include <iterator>

#include "cli/command.h"
#include "feeddiff/config.h"
#include "feeddiff/fetch.h"
#include "feeddiff/poll.h"
#include "feeddiff/render.h"

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

Result<int> import(const Globals& globals, const ImportOptions& options) {
  auto default_every = parse_duration(options.every);
  if (!default_every) return default_every.error();
  if (*default_every < 60'000) return Error{Errc::usage, "--every must be at least 1m (be polite)"};
  auto text = read_input(options.file);
  if (!text) return text.error();
  auto feeds = parse_opml(*text);
  if (!feeds)
    return Error{feeds.error().code, fmt::format("{}: {}", options.file, feeds.error().message)};

  auto edit = open_for_edit(globals);
  if (!edit) return edit.error();
  Archive& archive = edit->archive;
  Config& config = edit->config;
  auto text_before = committed_config(archive, "import");
  if (!text_before) return text_before.error();

  std::vector<std::string> taken;
  for (const auto& s : config.sources) taken.push_back(s.name);
  // Each source's name, credentials and the URL they are bound to.
  std::vector<std::array<std::string, 3>> secrets;
  std::string out, warnings, added_lines;
  std::size_t added = 0, present = 0, skipped = 0;
  std::vector<SourceConfig> new_sources;
  for (const auto& feed : *feeds) {
    const SplitUrl split = split_credentials(feed.url);
    const std::string shown = redact_url(feed.url);
    if (auto ok = check_url(split.url); !ok) {
      warnings += fmt::format("skipped {}: {}\n", shown, ok.error().message);
      ++skipped;
      continue;
    }
    if (const auto* same = [&]() -> const SourceConfig* {
          for (const auto& s : config.sources)
            if (s.url == split.url) return &s;
          return nullptr;
        }()) {
      out += fmt::format("{} is already a source: {}\n", shown, same->name);
      ++present;
      continue;
    }
    const TimeMs every = feed.every.value_or(*default_every);
    if (every < 60'000) {
      warnings +=
          fmt::format("skipped {}: interval {} is under 1m\n", shown, format_duration(every));
      ++skipped;
      continue;
    }
    SourceConfig source;
    const bool keep_name = !feed.name.empty() && check_source_name(feed.name).ok() &&
                           std::find(taken.begin(), taken.end(), feed.name) == taken.end();
    source.name =
        keep_name ? feed.name
                  : source_name_for(feed.name.empty() ? feed.title : feed.name, split.url, taken);
    source.url = split.url;
    source.every = every;
    source.ignore = feed.ignore;
    source.skip_cosmetic = feed.skip_cosmetic;
    taken.push_back(source.name);
    if (!split.credentials.empty()) secrets.push_back({source.name, split.credentials, split.url});
    out += fmt::format("Added {} ({}, every {})\n", source.name, source.url,
                       format_duration(source.every));
    added_lines += fmt::format("Source-Added: {} {}\n", source.name, source.url);
    config.sources.push_back(source);
    new_sources.push_back(std::move(source));
    ++added;
  }

  if (added && !options.dry_run) {
    // The user's file, edited: comments, order and layout stay; the new tables follow in
    // the list's order.
    auto edited = add_source_tables(*text_before, new_sources);
    if (!edited) return edited.error();
    for (const auto& [name, credentials, url] : secrets)
      if (auto ok = save_credentials(archive, name, credentials, url); !ok) return ok.error();
    auto now = current_time();
    if (!now) return now.error();
    CommitRequest request;
    request.author_time = request.commit_time = *now;
    request.message = fmt::format("import: {} source{} from OPML\n\n{}", added,
                                  added == 1 ? "" : "s", added_lines);
    request.files.push_back({"feeddiff.toml", std::move(*edited)});
    auto committed = archive.commit(request);
    if (!committed) return committed.error();
  }
  out += fmt::format("{} {} of {} feed{}", options.dry_run ? "Would import" : "Imported", added,
                     feeds->size(), feeds->size() == 1 ? "" : "s");
  if (present) out += fmt::format(", {} already there", present);
  if (skipped) out += fmt::format(", {} skipped", skipped);
  out += added && !options.dry_run ? "; run `feeddiff poll` to fetch them\n" : "\n";
  write_out(escape_lines(out));
  if (!warnings.empty()) {
    std::fflush(stdout);
    std::fputs(escape_lines(warnings).c_str(), stderr);
  }
  return skipped ? 1 : 0;
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
