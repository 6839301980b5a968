// feeddiff remove NAME

#include <fmt/format.h>

#include "cli/command.h"
#include "feeddiff/sources.h"

namespace feeddiff::cli {

namespace {

Result<int> remove(const Globals& globals, const std::string& name) {
  if (auto ok = check_source_name(name); !ok) return ok.error();
  auto edit = open_for_edit(globals.dir);
  if (!edit) return edit.error();
  if (auto ok = remove_source(*edit, name, current_time); !ok) return ok.error();
  write_out(fmt::format("Removed {}; its history stays in the archive's git log\n", name));
  return 0;
}

}  // namespace

Command remove_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand("remove", "Stop polling a source and remove its raw files");
  auto name = std::make_shared<std::string>();
  app->add_option("NAME", *name, "The source")->required();
  app->footer(R"(Example:
  feeddiff remove pytorch

Nothing is lost: every recorded version stays in git history (`feeddiff log pytorch`).
feeddiff.toml is edited in place: the source's tables (and the comment lines right above
them) go, every other line stays. It is refused while feeddiff.toml has edits not committed.)");
  return {app, [name, &globals] { return remove(globals, *name); }};
}

}  // namespace feeddiff::cli
