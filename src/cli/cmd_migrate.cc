// feeddiff migrate --layout fanout|flat: moves every source's directory to the other layout
// of raw/ in one commit, and sets feeddiff.toml's `layout` key in the same commit.

#include <fmt/format.h>

#include <set>

#include "cli/command.h"
#include "feeddiff/config.h"
#include "feeddiff/render.h"

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
  // The committed file is edited, not the work tree's: an edit not committed yet would
  // otherwise be committed under this commit's title (and checking the file out would lose
  // it), so it is refused.
  auto dirty = archive->uncommitted("feeddiff.toml");
  if (!dirty) return dirty.error();
  if (*dirty)
    return Error{Errc::conflict,
                 "feeddiff.toml has edits not committed; commit or discard them, then migrate"};
  auto head = archive->resolve("HEAD");
  if (!head) return head.error();
  auto text = archive->read(head->id, "feeddiff.toml");
  if (!text) return text.error();
  if (!*text) return Error{Errc::not_an_archive, "HEAD has no feeddiff.toml"};
  auto config = parse_config(**text);
  if (!config) return config.error();

  // Every file of a source's directory, moved by blob id: nothing is read or stored again.
  auto files = archive->files_under(head->id, "raw/");
  if (!files) return files.error();
  CommitRequest request;
  std::set<std::string> moved;
  for (const PathChange& file : *files) {
    const auto owner = source_of_raw_path(file.path);
    if (!owner) continue;  // not a source's (a hand-made file): left where it is
    const std::string to_path =
        source_dir(*owner, *to) + file.path.substr(file.path.rfind('/') + 1);
    if (to_path == file.path) continue;
    request.files.push_back({to_path, std::nullopt, file.new_blob});
    request.files.push_back({file.path, std::nullopt});
    moved.emplace(*owner);
  }
  const std::string_view name = layout_name(*to);
  const std::string spelled = *to == Layout::fanout ? "the fan-out layout (raw/<hh>/<name>/)"
                                                    : "the flat layout (raw/<name>/)";
  if (moved.empty() && config->layout == *to) {
    write_out(fmt::format("raw/ is in {} already; nothing to do\n", spelled));
    return 0;
  }
  if (config->layout != *to) {
    auto edited = set_layout(**text, *to);
    if (!edited) return edited.error();
    request.files.push_back({"feeddiff.toml", std::move(*edited)});
  }
  auto now = current_time();
  if (!now) return now.error();
  request.author_time = request.commit_time = *now;
  // No Source trailer: the commit records no response. Layout marks it for readers that list
  // changes (`site` makes no page of it).
  request.message = fmt::format("migrate: raw/ to the {} layout\n\nLayout: {}\n",
                                *to == Layout::fanout ? "fan-out" : "flat", name);
  auto committed = archive->commit(request);
  if (!committed) return committed.error();
  if (!*committed) {
    write_out(fmt::format("raw/ is in {} already; nothing to do\n", spelled));
    return 0;
  }
  write_out(
      fmt::format("Moved {} source{} to {} in commit {}; feeddiff.toml says layout = \"{}\"\n",
                  with_thousands(moved.size()), moved.size() == 1 ? "" : "s", spelled,
                  committed->value().substr(0, 7), name));
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
