// feeddiff site DIR: parses the options, builds the site (src/site: what a run
// renders and writes, and why it costs only what is new) and prints what the
// build did.

#include <memory>

#include "cli/command.h"
#include "feeddiff/site.h"

namespace feeddiff::cli {

namespace {

Result<int> site(const Globals& globals, const SiteOptions& options) {
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  auto built = build_site(*archive, options);
  if (!built) return built.error();
  write_out(site_text(*built));
  return 0;
}

}  // namespace

Command site_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand("site", "Write a static HTML site of the archive");
  auto options = std::make_shared<SiteOptions>();
  app->add_option("DIR", options->dir, "Where to write it (made if missing)")->required();
  app->add_option("--base-url", options->base_url,
                  "Where the site will be served, to make the Atom feed's links absolute");
  app->add_option("--max-lines", options->max_lines,
                  "Diff lines shown per change at most (default 400)")
      ->check(CLI::PositiveNumber);
  app->add_option("--max-line-chars", options->max_line_chars,
                  "Characters of one diff line shown at most (default 300)")
      ->check(CLI::PositiveNumber);
  app->add_option("--feed-entries", options->feed_entries,
                  "Newest changes in the Atom feed (default 500)")
      ->check(CLI::PositiveNumber);
  // For the tests: rounds of a few commits give the pages that one round gives.
  app->add_option("--round", options->round, "Commits rendered per round")
      ->check(CLI::PositiveNumber)
      ->group("");
  app->footer(
      R"(DIR gets index.html (the sources with their last change and count of changes,
the 50 newest changes, links to the history pages), history/N.html (every change, 50 a page,
page 1 the oldest), sources/NAME.html (a source's 50 newest changes and its pages),
sources/NAME/N.html (its history, 50 a page), changes/ID.html (one page per change, as
`show --format html`), raw/ID/response.xml.txt or response.json.txt (the raw artifact at that
commit, as plain text so that no browser renders it as a page), feed.atom (the newest
changes) and sources/NAME/feed.atom (a source's 50 newest changes, each entry listing the
item changes with their before and after, for a feed reader), items/NAME/KEY.html and
items/NAME/KEY.atom (a page and an Atom feed per item ever edited: its versions, each edit's
fields before and after; KEY a hash of the item's id), sources/NAME/timemap.link (a Memento
TimeMap, RFC 7089: every recorded version's raw copy with the time it was observed, older
ones on pages timemap-N.link of 1,000 that are written once), search.html (a search over a
static index, DIR/search/, of the words each change brought into an item and took out of it:
the one page that runs a script, and it needs DIR served over http(s), not opened from disk;
`feeddiff search` is the full query language). Each history page links to
the older one, so every change is reachable from the index; only the newest page of a
history changes, older pages are written once. Links are relative: open DIR/index.html from
disk or serve DIR from any static host. A run renders the changes since the tip it last
rendered (kept in DIR/.feeddiff-site/) and writes only files whose bytes differ; after a
reset or rebase it rebuilds the lists and removes the pages of commits that left the branch.
A run holds DIR/.feeddiff-site.lock: a second run on the same DIR stops at once with an
error naming the first one's pid.

Examples:
  feeddiff site public/
  feeddiff site public/ --base-url https://example.org/feeds/)");
  return {app, [options, &globals] { return site(globals, *options); }};
}

}  // namespace feeddiff::cli
