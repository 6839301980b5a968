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
};

Result<int> run_items(const Globals& globals, const ItemsOptions& options) {
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
  app->add_option("INPUT", options->input, "A feed file, - for stdin, or a commit of the archive")
      ->required();
  app->add_option("NAME", options->source,
                  "With a commit: the source (default: the one it recorded)");
  app->add_flag("--json", options->json,
                "JSON: {schema: feeddiff.items/1, format, encoding, count, items: [{id, title, "
                "link, published, updated, authors, categories, enclosures}]}");
  app->footer(
      R"(An item's identity is its guid (RSS), id (Atom, JSON Feed), else its link, else a hash
of its title and date: the item diff of `show` matches items by it.

Examples:
  feeddiff items feed.xml
  feeddiff items HEAD pytorch --json | jq '.items[].title')");
  return {app, [options, &globals] { return run_items(globals, *options); }};
}

}  // namespace feeddiff::cli
