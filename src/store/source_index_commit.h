#pragma once
// What a walk of the source index needs of one commit, read through libgit2 or, for a plain
// commit in a pack, straight from the pack reader's bytes (source_index_commit.cc says why
// and when). Internal to store.

#include <git2.h>

#include <string>
#include <string_view>

#include "feeddiff/result.h"
#include "store/source_index_touched.h"

namespace feeddiff::pack {
class PackReader;
}  // namespace feeddiff::pack

namespace feeddiff::source_index {

/// A commit as the index's walks see it.
struct CommitFacts {
  unsigned parents = 0;  ///< how many parents it has
  git_oid parent{};      ///< the first one (zero without)
  git_oid tree{};        ///< its root tree (tree_roots reads its `raw` and `articles`)
  std::string source;    ///< version_source's answer
};

/// The facts of commit id: from reader's bytes when reader is given and the commit is plain
/// (then they are what libgit2's parse gives), through repo otherwise.
Result<CommitFacts> commit_facts(git_repository* repo, pack::PackReader* reader, const git_oid& id);

/// The `raw` and `articles` subtrees of the root tree tree (zero where there is none, or
/// when the tree cannot be read), from reader's bytes when it can.
Roots tree_roots(git_repository* repo, pack::PackReader* reader, const git_oid& tree);

/// version_source's rule over a commit's parts: its parent count, author and committer
/// (name, email) and message (leading newlines skipped, as git_commit_message gives it).
std::string version_source_of(unsigned parents, std::string_view author_name,
                              std::string_view author_email, std::string_view committer_name,
                              std::string_view committer_email, std::string_view message);

}  // namespace feeddiff::source_index
