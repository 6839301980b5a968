#pragma once
// git's lock files (`index.lock`, `refs/heads/main.lock`), taken by feeddiff in a way that
// lets a later feeddiff tell its own leftovers from a live git's locks.
//
// Between writing the checkout marker and removing it, feeddiff takes git's locks. Before a
// lock file can exist (the index's and the branch's alike), a line
// `:lock NAME IDENTITY` is appended to the marker, and `:unlock NAME` once it is gone; the
// identity is the file's device, inode and birth time. A killed writer's lock is then the
// file of that identity, and only that file is removed; any other is a live git's, or of
// unknown origin, and is left alone.

#include <git2.h>

#include <string>
#include <vector>

#include "feeddiff/result.h"

namespace feeddiff::locks {

/// Where the lock files live and where feeddiff notes them.
struct Places {
  std::string git_dir;      ///< `.git`, without a trailing slash
  std::string private_dir;  ///< `.git/feeddiff`
  std::string marker;       ///< the checkout marker, which must exist while locks are taken
};

/// Moves branch (a ref name, "HEAD" when detached) to target, only if it is at expected
/// (nullptr: only if it does not exist yet), with a reflog entry of message.
Status move_branch(git_repository* repo, const Places& places, const std::string& branch,
                   const git_oid* expected, const git_oid& target, const std::string& message);

/// Writes the repository's index as libgit2 holds it in memory, through git's index.lock.
Status write_index(git_repository* repo, const Places& places);

/// Removes the lock files the marker's text names that are still the very files feeddiff
/// took (their writer is dead: the caller holds the archive lock it held). Then an error
/// naming any of candidates (names under .git) that exists still: another git process may
/// be running.
Status clear_own_locks(const Places& places, const std::string& marker_text,
                       const std::vector<std::string>& candidates);

/// Whether a marker line is one of the lock lines above (not a path to check out).
bool is_lock_line(const std::string& line);

}  // namespace feeddiff::locks
