// feeddiff cat COMMIT [NAME]

#include <fmt/format.h>

#include <utility>

#include "cli/input.h"
#include "feeddiff/render.h"

namespace feeddiff::cli {

namespace {

struct CatOptions {
  std::string revision;
  std::string source;
  bool feed = false;  // the last feed version even when the last response was no feed
  std::string at;     // --at: the source's version in force then, in place of COMMIT
};

// With --at, the one word given is the source (CLI11 fills COMMIT first).
Status take_at(CatOptions& options, std::string_view command) {
  if (options.at.empty()) {
    if (options.revision.empty())
      return Error{Errc::usage, fmt::format("{} needs a COMMIT, or --at TIME NAME", command)};
    return Ok{};
  }
  if (!options.source.empty())
    return Error{Errc::usage,
                 fmt::format("--at takes the place of COMMIT: {} --at TIME NAME", command)};
  if (options.revision.empty())
    return Error{Errc::usage, fmt::format("--at needs the source: {} --at TIME NAME", command)};
  options.source = std::exchange(options.revision, std::string());
  return Ok{};
}

Result<int> cat(const Globals& globals, CatOptions options) {
  if (auto ok = take_at(options, "cat"); !ok) return ok.error();
  if (!options.source.empty())
    if (auto ok = check_source_name(options.source); !ok) return ok.error();
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  auto commit = options.at.empty() ? archive->resolve(options.revision)
                                   : version_at(*archive, options.source, options.at);
  if (!commit) return commit.error();
  // The last response by default (raw/NAME/not-a-feed while it was no feed); --feed: the
  // last feed version.
  auto in = feed_input_at(*archive, commit->id, options.source, !options.feed);
  if (!in) return in.error();
  // Raw bytes for pipes; on a terminal, feed text is escaped like everywhere else.
  write_out(stdout_is_terminal() ? escape_terminal(in->bytes) + "\n" : in->bytes);
  return 0;
}

}  // namespace

Command cat_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand("cat", "Print a source's raw body as it was at a commit");
  auto options = std::make_shared<CatOptions>();
  app->add_option("COMMIT", options->revision, "The commit (id, HEAD, HEAD~1, ...)");
  app->add_option("NAME", options->source, "The source (default: the one the commit recorded)");
  app->add_option("--at", options->at,
                  "The source's version in force at TIME, in place of COMMIT: ISO 8601 "
                  "(2026-03-12, 2026-03-12T09:30Z) or a time ago (2 weeks ago)")
      ->type_name("TIME");
  app->add_flag("--feed", options->feed,
                "The last feed version, even when the last response was not a feed");
  app->footer(R"(Bytes are written exactly as received when output is a pipe or file; on a terminal,
control characters are escaped. When the source's last response at COMMIT was not a feed (an
HTML or challenge page, an empty body: raw/NAME/not-a-feed), that response is printed; --feed
prints the last feed version instead.

--at TIME NAME prints NAME as it was at TIME: its newest version observed (by this poller's
clock, the Observed-At trailer) at or before TIME, found from the cache of the source's
changes, not by walking the history; a TIME before its first version is an error. On a
terminal, stderr says which version that is.

Examples:
  feeddiff cat HEAD > latest.xml
  feeddiff cat a766469 pytorch | xmllint --format -
  feeddiff cat --at 2026-03-12T09:00Z pytorch     pytorch as it was that morning
  feeddiff cat --at '2 weeks ago' pytorch > then.xml)");
  return {app, [options, &globals] { return cat(globals, *options); }};
}

}  // namespace feeddiff::cli
