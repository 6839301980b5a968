// feeddiff normalize FILE|-|COMMIT [NAME]

#include <fmt/format.h>
#include <cstdio>

#include "cli/input.h"
#include "feeddiff/normalize.h"
#include "feeddiff/render.h"

namespace feeddiff::cli {

namespace {

struct NormalizeArgs {
  std::string input;
  std::string source;
};

Result<int> run_normalize(const Globals& globals, const NormalizeArgs& options) {
  auto in = read_feed_input(globals, options.input, options.source);
  if (!in) return in.error();
  feeddiff::NormalizeOptions what;
  what.items = false;  // the canonical document is all this prints
  auto doc = normalize(in->bytes, what);
  if (!doc) return Error{doc.error().code, fmt::format("{}: {}", in->label, doc.error().message)};
  for (const auto& repair : doc->repairs) {
    const std::string where = repair.line ? fmt::format(" line {}", repair.line) : "";
    std::fprintf(stderr, "feeddiff: %s%s: repaired: %s\n", escape_terminal(in->label).c_str(),
                 where.c_str(), escape_terminal(repair.what).c_str());
  }
  write_out(stdout_is_terminal() ? escape_terminal(doc->text) : doc->text);
  return 0;
}

}  // namespace

Command normalize_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand("normalize", "Print a feed's canonical, diff-friendly form");
  auto options = std::make_shared<NormalizeArgs>();
  app->add_option("INPUT", options->input, "A feed file, - for stdin, or a commit of the archive")
      ->required();
  app->add_option("NAME", options->source,
                  "With a commit: the source (default: the one it recorded)");
  app->footer(R"(The canonical form: UTF-8, one element a line, two-space indent, sorted attributes,
conventional namespace prefixes, one way of writing text and CDATA, embedded HTML split at
block boundaries, volatile lines (lastBuildDate, generator, cache comments) marked with
<!-- feeddiff:volatile -->. normalize(normalize(x)) == normalize(x). Repairs made to ill-formed
input are listed on stderr; input that cannot be parsed is an error with line and column.

Examples:
  feeddiff normalize feed.xml > canonical.xml
  curl -s https://example.com/feed | feeddiff normalize -
  feeddiff normalize HEAD~1 pytorch)");
  return {app, [options, &globals] { return run_normalize(globals, *options); }};
}

}  // namespace feeddiff::cli
