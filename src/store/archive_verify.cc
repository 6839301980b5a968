// Archive::changed_only_source: a commit's claim to be one source's version, checked against
// its raw/ tree with the comparer the source index uses (source_index_touched.h).

#include <fmt/format.h>

#include "feeddiff/store.h"
#include "store/archive_impl.h"
#include "store/git_handles.h"
#include "store/source_index_touched.h"

namespace feeddiff {

Result<bool> Archive::changed_only_source(std::string_view commit_id, std::string_view name) const {
  git_repository* repo = impl_->repo.get();
  git_oid id{};
  const std::string hex(commit_id);
  if (hex.size() != GIT_OID_HEXSZ || git_oid_fromstr(&id, hex.c_str()) != 0)
    return Error{Errc::not_found, fmt::format("no commit {}", hex)};
  git_commit* c = nullptr;
  if (git_commit_lookup(&c, repo, &id) != 0) return git::last_error("reading a commit");
  git::CommitPtr commit(c);
  if (git_commit_parentcount(c) != 1) return false;
  git_commit* p = nullptr;
  if (git_commit_parent(&p, c, 0) != 0) return git::last_error("reading a commit");
  git::CommitPtr parent(p);
  const git_oid before = source_index::raw_of(p);
  const git_oid after = source_index::raw_of(c);
  if (git_oid_equal(&before, &after)) return false;
  if (!impl_->comparer) {
    git_odb* odb = nullptr;
    if (git_repository_odb(&odb, repo) != 0) return git::last_error("opening the object database");
    impl_->compared_odb.reset(odb);
    impl_->comparer = std::make_unique<source_index::RawTreeComparer>(odb);
  }
  return impl_->comparer->differs_only_in(before, after, name);
}

}  // namespace feeddiff
