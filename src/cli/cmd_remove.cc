// feeddiff remove NAME

#include <fmt/format.h>

#include "cli/command.h"
#include "feeddiff/config.h"
#include "feeddiff/poll.h"

namespace feeddiff::cli {

namespace {

Result<int> remove(const Globals& globals, const std::string& name) {
  if (auto ok = check_source_name(name); !ok) return ok.error();
  auto edit = open_for_edit(globals);
  if (!edit) return edit.error();
  Archive& archive = edit->archive;
  Config& config = edit->config;
  if (!config.find(name)) return Error{Errc::not_found, fmt::format("no source named '{}'", name)};
  auto text = committed_config(archive, "remove");
  if (!text) return text.error();
  // The user's file, edited: comments, order and layout of the rest stay.
  auto edited = remove_source_table(*text, name);
  if (!edited) return edited.error();

  auto now = current_time();
  if (!now) return now.error();
  CommitRequest request;
  request.author_time = request.commit_time = *now;
  request.message = fmt::format("{}: removed\n\nSource: {}\n", name, name);
  request.files.push_back({"feeddiff.toml", std::move(*edited)});
  for (const Layout layout :
       {Layout::flat, Layout::fanout}) {  // wherever it lies (absent: skipped)
    for (const bool json : {false, true})
      request.files.push_back({raw_path(name, json, layout), std::nullopt});
    request.files.push_back({not_a_feed_path(name, layout), std::nullopt});
  }
  auto committed = archive.commit(request);
  if (!committed) return committed.error();

  auto state = load_state(archive);
  if (state) {
    state->sources.erase(name);
    (void)save_state(archive, *state);
  }
  (void)save_credentials(archive, name, "", "");
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
