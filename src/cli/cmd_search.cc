// feeddiff search QUERY: every version of every item, searched; each hit says when the
// matching text appeared and when it was gone.

#include <fmt/format.h>

#include <cstdio>

#include "cli/command.h"
#include "cli/input.h"
#include "feeddiff/core.h"
#include "feeddiff/search.h"

namespace feeddiff::cli {

namespace {

struct SearchOptions {
  std::string query;
  std::vector<std::string> sources;
  std::string since, until;
  std::size_t limit = kDefaultSearchLimit;
  std::string format = "text";
};

Result<int> run_search(const Globals& globals, const SearchOptions& options) {
  SearchQuery query;
  query.text = options.query;
  query.sources = options.sources;
  query.limit = options.limit;
  for (const auto& name : options.sources)
    if (auto ok = check_source_name(name); !ok) return ok.error();
  if (!options.since.empty()) {
    auto t = moment_of(options.since);
    if (!t) return t.error();
    query.since = *t;
  }
  if (!options.until.empty()) {
    auto t = moment_of(options.until);
    if (!t) return t.error();
    query.until = *t;
  }
  if (query.since && query.until && *query.since > *query.until)
    return Error{Errc::usage, "--since is after --until"};
  // Checked before the archive is opened: a bad query costs nothing.
  if (auto ok = search_expression(query.text); !ok) return ok.error();
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  auto result = search_archive(*archive, query);
  if (!result) return result.error();
  if (!result->index.note.empty())
    std::fprintf(stderr, "feeddiff: %s\n", result->index.note.c_str());
  write_out(options.format == "json" ? search_json(options.query, *result)
                                     : search_text(*result, use_color(globals)));
  return 0;
}

}  // namespace

Command search_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand("search", "Search every version of every item");
  auto options = std::make_shared<SearchOptions>();
  app->add_option("QUERY", options->query,
                  "Words (all must match), \"a phrase\", pref* (a word's beginning), AND, OR, "
                  "NOT (a NOT b) and parentheses")
      ->required();
  // One NAME an occurrence, so that `--source a QUERY` does not take QUERY for a name.
  app->add_option("--source", options->sources, "Only this source (repeatable)")
      ->type_name("NAME")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  app->add_option("--since", options->since,
                  "Only text still there at or after TIME: ISO 8601 or a time ago (2 weeks ago)")
      ->type_name("TIME");
  app->add_option("--until", options->until, "Only text that had appeared by TIME")
      ->type_name("TIME");
  app->add_option("--limit", options->limit, "Hits at most (default 20)")
      ->type_name("N")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  app->add_option("--format", options->format, "text (default) or json (docs/search.md)")
      ->check(CLI::IsMember({"text", "json"}));
  app->footer(
      R"(Looks in the title, summary and content (markup stripped) of every version of every
item the archive recorded, and in the captured articles behind items (articles = true; a
hit in one names its URL and counts its versions). Each hit is one item: the source, the id
and title, the first and last version (time observed, commit) whose text matched, and the
version it was gone from (text changed, or the item left the feed), or "still there". Hits
come newest first (by when the matching text appeared), each with a few words around the
match, bold on a terminal and between ** otherwise; feed text is escaped.

The query: words must all match, in any order and case, accents ignored ("cafe" finds
"café"); "a phrase" matches the words in a row; pref* matches words that begin so; a OR b,
a NOT b, a AND b and parentheses combine them. Everything else is text to find: a ':', '^',
'+' or NEAR is never FTS5 syntax. A query of more than 1024 bytes or 64 words and
operators, unbalanced quotes or parentheses, or an operator with nothing on one side is an
error (exit 2).

The index is .git/feeddiff/cache/search.sqlite (SQLite FTS5): one row per item text with
the versions that held it. A search brings it up to the branch first, reading only the
commits since the one it covers; after a reset or a sync that commit may have left the
branch, and the index drops what followed the last commit both share; a missing or damaged
file is rebuilt from the history, with a line on stderr. Deleting it loses nothing.

Examples:
  feeddiff search 'price increase'             every item that ever said it
  feeddiff search '"open weights"' --source openai --since '1 month ago'
  feeddiff search 'llama* NOT meta' --format json | jq '.hits[].item.title')");
  return {app, [options, &globals] { return run_search(globals, *options); }};
}

}  // namespace feeddiff::cli
