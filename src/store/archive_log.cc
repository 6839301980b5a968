// An archive's history: log, a source's commits through the per-source index, first-parent walks.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "feeddiff/failpoint.h"
#include "feeddiff/message.h"
#include "feeddiff/store.h"
#include "store/abbreviator.h"
#include "store/archive_detail.h"
#include "store/archive_impl.h"
#include "store/git_handles.h"
#include "store/pack_writer.h"
#include "store/source_index.h"

namespace feeddiff {

namespace fs = std::filesystem;
using namespace archive_detail;

namespace {

// The commits from head, newest first, that keep accepts, at most limit (0: all). No sorting
// flag: libgit2 then walks lazily, parent by parent (the branch is linear and written in time
// order), so `log -n N` reads N commits. GIT_SORT_TOPOLOGICAL would first read every commit
// of the history to sort them.
Result<std::vector<CommitInfo>> walk_log(git_repository* repo, const git_oid& head,
                                         std::size_t limit,
                                         const std::function<Result<bool>(git_commit*)>& keep) {
  std::vector<CommitInfo> out;
  git_revwalk* walk = nullptr;
  if (git_revwalk_new(&walk, repo) != 0) return git::last_error("walking history");
  git::RevwalkPtr owned(walk);
  git_revwalk_sorting(walk, GIT_SORT_NONE);
  if (git_revwalk_push(walk, &head) != 0) return git::last_error("walking history");
  const Abbreviator abbreviate(repo);
  git_oid id;
  for (;;) {
    if (int rc = git_revwalk_next(&id, walk); rc == GIT_ITEROVER)
      break;
    else if (rc != 0)
      return git::last_error("walking history");
    git_commit* c = nullptr;
    if (git_commit_lookup(&c, repo, &id) != 0) return git::last_error("reading a commit");
    git::CommitPtr commit(c);
    auto kept = keep(c);
    if (!kept) return kept.error();
    if (!*kept) continue;
    out.push_back(listed_info(c, abbreviate));
    if (limit && out.size() >= limit) break;
  }
  return out;
}

// The commits of source name from the per-source index, newest first, at most limit (0: all);
// nullopt when the index cannot answer (then the caller walks). The index writes what it
// caught up only when no writer holds the lock: a reader never waits for a poll.
std::optional<std::vector<git_oid>> indexed_commits(const Archive& archive, git_repository* repo,
                                                    const std::string& git_dir, const git_oid& head,
                                                    std::string_view name, std::size_t limit,
                                                    std::vector<std::uint32_t>* depths = nullptr) {
  std::optional<ArchiveLock> lock;
  auto ids = source_index::commits_of(
      repo, git_dir + "/feeddiff/index", head, name, limit,
      [&] {
        auto l = ArchiveLock::acquire(archive, false);
        if (!l) return false;
        lock.emplace(std::move(*l));
        return true;
      },
      depths);
  if (!ids || !*ids) return std::nullopt;
  return std::move(**ids);
}

}  // namespace

// A record naming a commit that is not there makes it nullopt: the caller walks.
std::optional<std::vector<CommitInfo>> Archive::indexed_log(std::string_view key,
                                                            std::size_t limit) const {
  git_repository* repo = impl_->repo.get();
  auto head = branch_head(repo);
  if (!head || !*head) return std::nullopt;
  const git_oid& tip = *git_commit_id(head->value().get());
  auto ids = indexed_commits(*this, repo, impl_->git_dir, tip, key, limit);
  if (!ids) return std::nullopt;
  std::vector<CommitInfo> found;
  const Abbreviator abbreviate(repo);
  for (const git_oid& oid : *ids) {
    git_commit* c = nullptr;
    if (git_commit_lookup(&c, repo, &oid) != 0) return std::nullopt;  // walk instead
    git::CommitPtr commit(c);
    found.push_back(listed_info(c, abbreviate));
  }
  return found;
}

Result<std::vector<CommitInfo>> Archive::log(std::string_view path_prefix,
                                             std::size_t limit) const {
  std::string prefix(path_prefix);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  if (prefix.starts_with("raw/") && prefix.size() > 4 && prefix.find('/', 4) == std::string::npos)
    return source_log(std::string_view(prefix).substr(4), limit);
  // A source's article versions: from the index too (docs/index.md).
  constexpr std::string_view kArticles = "articles/";
  if (prefix.starts_with(kArticles) && prefix.size() > kArticles.size() &&
      prefix.find('/', kArticles.size()) == std::string::npos)
    if (auto found = indexed_log(prefix, limit)) return std::move(*found);
  git_repository* repo = impl_->repo.get();
  auto head = branch_head(repo);
  if (!head) return head.error();
  if (!*head) return std::vector<CommitInfo>{};
  return walk_log(repo, *git_commit_id(head->value().get()), limit,
                  [&](git_commit* c) -> Result<bool> {
                    if (prefix.empty()) return true;
                    return touches(c, prefix);
                  });
}

Result<std::vector<CommitInfo>> Archive::source_log(std::string_view name,
                                                    std::size_t limit) const {
  if (auto found = indexed_log(name, limit)) return std::move(*found);
  git_repository* repo = impl_->repo.get();
  auto head = branch_head(repo);
  if (!head) return head.error();
  if (!*head) return std::vector<CommitInfo>{};
  return walk_log(repo, *git_commit_id(head->value().get()), limit,
                  [name](git_commit* c) { return touches_source(c, name); });
}

Result<std::vector<std::string>> Archive::source_commit_ids(std::string_view name) const {
  auto ids = source_commit_oids(name);
  if (!ids) return ids.error();
  std::vector<std::string> out;
  out.reserve(ids->size());
  for (const auto& id : *ids) out.push_back(hex_encode(id.data(), id.size()));
  return out;
}

Result<std::vector<std::array<unsigned char, 20>>> Archive::source_commit_oids(
    std::string_view name) const {
  using Ids = std::vector<std::array<unsigned char, 20>>;
  git_repository* repo = impl_->repo.get();
  auto head = branch_head(repo);
  if (!head) return head.error();
  if (!*head) return Ids{};
  if (auto ids = indexed_commits(*this, repo, impl_->git_dir, *git_commit_id(head->value().get()),
                                 name, 0)) {
    // No commit is read, nor looked up: an index file's records are checked against the
    // branch when it is read, and each lookup in a pack index of millions of objects costs
    // page faults (1,000 of them were half of `show` at 1M changes).
    Ids out(ids->size());
    for (std::size_t i = 0; i < ids->size(); ++i) std::memcpy(out[i].data(), (*ids)[i].id, 20);
    return out;
  }
  // No index answer: the walk's commits.
  auto commits = source_log(name, 0);
  if (!commits) return commits.error();
  Ids out(commits->size());
  for (std::size_t i = 0; i < commits->size(); ++i) {
    git_oid id;
    if (git_oid_fromstr(&id, (*commits)[i].id.c_str()) != 0)
      return git::last_error("reading a commit id");
    std::memcpy(out[i].data(), id.id, 20);
  }
  return out;
}

Result<std::optional<CommitInfo>> Archive::source_change_at(std::string_view name,
                                                            std::string_view revision) const {
  using Answer = std::optional<CommitInfo>;
  git_repository* repo = impl_->repo.get();
  auto start = lookup_commit(repo, revision);
  if (!start) return start.error();
  const Abbreviator abbreviate(repo);
  auto found = [&](const git_oid& id) -> Result<Answer> {
    git_commit* c = nullptr;
    if (git_commit_lookup(&c, repo, &id) != 0) return git::last_error("reading a commit");
    git::CommitPtr commit(c);
    return Answer(listed_info(c, abbreviate));
  };
  auto head = branch_head(repo);
  if (!head) return head.error();
  std::optional<std::vector<git_oid>> ids;
  std::vector<std::uint32_t> depths;
  git_oid tip{};
  if (*head) {
    tip = *git_commit_id(head->value().get());
    ids = indexed_commits(*this, repo, impl_->git_dir, tip, name, 0, &depths);
  }
  // Back from the revision along first parents to the first commit that changed the source,
  // or, sooner, to one whose depth on the branch the index knows (the branch's head, or a
  // version commit, found in its own source's records: nearly every commit of an archive):
  // the source's newest record below that depth is the answer. A few commits, whatever the
  // history's length; the whole walk only where the index cannot answer (a merge on the
  // branch, a revision off it whose chain never meets an indexed commit).
  git::CommitPtr commit = std::move(*start);
  for (;;) {
    git_commit* c = commit.get();
    const git_oid id = *git_commit_id(c);
    auto touched = touches_source(c, name);
    if (!touched) return touched.error();
    if (*touched) return found(id);
    if (ids) {
      std::optional<std::uint32_t> depth;
      if (git_oid_equal(&id, &tip)) {
        depth = UINT32_MAX;
      } else {
        const CommitInfo info = info_of(c);
        const std::string* source = info.trailer("Source");
        std::vector<std::uint32_t> its_depths;
        if (source && *source != name && check_source_name(*source))
          if (auto its = indexed_commits(*this, repo, impl_->git_dir, tip, *source, 0, &its_depths))
            for (std::size_t i = 0; i < its->size(); ++i)
              if (git_oid_equal(&(*its)[i], &id)) {
                depth = its_depths[i];
                break;
              }
      }
      if (depth) {
        for (std::size_t i = 0; i < ids->size(); ++i)  // newest first
          if (depths[i] < *depth) return found((*ids)[i]);
        return Answer{};
      }
    }
    if (git_commit_parentcount(c) == 0) return Answer{};
    git_commit* p = nullptr;
    if (git_commit_parent(&p, c, 0) != 0) return git::last_error("reading a parent");
    commit.reset(p);
  }
}

Status Archive::walk_first_parent(
    std::string_view path_prefix,
    const std::function<bool(const std::string& id, bool touched)>& visit) const {
  git_repository* repo = impl_->repo.get();
  auto head = branch_head(repo);
  if (!head) return head.error();
  if (!*head) return Ok{};
  std::string prefix(path_prefix);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  git::CommitPtr commit = std::move(**head);
  for (;;) {
    git_commit* c = commit.get();
    bool touched = true;
    if (!prefix.empty()) {
      auto t = touches(c, prefix);
      if (!t) return t.error();
      touched = *t;
    }
    git::CommitPtr parent;
    if (git_commit_parentcount(c) > 0) {
      git_commit* p = nullptr;
      if (git_commit_parent(&p, c, 0) != 0) return git::last_error("reading a parent");
      parent.reset(p);
    }
    if (!visit(git::to_hex(*git_commit_id(c)), touched) || !parent) return Ok{};
    commit = std::move(parent);
  }
}

}  // namespace feeddiff
