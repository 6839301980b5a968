// feeddiff clone URL [DIR]: join a fleet of pollers.

#include <fmt/format.h>

#include "cli/command.h"
#include "feeddiff/core.h"
#include "feeddiff/sync.h"

namespace feeddiff::cli {

namespace {

Result<int> run_clone(const Globals& globals, const std::string& url, const std::string& dir) {
  auto cloned = clone_archive({.url = url, .dir = dir, .parent = globals.dir});
  if (!cloned) return cloned.error();
  const CloneReport& r = *cloned;
  write_out(escape_terminal(fmt::format(
                "Cloned {} into {}{}: {} source{}, {} with a recorded version, {} of them polled "
                "conditionally from the start (ETag or Last-Modified from history).",
                r.shown_url, r.dir, r.branch == "main" ? "" : " (branch " + r.branch + ")",
                r.sources, r.sources == 1 ? "" : "s", r.recorded, r.conditional)) +
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

It checks out the branch that holds the archive: main when it holds feeddiff.toml, else the
one the repository's HEAD names, else the one branch that does (a bare repository made with
plain `git init --bare` has HEAD at master even when only main was pushed). A clone that
fails leaves no directory behind. Create a shared repository with `git init --bare -b main`.

Credentials in URL are masked in feeddiff's output (git itself keeps the URL you give in
.git/config: prefer a credential helper).

Examples:
  feeddiff clone git@github.com:me/feeds.git
  feeddiff clone https://git.example.com/feeds.git ~/feeds
  feeddiff -C ~/feeds poll --shard 1/4     then poll this machine's part (docs/fleet.md))");
  return {app, [url, dir, &globals] { return run_clone(globals, *url, *dir); }};
}

}  // namespace feeddiff::cli
