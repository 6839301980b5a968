// feeddiff status [NAME...] [--json]: where each source stands between polls.

#include <fmt/format.h>

#include "cli/command.h"
#include "feeddiff/status.h"

namespace feeddiff::cli {

namespace {

struct StatusFlags {
  StatusRequest request;
  bool json = false;
};

Result<int> run_status(const Globals& globals, const StatusFlags& flags) {
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  auto now = current_time();
  if (!now) return now.error();
  auto data = read_status(*archive, flags.request);
  if (!data) return data.error();
  auto sources = chosen_sources(data->config, flags.request.names);
  if (!sources) return sources.error();
  if (flags.json) {
    write_out(status_json(*data, *sources, *now));
    return 0;
  }
  if (sources->empty()) {
    write_out("No sources yet: add one with `feeddiff add NAME URL`.\n");
    return 0;
  }
  write_out(status_text(*archive, *data, *sources, *now));
  return 0;
}

}  // namespace

Command status_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand(
      "status", "Per source: last result and when, next poll, failures, redirects, disabled");
  auto flags = std::make_shared<StatusFlags>();
  app->add_option("NAME", flags->request.names, "Only these sources (default: all)");
  app->add_flag("--json", flags->json, "One JSON document (times in UTC, ISO 8601)");
  app->add_option("--shard", flags->request.shard,
                  "Also say which shard of a fleet of N pollers each source belongs to "
                  "(see `poll --shard`)")
      ->type_name("K/N");
  app->footer(R"(One line per source, read from the poll state (.git/feeddiff/state.json):
  what the last poll got and how long ago, the HTTP status, the error if it failed,
  how many polls in a row failed, when the next poll will fetch it, a permanent redirect
  seen but not yet adopted (it is adopted after 3 polls in a row), whether 410 Gone
  disabled it, a hook this machine has not trusted (`feeddiff trust`), which does not run,
  and credentials not sent because the URL left the origin they were given for. While the
  last response was not a feed (a challenge, login or error page, an empty body), it says
  so, since when and why; hooks that failed, with their error and how many notifications
  wait for the next poll. Nothing is fetched.

  openai  changed 12m ago (HTTP 200); next poll in 48m
  flaky   failed 5m ago (HTTP 503): http://example.com/feed: HTTP 503; 3 failures in a row;
          next poll in 3h55m
  oldblog gone 2d ago (HTTP 410); disabled: HTTP 410 Gone: disabled until `feeddiff enable oldblog`
  walled  not-a-feed 5m ago (HTTP 200); not a feed since 2026-12-05T09:00:00Z (3h ago): HTML
          document "Just a moment..." (text/html); 4 failures in a row; next poll in 8h

Failures back off exponentially (the interval doubled per failure, at most a day) and
Retry-After is honoured, so a broken feed is not hammered; none is silently dropped.

In a clone (`feeddiff clone`, or any branch with an upstream), the last line says how many
local commits its upstream (origin/main, as of the last fetch) does not have yet.

Examples:
  feeddiff status
  feeddiff status --json | jq '.sources[] | select(.consecutive_failures > 0) | .name')");
  return {app, [flags, &globals] { return run_status(globals, *flags); }};
}

}  // namespace feeddiff::cli
