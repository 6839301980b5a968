// feeddiff init [DIR]

#include <fmt/format.h>
#include <filesystem>

#include "cli/command.h"

namespace feeddiff::cli {

Command init_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand("init", "Create an archive: a git repository with feeddiff.toml");
  auto dir = std::make_shared<std::string>();
  app->add_option("DIR", *dir, "Where to create it (default: the current directory)");
  app->footer(R"(Examples:
  feeddiff init ~/feeds          a new archive in ~/feeds
  feeddiff -C ~/feeds add ...    then add sources to it

The archive is an ordinary git repository: back it up with `git push`, read it with `git log`.)");
  return {
      app, [dir, &globals]() -> Result<int> {
        std::filesystem::path target(globals.dir);
        if (!dir->empty()) target /= *dir;
        auto now = current_time();
        if (!now) return now.error();
        auto archive = Archive::init(target.string(), *now);
        if (!archive) return archive.error();
        write_out(fmt::format("Created an empty feeddiff archive in {}\n", archive->work_dir()));
        return 0;
      }};
}

}  // namespace feeddiff::cli
