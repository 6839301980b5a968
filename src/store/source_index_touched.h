#pragma once
// Which sources a commit touched, for the source index (source_index_touched.cc says how it is
// decided). Internal to store.

#include <git2.h>

#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/result.h"

namespace feeddiff::source_index {

/// The id of the commit's `raw` subtree; zero when it has none.
git_oid raw_of(const git_commit* commit);

/// The source a version commit names, when feeddiff wrote it as poll does: then it wrote
/// nothing under raw/ but raw/<source>/. Anything else: "".
std::string version_source(const git_commit* commit);

/// The names under raw/ whose directory differs between two `raw` trees (zero: none), as
/// `git log -- raw/<name>/` sees them, in either layout (raw/NAME/ or raw/hh/NAME/).
Result<std::vector<std::string>> raw_diff(git_repository* repo, const git_oid& before,
                                          const git_oid& after);

/// Whether two `raw` trees (null: none) differ in source's directory alone; false on any
/// doubt (the caller then runs raw_diff).
bool differs_only_in(git_repository* repo, const git_tree* before, const git_tree* after,
                     std::string_view source, bool top);

}  // namespace feeddiff::source_index
