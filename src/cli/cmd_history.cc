// feeddiff history NAME [ITEM]: the life of one item across the archive, or the table of a
// source's items.

#include <fmt/format.h>

#include "cli/input.h"
#include "feeddiff/changes.h"
#include "feeddiff/core.h"
#include "feeddiff/poll.h"
#include "feeddiff/render.h"

namespace feeddiff::cli {

namespace {

struct HistoryOptions {
  std::string source;
  std::string item;
  std::string format = "text";
  std::string at;  // --at: the history as it stood then
};

Result<int> history(const Globals& globals, const HistoryOptions& options) {
  if (auto ok = check_source_name(options.source); !ok) return ok.error();
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  std::optional<TimeMs> until;
  if (!options.at.empty()) {
    auto moment = moment_of(options.at);
    if (!moment) return moment.error();
    // A moment before the first version is an error, as for the other commands' --at.
    auto in_force = version_at(*archive, options.source, *moment);
    if (!in_force) return in_force.error();
    until = *moment;
  }
  auto read = read_source_history(*archive, options.source, until);
  if (!read) return read.error();
  if (read->versions.empty()) {
    auto config = load_config(*archive);
    if (!config) return config.error();
    if (!config->find(options.source))
      return Error{Errc::not_found,
                   fmt::format("no source '{}' and no recorded change of it", options.source)};
    if (options.format == "text") {
      write_out(fmt::format("No recorded change of '{}' yet.\n", options.source));
      return 0;
    }
  }
  HistoryView view;
  view.source = options.source;
  view.single = !options.item.empty();
  if (view.single) {
    auto found = find_item(*archive, *read, options.source, options.item);
    if (!found) return found.error();
    view.items.push_back(**found);
    auto articles = item_articles(*archive, options.source, (**found).id);  // docs/articles.md
    if (!articles) return articles.error();
    view.articles = std::move(*articles);
  } else {
    view.items = read->items.lives();
  }
  view.versions = std::move(read->versions);
  if (options.format == "markdown")
    write_out(render_history_markdown(view));
  else if (options.format == "json")
    write_out(render_history_json(view));
  else if (options.format == "html")
    write_out(render_history_html(view));
  else
    write_out(render_history_text(view, use_color(globals)));
  return 0;
}

}  // namespace

Command history_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand("history", "Follow one item across a source's recorded versions");
  auto options = std::make_shared<HistoryOptions>();
  app->add_option("NAME", options->source, "The source")->required();
  app->add_option("ITEM", options->item,
                  "The item: its id, else its link, else a piece of its title (any case); "
                  "without it, a table of the source's items");
  app->add_option("--at", options->at,
                  "The history as it stood at TIME (the versions observed by then): ISO 8601 "
                  "(2026-03-12, 2026-03-12T09:30Z) or a time ago (2 weeks ago)")
      ->type_name("TIME");
  app->add_option("--format", options->format,
                  "text (default), markdown, json (docs/json.md) or html (a standalone page)")
      ->check(CLI::IsMember({"text", "markdown", "json", "html"}));
  app->footer(
      R"(With ITEM: when the item was first seen (commit and time), each edit with its changed
fields before and after (long text as a word diff of what a reader sees, [-removed-]{+added+}
without colour, as `show` writes it), moves, its removal ("aged out" when it fell off the end
of the feed's window, "removed" when pulled while older items stayed) and its reappearance. ITEM matches an
item's id exactly, else its link exactly, else a piece of one of its titles (any case; a
whole title wins over pieces of others); when a piece matches several items, the command
says how many and asks for the id. Without ITEM: every item the source ever had, with when
it was first seen and last changed, its count of edits and whether the newest version still
has it (present, removed or aged out).

Only the source's own commits are read (from the per-source index in .git/feeddiff/index
when it is there), and each change's item summary comes from .git/feeddiff/cache when poll
or show left one; otherwise each version is parsed once. A version that cannot be read as a
feed is listed, and the next one is compared with the last one that could. Text from feeds
is escaped.

Examples:
  feeddiff history pytorch                      the items of pytorch
  feeddiff history pytorch --at 2026-03-12      the items as they stood at midnight UTC then
  feeddiff history pytorch 'Introducing'        the item whose title holds "Introducing"
  feeddiff history pytorch https://pytorch.org/blog/2-5/ --format html > item.html
  feeddiff history pytorch ID --format json | jq '.item.events[] | .kind')");
  return {app, [options, &globals] { return history(globals, *options); }};
}

}  // namespace feeddiff::cli
