// feeddiff diff A B [NAME]

#include <fmt/format.h>

#include <cstdio>
#include <future>
#include <optional>
#include <system_error>
#include <utility>

#include "cli/input.h"
#include "feeddiff/changes.h"

namespace feeddiff::cli {

namespace {

struct DiffOptions {
  std::string a;
  std::string b;
  std::string source;
  std::string format = "text";
  bool normalized = false;
  bool all = false;
  std::size_t max_lines = 400;
  std::size_t max_line_chars = 300;
  std::string only;  // --only, as given
  std::string from;  // --from: NAME's version in force then, in place of A
  std::string to;    // --to: ... in place of B (default now)
};

// --from and --to: the one word given is NAME (CLI11 fills A first); A and B become the
// versions in force at those moments.
Status take_times(const Globals& globals, DiffOptions& options) {
  if (options.from.empty() && options.to.empty()) {
    if (options.a.empty() || options.b.empty())
      return Error{Errc::usage, "diff needs A and B (or NAME --from TIME [--to TIME])"};
    return Ok{};
  }
  if (options.from.empty()) return Error{Errc::usage, "--to needs --from: diff NAME --from TIME"};
  if (options.a.empty() || !options.b.empty() || !options.source.empty())
    return Error{Errc::usage,
                 "--from and --to take the place of A and B: diff NAME --from TIME "
                 "[--to TIME]"};
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  options.source = std::exchange(options.a, std::string());
  auto a = version_at(*archive, options.source, options.from);
  if (!a) return a.error();
  auto b = version_at(*archive, options.source, options.to.empty() ? "now" : options.to);
  if (!b) return b.error();
  options.a = a->id;
  options.b = b->id;
  return Ok{};
}

// Renders a compared page; the exit code as diff(1)'s.
int render_page(const Globals& globals, const DiffOptions& options, const LoadedChange& change,
                std::vector<ItemChange::Kind> only) {
  const ChangeView& v = change.view;
  RenderOptions render;
  render.max_lines = options.max_lines;
  render.max_line_chars = options.max_line_chars;
  render.only = std::move(only);
  render.color = options.format == "text" && use_color(globals);
  write_out(render_change(v, render, options.format));
  return v.diff.empty() ? 0 : 1;
}

// Source NAME as of commits A and B, rendered.
Result<int> diff_source(const Globals& globals, const DiffOptions& options, const Archive& archive,
                        const CommitInfo& a, const CommitInfo& b, const std::string& name,
                        std::vector<ItemChange::Kind> only) {
  auto change = compare_source(archive, a, b, name, options.normalized);
  if (!change) return change.error();
  return render_page(globals, options, **change, std::move(only));
}

// `diff A B` of two commits without a NAME: the one source that differs, or the list.
Result<int> diff_commits(const Globals& globals, const DiffOptions& options,
                         std::vector<ItemChange::Kind> only) {
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  auto a = archive->resolve(options.a);
  if (!a)
    return Error{Errc::not_found, fmt::format("'{}' is neither a file nor a commit", options.a)};
  auto b = archive->resolve(options.b);
  if (!b)
    return Error{Errc::not_found, fmt::format("'{}' is neither a file nor a commit", options.b)};
  if (!options.source.empty())
    return diff_source(globals, options, *archive, *a, *b, options.source, std::move(only));
  auto differing = sources_between(*archive, *a, *b);
  if (!differing) return differing.error();
  if (differing->empty()) {
    write_out(fmt::format("No source differs between {} and {}.\n", a->short_id(), b->short_id()));
    return 0;
  }
  if (differing->size() == 1)
    return diff_source(globals, options, *archive, *a, *b, differing->front().name,
                       std::move(only));
  if (!options.all) {
    std::string list;
    for (const SourceDifference& d : *differing)
      list += fmt::format("{}: {}\n", d.name, difference_summary(*archive, *b, d));
    write_out(list);
    return Error{Errc::usage,
                 fmt::format("{} sources differ between {} and {}; name one (feeddiff diff A B "
                             "NAME) or pass --all",
                             differing->size(), a->short_id(), b->short_id())};
  }
  int code = 0;
  for (std::size_t i = 0; i < differing->size(); ++i) {
    if (i > 0) write_out("\n");
    auto one = diff_source(globals, options, *archive, *a, *b, (*differing)[i].name, only);
    if (!one) return one.error();
    code = std::max(code, *one);
  }
  return code;
}

Result<int> run_diff(const Globals& globals, DiffOptions options) {
  if (auto ok = take_times(globals, options); !ok) return ok.error();
  std::vector<ItemChange::Kind> only;
  if (!options.only.empty()) {
    auto kinds = parse_only(options.only);
    if (!kinds) return kinds.error();
    only = std::move(*kinds);
  }
  if (names_commit(options.a) && names_commit(options.b))
    return diff_commits(globals, options, std::move(only));
  if (options.all) return Error{Errc::usage, "--all compares two commits, not files"};
  // Two files are read at once: on a 20 MB feed each read is mostly page faults, which two
  // threads take in parallel. A commit names its source, which B may inherit: read in turn.
  std::optional<std::future<Result<FeedInput>>> b_read;
  if (!names_commit(options.a) && !names_commit(options.b) && options.a != "-" &&
      options.b != "-") {
    try {
      b_read = std::async(std::launch::async,
                          [&] { return read_feed_input(globals, options.b, options.source); });
    } catch (const std::system_error&) {
      // no thread to be had: B is read after A
    }
  }
  auto a = read_feed_input(globals, options.a, options.source);
  if (!a) return a.error();
  auto b = b_read ? b_read->get()
                  : read_feed_input(globals, options.b,
                                    options.source.empty() ? a->source : options.source);
  if (!b) return b.error();

  std::optional<Archive> archive;
  if (!b->commit.empty()) {
    auto opened = open_archive(globals);
    if (!opened) return opened.error();
    archive.emplace(std::move(*opened));
  }
  auto change = compare_inputs(archive ? &*archive : nullptr, std::move(*a), std::move(*b),
                               options.normalized);
  if (!change) return change.error();
  return render_page(globals, options, **change, std::move(only));
}

}  // namespace

Command diff_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand("diff", "Compare two versions: commits of the archive or files");
  auto options = std::make_shared<DiffOptions>();
  app->add_option("A", options->a, "The older version: a commit, a feed file, or -");
  app->add_option("B", options->b, "The newer version: a commit, a feed file, or -");
  app->add_option("NAME", options->source,
                  "With commits: the source to compare, as each commit has it (default: the "
                  "one source that differs)");
  app->add_option("--from", options->from,
                  "With NAME alone: its version in force at TIME as A: ISO 8601 (2026-03-12, "
                  "2026-03-12T09:30Z) or a time ago (2 weeks ago)")
      ->type_name("TIME");
  app->add_option("--to", options->to,
                  "With --from: the version in force at TIME as B (default now)")
      ->type_name("TIME");
  app->add_option("--format", options->format,
                  "text (default), markdown, json (docs/json.md, as show's) or html (a "
                  "standalone page)")
      ->check(CLI::IsMember({"text", "markdown", "json", "html"}));
  app->add_flag("--normalized", options->normalized,
                "Diff the canonical documents instead of the raw bodies");
  app->add_flag("--all", options->all,
                "Two commits, no NAME, several sources differ: show each, one page after "
                "another, by name");
  app->add_option("--max-lines", options->max_lines, "Diff lines shown at most (default 400)")
      ->check(CLI::PositiveNumber);
  app->add_option("--max-line-chars", options->max_line_chars,
                  "Characters of one diff line shown at most (default 300)")
      ->check(CLI::PositiveNumber);
  app->add_option("--only", options->only,
                  "List only these item kinds, comma-separated: added, removed, changed, "
                  "moved, reappeared, duplicate (the counts still cover every change)")
      ->type_name("KINDS");
  app->footer(R"(The same page as `show`: line counts, the item summary and the diff. Exit code 0
when the two are identical, 1 when they differ (as diff(1)), 2 on error.

With two commits, NAME is the source as each commit has it: its raw body in that commit's
tree, whichever commits changed it (a source added after A is compared with nothing), on
the page (fields, recorded headers) of its latest change at or before B. Without NAME, the
one source whose body differs between A and B; when several do, each is listed with its
item summary and the command asks for a NAME (exit 2), or shows each with --all.

`diff NAME --from TIME [--to TIME]` compares NAME's versions in force at two moments (by this
poller's clock, Observed-At; --to defaults to now), found from the cache of the source's
changes, not by walking the history; a moment before its first version is an error.

Examples:
  feeddiff diff HEAD~5 HEAD pytorch
  feeddiff diff HEAD~20 HEAD --all
  feeddiff diff old.xml new.xml --normalized
  feeddiff diff HEAD~5 HEAD pytorch --format json | jq .items
  feeddiff diff pytorch --from 2026-03-01 --to 2026-03-12T09:00Z   by observation time
  feeddiff diff pytorch --from '2 weeks ago'                       then against now)");
  return {app, [options, &globals] { return run_diff(globals, *options); }};
}

}  // namespace feeddiff::cli
