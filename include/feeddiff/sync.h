#pragma once
// The sync service: publishing this poller's commits to the shared branch of a git remote
// (docs/fleet.md), joining a fleet by cloning an archive with its poll state rebuilt, and the
// git command line both run. Used by `sync`, `poll --sync` and `clone`, which parse and print.
//
// git itself, not libgit2, talks to remotes: libgit2 1.5 cannot do it as the user configured
// it (`git clone`, `git fetch` and `git push` use the user's ssh keys, credential helpers,
// proxies and insteadOf rules; libgit2's transports would need each set up again).

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/result.h"
#include "feeddiff/store.h"

namespace feeddiff {

// ---- The git command line ----

/// What a git command did.
struct GitRun {
  int exit_code = 0;   ///< git's exit status (128 for its fatal errors, 128+N for signal N)
  std::string output;  ///< its stdout
  std::string errors;  ///< its stderr
  /// Whether it ran past its deadline, and its process group was killed.
  bool timed_out = false;
  /// Whether it exited 0.
  explicit operator bool() const { return exit_code == 0; }
  /// The last non-empty line of stderr, with every `user:password@` of a URL masked, for a
  /// one-line error.
  std::string last_error_line() const;
};

/// The longest a git command may run when FEEDDIFF_GIT_TIMEOUT does not say: a fetch or
/// push of a large archive over a slow link fits; a remote that stalls does not hold the
/// archive's lock for ever.
inline constexpr long kGitTimeoutMs = 10L * 60 * 1000;

/// The deadline of each git command: FEEDDIFF_GIT_TIMEOUT (a duration: 90s, 10m, 1h), else
/// kGitTimeoutMs. Errc::usage when it is set to anything else.
Result<long> git_timeout_from_env();

/// Runs `git ARGS...` in dir (no shell: arguments are passed as they are), with stdin
/// closed, in a process group of its own that is killed (SIGTERM, then SIGKILL) when it
/// runs past timeout_ms (core's run_child). git is the one found in an absolute directory of
/// PATH, looked up before the chdir (a `git` committed in the work tree never runs), and its
/// PATH keeps only absolute directories. So that a cron job never waits on a person:
/// GIT_TERMINAL_PROMPT=0, ssh in batch mode (GIT_SSH_COMMAND="ssh -o BatchMode=yes" unless
/// GIT_SSH_COMMAND, GIT_SSH or core.sshCommand say otherwise) and an http transfer slower
/// than 1000 bytes/s for 60 s aborted (unless GIT_HTTP_LOW_SPEED_* or http.lowSpeed* are
/// set). Errc::io when git cannot be started at all.
Result<GitRun> run_git(const std::vector<std::string>& args, const std::string& dir,
                       long timeout_ms = kGitTimeoutMs);

/// The URL with `user:password@` (or `token@`) masked as `***@`, for output.
std::string mask_url_credentials(std::string_view text);

// ---- Sync ----
/// How to sync.
struct SyncOptions {
  std::string remote = "origin";        ///< a configured git remote
  int tries = 10;                       ///< pushes attempted before giving up
  long backoff_ms = 50;                 ///< first wait after a rejected push (jittered, doubling)
  long backoff_cap_ms = 2000;           ///< longest wait
  long git_timeout_ms = kGitTimeoutMs;  ///< each git command's deadline (FEEDDIFF_GIT_TIMEOUT)
};

/// What a sync did.
struct SyncReport {
  std::string upstream;       ///< REMOTE/BRANCH
  std::size_t fetched = 0;    ///< commits of other pollers brought onto the branch
  std::size_t replayed = 0;   ///< local commits replayed on top of them (last try)
  std::size_t published = 0;  ///< local commits the push published
  int tries = 0;              ///< fetch-replay-push rounds made
  /// Why the commits are not published (exit 1: the remote unreachable, every push
  /// rejected), "" when they are. The local commits stay for the next sync either way.
  std::string failure;
  /// Each replayed commit's id before the sync and its id now; filled even when the sync
  /// stopped on an error after a replay, so that whatever names them follows.
  std::map<std::string, std::string> renamed;
  /// Why the sync stopped (exit 2: refused, or an error), when it did.
  std::optional<Error> error;
};

/// Reads FEEDDIFF_SYNC_BACKOFF (`BASE_MS[,CAP_MS]`, for tests) and FEEDDIFF_GIT_TIMEOUT (a
/// duration) into options; Errc::usage when they are not that.
Status backoff_from_env(SyncOptions& options);

/// Fetches the current branch's upstream branch (branch.NAME.merge, else the same name)
/// from options.remote with the git CLI, stops (Errc::conflict, nothing changed) when the
/// remote branch no longer descends from what this archive last saw of it, replays the
/// local commits onto it, pushes without force, and on a push that lost a race (the remote
/// branch moved: "fetch first", "non-fast-forward", a ref another push had locked) does it
/// all again after a jittered exponential backoff, up to options.tries; a push refused for
/// any other reason (a hook, a protected branch) fails at once with the server's words. The
/// pending notifications of state.json follow each replay as it happens. Every git command
/// runs under options.git_timeout_ms. An error stops it in report.error, with what was done
/// until then (report.renamed). The caller holds the lock.
SyncReport sync_archive(Archive& archive, const SyncOptions& options, const ArchiveLock& lock);

/// The summary line, without its newline: "Synced with origin/main: fetched 3 commits,
/// replayed 2, pushed 2 (1 try)."
std::string sync_summary(const SyncReport& report);

// ---- Clone ----

/// What to clone, and where.
struct CloneRequest {
  std::string url;           ///< the archive's git remote (anything git clone takes)
  std::string dir;           ///< where, relative to parent ("": as git clone names it)
  std::string parent = ".";  ///< the directory git clone runs in
  /// Each git command's deadline; nullopt: FEEDDIFF_GIT_TIMEOUT, else kGitTimeoutMs.
  std::optional<long> git_timeout_ms = std::nullopt;
};

/// What a clone made: what `clone` says of it.
struct CloneReport {
  std::string dir;              ///< the directory, as the request named it or the URL gave it
  std::string branch;           ///< the branch checked out (main, or the one holding the archive)
  std::size_t sources = 0;      ///< sources in its feeddiff.toml
  std::size_t recorded = 0;     ///< of them, with a recorded version
  std::size_t conditional = 0;  ///< of those, with an ETag or Last-Modified from history
  std::string shown_url;        ///< the URL, credentials masked (mask_url_credentials)
};

/// The directory `git clone URL` would pick: the URL's last path component without a
/// trailing ".git" (or "/"); "" when it has none.
std::string clone_default_dir(std::string_view url);

/// Clones an archive with `git clone --no-checkout`, checks out the branch that holds it
/// (main when it holds feeddiff.toml, else the one the remote's HEAD names when it does, else
/// the one branch that does: a bare repository made with plain `git init --bare` has HEAD at
/// master even when only main was pushed), and rebuilds .git/feeddiff/state.json from its
/// history, so that the new poller's first requests are conditional. Errc::usage when no
/// directory can be told from the URL; Errc::not_an_archive when no branch holds one. A
/// clone that fails leaves nothing behind: the directory when it made it, its contents when
/// it was empty before.
Result<CloneReport> clone_archive(CloneRequest request);

}  // namespace feeddiff
