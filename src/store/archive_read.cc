// Reading an archive back: revisions, files and blobs at a commit, the paths a commit changed.

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
#include <thread>

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

Result<CommitInfo> Archive::resolve(std::string_view revision) const {
  auto commit = lookup_commit(impl_->repo.get(), revision);
  if (!commit) return commit.error();
  return info_of(commit->get());
}

namespace {

// The blob id of a file at a commit; nullopt when the path is not a file there.
Result<std::optional<git_oid>> file_at(git_repository* repo, std::string_view commit_id,
                                       std::string_view path) {
  auto commit = lookup_commit(repo, commit_id);
  if (!commit) return commit.error();
  auto tree = tree_of(commit->get());
  if (!tree) return tree.error();
  git_tree_entry* entry = nullptr;
  const std::string p(path);
  if (git_tree_entry_bypath(&entry, tree->get(), p.c_str()) != 0) return std::optional<git_oid>{};
  git::TreeEntryPtr owned(entry);
  if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB) return std::optional<git_oid>{};
  return std::optional<git_oid>(*git_tree_entry_id(entry));
}

// A blob's bytes as a string; path names it in the error.
Result<std::optional<std::string>> blob_text(git_repository* repo, const git_oid& id,
                                             std::string_view path) {
  git_blob* blob = nullptr;
  if (git_blob_lookup(&blob, repo, &id) != 0)
    return git::last_error(fmt::format("reading {}", path));
  git::BlobPtr blob_owned(blob);
  const char* data = static_cast<const char*>(git_blob_rawcontent(blob));
  return std::optional<std::string>(
      std::string(data, static_cast<std::size_t>(git_blob_rawsize(blob))));
}

}  // namespace

Result<std::optional<std::string>> Archive::read(std::string_view commit_id,
                                                 std::string_view path) const {
  auto id = file_at(impl_->repo.get(), commit_id, path);
  if (!id) return id.error();
  if (!*id) return std::optional<std::string>{};
  return blob_text(impl_->repo.get(), **id, path);
}

Result<std::optional<std::string>> Archive::blob_id(std::string_view commit_id,
                                                    std::string_view path) const {
  auto id = file_at(impl_->repo.get(), commit_id, path);
  if (!id) return id.error();
  if (!*id) return std::optional<std::string>{};
  return std::optional<std::string>(git::to_hex(**id));
}

Result<std::optional<std::string>> Archive::tree_id(std::string_view commit_id,
                                                    std::string_view path) const {
  auto commit = lookup_commit(impl_->repo.get(), commit_id);
  if (!commit) return commit.error();
  auto tree = tree_of(commit->get());
  if (!tree) return tree.error();
  git_tree_entry* entry = nullptr;
  const std::string p(path);
  if (git_tree_entry_bypath(&entry, tree->get(), p.c_str()) != 0)
    return std::optional<std::string>{};
  git::TreeEntryPtr owned(entry);
  if (git_tree_entry_type(entry) != GIT_OBJECT_TREE) return std::optional<std::string>{};
  return std::optional<std::string>(git::to_hex(*git_tree_entry_id(entry)));
}

Result<std::optional<std::string>> Archive::read_head(std::string_view path) const {
  auto head = impl_->head();
  if (!head) return head.error();
  if (!*head) return std::optional<std::string>{};
  auto id = impl_->head_file(head->value().get(), path);
  if (!id) return id.error();
  if (!*id) return std::optional<std::string>{};
  return blob_text(impl_->repo.get(), **id, path);
}

Result<std::optional<git_oid>> Archive::Impl::head_file(const git_commit* head,
                                                        std::string_view path) {
  auto root = tree_of(head);
  if (!root) return root.error();
  const git_tree* tree = root->get();
  std::size_t start = 0;
  for (;;) {
    const std::size_t slash = path.find('/', start);
    const std::string name(path.substr(start, slash - start));
    const git_tree_entry* entry = git_tree_entry_byname(tree, name.c_str());
    if (!entry) return std::optional<git_oid>{};
    if (slash == std::string_view::npos) {
      if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB) return std::optional<git_oid>{};
      return std::optional<git_oid>(*git_tree_entry_id(entry));
    }
    if (git_tree_entry_type(entry) != GIT_OBJECT_TREE) return std::optional<git_oid>{};
    auto& [id, kept] = head_trees[std::string(path.substr(0, slash))];
    if (!kept || !git_oid_equal(&id, git_tree_entry_id(entry))) {
      git_tree* t = nullptr;
      if (git_tree_lookup(&t, repo.get(), git_tree_entry_id(entry)) != 0)
        return git::last_error("reading a tree");
      kept.reset(t);
      id = *git_tree_entry_id(entry);
    }
    tree = kept.get();
    start = slash + 1;
  }
}

Result<std::optional<std::pair<std::string, std::size_t>>> Archive::unpublished() const {
  using Answer = std::optional<std::pair<std::string, std::size_t>>;
  git_repository* repo = impl_->repo.get();
  git_reference* head_raw = nullptr;
  if (git_repository_head(&head_raw, repo) != 0) return Answer{};  // unborn or detached
  git::ReferencePtr head(head_raw);
  // branch.NAME.remote and branch.NAME.merge read by hand, the upstream taken to be
  // refs/remotes/REMOTE/BRANCH as `git clone` sets it up: git_branch_upstream looks the remote
  // up, and libgit2 1.5's remote lookup leaks its config regex matches (LeakSanitizer).
  const char* branch = git_reference_shorthand(head.get());
  git_config* config_raw = nullptr;
  if (!branch || git_repository_config_snapshot(&config_raw, repo) != 0) return Answer{};
  std::unique_ptr<git_config, decltype(&git_config_free)> config(config_raw, &git_config_free);
  const auto get = [&](const std::string& key) -> std::string {
    const char* value = nullptr;
    if (git_config_get_string(&value, config.get(), key.c_str()) != 0 || !value) return "";
    return value;
  };
  const std::string remote = get(fmt::format("branch.{}.remote", branch));
  std::string merge = get(fmt::format("branch.{}.merge", branch));
  if (remote.empty() || remote == "." || !merge.starts_with("refs/heads/")) return Answer{};
  const std::string short_name = remote + "/" + merge.substr(11);
  git_oid remote_id;
  if (git_reference_name_to_id(&remote_id, repo, ("refs/remotes/" + short_name).c_str()) != 0)
    return Answer{};
  const git_oid* local = git_reference_target(head.get());
  if (!local) return Answer{};
  std::size_t ahead = 0, behind = 0;
  if (git_graph_ahead_behind(&ahead, &behind, repo, local, &remote_id) != 0)
    return git::last_error("comparing the branch with its upstream");
  return Answer{std::pair<std::string, std::size_t>{short_name, ahead}};
}

Result<bool> Archive::uncommitted(std::string_view path) const {
  const std::string p(path);
  unsigned int flags = 0;
  const int rc = git_status_file(&flags, impl_->repo.get(), p.c_str());
  if (rc == GIT_ENOTFOUND) return false;
  if (rc != 0) return git::last_error("reading the status of " + p);
  return (flags & ~static_cast<unsigned int>(GIT_STATUS_IGNORED)) != 0;
}

Result<std::vector<PathChange>> Archive::changes(std::string_view commit_id,
                                                 std::string_view under) const {
  git_repository* repo = impl_->repo.get();
  auto commit = lookup_commit(repo, commit_id);
  if (!commit) return commit.error();
  auto tree = tree_of(commit->get());
  if (!tree) return tree.error();
  git::TreePtr parent_tree;
  if (git_commit_parentcount(commit->get()) > 0) {
    git_commit* parent = nullptr;
    if (git_commit_parent(&parent, commit->get(), 0) != 0)
      return git::last_error("reading a parent");
    git::CommitPtr parent_owned(parent);
    auto t = tree_of(parent);
    if (!t) return t.error();
    parent_tree = std::move(*t);
  }
  // Under a directory, its two trees are found by name (a binary search in each tree on the
  // way down) and only they are compared: comparing the root trees would step through every
  // entry of raw/, one per source, for a commit that changed one of them.
  std::string prefix;
  git::TreePtr old_under, new_under;
  git_tree* old_side = parent_tree.get();
  git_tree* new_side = tree->get();
  if (!under.empty()) {
    prefix = std::string(under);
    if (!prefix.ends_with('/')) prefix += '/';
    const std::string dir = prefix.substr(0, prefix.size() - 1);
    auto subtree = [&](const git_tree* root, git::TreePtr& out) -> Status {
      if (!root) return Ok{};
      git_tree_entry* entry = nullptr;
      if (git_tree_entry_bypath(&entry, root, dir.c_str()) != 0) return Ok{};
      git::TreeEntryPtr owned(entry);
      if (git_tree_entry_type(entry) != GIT_OBJECT_TREE) return Ok{};
      git_tree* found = nullptr;
      if (git_tree_lookup(&found, repo, git_tree_entry_id(entry)) != 0)
        return git::last_error(fmt::format("reading {}", dir));
      out.reset(found);
      return Ok{};
    };
    if (auto ok = subtree(old_side, old_under); !ok) return ok.error();
    if (auto ok = subtree(new_side, new_under); !ok) return ok.error();
    if (!old_under && !new_under) return std::vector<PathChange>{};
    if (old_under && new_under &&
        git_oid_equal(git_tree_id(old_under.get()), git_tree_id(new_under.get())))
      return std::vector<PathChange>{};
    old_side = old_under.get();
    new_side = new_under.get();
  }
  return diff_trees(repo, old_side, new_side, prefix);
}

Result<std::string> Archive::source_dir_at(std::string_view commit_id,
                                           std::string_view name) const {
  auto commit = lookup_commit(impl_->repo.get(), commit_id);
  if (!commit) return commit.error();
  auto tree = tree_of(commit->get());
  if (!tree) return tree.error();
  std::string dir;
  source_entry(tree->get(), name, &dir);
  return dir;
}

namespace {

// A full id names one commit for good; a revision ("HEAD") does not.
bool is_full_id(std::string_view id) {
  return id.size() == 40 && std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

}  // namespace

Result<Archive::Impl::SourceEntry> Archive::Impl::source_entry_at(std::string_view commit_id,
                                                                  std::string_view name) {
  std::string key;
  if (is_full_id(commit_id)) {
    key.append(commit_id).append(1, '\0').append(name);
    if (const SourceEntry* known = recent_entries.find(key)) return *known;
    SourceEntry read_ahead;
    if (ahead_entry(commit_id, name, read_ahead)) return read_ahead;
  }
  auto out = read_source_entry(commit_id, name);
  if (out && !key.empty()) recent_entries.remember(std::move(key), *out);
  return out;
}

Result<Archive::Impl::SourceEntry> Archive::Impl::read_source_entry(std::string_view commit_id,
                                                                    std::string_view name) {
  auto commit = archive_detail::lookup_commit(repo.get(), commit_id);
  if (!commit) return commit.error();
  auto tree = archive_detail::tree_of(commit->get());
  if (!tree) return tree.error();
  SourceEntry out;
  out.id = archive_detail::source_entry(tree->get(), name, &out.dir);
  return out;
}

bool Archive::Impl::ahead_entry(std::string_view commit_id, std::string_view name,
                                SourceEntry& out) {
  git_oid id;
  if (!ahead || ahead->size() == 0 ||
      git_oid_fromstrn(&id, commit_id.data(), commit_id.size()) != 0)
    return false;
  AheadDirs::Dir dir;
  if (!ahead->find(id, name, dir)) return false;
  out.id = dir.id;
  out.dir = source_dir(name, dir.layout);
  return true;
}

Status Archive::read_source_dirs_ahead(
    const std::vector<std::pair<std::string, std::string>>& commits) const {
  if (commits.empty()) return Ok{};
  Impl& impl = *impl_;
  if (!impl.ahead) impl.ahead = std::make_unique<AheadDirs>(impl.git_dir + "/feeddiff");
  std::vector<AheadDirs::Read> batch;
  batch.reserve(commits.size());
  for (const auto& [commit_id, name] : commits) {
    AheadDirs::Read r;
    if (!is_full_id(commit_id) || git_oid_fromstrn(&r.commit, commit_id.data(), 40) != 0 ||
        impl.ahead->in_memory(r.commit, name))
      continue;
    auto read = impl.read_source_entry(commit_id, name);
    if (!read) return read.error();
    r.name = name;
    r.dir.id = read->id;
    r.dir.layout = read->dir == source_dir(name, Layout::flat) ? Layout::flat : Layout::fanout;
    batch.push_back(std::move(r));
  }
  impl.ahead->add(batch);
  return Ok{};
}

void Archive::forget_source_dirs() const {
  impl_->ahead.reset();
}

std::size_t Archive::source_dirs_kept() const {
  return impl_->ahead ? impl_->ahead->size() : 0;
}

void Archive::keep_source_dirs_of(const Archive& other) const {
  if (!other.impl_->ahead) {
    impl_->ahead.reset();
    return;
  }
  impl_->ahead = std::make_unique<AheadDirs>(impl_->git_dir + "/feeddiff");
  impl_->ahead->copy_from(*other.impl_->ahead);
}

Result<std::vector<PathChange>> Archive::source_changes(std::string_view commit_id,
                                                        std::string_view name,
                                                        std::string_view previous) const {
  const bool full_id = is_full_id(commit_id);
  std::string key;
  if (full_id) {
    key.append(commit_id).append(1, '\0').append(name);
    if (const auto* known = impl_->recent_changes.find(key)) return *known;
  }
  auto out = source_changes_read(commit_id, name, is_full_id(previous) ? previous : "");
  if (full_id && out) impl_->recent_changes.remember(std::move(key), *out);
  return out;
}

Result<std::vector<PathChange>> Archive::source_changes_read(std::string_view commit_id,
                                                             std::string_view name,
                                                             std::string_view previous) const {
  git_repository* repo = impl_->repo.get();
  auto new_entry = impl_->source_entry_at(commit_id, name);
  if (!new_entry) return new_entry.error();
  Impl::SourceEntry old_entry;
  if (!previous.empty() && git_oid_is_zero(&new_entry->id) == 0) {
    // No commit between previous and this one changed the source: its directory in the
    // parent's tree is the one at previous. (A deletion reads the parent's: its path is
    // the parent's, whatever layout previous had.)
    auto at = impl_->source_entry_at(previous, name);
    if (!at) return at.error();
    old_entry = std::move(*at);
  } else {
    auto commit = lookup_commit(repo, commit_id);
    if (!commit) return commit.error();
    auto parent_tree = first_parent_tree(commit->get());
    if (!parent_tree) return parent_tree.error();
    old_entry.id = source_entry(parent_tree->get(), name, &old_entry.dir);
  }
  const git_oid now = new_entry->id, before = old_entry.id;
  const std::string &new_dir = new_entry->dir, &old_dir = old_entry.dir;
  if (git_oid_equal(&now, &before)) return std::vector<PathChange>{};
  auto load = [&](const git_oid& id) -> Result<git::TreePtr> {
    if (git_oid_is_zero(&id) == 1) return git::TreePtr();
    git_tree* found = nullptr;
    if (git_tree_lookup(&found, repo, &id) != 0)
      return git::last_error(fmt::format("reading the directory of {}", name));
    return git::TreePtr(found);
  };
  auto old_side = load(before);
  if (!old_side) return old_side.error();
  auto new_side = load(now);
  if (!new_side) return new_side.error();
  return diff_trees(repo, old_side->get(), new_side->get(),
                    git_oid_is_zero(&now) == 1 ? old_dir : new_dir);
}

Result<std::vector<PathChange>> Archive::files_under(std::string_view commit_id,
                                                     std::string_view dir) const {
  git_repository* repo = impl_->repo.get();
  auto commit = lookup_commit(repo, commit_id);
  if (!commit) return commit.error();
  auto tree = tree_of(commit->get());
  if (!tree) return tree.error();
  std::string prefix(dir);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  git::TreePtr under;
  git_tree* top = tree->get();
  if (!prefix.empty()) {
    git_tree_entry* entry = nullptr;
    if (git_tree_entry_bypath(&entry, top, prefix.c_str()) != 0) return std::vector<PathChange>{};
    git::TreeEntryPtr owned(entry);
    if (git_tree_entry_type(entry) != GIT_OBJECT_TREE) return std::vector<PathChange>{};
    git_tree* found = nullptr;
    if (git_tree_lookup(&found, repo, git_tree_entry_id(entry)) != 0)
      return git::last_error(fmt::format("reading {}", prefix));
    under.reset(found);
    top = found;
    prefix += '/';
  }
  struct Walk {
    std::string prefix;
    std::vector<PathChange> out;
  } walk{prefix, {}};
  auto visit = [](const char* root, const git_tree_entry* entry, void* payload) -> int {
    auto* w = static_cast<Walk*>(payload);
    if (git_tree_entry_type(entry) == GIT_OBJECT_BLOB)
      w->out.push_back({w->prefix + root + git_tree_entry_name(entry),
                        ChangeKind::added,
                        {},
                        git::to_hex(*git_tree_entry_id(entry))});
    return 0;
  };
  if (git_tree_walk(top, GIT_TREEWALK_PRE, visit, &walk) != 0)
    return git::last_error(fmt::format("listing {}", dir));
  return std::move(walk.out);
}

Blob::Blob(std::string bytes) {
  auto owned = std::make_shared<const std::string>(std::move(bytes));
  bytes_ = *owned;
  owner_ = std::move(owned);
}

namespace {

// The id a blob's full hex id spells; Errc::not_found for anything else.
Result<git_oid> blob_oid(std::string_view blob_id) {
  git_oid id;
  const std::string hex(blob_id);
  if (hex.size() != GIT_OID_HEXSZ || git_oid_fromstr(&id, hex.c_str()) != 0)
    return Error{Errc::not_found, fmt::format("no blob {}", blob_id)};
  return id;
}

}  // namespace

Result<std::size_t> Archive::blob_size(std::string_view blob_id) const {
  auto parsed = blob_oid(blob_id);
  if (!parsed) return parsed.error();
  const git_oid id = *parsed;
  git_odb* odb = nullptr;
  if (git_repository_odb(&odb, impl_->repo.get()) != 0)
    return git::last_error("opening the object database");
  git::OdbPtr odb_owned(odb);
  std::size_t size = 0;
  git_object_t type = GIT_OBJECT_INVALID;
  if (const int rc = git_odb_read_header(&size, &type, odb, &id); rc != 0)
    return git::last_error(fmt::format("reading blob {}", blob_id),
                           rc == GIT_ENOTFOUND ? Errc::not_found : Errc::git);
  if (type != GIT_OBJECT_BLOB)
    return Error{Errc::not_found, fmt::format("{} is not a blob", blob_id)};
  return size;
}

Result<Blob> Archive::read_blob(std::string_view blob_id) const {
  auto parsed = blob_oid(blob_id);
  if (!parsed) return parsed.error();
  const git_oid id = *parsed;
  // libgit2 objects are not to be shared between threads: on a thread other than the one
  // that opened the archive, each call opens the object database anew (a directory listing
  // and the pack indexes' headers, which are mapped).
  git_odb* odb = nullptr;
  if (std::this_thread::get_id() == impl_->opened_on) {
    if (git_repository_odb(&odb, impl_->repo.get()) != 0)
      return git::last_error("opening the object database");
  } else if (git_odb_open(&odb, (impl_->git_dir + "/objects").c_str()) != 0) {
    return git::last_error("opening the object database");
  }
  git::OdbPtr odb_owned(odb);
  git_odb_object* object = nullptr;
  if (const int rc = git_odb_read(&object, odb, &id); rc != 0)
    return git::last_error(fmt::format("reading blob {}", blob_id),
                           rc == GIT_ENOTFOUND ? Errc::not_found : Errc::git);
  git::OdbObjectPtr object_owned(object);
  if (git_odb_object_type(object) != GIT_OBJECT_BLOB)
    return Error{Errc::not_found, fmt::format("{} is not a blob", blob_id)};
  // The bytes stay in the object's buffer: a copy of a 225 KB body cost as much again as
  // inflating it, nearly all of it page faults on the copy's fresh pages. The object is
  // reference-counted apart from the database, so it outlives odb.
  const std::string_view bytes(static_cast<const char*>(git_odb_object_data(object)),
                               git_odb_object_size(object));
  std::shared_ptr<git_odb_object> owner(object_owned.release(), git_odb_object_free);
  return Blob(std::move(owner), bytes);
}

std::optional<std::string> Archive::origin_url() const {
  // Read once per open archive: a site build asks for every change page, and each snapshot
  // of the configuration stats three files.
  if (impl_->origin) return *impl_->origin;
  // remote.origin.url as configured, read straight from the configuration: git_remote_lookup
  // would also apply url.*.insteadOf rules, and libgit2 1.5 leaks the regex match data it
  // uses to find them (LeakSanitizer reports it on every `show --format html`).
  git_config* config = nullptr;
  if (git_repository_config_snapshot(&config, impl_->repo.get()) != 0) return std::nullopt;
  git::ConfigPtr owned(config);
  const char* url = nullptr;
  impl_->origin.emplace();
  if (git_config_get_string(&url, config, "remote.origin.url") == 0 && url)
    impl_->origin->emplace(url);
  else
    git_error_clear();
  return *impl_->origin;
}

}  // namespace feeddiff
