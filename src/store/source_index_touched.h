#pragma once
// Which sources a commit touched, for the source index (source_index_touched.cc says how it is
// decided). Internal to store.

#include <git2.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/result.h"

namespace feeddiff::source_index {

/// The id of the commit's `raw` subtree; zero when it has none.
git_oid raw_of(const git_commit* commit);

/// The ids of a commit's `raw` and `articles` subtrees (zero where it has none).
struct Roots {
  git_oid raw{};       ///< raw/: the feeds' responses
  git_oid articles{};  ///< articles/: the article versions (docs/articles.md)
};

/// The index's name for a source's article versions: "articles/<name>". A '/' is in no name
/// under raw/ (git allows none in a tree entry), so it is no source's.
std::string article_key(std::string_view source);

/// The article keys (article_key) of the directories under articles/ that differ between two
/// `articles` trees (zero: none), as `git log -- articles/<name>/` sees them.
Result<std::vector<std::string>> articles_diff(git_repository* repo, const git_oid& before,
                                               const git_oid& after);

/// The source a version commit names, when feeddiff wrote it as poll does: then it wrote
/// nothing under raw/ but raw/<source>/. Anything else: "".
std::string version_source(const git_commit* commit);

/// The names under raw/ whose directory differs between two `raw` trees (zero: none), as
/// `git log -- raw/<name>/` sees them, in either layout (raw/NAME/ or raw/hh/NAME/).
Result<std::vector<std::string>> raw_diff(git_repository* repo, const git_oid& before,
                                          const git_oid& after);

/// The id of the directory called name in the tree tree_id (zero: none; a file of that name
/// is none either), found by walking the tree object's bytes from odb: a `raw/` tree of
/// 10,000 sources costs libgit2's parse about 0.2 ms, and each commit a search indexes
/// looked its source up in two of them.
git_oid subtree_id(git_odb* odb, const git_oid& tree_id, std::string_view name);

class TreeBytes;

}  // namespace feeddiff::source_index

namespace feeddiff::pack {
class PackReader;
}  // namespace feeddiff::pack

namespace feeddiff::source_index {

/// Compares each `raw` tree of a first-parent chain with the one before it, reading each
/// from the object database once.
class RawTreeComparer {
 public:
  /// Reads from odb, which must outlive the comparer (through its PackReader, reader_of,
  /// when it has one).
  explicit RawTreeComparer(git_odb* odb);
  ~RawTreeComparer();
  RawTreeComparer(const RawTreeComparer&) = delete;
  RawTreeComparer& operator=(const RawTreeComparer&) = delete;

  /// Whether two `raw` trees (zero: none) differ in source's directory alone; false on any
  /// doubt (the caller then runs raw_diff). Cheapest when before is the last call's after.
  bool differs_only_in(const git_oid& before, const git_oid& after, std::string_view source);
  /// The PackReader it reads through, or nullptr.
  pack::PackReader* reader() const { return reader_; }

 private:
  git_odb* odb_;
  pack::PackReader* reader_;
  std::unique_ptr<TreeBytes> held_;  // the last tree read, after the last call
  git_oid held_id_{};
};

}  // namespace feeddiff::source_index
