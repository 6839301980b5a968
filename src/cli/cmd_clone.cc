// feeddiff clone URL [DIR]: join a fleet of pollers.

#include <fmt/format.h>
#include <filesystem>

#include "cli/command.h"
#include "cli/git_cli.h"
#include "feeddiff/poll.h"
#include "feeddiff/render.h"

namespace feeddiff::cli {

namespace {

// The directory `git clone URL` would pick: the URL's last path component without a
// trailing ".git" (or "/").
std::string default_dir(std::string_view url) {
  while (!url.empty() && url.back() == '/') url.remove_suffix(1);
  if (url.ends_with("/.git")) url.remove_suffix(5);
  const std::size_t cut = url.find_last_of("/:");
  std::string_view name = cut == std::string_view::npos ? url : url.substr(cut + 1);
  if (name.ends_with(".git")) name.remove_suffix(4);
  return std::string(name);
}

Result<int> run_clone(const Globals& globals, const std::string& url, std::string dir) {
  if (dir.empty()) dir = default_dir(url);
  if (dir.empty() || dir == "." || dir == "..")
    return Error{Errc::usage, "cannot tell a directory from that URL: name one (clone URL DIR)"};
  const std::string shown_url = mask_url_credentials(url);
  auto timeout = git_timeout_from_env();
  if (!timeout) return timeout.error();
  auto cloned = run_git({"clone", "--quiet", "--", url, dir}, globals.dir, *timeout);
  if (!cloned) return cloned.error();
  if (!*cloned)
    return Error{Errc::io,
                 fmt::format("git clone {} failed: {}", shown_url, cloned->last_error_line())};
  const std::string path = (std::filesystem::path(globals.dir) / dir).string();
  // The clone stays either way: the user may want it, and it is theirs to delete.
  auto archive = Archive::open(path);
  if (!archive)
    return Error{archive.error().code,
                 fmt::format("cloned into {}, but {}", dir, archive.error().message)};
  auto config = load_config(*archive);
  if (!config)
    return Error{config.error().code,
                 fmt::format("cloned into {}, but its feeddiff.toml is wrong: {}", dir,
                             config.error().message)};
  auto state = rebuild_state(*archive, *config);
  if (!state) return state.error();
  std::size_t conditional = 0, recorded = 0;
  for (const auto& [name, st] : state->sources) {
    recorded += !st.last_result.empty();
    conditional += !st.etag.empty() || !st.last_modified.empty();
  }
  if (auto ok = save_state(*archive, *state); !ok) return ok.error();
  write_out(escape_terminal(fmt::format(
                "Cloned {} into {}: {} source{}, {} with a recorded version, {} of them polled "
                "conditionally from the start (ETag or Last-Modified from history).",
                shown_url, dir, config->sources.size(), config->sources.size() == 1 ? "" : "s",
                recorded, conditional)) +
            "\n");
  return 0;
}

}  // namespace

Command clone_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand(
      "clone", "Clone an archive to poll it from this machine too, with its poll state rebuilt");
  auto url = std::make_shared<std::string>();
  auto dir = std::make_shared<std::string>();
  app->add_option("URL", *url, "The archive's git remote (any URL or path git clone takes)")
      ->required();
  app->add_option("DIR", *dir, "Where to put it (default: as git clone names it)");
  app->footer(
      R"(Runs `git clone` (so ssh keys, credential helpers and proxies work as you set them up
for git; it never prompts, and it is stopped after FEEDDIFF_GIT_TIMEOUT, default 10m), then
rebuilds .git/feeddiff/state.json, which is not in the repository, from history: each
source's ETag and Last-Modified from the Response-Header trailers of its last recorded
version, and its next poll from the recorded Cache-Control max-age, Expires or RSS <ttl>.
The new poller's first requests are therefore conditional: a fleet that gains a machine
does not refetch every feed in full.

Credentials in URL are masked in feeddiff's output (git itself keeps the URL you give in
.git/config: prefer a credential helper).

Examples:
  feeddiff clone git@github.com:me/feeds.git
  feeddiff clone https://git.example.com/feeds.git ~/feeds
  feeddiff -C ~/feeds poll --shard 1/4     then poll this machine's part (docs/fleet.md))");
  return {app, [url, dir, &globals] { return run_clone(globals, *url, *dir); }};
}

}  // namespace feeddiff::cli
