// feeddiff export-opml: the sources as an OPML subscription list.

#include <fmt/format.h>

#include "cli/command.h"
#include "feeddiff/poll.h"

namespace feeddiff::cli {

namespace {

Result<int> export_opml(const Globals& globals, const std::string& output) {
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  auto config = load_config(*archive);
  if (!config) return config.error();
  const std::string opml = format_opml(*config);
  if (output.empty() || output == "-") {
    write_out(opml);
    return 0;
  }
  if (auto ok = write_file_atomic(output, opml); !ok) return ok.error();
  return 0;
}

}  // namespace

Command export_opml_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand("export-opml", "Write the sources as an OPML subscription list");
  auto output = std::make_shared<std::string>();
  app->add_option("-o,--output", *output, "Write to this file (default: standard output)")
      ->type_name("FILE");
  app->footer(R"(Any feed reader imports the result (each source is an <outline> with its name and
xmlUrl). feeddiff's own fields ride along as feeddiff:name, feeddiff:every,
feeddiff:ignore and feeddiff:skip-cosmetic attributes, so `feeddiff import` restores them.
Credentials are not exported: they never leave .git/feeddiff/credentials.

Examples:
  feeddiff export-opml > feeds.opml
  feeddiff -C ~/feeds export-opml -o backup.opml)");
  return {app, [output, &globals] { return export_opml(globals, *output); }};
}

}  // namespace feeddiff::cli
