// feeddiff sync [REMOTE]: publish this poller's commits to the fleet's shared branch.

#include <fmt/format.h>
#include <cstdio>

#include "cli/command.h"
#include "feeddiff/render.h"
#include "feeddiff/sync.h"

namespace feeddiff::cli {

namespace {

struct SyncFlags {
  std::string remote = "origin";
  int tries = 10;
  bool wait = false;
  bool quiet = false;
};

Result<int> run_sync(const Globals& globals, const SyncFlags& flags) {
  if (flags.tries < 1) return Error{Errc::usage, "--tries must be at least 1"};
  SyncOptions options;
  options.remote = flags.remote;
  options.tries = flags.tries;
  if (auto ok = backoff_from_env(options); !ok) return ok.error();
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  auto lock = ArchiveLock::acquire(*archive, flags.wait);
  if (!lock) return lock.error();
  auto report = sync_archive(*archive, options, *lock);
  if (report.error) return *report.error;
  if (!report.failure.empty()) {
    std::fflush(stdout);
    std::fputs(escape_terminal("sync: " + report.failure).append("\n").c_str(), stderr);
    return 1;
  }
  if (!flags.quiet) write_out(escape_terminal(sync_summary(report)) + "\n");
  return 0;
}

}  // namespace

Command sync_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand(
      "sync", "Publish this poller's commits to the shared branch of a git remote");
  auto flags = std::make_shared<SyncFlags>();
  app->add_option("REMOTE", flags->remote, "The git remote (default origin)");
  app->add_option("--tries", flags->tries,
                  "Pushes to attempt when other pollers keep publishing first (default 10)");
  app->add_flag("--wait", flags->wait, "Wait for a running poll instead of failing at once");
  app->add_flag("-q,--quiet", flags->quiet, "Print nothing unless it fails");
  app->footer(
      R"(For a fleet of pollers (docs/fleet.md): each one polls its shard, commits locally, and
syncs into one branch of one git remote, so every reader sees one linear history.

What it does, under the archive's lock:
  1. git fetch REMOTE BRANCH (BRANCH: the current branch's upstream, else its own name).
     The git command line does the talking, so ssh keys, credential helpers and proxies
     work as you set them up for git; credentials in a URL never reach the output.
  2. Replays each local commit the remote lacks, oldest first, on top of the remote's tip,
     keeping its message, author, committer and times. A poll's commit only replaces
     raw/SOURCE/, which only its poller writes: it never conflicts. An edit of
     feeddiff.toml is merged source table by source table.
  3. git push REMOTE HEAD:BRANCH, never forced. When another poller pushed first, it
     fetches and replays again after a short random wait that doubles each time (50 ms to
     2 s), up to --tries times. A push the remote refuses for another reason (a hook, a
     protected branch) is not retried: the remote's reason is printed at once.

Every git command runs in a process group of its own and is stopped (with all it started)
after FEEDDIFF_GIT_TIMEOUT (a duration; default 10m), so a stalled remote never keeps the
archive locked. git never prompts: GIT_TERMINAL_PROMPT=0, ssh in batch mode, and an http
transfer below 1000 bytes/s for 60 s is aborted, unless you configured otherwise (see
docs/fleet.md). A sync refuses to replace a feeddiff.toml with edits not committed here.

What it refuses (exit 2, nothing changed): a remote branch that no longer descends from
what this archive last saw of it (someone rewrote or force-pushed it), a source table
of feeddiff.toml edited here and on the remote since they last met, and a remote change of
feeddiff.toml while this one has edits not committed (commit or undo them first).

Exit codes: 0 published (or nothing to publish); 1 the remote could not be reached in
time, refused the push or kept rejecting it: one line on stderr, and every local commit stays for the next
sync; 2 refused or an error.

Examples:
  feeddiff sync                       to origin
  feeddiff poll --shard 1/4 --sync    poll this machine's shard and publish, one locked step
  */10 * * * * feeddiff -C ~/feeds poll --shard 1/4 --sync --quiet)");
  return {app, [flags, &globals] { return run_sync(globals, *flags); }};
}

}  // namespace feeddiff::cli
