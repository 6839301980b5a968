// feeddiff diff A B [NAME]

#include <fmt/format.h>

#include <filesystem>
#include <future>
#include <optional>
#include <system_error>

#include "cli/change.h"
#include "cli/input.h"

namespace feeddiff::cli {

namespace {

struct DiffOptions {
  std::string a;
  std::string b;
  std::string source;
  std::string format = "text";
  bool normalized = false;
  std::size_t max_lines = 400;
  std::size_t max_line_chars = 300;
  std::string only;  // --only, as given
};

Result<int> run_diff(const Globals& globals, const DiffOptions& options) {
  std::vector<ItemChange::Kind> only;
  if (!options.only.empty()) {
    auto kinds = parse_only(options.only);
    if (!kinds) return kinds.error();
    only = std::move(*kinds);
  }
  // Two files are read at once: on a 20 MB feed each read is mostly page faults, which two
  // threads take in parallel. A commit names its source, which B may inherit: read in turn.
  std::optional<std::future<Result<FeedInput>>> b_read;
  if (std::error_code ec; std::filesystem::is_regular_file(options.a, ec) &&
                          std::filesystem::is_regular_file(options.b, ec)) {
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

  std::unique_ptr<LoadedChange> change;
  if (!b->commit.empty()) {
    // B's own page (its fields and recorded headers), but diffed against A.
    auto archive = open_archive(globals);
    if (!archive) return archive.error();
    // B's fields only: its body is in hand, and the diff is against A.
    auto loaded = load_change(*archive, b->commit, b->source, false, false);
    if (!loaded) return loaded.error();
    change = std::move(*loaded);
  } else {
    change = std::make_unique<LoadedChange>();
    change->view.source = "-";
    change->view.timestamp_kind = "-";
    for (const auto& name : recorded_header_names()) change->view.headers.push_back({name, {}});
  }
  change->old_body = Blob(std::move(a->bytes));
  change->new_body = Blob(std::move(b->bytes));
  ChangeView& v = change->view;
  v.title = fmt::format("{} -> {}", a->label, b->label);
  v.path = b->label;
  v.path_status = "compared";
  v.stored_bytes = change->new_body.size();
  compare_bodies(*change, true, options.normalized, {});

  RenderOptions render;
  render.max_lines = options.max_lines;
  render.max_line_chars = options.max_line_chars;
  render.only = std::move(only);
  if (options.format == "markdown") {
    write_out(render_markdown(v, render));
  } else if (options.format == "json") {
    write_out(render_json(v, render));
  } else if (options.format == "html") {
    write_out(render_html(v, render));
  } else {
    render.color = use_color(globals);
    write_out(render_text(v, render));
  }
  return v.diff.empty() ? 0 : 1;
}

}  // namespace

Command diff_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand("diff", "Compare two versions: commits of the archive or files");
  auto options = std::make_shared<DiffOptions>();
  app->add_option("A", options->a, "The older version: a commit, a feed file, or -")->required();
  app->add_option("B", options->b, "The newer version: a commit, a feed file, or -")->required();
  app->add_option("NAME", options->source, "With commits: the source to compare");
  app->add_option("--format", options->format,
                  "text (default), markdown, json (docs/json.md, as show's) or html (a "
                  "standalone page)")
      ->check(CLI::IsMember({"text", "markdown", "json", "html"}));
  app->add_flag("--normalized", options->normalized,
                "Diff the canonical documents instead of the raw bodies");
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

Examples:
  feeddiff diff HEAD~5 HEAD pytorch
  feeddiff diff old.xml new.xml --normalized
  feeddiff diff HEAD~5 HEAD pytorch --format json | jq .items)");
  return {app, [options, &globals] { return run_diff(globals, *options); }};
}

}  // namespace feeddiff::cli
