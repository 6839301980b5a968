// Replaying local commits onto an upstream (sync), and the ref plumbing around it.

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

// A tree entry as replay compares them: same id and mode, same entry.
struct Entry {
  git_oid id{};
  git_filemode_t mode = GIT_FILEMODE_UNREADABLE;
  bool operator==(const Entry& o) const { return git_oid_equal(&id, &o.id) && mode == o.mode; }
};

std::map<std::string, Entry> entries_of(const git_tree* tree) {
  std::map<std::string, Entry> out;
  if (!tree) return out;
  for (std::size_t i = 0; i < git_tree_entrycount(tree); ++i) {
    const git_tree_entry* e = git_tree_entry_byindex(tree, i);
    out[git_tree_entry_name(e)] = {*git_tree_entry_id(e), git_tree_entry_filemode(e)};
  }
  return out;
}

std::optional<Entry> find_entry(const std::map<std::string, Entry>& entries,
                                const std::string& name) {
  auto it = entries.find(name);
  if (it == entries.end()) return std::nullopt;
  return it->second;
}

Result<git::TreePtr> subtree(git_repository* repo, const std::optional<Entry>& entry) {
  if (!entry || entry->mode != GIT_FILEMODE_TREE) return git::TreePtr();
  git_tree* tree = nullptr;
  if (git_tree_lookup(&tree, repo, &entry->id) != 0) return git::last_error("reading a tree");
  return git::TreePtr(tree);
}

Result<std::optional<std::string>> blob_text(git_repository* repo,
                                             const std::optional<Entry>& entry) {
  if (!entry) return std::optional<std::string>{};
  git_blob* blob = nullptr;
  if (git_blob_lookup(&blob, repo, &entry->id) != 0) return git::last_error("reading a file");
  git::BlobPtr owned(blob);
  return std::optional<std::string>(std::string(static_cast<const char*>(git_blob_rawcontent(blob)),
                                                static_cast<std::size_t>(git_blob_rawsize(blob))));
}

struct Builder {
  git_treebuilder* b = nullptr;
  ~Builder() { git_treebuilder_free(b); }
};

Status put(git_treebuilder* b, const std::string& name, const std::optional<Entry>& entry) {
  if (entry) {
    if (git_treebuilder_insert(nullptr, b, name.c_str(), &entry->id, entry->mode) != 0)
      return git::last_error("writing a tree");
  } else if (git_treebuilder_get(b, name.c_str()) && git_treebuilder_remove(b, name.c_str()) != 0) {
    return git::last_error("writing a tree");
  }
  return Ok{};
}

// Whether an entry is absent or a directory of directories (a fan-out bucket holds sources'
// directories only; a source's directory holds files only).
Result<bool> absent_or_bucket(git_repository* repo, const std::optional<Entry>& entry) {
  if (!entry) return true;
  if (entry->mode != GIT_FILEMODE_TREE) return false;
  auto tree = subtree(repo, entry);
  if (!tree) return tree.error();
  const std::size_t n = git_tree_entrycount(tree->get());
  for (std::size_t i = 0; i < n; ++i)
    if (git_tree_entry_type(git_tree_entry_byindex(tree->get(), i)) != GIT_OBJECT_TREE)
      return false;
  return n > 0;
}

// Onto's directory (eo) with each entry that base -> local (eb -> el) changed as local left
// it. At raw/ (buckets), an entry named by two hex digits that is a fan-out bucket on every
// side (raw/hh/, see source_dir) is merged the same way one level down, so that sources
// sharing a bucket keep the versions both sides recorded.
Result<std::optional<Entry>> replay_dir(git_repository* repo, const std::optional<Entry>& eb,
                                        const std::optional<Entry>& el,
                                        const std::optional<Entry>& eo, bool buckets) {
  auto tb = subtree(repo, eb), tl = subtree(repo, el), to = subtree(repo, eo);
  if (!tb) return tb.error();
  if (!tl) return tl.error();
  if (!to) return to.error();
  const auto rb = entries_of(tb->get()), rl = entries_of(tl->get()), ro = entries_of(to->get());
  std::set<std::string> names;
  for (const auto& [n, e] : rb) names.insert(n);
  for (const auto& [n, e] : rl) names.insert(n);
  Builder dir;
  if (git_treebuilder_new(&dir.b, repo, to->get()) != 0) return git::last_error("writing a tree");
  const auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
  for (const std::string& s : names) {
    const auto sb = find_entry(rb, s), sl = find_entry(rl, s);
    if (sb == sl) continue;
    std::optional<Entry> merged = sl;
    if (buckets && s.size() == 2 && hex(s[0]) && hex(s[1])) {
      bool all = true;
      for (const auto* side : {&sb, &sl}) {
        auto b = absent_or_bucket(repo, *side);
        if (!b) return b.error();
        all = all && *b;
      }
      auto b = absent_or_bucket(repo, find_entry(ro, s));
      if (!b) return b.error();
      if (all && *b) {
        auto inner = replay_dir(repo, sb, sl, find_entry(ro, s), false);
        if (!inner) return inner.error();
        merged = *inner;
      }
    }
    if (auto ok = put(dir.b, s, merged); !ok) return ok.error();
  }
  std::optional<Entry> out;
  if (git_treebuilder_entrycount(dir.b) > 0) {
    out.emplace();
    out->mode = GIT_FILEMODE_TREE;
    if (git_treebuilder_write(&out->id, dir.b) != 0) return git::last_error("writing a tree");
  }
  return out;
}

// The tree of `local` (a commit whose first parent is `base`) replayed onto `onto`: onto's
// tree plus the change base -> local.
Result<git_oid> replayed_tree(git_repository* repo, git_commit* base, git_commit* local,
                              git_commit* onto, const ReplayMerge& merge) {
  auto base_tree = tree_of(base);
  if (!base_tree) return base_tree.error();
  auto local_tree = tree_of(local);
  if (!local_tree) return local_tree.error();
  auto onto_tree = tree_of(onto);
  if (!onto_tree) return onto_tree.error();
  const auto b = entries_of(base_tree->get());
  const auto l = entries_of(local_tree->get());
  const auto o = entries_of(onto_tree->get());
  std::set<std::string> names;
  for (const auto& [n, e] : b) names.insert(n);
  for (const auto& [n, e] : l) names.insert(n);
  Builder root;
  if (git_treebuilder_new(&root.b, repo, onto_tree->get()) != 0)
    return git::last_error("writing a tree");
  for (const std::string& name : names) {
    const auto eb = find_entry(b, name), el = find_entry(l, name), eo = find_entry(o, name);
    if (eb == el) continue;
    const bool trees = (!eb || eb->mode == GIT_FILEMODE_TREE) &&
                       (!el || el->mode == GIT_FILEMODE_TREE) &&
                       (!eo || eo->mode == GIT_FILEMODE_TREE);
    if (name == "raw" && trees) {
      // Each source's subtree as the local commit left it: only its poller writes it.
      auto new_raw = replay_dir(repo, eb, el, eo, true);
      if (!new_raw) return new_raw.error();
      if (auto ok = put(root.b, name, *new_raw); !ok) return ok.error();
      continue;
    }
    if (eo == eb) {  // only the local side changed it
      if (auto ok = put(root.b, name, el); !ok) return ok.error();
      continue;
    }
    if (eo == el) continue;  // both made the same change
    const bool blobs = (!eb || eb->mode != GIT_FILEMODE_TREE) &&
                       (!el || el->mode != GIT_FILEMODE_TREE) &&
                       (!eo || eo->mode != GIT_FILEMODE_TREE);
    if (!blobs)
      return Error{Errc::git,
                   fmt::format("{} changed both here and upstream; cannot replay", name)};
    auto tb = blob_text(repo, eb), tl = blob_text(repo, el), to = blob_text(repo, eo);
    if (!tb) return tb.error();
    if (!tl) return tl.error();
    if (!to) return to.error();
    auto merged = merge(name, *tb, *to, *tl);
    if (!merged) return merged.error();
    Entry m;
    m.mode = GIT_FILEMODE_BLOB;
    if (git_blob_create_from_buffer(&m.id, repo, merged->data(), merged->size()) != 0)
      return git::last_error(fmt::format("storing {}", name));
    if (auto ok = put(root.b, name, m); !ok) return ok.error();
  }
  git_oid id{};
  if (git_treebuilder_write(&id, root.b) != 0) return git::last_error("writing a tree");
  return id;
}

// The files that differ between two commits' trees, for the checkout after the branch moved.
Result<std::vector<std::string>> changed_files(git_repository* repo, git_commit* from,
                                               git_commit* to) {
  auto a = tree_of(from);
  if (!a) return a.error();
  auto b = tree_of(to);
  if (!b) return b.error();
  git_diff* diff = nullptr;
  git_diff_options options;
  git_diff_options_init(&options, GIT_DIFF_OPTIONS_VERSION);
  if (git_diff_tree_to_tree(&diff, repo, a->get(), b->get(), &options) != 0)
    return git::last_error("comparing trees");
  git::DiffPtr owned(diff);
  std::set<std::string> paths;
  for (std::size_t i = 0; i < git_diff_num_deltas(diff); ++i) {
    const git_diff_delta* delta = git_diff_get_delta(diff, i);
    if (delta->old_file.path) paths.insert(delta->old_file.path);
    if (delta->new_file.path) paths.insert(delta->new_file.path);
  }
  return std::vector<std::string>(paths.begin(), paths.end());
}

Result<git_oid> oid_of(git_repository* repo, std::string_view revision) {
  auto commit = lookup_commit(repo, revision);
  if (!commit) return commit.error();
  return *git_commit_id(commit->get());
}

}  // namespace

Result<bool> Archive::descends_from(std::string_view commit, std::string_view ancestor) const {
  git_repository* repo = impl_->repo.get();
  auto a = oid_of(repo, commit);
  if (!a) return a.error();
  auto b = oid_of(repo, ancestor);
  if (!b) return b.error();
  if (git_oid_equal(&*a, &*b)) return true;
  const int rc = git_graph_descendant_of(repo, &*a, &*b);
  if (rc < 0) return git::last_error("comparing commits");
  return rc == 1;
}

Status Archive::delete_ref(std::string_view name) {
  const std::string n(name);
  git_reference* ref = nullptr;
  const int rc = git_reference_lookup(&ref, impl_->repo.get(), n.c_str());
  if (rc == GIT_ENOTFOUND) return Ok{};
  if (rc != 0) return git::last_error("reading " + n);
  git::ReferencePtr owned(ref);
  if (git_reference_delete(ref) != 0) return git::last_error("deleting " + n);
  return Ok{};
}

Result<ReplayReport> Archive::replay_onto(std::string_view upstream, const ReplayMerge& merge) {
  if (impl_->batching) return Error{Errc::internal, "replay_onto during a batch"};
  git_repository* repo = impl_->repo.get();
  auto head = branch_head(repo);
  if (!head) return head.error();
  if (!*head) return Error{Errc::git, "the branch has no commit yet"};
  auto onto = lookup_commit(repo, upstream);
  if (!onto) return onto.error();
  const git_oid head_id = *git_commit_id(head->value().get());
  const git_oid onto_id = *git_commit_id(onto->get());
  ReplayReport report;
  report.head = git::to_hex(head_id);
  if (git_oid_equal(&head_id, &onto_id) || git_graph_descendant_of(repo, &head_id, &onto_id) == 1) {
    // The branch has all upstream has.
    std::size_t behind = 0;
    if (git_graph_ahead_behind(&report.ahead, &behind, repo, &head_id, &onto_id) != 0)
      return git::last_error("counting the local commits");
    return report;
  }
  git_oid base{};
  if (git_merge_base(&base, repo, &head_id, &onto_id) != 0)
    return Error{Errc::git, fmt::format("the branch and {} share no history", upstream)};
  std::size_t behind = 0;
  if (git_graph_ahead_behind(&report.upstream, &behind, repo, &onto_id, &base) != 0)
    return git::last_error("counting the upstream's commits");

  // The local commits, newest first: the first-parent chain back to the merge base.
  std::vector<git::CommitPtr> local;
  for (git_oid id = head_id; !git_oid_equal(&id, &base);) {
    git_commit* c = nullptr;
    if (git_commit_lookup(&c, repo, &id) != 0) return git::last_error("reading a commit");
    local.emplace_back(c);
    if (git_commit_parentcount(c) != 1)
      return Error{Errc::git,
                   fmt::format("commit {} is a merge or a root: only a linear history of local "
                               "commits can be replayed",
                               git::to_hex(id).substr(0, 7))};
    id = *git_commit_parent_id(c, 0);
  }

  git::CommitPtr tip = std::move(*onto);
  // What the replay writes, packed below: libgit2 writes each object loose, and a fleet
  // syncing every round would pile up three files per commit for ever.
  std::vector<pack::PackObject> written;
  for (auto it = local.rbegin(); it != local.rend(); ++it) {
    git_commit* c = it->get();
    git_commit* parent = nullptr;
    if (git_commit_parent(&parent, c, 0) != 0) return git::last_error("reading a parent");
    git::CommitPtr parent_owned(parent);
    auto tree_id = replayed_tree(repo, parent, c, tip.get(), merge);
    if (!tree_id) {
      Error e = tree_id.error();
      e.message = fmt::format("replaying {} ({}): {}", git::to_hex(*git_commit_id(c)).substr(0, 7),
                              git_commit_summary(c) ? git_commit_summary(c) : "", e.message);
      return e;
    }
    git_tree* tree = nullptr;
    if (git_tree_lookup(&tree, repo, &*tree_id) != 0) return git::last_error("reading a tree");
    git::TreePtr tree_owned(tree);
    const git_commit* parents[1] = {tip.get()};
    git_oid made{};
    if (git_commit_create(&made, repo, nullptr, git_commit_author(c), git_commit_committer(c),
                          git_commit_message_encoding(c), git_commit_message_raw(c), tree, 1,
                          parents) != 0)
      return git::last_error("writing a replayed commit");
    report.renamed.emplace_back(git::to_hex(*git_commit_id(c)), git::to_hex(made));
    written.push_back({made, ""});
    written.push_back({*tree_id, ""});
    git_tree* before = nullptr;
    if (git_commit_tree(&before, tip.get()) != 0) return git::last_error("reading a tree");
    git::TreePtr before_owned(before);
    for (std::size_t i = 0; i < git_tree_entrycount(tree); ++i) {
      const git_tree_entry* e = git_tree_entry_byindex(tree, i);
      const git_tree_entry* old = git_tree_entry_byname(before, git_tree_entry_name(e));
      if (!old || !git_oid_equal(git_tree_entry_id(old), git_tree_entry_id(e)))
        written.push_back({*git_tree_entry_id(e), git_tree_entry_name(e)});
    }
    git_commit* next = nullptr;
    if (git_commit_lookup(&next, repo, &made) != 0) return git::last_error("reading a commit");
    tip.reset(next);
  }
  report.replayed = report.ahead = local.size();
  const git_oid new_head = *git_commit_id(tip.get());
  report.head = git::to_hex(new_head);
  // The checkout below forces the paths the replay changes: an edit of feeddiff.toml not
  // committed here would be lost without a word (poll leaves such edits alone too).
  auto paths = changed_files(repo, head->value().get(), tip.get());
  if (!paths) return paths.error();
  if (std::find(paths->begin(), paths->end(), "feeddiff.toml") != paths->end()) {
    auto dirty = uncommitted("feeddiff.toml");
    if (!dirty) return dirty.error();
    if (*dirty)
      return Error{Errc::conflict,
                   "feeddiff.toml has edits not committed, which the remote's version would "
                   "overwrite: commit or undo them, then sync again (nothing was changed)"};
  }

  if (!written.empty()) {
    // One durable pack before the branch moves; then the loose copies go (a kill in between
    // leaves both, which is harmless).
    git_odb* odb = nullptr;
    if (git_repository_odb(&odb, repo) != 0) return git::last_error("opening the object store");
    std::unique_ptr<git_odb, decltype(&git_odb_free)> odb_owned(odb, &git_odb_free);
    if (auto ok = pack::write_pack(odb, written, impl_->git_dir + "/objects/pack"); !ok)
      return ok.error();
    if (git_odb_refresh(odb) != 0) return git::last_error("reading the new pack");
    for (const pack::PackObject& o : written) {
      const std::string hex = git::to_hex(o.id);
      std::remove((impl_->git_dir + "/objects/" + hex.substr(0, 2) + "/" + hex.substr(2)).c_str());
    }
  }
  // The old commits stay reachable by a ref until a push has published the new ones.
  if (!local.empty()) {
    git_reference* ref = nullptr;
    if (git_reference_create(&ref, repo, kUnsyncedRef, &head_id, 1,
                             "feeddiff sync: the branch before replay") != 0)
      return git::last_error(fmt::format("writing {}", kUnsyncedRef));
    git_reference_free(ref);
  }
  (void)private_dir();
  if (auto ok = write_file_atomic(impl_->checkout_marker(), join_lines(*paths)); !ok)
    return ok.error();
  auto branch = head_branch(repo);
  if (!branch) return branch.error();
  const std::string reflog =
      local.empty() ? fmt::format("feeddiff sync: fast-forward to {}", upstream)
                    : fmt::format("feeddiff sync: {} commit{} replayed onto {}", local.size(),
                                  local.size() == 1 ? "" : "s", upstream);
  if (auto ok = locks::move_branch(repo, impl_->lock_places(), *branch, &head_id, new_head, reflog);
      !ok)
    return ok.error();
  failpoint(Failpoint::branch_moved);
  if (auto ok = checkout_paths(repo, impl_->lock_places(), *paths); !ok) return ok.error();
  std::remove(impl_->checkout_marker().c_str());
  update_source_index(repo, impl_->git_dir);
  return report;
}

}  // namespace feeddiff
