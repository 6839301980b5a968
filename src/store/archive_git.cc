// The git plumbing the Archive's files share (declared in archive_detail.h).

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
#include "store/source_index_touched.h"
#include "store/work_tree.h"

namespace feeddiff {

namespace fs = std::filesystem;
namespace archive_detail {

// A commit-graph a user wrote for git's own `log -- PATH` (docs/index.md) helps feeddiff with
// nothing: the source index answers path queries, and every walk feeddiff makes reads the
// commits' messages anyway. libgit2 checks the graph's SHA-1 when it first opens it, with
// collision detection: at 100,000 commits that is 4 MB hashed, three quarters of a
// `feeddiff log -n 10`. So feeddiff's handles do without it.
void ignore_commit_graph(git_repository* repo) {
  git_odb* odb = nullptr;
  if (git_repository_odb(&odb, repo) != 0) return;
  git_odb_set_commit_graph(odb, nullptr);
  git_odb_free(odb);
}

std::string strip_slash(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

Result<git::CommitPtr> lookup_commit(git_repository* repo, std::string_view revision) {
  // A full id is an object id before it is anything else (as git and revparse read it):
  // looked up directly, without revparse's reading of the configuration and the refs.
  if (git_oid id; revision.size() == GIT_OID_HEXSZ &&
                  git_oid_fromstrn(&id, revision.data(), revision.size()) == 0) {
    git_commit* commit = nullptr;
    if (git_commit_lookup(&commit, repo, &id) == 0) return git::CommitPtr(commit);
    git_error_clear();  // a tag, or no object: revparse says which
  }
  git_object* obj = nullptr;
  std::string rev(revision);
  if (git_revparse_single(&obj, repo, rev.c_str()) != 0)
    return Error{Errc::not_found, fmt::format("unknown commit '{}'", revision)};
  git::ObjectPtr owned(obj);
  git_object* peeled = nullptr;
  if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) != 0)
    return Error{Errc::not_found, fmt::format("'{}' names no commit", revision)};
  return git::CommitPtr(reinterpret_cast<git_commit*>(peeled));
}

Result<std::optional<git::CommitPtr>> branch_head(git_repository* repo) {
  git_reference* ref = nullptr;
  int rc = git_repository_head(&ref, repo);
  if (rc == GIT_EUNBORNBRANCH || rc == GIT_ENOTFOUND) return std::optional<git::CommitPtr>{};
  if (rc != 0) return git::last_error("reading HEAD");
  git::ReferencePtr owned(ref);
  git_commit* commit = nullptr;
  if (git_commit_lookup(&commit, repo, git_reference_target(ref)) != 0)
    return git::last_error("reading the HEAD commit");
  return std::optional<git::CommitPtr>(git::CommitPtr(commit));
}

CommitInfo info_of(const git_commit* commit) {
  CommitInfo info;
  info.id = git::to_hex(*git_commit_id(commit));
  const char* message = git_commit_message(commit);
  info.message = message ? message : "";
  info.title = info.message.substr(0, info.message.find('\n'));
  info.trailers = message_trailers(info.message);
  info.author_time = static_cast<TimeMs>(git_commit_author(commit)->when.time) * 1000;
  info.commit_time = static_cast<TimeMs>(git_commit_time(commit)) * 1000;
  for (unsigned i = 0; i < git_commit_parentcount(commit); ++i)
    info.parents.push_back(git::to_hex(*git_commit_parent_id(commit, i)));
  return info;
}

// The id of the tree entry at path (a blob or a subtree), or a zero id when absent.
git_oid entry_id(const git_tree* tree, const std::string& path) {
  git_oid zero{};
  if (!tree) return zero;
  if (path.empty()) return *git_tree_id(tree);
  git_tree_entry* entry = nullptr;
  if (git_tree_entry_bypath(&entry, tree, path.c_str()) != 0) return zero;
  git_oid id = *git_tree_entry_id(entry);
  git_tree_entry_free(entry);
  return id;
}

Result<git::TreePtr> tree_of(const git_commit* commit) {
  git_tree* tree = nullptr;
  if (git_commit_tree(&tree, commit) != 0) return git::last_error("reading a commit's tree");
  return git::TreePtr(tree);
}

// Whether the commit changed what lies at path (a file or a directory) against its first
// parent; a root commit changed whatever it holds.
Result<bool> touches(git_commit* commit, const std::string& path) {
  auto tree = tree_of(commit);
  if (!tree) return tree.error();
  git::TreePtr parent_tree;
  if (git_commit_parentcount(commit) > 0) {
    git_commit* parent = nullptr;
    if (git_commit_parent(&parent, commit, 0) != 0) return git::last_error("reading a parent");
    git::CommitPtr parent_owned(parent);
    auto t = tree_of(parent);
    if (!t) return t.error();
    parent_tree = std::move(*t);
  }
  git_oid now = entry_id(tree->get(), path);
  git_oid before = entry_id(parent_tree.get(), path);
  return !git_oid_equal(&now, &before);
}

// The parent's tree, null for a root commit.
Result<git::TreePtr> first_parent_tree(git_commit* commit) {
  if (git_commit_parentcount(commit) == 0) return git::TreePtr();
  git_commit* parent = nullptr;
  if (git_commit_parent(&parent, commit, 0) != 0) return git::last_error("reading a parent");
  git::CommitPtr parent_owned(parent);
  return tree_of(parent);
}

// The id of source name's directory in a tree, in whichever layout holds it (a zero id when
// neither does), and that directory (flat when neither).
git_oid source_entry(const git_tree* tree, std::string_view name, std::string* dir) {
  git_oid zero{};
  if (dir) *dir = source_dir(name, Layout::flat);
  if (!tree) return zero;
  const git_tree_entry* raw = git_tree_entry_byname(tree, "raw");
  if (!raw || git_tree_entry_type(raw) != GIT_OBJECT_TREE) return zero;
  git_odb* odb = nullptr;
  if (git_repository_odb(&odb, git_tree_owner(tree)) != 0) {
    git_error_clear();
    return zero;
  }
  git::OdbPtr odb_owned(odb);
  // raw/hh/NAME is a directory only in the fan-out layout (a flat source's directory holds
  // files only), and raw/NAME only in the flat one unless NAME is two hex digits, a bucket's
  // name: so fan-out first for such a name, flat first otherwise (no SHA-1 to compute, and
  // libcrypto's first use costs more than the rest of a lookup).
  const bool bucket_like = name.size() == 2 && std::isxdigit(static_cast<unsigned char>(name[0])) &&
                           std::isxdigit(static_cast<unsigned char>(name[1]));
  const Layout first = bucket_like ? Layout::fanout : Layout::flat;
  const Layout second = bucket_like ? Layout::flat : Layout::fanout;
  for (Layout layout : {first, second}) {
    git_oid id = *git_tree_entry_id(raw);
    if (layout == Layout::fanout) id = source_index::subtree_id(odb, id, fanout_bucket(name));
    id = source_index::subtree_id(odb, id, name);
    if (git_oid_is_zero(&id) == 1) continue;
    if (dir) *dir = source_dir(name, layout);
    return id;
  }
  return zero;
}

// Whether the commit changed source name's files against its first parent, wherever each
// side keeps them: a move from one layout to the other is no change.
Result<bool> touches_source(git_commit* commit, std::string_view name) {
  auto tree = tree_of(commit);
  if (!tree) return tree.error();
  auto parent_tree = first_parent_tree(commit);
  if (!parent_tree) return parent_tree.error();
  git_oid now = source_entry(tree->get(), name);
  git_oid before = source_entry(parent_tree->get(), name);
  return !git_oid_equal(&now, &before);
}

// The differences between two trees (either may be null), each path prefixed.
namespace {

// Whether every entry of the tree is a regular file (true of no tree at all).
bool only_files(const git_tree* tree) {
  for (std::size_t i = 0, n = tree ? git_tree_entrycount(tree) : 0; i < n; ++i) {
    const git_filemode_t mode = git_tree_entry_filemode(git_tree_entry_byindex(tree, i));
    if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE) return false;
  }
  return true;
}

// diff_trees for two directories of regular files only, whose common names kept their
// modes (a source's directory, always): the same changes in the same order, without
// libgit2's diff, which reads the configuration afresh (three stats) for every comparison.
// nullopt for anything else.
std::optional<std::vector<PathChange>> compare_files(const git_tree* old_side,
                                                     const git_tree* new_side,
                                                     const std::string& prefix) {
  if (!only_files(old_side) || !only_files(new_side)) return std::nullopt;
  std::vector<PathChange> out;
  const std::size_t old_count = old_side ? git_tree_entrycount(old_side) : 0;
  const std::size_t new_count = new_side ? git_tree_entrycount(new_side) : 0;
  std::size_t i = 0, j = 0;
  while (i < old_count || j < new_count) {
    const git_tree_entry* before = i < old_count ? git_tree_entry_byindex(old_side, i) : nullptr;
    const git_tree_entry* after = j < new_count ? git_tree_entry_byindex(new_side, j) : nullptr;
    // Files sort by name in a tree, as libgit2 lists a diff's files.
    const int order = !before ? 1
                      : !after
                          ? -1
                          : std::strcmp(git_tree_entry_name(before), git_tree_entry_name(after));
    if (order < 0) {
      out.push_back({prefix + git_tree_entry_name(before),
                     ChangeKind::deleted,
                     git::to_hex(*git_tree_entry_id(before)),
                     {}});
      ++i;
    } else if (order > 0) {
      out.push_back({prefix + git_tree_entry_name(after),
                     ChangeKind::added,
                     {},
                     git::to_hex(*git_tree_entry_id(after))});
      ++j;
    } else {
      if (git_tree_entry_filemode(before) != git_tree_entry_filemode(after)) return std::nullopt;
      if (!git_oid_equal(git_tree_entry_id(before), git_tree_entry_id(after)))
        out.push_back({prefix + git_tree_entry_name(after), ChangeKind::modified,
                       git::to_hex(*git_tree_entry_id(before)),
                       git::to_hex(*git_tree_entry_id(after))});
      ++i;
      ++j;
    }
  }
  return out;
}

}  // namespace

Result<std::vector<PathChange>> diff_trees(git_repository* repo, git_tree* old_side,
                                           git_tree* new_side, const std::string& prefix) {
  if (auto files = compare_files(old_side, new_side, prefix)) return std::move(*files);
  git_diff* diff = nullptr;
  git_diff_options options;
  git_diff_options_init(&options, GIT_DIFF_OPTIONS_VERSION);
  if (git_diff_tree_to_tree(&diff, repo, old_side, new_side, &options) != 0)
    return git::last_error("comparing trees");
  git::DiffPtr owned(diff);
  std::vector<PathChange> out;
  for (std::size_t i = 0; i < git_diff_num_deltas(diff); ++i) {
    const git_diff_delta* delta = git_diff_get_delta(diff, i);
    PathChange change;
    switch (delta->status) {
      case GIT_DELTA_ADDED:
        change = {
            prefix + delta->new_file.path, ChangeKind::added, {}, git::to_hex(delta->new_file.id)};
        break;
      case GIT_DELTA_DELETED:
        change = {prefix + delta->old_file.path,
                  ChangeKind::deleted,
                  git::to_hex(delta->old_file.id),
                  {}};
        break;
      default:
        change = {prefix + delta->new_file.path, ChangeKind::modified,
                  git::to_hex(delta->old_file.id), git::to_hex(delta->new_file.id)};
    }
    out.push_back(std::move(change));
  }
  return out;
}

// A commit as log lists it: with the id abbreviated as git would. Only log prints ids for a
// person to type back, so the odb lookup is paid here, not by every reader of a commit.
CommitInfo listed_info(git_commit* commit, const Abbreviator& abbreviate) {
  CommitInfo info = info_of(commit);
  info.abbrev = abbreviate(*git_commit_id(commit));
  return info;
}

// Brings the index and work tree in step with HEAD for these paths (a removed path is
// deleted), whatever they hold now. The index is written through a lock file the marker
// names (locks::write_index), not by the checkout.
Status checkout_paths(git_repository* repo, const locks::Places& places,
                      const std::vector<std::string>& paths, const git::BatchBackend* batch) {
  if (paths.empty()) return Ok{};
  auto head = branch_head(repo);
  if (!head) return head.error();
  git::TreePtr tree;
  if (*head) {
    auto t = tree_of(head->value().get());
    if (!t) return t.error();
    tree = std::move(*t);
  }
  auto written = work_tree::write_paths(repo, tree.get(), paths, batch);
  if (!written) return written.error();
  if (!*written && !checkout_libgit2(repo, paths)) return git::last_error("updating the work tree");
  return write_index_durably(repo, places);
}

// Through libgit2's checkout, which converts what attributes and settings ask for.
bool checkout_libgit2(git_repository* repo, const std::vector<std::string>& paths) {
  std::vector<const char*> list;
  for (const auto& p : paths) list.push_back(p.c_str());
  // The *_options_init calls rather than the _INIT macros: the macros leave fields out, which
  // clang's -Wmissing-field-initializers rejects under -Werror.
  git_checkout_options checkout;
  git_checkout_options_init(&checkout, GIT_CHECKOUT_OPTIONS_VERSION);
  checkout.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH |
                               GIT_CHECKOUT_REMOVE_UNTRACKED | GIT_CHECKOUT_DONT_WRITE_INDEX;
  checkout.paths.strings = const_cast<char**>(list.data());
  checkout.paths.count = list.size();
  return git_checkout_head(repo, &checkout) == 0;
}

Status write_index_durably(git_repository* repo, const locks::Places& places) {
  if (auto ok = locks::write_index(repo, places); !ok) return ok;
  // libgit2 renames index.lock over the index without an fsync of either (its
  // GIT_OPT_ENABLE_FSYNC_GITDIR covers objects, refs and reflogs, not the index): after a
  // power loss the index could come back old, or empty, once the checkout marker is gone.
  const std::string git_dir = strip_slash(git_repository_path(repo));
  const std::string index = git_dir + "/index";
  const int fd = ::open(index.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    Error e{Errc::io, fmt::format("cannot flush {}: {}", index, std::strerror(errno))};
    if (fd >= 0) ::close(fd);
    return e;
  }
  ::close(fd);
  return fsync_dir(git_dir);
}

// The branch HEAD names ("HEAD" itself when detached).
Result<std::string> head_branch(git_repository* repo) {
  git_reference* head_ref = nullptr;
  if (git_reference_lookup(&head_ref, repo, "HEAD") != 0) return git::last_error("reading HEAD");
  git::ReferencePtr owned(head_ref);
  if (git_reference_type(head_ref) == GIT_REFERENCE_SYMBOLIC)
    return std::string(git_reference_symbolic_target(head_ref));
  return std::string("HEAD");
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// Brings the source index up to the branch (source_index.h); the caller holds the lock. Best
// effort: the commits are durable already, and a reader catches up from whatever is left.
void update_source_index(git_repository* repo, const std::string& git_dir) {
  auto head = branch_head(repo);
  if (!head || !*head) return;
  (void)source_index::update(repo, git_dir + "/feeddiff/index",
                             *git_commit_id(head->value().get()));
}

}  // namespace archive_detail

}  // namespace feeddiff
