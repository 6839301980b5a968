// feeddiff cat COMMIT [NAME]

#include <fmt/format.h>

#include "cli/command.h"
#include "feeddiff/render.h"

namespace feeddiff::cli {

namespace {

struct CatOptions {
  std::string revision;
  std::string source;
  bool feed = false;  // the last feed version even when the last response was no feed
};

Result<int> cat(const Globals& globals, const CatOptions& options) {
  if (!options.source.empty())
    if (auto ok = check_source_name(options.source); !ok) return ok.error();
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  auto commit = archive->resolve(options.revision);
  if (!commit) return commit.error();
  std::string source = options.source;
  if (source.empty()) {
    if (const std::string* s = commit->trailer("Source"))
      source = *s;
    else
      return Error{Errc::usage,
                   fmt::format("commit {} records no single source; name one", commit->short_id())};
  }
  auto dir = archive->source_dir_at(commit->id, source);
  if (!dir) return dir.error();
  // The response last recorded at that commit: raw/NAME/not-a-feed while the source's last
  // response was no feed (response.xml/.json then hold the last feed version; --feed).
  std::vector<std::string> files = {"response.xml", "response.json"};
  if (!options.feed) files.insert(files.begin(), std::string(kNotAFeedFile));
  for (const std::string& file : files) {
    auto body = archive->read(commit->id, *dir + file);
    if (!body) return body.error();
    if (!*body) continue;
    // Raw bytes for pipes; on a terminal, feed text is escaped like everywhere else.
    write_out(stdout_is_terminal() ? escape_terminal(**body) + "\n" : **body);
    return 0;
  }
  return Error{Errc::not_found,
               fmt::format("source '{}' has no raw body at commit {}", source, commit->short_id())};
}

}  // namespace

Command cat_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand("cat", "Print a source's raw body as it was at a commit");
  auto options = std::make_shared<CatOptions>();
  app->add_option("COMMIT", options->revision, "The commit (id, HEAD, HEAD~1, ...)")->required();
  app->add_option("NAME", options->source, "The source (default: the one the commit recorded)");
  app->add_flag("--feed", options->feed,
                "The last feed version, even when the last response was not a feed");
  app->footer(R"(Bytes are written exactly as received when output is a pipe or file; on a terminal,
control characters are escaped. When the source's last response at COMMIT was not a feed (an
HTML or challenge page, an empty body: raw/NAME/not-a-feed), that response is printed; --feed
prints the last feed version instead.

Examples:
  feeddiff cat HEAD > latest.xml
  feeddiff cat a766469 pytorch | xmllint --format -)");
  return {app, [options, &globals] { return cat(globals, *options); }};
}

}  // namespace feeddiff::cli
