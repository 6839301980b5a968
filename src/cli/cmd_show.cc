// feeddiff show [COMMIT] [NAME]

#include <fmt/format.h>

#include "cli/change.h"
#include "cli/command.h"

namespace feeddiff::cli {

namespace {

// The file at the commit on the forge, from the commit's page: GitHub /commit/ -> /blob/,
// GitLab /-/commit/ -> /-/blob/, Codeberg (Gitea) /commit/ -> /src/commit/.
std::optional<std::string> forge_file_url(const std::string& commit_url, const std::string& path) {
  auto at = commit_url.rfind("/commit/");
  if (at == std::string::npos) return std::nullopt;
  std::string base = commit_url.substr(0, at);
  const std::string id = commit_url.substr(at + 8);
  if (base.ends_with("/-")) return base + "/blob/" + id + "/" + path;
  if (base.starts_with("https://codeberg.org/")) return base + "/src/commit/" + id + "/" + path;
  return base + "/blob/" + id + "/" + path;
}

struct ShowOptions {
  std::string revision = "HEAD";
  std::string source;
  std::string format = "text";
  std::size_t max_lines = 400;
  std::size_t max_line_chars = 300;
  std::string only;  // --only, as given
  bool normalized = false;
};

Result<int> show(const Globals& globals, const ShowOptions& options) {
  std::vector<ItemChange::Kind> only;
  if (!options.only.empty()) {
    auto kinds = parse_only(options.only);
    if (!kinds) return kinds.error();
    only = std::move(*kinds);
  }
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  auto change = load_change(*archive, options.revision, options.source, options.normalized);
  if (!change) return change.error();
  RenderOptions render;
  render.max_lines = options.max_lines;
  render.max_line_chars = options.max_line_chars;
  render.only = std::move(only);
  if (options.format == "markdown") {
    write_out(render_markdown((*change)->view, render));
  } else if (options.format == "json") {
    write_out(render_json((*change)->view, render));
  } else if (options.format == "html") {
    HtmlLinks links;
    const ChangeView& view = (*change)->view;
    if (view.forge_url) links.raw = forge_file_url(*view.forge_url, view.path);
    write_out(render_html(view, render, links));
  } else {
    render.color = use_color(globals);
    write_out(render_text((*change)->view, render));
  }
  return 0;
}

}  // namespace

Command show_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand("show", "Show one recorded change: fields, headers and the diff");
  auto options = std::make_shared<ShowOptions>();
  app->add_option("COMMIT", options->revision,
                  "The change: a commit id (abbreviated is fine), HEAD~2, ... (default HEAD)");
  app->add_option("NAME", options->source, "The source, when a commit changed several");
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
  app->add_option("--only", options->only,
                  "List only these item kinds, comma-separated: added, removed, changed, "
                  "moved, reappeared, duplicate (the counts still cover every change)")
      ->type_name("KINDS");
  app->footer(R"(The page lists the commit, the source, lines added and removed, the stored size,
whether the commit's timestamp is the origin's (Date - Age) or the local observation, the
recorded response headers, and the unified diff of the raw body against the source's previous
version. Text from feeds is escaped: control characters show as \x1b, bidi overrides as \u202e.
The Items section (items added, removed, changed, moved) compares the two versions parsed,
with each changed field before and after (long text as a word diff of what a reader sees,
[-removed-]{+added+} without colour); poll keeps it for each change it records in .git/feeddiff/cache, which can be deleted.

Examples:
  feeddiff show                     the latest change
  feeddiff show a766469 --format markdown > change.md
  feeddiff show --format html > change.html    a page for a browser
  feeddiff show --format json | jq .items      for scripts (schema: docs/json.md)
  feeddiff show HEAD~3 --max-lines 50)");
  return {app, [options, &globals] { return show(globals, *options); }};
}

}  // namespace feeddiff::cli
