#pragma once
// feeddiff sync: publishes this poller's commits to the shared branch of a git remote, by
// replaying them onto what the other pollers published (docs/fleet.md). Shared by `sync`
// and `poll --sync`.

#include <cstddef>
#include <map>
#include <string>

#include "feeddiff/result.h"
#include "feeddiff/store.h"

namespace feeddiff::cli {

/// How to sync.
struct SyncOptions {
  std::string remote = "origin";  ///< a configured git remote
  int tries = 10;                 ///< pushes attempted before giving up
  long backoff_ms = 50;           ///< first wait after a rejected push (jittered, doubling)
  long backoff_cap_ms = 2000;     ///< longest wait
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
  /// Each replayed commit's id before the sync and its id now.
  std::map<std::string, std::string> renamed;
};

/// Reads FEEDDIFF_SYNC_BACKOFF (`BASE_MS[,CAP_MS]`, for tests) into options; Errc::usage
/// when it is not that.
Status backoff_from_env(SyncOptions& options);

/// Fetches the current branch's upstream branch (branch.NAME.merge, else the same name)
/// from options.remote with the git CLI, stops (Errc::conflict, nothing changed) when the
/// remote branch no longer descends from what this archive last saw of it, replays the
/// local commits onto it, pushes without force, and on a rejected push does it all again
/// after a jittered exponential backoff, up to options.tries. The caller holds the lock.
Result<SyncReport> sync_archive(Archive& archive, const SyncOptions& options,
                                const ArchiveLock& lock);

/// The summary line, without its newline: "Synced with origin/main: fetched 3 commits,
/// replayed 2, pushed 2 (1 try)."
std::string sync_summary(const SyncReport& report);

}  // namespace feeddiff::cli
