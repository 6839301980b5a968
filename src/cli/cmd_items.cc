// feeddiff items FILE|-|COMMIT [NAME] [--json]

#include <fmt/format.h>

#include "cli/input.h"
#include "feeddiff/normalize.h"
#include "feeddiff/render.h"

namespace feeddiff::cli {

namespace {

struct ItemsOptions {
  std::string input;
  std::string source;
  bool json = false;
  std::string at;  // --at: the source's version in force then, in place of INPUT
};

Result<int> run_items(const Globals& globals, ItemsOptions options) {
  if (!options.at.empty()) {
    // The one word given is the source (CLI11 fills INPUT first).
    if (!options.source.empty() || options.input.empty())
      return Error{Errc::usage, "--at takes the place of INPUT: items --at TIME NAME"};
    options.source = options.input;
    auto archive = open_archive(globals);
    if (!archive) return archive.error();
    auto commit = version_at(*archive, options.source, options.at);
    if (!commit) return commit.error();
    options.input = commit->id;
  } else if (options.input.empty()) {
    return Error{Errc::usage, "items needs a feed file, - or a commit (or --at TIME NAME)"};
  }
  auto in = read_feed_input(globals, options.input, options.source);
  if (!in) return in.error();
  auto doc = normalize(in->bytes, NormalizeOptions{{}, true, false});
  if (!doc) return Error{doc.error().code, fmt::format("{}: {}", in->label, doc.error().message)};
  write_out(options.json ? render_items_json(doc->feed, doc->encoding)
                         : render_items_text(doc->feed));
  return 0;
}

}  // namespace

Command items_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand("items", "List a feed's items: identity, date, title");
  auto options = std::make_shared<ItemsOptions>();
  app->add_option("INPUT", options->input, "A feed file, - for stdin, or a commit of the archive");
  app->add_option("NAME", options->source,
                  "With a commit: the source (default: the one it recorded)");
  app->add_option("--at", options->at,
                  "The items of source NAME as they were at TIME, in place of INPUT: ISO 8601 "
                  "(2026-03-12, 2026-03-12T09:30Z) or a time ago (2 weeks ago)")
      ->type_name("TIME");
  app->add_flag("--json", options->json,
                "JSON: {schema: feeddiff.items/1, format, encoding, count, items: [{id, title, "
                "link, published, updated, authors, categories, enclosures}]}");
  app->footer(
      R"(An item's identity is its guid (RSS), id (Atom, JSON Feed), else its link, else a hash
of its title and date: the item diff of `show` matches items by it.

Examples:
  feeddiff items feed.xml
  feeddiff items HEAD pytorch --json | jq '.items[].title'
  feeddiff items --at 2026-03-12 pytorch     its items at midnight UTC that day)");
  return {app, [options, &globals] { return run_items(globals, *options); }};
}

}  // namespace feeddiff::cli
