// feeddiff add NAME URL [--every DURATION]

#include <fmt/format.h>

#include "cli/command.h"
#include "feeddiff/fetch.h"
#include "feeddiff/sources.h"

namespace feeddiff::cli {

namespace {

struct AddOptions {
  std::string name;
  std::string url;
  std::string every = "1h";
  bool articles = false;
  bool backfill = false;
};

Result<int> add(const Globals& globals, const AddOptions& options) {
  if (auto ok = check_source_name(options.name); !ok) return ok.error();
  if (auto ok = check_url(options.url); !ok) return ok.error();
  auto every = parse_duration(options.every);
  if (!every) return every.error();
  if (*every < 60'000) return Error{Errc::usage, "--every must be at least 1m (be polite)"};
  {
    // The edit holds the archive's lock: released before the first poll takes it.
    auto edit = open_for_edit(globals.dir);
    if (!edit) return edit.error();
    auto added =
        add_source(*edit, options.name, options.url, *every, current_time, options.articles);
    if (!added) return added.error();
    const SourceConfig& source = added->source;
    write_out(fmt::format("Added {} ({}, every {}{}){}\n", source.name, redact_url(source.url),
                          format_duration(source.every),
                          source.articles ? ", with the articles its items link to" : "",
                          !added->credentials_stored
                              ? ""
                              : "; its credentials are kept in "
                                ".git/feeddiff/credentials, not in a commit"));
  }
  if (!options.backfill) return 0;
  // The first poll, then the publisher's archive from the version it recorded.
  auto walk = backfill_options(options.name, kDefaultBackfillPages, "1s", "2m", "50MiB", false);
  if (!walk) return walk.error();
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  auto report = poll_and_backfill(*archive, *walk);
  if (!report) return report.error();
  write_out(fmt::format("{}: {}{}\n", options.name, outcome_name(report->poll.outcome),
                        report->poll.message.empty()
                            ? std::string()
                            : " (" + escape_terminal(report->poll.message) + ")"));
  return print_backfill(report->backfill);
}

}  // namespace

Command add_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand("add", "Add a source: a named feed URL to poll");
  auto options = std::make_shared<AddOptions>();
  app->add_option("NAME", options->name,
                  "Its name: letters, digits, '.', '_', '-' (it names raw/NAME/ in the archive)")
      ->required();
  app->add_option("URL", options->url, "The feed's http or https URL")->required();
  app->add_option("--every", options->every,
                  "Poll interval: 90s, 15m, 1h, 1h30m, 2d (default 1h; at least 1m). The server "
                  "may push polls later (Cache-Control, Expires, <ttl>, Retry-After)")
      ->type_name("DURATION");
  app->add_flag(
      "--articles", options->articles,
      "Capture the page each item links to as well (`articles = true`; docs/articles.md)");
  app->add_flag("--backfill", options->backfill,
                "Poll it now, then record the feed's own archive (see `feeddiff backfill --help`)");
  app->footer(R"(Examples:
  feeddiff add pytorch https://pytorch.org/blog/feed/
  feeddiff add hn https://news.ycombinator.com/rss --every 15m
  feeddiff add news https://example.com/rss.xml --articles
  feeddiff add private https://me:secret@example.com/feed.xml
  feeddiff add blog https://example.com/feed.atom --backfill

feeddiff.toml is edited in place: the new [sources.NAME] table is appended, every comment
and line already there stays. It is refused while feeddiff.toml has edits not committed
(commit or undo them first), so a hand edit is never swept into the "source added" commit.

Credentials in a URL are stored in .git/feeddiff/credentials, never in feeddiff.toml or a commit,
and are sent only to that URL's scheme, host and port: not after the source's URL moves
elsewhere (a sync, a pull, an adopted redirect, an edit), and never over http when given for
https.)");
  return {app, [options, &globals] { return add(globals, *options); }};
}

}  // namespace feeddiff::cli
