// feeddiff add NAME URL [--every DURATION]

#include <fmt/format.h>

#include "cli/command.h"
#include "feeddiff/config.h"
#include "feeddiff/fetch.h"
#include "feeddiff/poll.h"

namespace feeddiff::cli {

namespace {

struct AddOptions {
  std::string name;
  std::string url;
  std::string every = "1h";
};

Result<int> add(const Globals& globals, const AddOptions& options) {
  if (auto ok = check_source_name(options.name); !ok) return ok.error();
  if (auto ok = check_url(options.url); !ok) return ok.error();
  auto every = parse_duration(options.every);
  if (!every) return every.error();
  if (*every < 60'000) return Error{Errc::usage, "--every must be at least 1m (be polite)"};

  auto edit = open_for_edit(globals);
  if (!edit) return edit.error();
  Archive& archive = edit->archive;
  Config& config = edit->config;
  auto text = committed_config(archive, "add");
  if (!text) return text.error();
  if (config.find(options.name))
    return Error{Errc::exists,
                 fmt::format("a source named '{}' exists already (see "
                             "feeddiff.toml; `feeddiff remove {}` first to replace it)",
                             options.name, options.name)};
  // user:password never reaches feeddiff.toml, which is committed.
  const SplitUrl split = split_credentials(options.url);
  SourceConfig source;
  source.name = options.name;
  source.url = split.url;
  source.every = *every;
  // The user's file, edited: comments, order and layout stay.
  auto edited = add_source_table(*text, source);
  if (!edited) return edited.error();

  if (auto ok = save_credentials(archive, source.name, split.credentials, source.url); !ok)
    return ok.error();
  auto now = current_time();
  if (!now) return now.error();
  CommitRequest request;
  request.author_time = request.commit_time = *now;
  request.message = fmt::format("{}: source added\n\nSource: {}\nURL: {}\nEvery: {}\n", source.name,
                                source.name, redact_url(source.url), format_duration(source.every));
  request.files.push_back({"feeddiff.toml", std::move(*edited)});
  auto committed = archive.commit(request);
  if (!committed) return committed.error();
  write_out(fmt::format("Added {} ({}, every {}){}\n", source.name, redact_url(source.url),
                        format_duration(source.every),
                        split.credentials.empty() ? ""
                                                  : "; its credentials are kept in "
                                                    ".git/feeddiff/credentials, not in a commit"));
  return 0;
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
  app->footer(R"(Examples:
  feeddiff add pytorch https://pytorch.org/blog/feed/
  feeddiff add hn https://news.ycombinator.com/rss --every 15m
  feeddiff add private https://me:secret@example.com/feed.xml

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
