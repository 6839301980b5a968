// feeddiff migrate --layout fanout|flat: moves every source's directory to the other layout
// of raw/ in one commit, and sets feeddiff.toml's `layout` key in the same commit.

#include <fmt/format.h>

#include "cli/command.h"
#include "feeddiff/render.h"
#include "feeddiff/sources.h"

namespace feeddiff::cli {

namespace {

struct MigrateOptions {
  std::string layout;
  bool wait = false;
};

Result<int> migrate(const Globals& globals, const MigrateOptions& options) {
  const auto to = parse_layout(options.layout);
  if (!to)
    return Error{Errc::usage, fmt::format("--layout must be flat or fanout, not '{}'",
                                          escape_terminal(options.layout.substr(0, 40)))};
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  auto lock = ArchiveLock::acquire(*archive, options.wait);
  if (!lock) return lock.error();
  auto report = migrate_layout(*archive, *lock, *to, current_time);
  if (!report) return report.error();
  const std::string spelled = *to == Layout::fanout ? "the fan-out layout (raw/<hh>/<name>/)"
                                                    : "the flat layout (raw/<name>/)";
  if (!report->changed) {
    write_out(fmt::format("raw/ is in {} already; nothing to do\n", spelled));
    return 0;
  }
  write_out(
      fmt::format("Moved {} source{} to {} in commit {}; feeddiff.toml says layout = \"{}\"\n",
                  with_thousands(report->moved), report->moved == 1 ? "" : "s", spelled,
                  report->commit.substr(0, 7), layout_name(*to)));
  return 0;
}

}  // namespace

Command migrate_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand(
      "migrate", "Move every source's raw files to the flat or the fan-out layout of raw/");
  auto options = std::make_shared<MigrateOptions>();
  app->add_option("--layout", options->layout, "fanout: raw/<hh>/<name>/; flat: raw/<name>/")
      ->type_name("fanout|flat")
      ->required();
  app->add_flag("--wait", options->wait, "Wait for a running poll instead of failing at once");
  app->footer(R"(Each source's files live in raw/<name>/ (flat, the default). In the fan-out layout
they live in raw/<hh>/<name>/, hh being the first two hex digits of the SHA-1 of the name:
raw/ then holds at most 256 directories, so each commit rewrites small trees instead of one
entry per source. Choose it from about 10,000 sources (bench/scale/README.md, "Layout study":
3.5 times fewer bytes of objects, and faster git).

migrate moves every source in one commit (no Source trailer) that also sets `layout` in
feeddiff.toml; polls then write the new layout. Older commits keep theirs: log, show, cat,
items, history, diff, site and export-sqlite read each commit in its own layout, and a
source moved unchanged is no change of it (`log NAME` runs across the migration). Running
it again changes nothing.

Example:
  feeddiff migrate --layout fanout   one commit; says so and does nothing when run again
  feeddiff log pytorch               the changes from before and after the move
  feeddiff migrate --layout flat     back, in a second commit)");
  return {app, [options, &globals] { return migrate(globals, *options); }};
}

}  // namespace feeddiff::cli
