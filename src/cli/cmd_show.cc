// feeddiff show [COMMIT] [NAME]

#include <fmt/format.h>

#include <utility>

#include "cli/input.h"
#include "feeddiff/changes.h"

namespace feeddiff::cli {

namespace {

struct ShowOptions {
  std::string revision;  // "" when not given: HEAD
  std::string source;
  std::string format = "text";
  std::size_t max_lines = 400;
  std::size_t max_line_chars = 300;
  std::string only;  // --only, as given
  bool normalized = false;
  std::string at;  // --at: the source's version in force then, in place of COMMIT
};

// The commit and source the arguments name: COMMIT [NAME], WORD (a revision or a source), or
// --at TIME NAME; with a source, its latest change at or before the commit.
Result<ShowTarget> target_of(const Archive& archive, const ShowOptions& options) {
  ShowTarget target{options.revision.empty() ? "HEAD" : options.revision, options.source};
  if (!options.at.empty()) {
    // The one word given is the source (CLI11 fills COMMIT first).
    if (!options.source.empty() || options.revision.empty())
      return Error{Errc::usage, "--at takes the place of COMMIT: show --at TIME NAME"};
    target.source = options.revision;
    auto commit = version_at(archive, target.source, options.at);
    if (!commit) return commit.error();
    target.revision = commit->id;
  } else if (target.source.empty() && !options.revision.empty()) {
    auto resolved = resolve_show_word(archive, options.revision);
    if (!resolved) return resolved.error();
    target = std::move(*resolved);
  }
  if (!target.source.empty()) {
    auto latest = source_change_at_or_before(archive, target.revision, target.source);
    if (!latest) return latest.error();
    target.revision = std::move(*latest);
  }
  return target;
}

// An article version (docs/articles.md): its own page, headline to body.
Result<int> show_article(const Globals& globals, const ShowOptions& options, const Archive& archive,
                         const CommitInfo& commit) {
  auto view = load_article_change(archive, commit.id);
  if (!view) return view.error();
  if (options.format == "json") {
    write_out(render_article_json(*view));
  } else if (options.format == "markdown") {
    write_out(render_article_markdown(*view));
  } else if (options.format == "html") {
    write_out(render_article_html(*view));
  } else {
    RenderOptions render;
    render.color = use_color(globals);
    write_out(render_article_text(*view, render));
  }
  return 0;
}

// The publisher's archive (docs/backfill.md): its pages and items, never as changes.
Result<int> show_backfill(const Globals& globals, const ShowOptions& options,
                          const Archive& archive, const CommitInfo& commit) {
  auto view = load_backfill_change(archive, commit.id);
  if (!view) return view.error();
  if (options.format == "json") {
    write_out(render_backfill_json(*view));
  } else if (options.format == "text") {
    RenderOptions render;
    render.color = use_color(globals);
    write_out(render_backfill_text(*view, render));
  } else {
    return Error{Errc::usage, fmt::format("commit {} is a backfill: shown as text or json only",
                                          commit.short_id())};
  }
  return 0;
}

Result<int> show(const Globals& globals, const ShowOptions& options) {
  std::vector<ItemChange::Kind> only;
  if (!options.only.empty()) {
    auto kinds = parse_only(options.only);
    if (!kinds) return kinds.error();
    only = std::move(*kinds);
  }
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  auto target = target_of(*archive, options);
  if (!target) return target.error();
  // Resolved once: the kind of commit decides the page, and the change page reads it too.
  std::optional<CommitInfo> commit;
  if (target->source.empty()) {
    if (auto resolved = archive->resolve(target->revision)) commit = std::move(*resolved);
    if (commit && is_backfill_commit(*commit))
      return show_backfill(globals, options, *archive, *commit);
    if (commit && is_article_commit(*commit))
      return show_article(globals, options, *archive, *commit);
  }
  auto change = load_change(*archive, {.revision = target->revision,
                                       .source = target->source,
                                       .normalized = options.normalized,
                                       .resolved = commit ? &*commit : nullptr});
  if (!change) return change.error();
  const ChangeView& view = (*change)->view;
  RenderOptions render;
  render.max_lines = options.max_lines;
  render.max_line_chars = options.max_line_chars;
  render.only = std::move(only);
  render.color = options.format == "text" && use_color(globals);
  HtmlLinks links;
  if (view.forge_url) links.raw = forge_file_url(*view.forge_url, view.path);
  write_out(render_change(view, render, options.format, links));
  return 0;
}

}  // namespace

// What `show --help` says after the options.
constexpr const char* kShowHelp =
    R"(The page lists the commit, the source, lines added and removed, the stored size,
whether the commit's timestamp is the origin's (Date - Age) or the local observation, the
recorded response headers, and the unified diff of the raw body against the source's previous
version. Text from feeds is escaped: control characters show as \x1b, bidi overrides as \u202e.
The Items section (items added, aged out of the feed's window, removed while older ones stay,
changed, moved) compares the two versions parsed, with each changed field before and after
(long text as a word diff of what a reader sees, [-removed-]{+added+} without colour); poll
keeps it for each change it records in .git/feeddiff/cache, which can be deleted.

With NAME, the page is that source's latest change at or before COMMIT, found through the
per-source index (`show HEAD pytorch` is pytorch's latest change, whichever sources changed
since). `show WORD` alone takes WORD as a revision when it resolves as one (HEAD~2, an id, a
branch), else as a source that feeddiff.toml names or whose files have a history; a word
that is both a revision and a source in feeddiff.toml is refused as ambiguous (say
`show HEAD WORD` for the source). `show --at TIME NAME` is NAME's newest change observed (by
this poller's clock) at or before TIME; a TIME before its first version is an error.

An article version (a source with `articles = true`; docs/articles.md) shows its URL and
item, the headline, byline and published time (each with its change), then the word diff
of the body, in every --format; one marked "extraction uncertain" says why and shows no edit.

Examples:
  feeddiff show                     the latest change
  feeddiff show pytorch             the latest change of source pytorch
  feeddiff show HEAD~20 pytorch     pytorch as of HEAD~20: its latest change at or before it
  feeddiff show --at '3 days ago' pytorch      the change of pytorch in force 3 days ago
  feeddiff show a766469 --format markdown > change.md
  feeddiff show --format html > change.html    a page for a browser
  feeddiff show --format json | jq .items      for scripts (schema: docs/json.md)
  feeddiff show HEAD~3 --max-lines 50)";

Command show_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand("show", "Show one recorded change: fields, headers and the diff");
  auto options = std::make_shared<ShowOptions>();
  app->add_option("COMMIT", options->revision,
                  "The change: a commit id (abbreviated is fine), HEAD~2, ... (default HEAD); "
                  "alone, a source's name (its latest change) when it is no revision");
  app->add_option("NAME", options->source,
                  "The source: its latest change at or before COMMIT (COMMIT itself when it "
                  "changed it)");
  app->add_option("--format", options->format,
                  "text (default), markdown, json (docs/json.md) or html (a standalone page)")
      ->check(CLI::IsMember({"text", "markdown", "json", "html"}));
  app->add_flag("--normalized", options->normalized,
                "Diff the canonical documents (one element a line, sorted attributes, HTML "
                "split at blocks) instead of the raw bodies");
  app->add_option("--max-lines", options->max_lines,
                  "Diff lines shown at most (default 400); the counts are from the whole diff")
      ->check(CLI::PositiveNumber);
  app->add_option("--max-line-chars", options->max_line_chars,
                  "Characters of one diff line shown at most (default 300)")
      ->check(CLI::PositiveNumber);
  app->add_option("--at", options->at,
                  "NAME's change in force at TIME, in place of COMMIT: ISO 8601 (2026-03-12, "
                  "2026-03-12T09:30Z) or a time ago (2 weeks ago)")
      ->type_name("TIME");
  app->add_option("--only", options->only,
                  "List only these item kinds, comma-separated: added, removed, changed, "
                  "moved, reappeared, duplicate (the counts still cover every change)")
      ->type_name("KINDS");
  app->footer(kShowHelp);
  return {app, [options, &globals] { return show(globals, *options); }};
}

}  // namespace feeddiff::cli
