// feeddiff backfill NAME: the publisher's own archive of a feed, walked and recorded.

#include <fmt/format.h>
#include <cstdio>

#include "cli/command.h"
#include "feeddiff/backfill.h"

namespace feeddiff::cli {

namespace {

struct BackfillFlags {
  std::string name;
  std::size_t max_pages = kDefaultBackfillPages;
  std::string delay = "1s";
  std::string timeout = "2m";
  std::string max_body = "50MiB";
  bool wait = false;
};

}  // namespace

Result<BackfillOptions> backfill_options(const std::string& name, std::size_t max_pages,
                                         const std::string& delay, const std::string& timeout,
                                         const std::string& max_body, bool wait) {
  BackfillOptions options;
  options.name = name;
  options.max_pages = max_pages;
  options.wait_for_lock = wait;
  auto pause = parse_duration(delay);
  if (!pause) return pause.error();
  options.delay = *pause;
  auto total = parse_duration(timeout);
  if (!total) return total.error();
  options.limits.total_timeout_ms = static_cast<long>(*total);
  auto bytes = parse_size(max_body);
  if (!bytes) return bytes.error();
  options.limits.max_body_bytes = *bytes;
  auto now = current_time();
  if (!now) return now.error();
  options.now = *now;
  return options;
}

int print_backfill(const BackfillReport& report) {
  const BackfillText text = backfill_text(report);
  write_out(text.out);
  std::fflush(stdout);
  std::fputs(text.err.c_str(), stderr);
  if (!text.failed) return 0;
  return report.partial ? 1 : 2;
}

namespace {

Result<int> run_backfill(const Globals& globals, const BackfillFlags& flags) {
  if (auto ok = check_source_name(flags.name); !ok) return ok.error();
  auto options = backfill_options(flags.name, flags.max_pages, flags.delay, flags.timeout,
                                  flags.max_body, flags.wait);
  if (!options) return options.error();
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  auto report = backfill(*archive, *options);
  if (!report) return report.error();
  return print_backfill(*report);
}

}  // namespace

Command backfill_command(CLI::App& root, const Globals& globals) {
  auto* app =
      root.add_subcommand("backfill", "Record a feed's own archive (RFC 5005, paged feeds)");
  auto flags = std::make_shared<BackfillFlags>();
  app->add_option("NAME", flags->name, "The source whose archive to walk")->required();
  app->add_option("--max-pages", flags->max_pages,
                  "Archive pages fetched at most, the current document not counted (default 100)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  app->add_option("--delay", flags->delay,
                  "Pause between two requests to one host (default 1s; 0 for none)")
      ->type_name("DURATION");
  app->add_option("--timeout", flags->timeout, "Time allowed for each page (default 2m)")
      ->type_name("DURATION");
  app->add_option("--max-body", flags->max_body, "Largest page accepted, decoded (default 50MiB)")
      ->type_name("SIZE");
  app->add_flag("--wait", flags->wait, "Wait for a running poll instead of failing at once");
  app->footer(R"(Examples:
  feeddiff backfill blog
  feeddiff backfill blog --max-pages 500 --delay 5s
  feeddiff add blog https://example.com/feed.atom --backfill

A feed shows its newest items; many publishers keep the rest in an archive the feed links
to: RFC 5005 archived feeds (<link rel="prev-archive">, also as atom:link in RSS), paged
feeds (<link rel="next">, the older entries) and JSON Feed's next_url. backfill starts from
the newest version poll recorded (it is not fetched again), follows those links one page at
a time, and records the pages it finds in one commit of its own kind under backfill/NAME/
(each page byte for byte with its headers, and the items of them all, each dated by its own
published or updated time). It is the publisher's archive, marked as such: log shows the
commit as [backfill], show lists its pages and items, and nothing that reads feed versions
(log NAME, status, history, items, the site, exports, search) counts it as one.

Politeness: the user agent, timeouts, body limit and redirect rules of poll; one request at a
time with --delay between two to one host; the source's credentials only on their own
origin; links reach loopback or private addresses only when the feed itself came from such
a network; at most --max-pages pages. The walk stops at the last page (no request past it),
at a link back to a page already walked (a loop), at the page cap, at a page that is no feed
(an HTML page, a bot challenge) or at a page that fails, saying which in one line. Run again,
it asks each recorded page conditionally and records only pages whose bytes changed (an
RFC 5005 archive page never should: it says so when one did).

Exit codes: 0 walked (to the end, a loop or the cap); 1 a page failed or was no feed after
others were recorded; 2 an error (nothing to record).)");
  return {app, [flags, &globals] { return run_backfill(globals, *flags); }};
}

}  // namespace feeddiff::cli
