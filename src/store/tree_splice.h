#pragma once
// New trees made by splicing entries into the bytes of the old ones. A poll's commit changes
// one file under raw/, whose tree holds an entry per source: libgit2's
// git_tree_create_updated parses all of them into a tree builder, sorts and writes them again
// for every commit, where copying the old tree's bytes around one new entry does the same.
// The bytes are the ones libgit2 writes (git's entry order, where a directory sorts as if
// its name ended in '/'), hashed with libcrypto's SHA-1 (tree_splice.cc says why not
// libgit2's collision-detecting one). Anything unusual (a directory where a file goes, a
// name git might refuse, an entry it cannot parse) is declined, and the caller falls back
// to libgit2.

#include <git2.h>

#include <optional>
#include <string>
#include <vector>

#include "feeddiff/result.h"

namespace feeddiff::tree_splice {

/// One change: the blob at path ("raw/NAME/response.xml") set to blob, or removed (nullopt).
struct Change {
  std::string path;
  std::optional<git_oid> blob;
};

/// A tree the splice wrote: its directory ("" for the root, "raw", "raw/NAME") and id.
struct Written {
  std::string dir;
  git_oid id;
  std::size_t size = 0;  ///< its bytes
};

/// What apply() made: the new root tree's id, the trees written (parents first) and the
/// changes it was given.
struct Spliced {
  git_oid root{};
  std::vector<Written> trees;
  std::vector<Change> blobs;
};

/// Applies changes to the tree base (null: the empty tree), reading trees from odb and
/// writing the new ones to mempack when given (their ids computed once, here) or to odb.
/// nullopt when declined: a removal of a path that is not there, a file where a directory
/// is or the other way round, two changes of one path, a name outside [A-Za-z0-9._-] or
/// one git treats specially (".", "..", ".git..."), a tree that does not parse, or a tree
/// left empty. A tree whose entries come back unchanged is the old one.
Result<std::optional<Spliced>> apply(git_odb* odb, git_odb_backend* mempack, const git_oid* base,
                                     std::vector<Change> changes);

/// git's order of two tree entries' names, a directory's compared as if it ended in '/':
/// negative, zero or positive.
int compare_entries(std::string_view a, bool a_dir, std::string_view b, bool b_dir);

}  // namespace feeddiff::tree_splice
