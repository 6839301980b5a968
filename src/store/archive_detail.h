#pragma once
// The git plumbing the Archive's source files share (archive.cc, archive_read.cc,
// archive_log.cc, archive_replay.cc): commits and trees looked up, compared and checked out.
// Internal to store.

#include <git2.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/store.h"
#include "store/abbreviator.h"
#include "store/batch_backend.h"
#include "store/git_handles.h"
#include "store/git_locks.h"

namespace feeddiff::archive_detail {

// A commit-graph a user wrote for git's own `log -- PATH` (docs/index.md) helps feeddiff with
// nothing: the source index answers path queries, and every walk feeddiff makes reads the
// commits' messages anyway. libgit2 checks the graph's SHA-1 when it first opens it, with
// collision detection: at 100,000 commits that is 4 MB hashed, three quarters of a
// `feeddiff log -n 10`. So feeddiff's handles do without it.
void ignore_commit_graph(git_repository* repo);

std::string strip_slash(std::string s);

Result<git::CommitPtr> lookup_commit(git_repository* repo, std::string_view revision);

Result<std::optional<git::CommitPtr>> branch_head(git_repository* repo);

CommitInfo info_of(const git_commit* commit);

// The id of the tree entry at path (a blob or a subtree), or a zero id when absent.
git_oid entry_id(const git_tree* tree, const std::string& path);

// The bytes a FileWrite stores (its content, or the bytes it shares); nullptr for none.
inline const std::string* stored_bytes(const FileWrite& file) {
  return file.content ? &*file.content : file.shared.get();
}

Result<git::TreePtr> tree_of(const git_commit* commit);

// Whether the commit changed what lies at path (a file or a directory) against its first
// parent; a root commit changed whatever it holds.
Result<bool> touches(git_commit* commit, const std::string& path);

// The parent's tree, null for a root commit.
Result<git::TreePtr> first_parent_tree(git_commit* commit);

// The id of source name's directory in a tree, in whichever layout holds it (a zero id when
// neither does), and that directory (flat when neither).
git_oid source_entry(const git_tree* tree, std::string_view name, std::string* dir = nullptr);

// Whether the commit changed source name's files against its first parent, wherever each
// side keeps them: a move from one layout to the other is no change.
Result<bool> touches_source(git_commit* commit, std::string_view name);

// The differences between two trees (either may be null), each path prefixed.
Result<std::vector<PathChange>> diff_trees(git_repository* repo, git_tree* old_side,
                                           git_tree* new_side, const std::string& prefix);

// A commit as log lists it: with the id abbreviated as git would. Only log prints ids for a
// person to type back, so the odb lookup is paid here, not by every reader of a commit.
CommitInfo listed_info(git_commit* commit, const Abbreviator& abbreviate);

// Brings the index and work tree in step with HEAD for these paths (a removed path is
// deleted), whatever they hold now. The index is written through a lock file the marker
// names (locks::write_index), not by the checkout.
// The files are written directly (work_tree.h) unless a conversion might apply, then
// through libgit2's checkout.
// Blobs a batch holds (batch) are written from its memory, in place.
Status checkout_paths(git_repository* repo, const locks::Places& places,
                      const std::vector<std::string>& paths,
                      const git::BatchBackend* batch = nullptr);

// libgit2's checkout of these paths from HEAD, forced, the index left unwritten; false
// when it failed (libgit2's error is set).
bool checkout_libgit2(git_repository* repo, const std::vector<std::string>& paths);

// The repository's index written through the marker's lock (locks::write_index) and
// flushed with its directory.
Status write_index_durably(git_repository* repo, const locks::Places& places);

// The branch HEAD names ("HEAD" itself when detached).
Result<std::string> head_branch(git_repository* repo);

std::string join_lines(const std::vector<std::string>& lines);

// Brings the source index up to the branch (source_index.h); the caller holds the lock. Best
// effort: the commits are durable already, and a reader catches up from whatever is left.
void update_source_index(git_repository* repo, const std::string& git_dir);

}  // namespace feeddiff::archive_detail
