#pragma once
// The work tree's files written straight from HEAD's blobs for the paths a commit changed,
// with their index entries. libgit2's checkout does the same for any repository, and pays
// for it per path (attribute files looked up, filters loaded, the work tree's directories
// walked): a cold poll of 500 sources spent an eighth of its CPU there. The files are the
// blobs' bytes, which is what a checkout writes when no attribute or setting asks for a
// conversion; where one might (a .gitattributes on the way, info/attributes, a global or
// system attributes file, core.autocrlf, core.eol), or for anything but a regular file,
// this declines and the caller checks out through libgit2.

#include <git2.h>

#include <string>
#include <vector>

#include "feeddiff/result.h"
#include "store/batch_backend.h"

namespace feeddiff::work_tree {

/// Makes each path's file in the work tree and its entry in the repository's index (in
/// memory: the caller writes it) what HEAD's tree holds: the blob's bytes (mode 0644) and
/// its stat data, or no file and no entry (and no directory left empty) when the tree has
/// none. false: declined, maybe after writing some of them (a checkout then does all).
/// A blob batch holds is written from there, without a copy.
Result<bool> write_paths(git_repository* repo, const git_tree* head,
                         const std::vector<std::string>& paths,
                         const git::BatchBackend* batch = nullptr);

}  // namespace feeddiff::work_tree
