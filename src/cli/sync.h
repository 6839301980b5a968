#pragma once
// feeddiff sync: publishes this poller's commits to the shared branch of a git remote, by
// replaying them onto what the other pollers published (docs/fleet.md). Shared by `sync`
// and `poll --sync`.

#include <cstddef>
#include <map>
#include <optional>
#include <string>

#include "cli/git_cli.h"
#include "feeddiff/result.h"
#include "feeddiff/store.h"

namespace feeddiff::cli {

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

}  // namespace feeddiff::cli
