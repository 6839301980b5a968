// Which sources a commit touched, as the source index (source_index.h) records it: the `raw`
// entry of its root tree against its first parent's (root trees are a few entries: cheap).
// Equal: it touches no source. Otherwise a version commit feeddiff wrote (its identity, one
// parent, a version title (is_version_title), trailer Source: S; poll writes nothing but
// raw/S/ in one) touches S alone, once the two raw/ trees, entry by entry, say so too (that
// metadata can be forged); anything else (a user's commit, an amended or rebased one,
// remove/import, migrate, a hand edit) is indexed by comparing the sources' directories with
// its parent's, each found in its layout (raw_diff).

#include "store/source_index_touched.h"

#include <cstring>
#include <map>
#include <utility>

#include "feeddiff/message.h"
#include "feeddiff/store.h"
#include "store/git_handles.h"

namespace feeddiff::source_index {

git_oid raw_of(const git_commit* commit) {
  git_oid zero{};
  git_tree* tree = nullptr;
  if (git_commit_tree(&tree, commit) != 0) return zero;
  git::TreePtr owned(tree);
  const git_tree_entry* entry = git_tree_entry_byname(tree, "raw");
  if (!entry || git_tree_entry_type(entry) != GIT_OBJECT_TREE) return zero;
  return *git_tree_entry_id(entry);
}

// The source a version commit names, when feeddiff wrote it as poll does: then it wrote
// nothing under raw/ but raw/<source>/. Anything else: "".
std::string version_source(const git_commit* commit) {
  if (git_commit_parentcount(commit) != 1) return {};
  for (const git_signature* s : {git_commit_author(commit), git_commit_committer(commit)})
    if (!s || std::strcmp(s->name, "feeddiff") != 0 ||
        std::strcmp(s->email, "feeddiff@localhost") != 0)
      return {};
  const char* message = git_commit_message(commit);
  if (!message) return {};
  const std::string_view text(message);
  const std::string_view title = text.substr(0, text.find('\n'));
  for (const Trailer& t : message_trailers(text)) {
    if (t.key != "Source") continue;
    const std::string& s = t.value;
    if (s.empty() || s.find('/') != std::string::npos) return {};
    if (is_version_title(title, s)) return s;
    return {};
  }
  return {};
}

namespace {

// Whether a raw/ entry is a fan-out bucket: two lower-case hex digits naming a directory of
// directories (a source's directory holds files only, so a source named like a bucket is
// told apart by what it holds).
bool is_bucket(git_repository* repo, std::string_view name, const git_oid& id) {
  if (name.size() != 2) return false;
  for (char c : name)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  git_tree* tree = nullptr;
  if (git_tree_lookup(&tree, repo, &id) != 0) {
    git_error_clear();
    return false;
  }
  git::TreePtr owned(tree);
  const std::size_t n = git_tree_entrycount(tree);
  if (n == 0) return false;
  for (std::size_t i = 0; i < n; ++i)
    if (git_tree_entry_type(git_tree_entry_byindex(tree, i)) != GIT_OBJECT_TREE) return false;
  return true;
}

}  // namespace

// The names under raw/ whose directory differs between two `raw` trees (zero: none), as
// `git log -- raw/<name>/` sees them (a blob at raw/<name> on both sides is no match), in
// either layout: a source's directory is found in its bucket (raw/hh/NAME/) or at raw/NAME/,
// and one moved from one layout to the other unchanged (`migrate`) is no change.
Result<std::vector<std::string>> raw_diff(git_repository* repo, const git_oid& before,
                                          const git_oid& after) {
  auto load = [&](const git_oid& id) -> Result<git::TreePtr> {
    if (git_oid_is_zero(&id) == 1) return git::TreePtr();
    git_tree* tree = nullptr;
    if (git_tree_lookup(&tree, repo, &id) != 0) return git::last_error("reading raw/");
    return git::TreePtr(tree);
  };
  auto old_tree = load(before);
  if (!old_tree) return old_tree.error();
  auto new_tree = load(after);
  if (!new_tree) return new_tree.error();
  struct Entry {
    git_oid id;
    bool tree;
  };
  using Entries = std::map<std::string, Entry>;
  auto entries = [](const git_tree* tree) {
    Entries out;
    if (tree)
      for (std::size_t i = 0; i < git_tree_entrycount(tree); ++i) {
        const git_tree_entry* e = git_tree_entry_byindex(tree, i);
        out[git_tree_entry_name(e)] = {*git_tree_entry_id(e),
                                       git_tree_entry_type(e) == GIT_OBJECT_TREE};
      }
    return out;
  };
  Entries old_top = entries(old_tree->get()), new_top = entries(new_tree->get());
  // Entries equal on both sides (an untouched source or bucket) are left out unread; the
  // others become source names, a bucket's by its sources.
  for (auto it = old_top.begin(); it != old_top.end();) {
    auto other = new_top.find(it->first);
    if (other != new_top.end() && git_oid_equal(&other->second.id, &it->second.id) &&
        other->second.tree == it->second.tree) {
      new_top.erase(other);
      it = old_top.erase(it);
    } else {
      ++it;
    }
  }
  auto flatten = [&](const Entries& top) -> Result<Entries> {
    Entries out;
    for (const auto& [name, e] : top) {
      if (!e.tree || !is_bucket(repo, name, e.id)) {
        out.emplace(name, e);
        continue;
      }
      auto bucket = load(e.id);
      if (!bucket) return bucket.error();
      for (auto& [inner, ie] : entries(bucket->get())) out.insert_or_assign(inner, ie);
    }
    return out;
  };
  auto old_entries = flatten(old_top);
  if (!old_entries) return old_entries.error();
  auto new_entries = flatten(new_top);
  if (!new_entries) return new_entries.error();
  std::vector<std::string> out;
  for (const auto& [name, e] : *new_entries) {
    auto it = old_entries->find(name);
    if (it == old_entries->end()) {
      if (e.tree) out.push_back(name);
      continue;
    }
    if (!git_oid_equal(&it->second.id, &e.id) && (e.tree || it->second.tree)) out.push_back(name);
    old_entries->erase(it);
  }
  for (const auto& [name, e] : *old_entries)
    if (e.tree) out.push_back(name);
  return out;
}

// Whether two `raw` trees (null: none) differ in source's directory alone: raw/<source>/, or
// raw/<hh>/<source>/ with nothing else of its bucket changed. What a version commit's
// metadata claims is believed only when its tree says the same: anyone can write a commit
// under feeddiff's name with a poll's title, and have it rewrite other sources too. The
// entries are compared in their order, without copies: the cost is the entry count of raw/
// (and of one bucket), about what reading the tree costs already. false on any doubt (the
// caller then runs raw_diff).
bool differs_only_in(git_repository* repo, const git_tree* before, const git_tree* after,
                     std::string_view source, bool top) {
  const std::size_t nb = before ? git_tree_entrycount(before) : 0;
  const std::size_t na = after ? git_tree_entrycount(after) : 0;
  const std::string bucket = top ? fanout_bucket(source) : std::string();
  bool seen = false;
  for (std::size_t i = 0, j = 0; i < nb || j < na;) {
    const git_tree_entry* eb = i < nb ? git_tree_entry_byindex(before, i) : nullptr;
    const git_tree_entry* ea = j < na ? git_tree_entry_byindex(after, j) : nullptr;
    const int cmp = !eb ? 1 : !ea ? -1 : git_tree_entry_cmp(eb, ea);
    if (cmp == 0) {
      ++i;
      ++j;
      if (git_oid_equal(git_tree_entry_id(eb), git_tree_entry_id(ea)) &&
          git_tree_entry_filemode(eb) == git_tree_entry_filemode(ea))
        continue;
    } else if (cmp < 0) {
      ea = nullptr;
      ++i;
    } else {
      eb = nullptr;
      ++j;
    }
    const git_tree_entry* any = eb ? eb : ea;
    const std::string_view name = git_tree_entry_name(any);
    const bool trees = (!eb || git_tree_entry_type(eb) == GIT_OBJECT_TREE) &&
                       (!ea || git_tree_entry_type(ea) == GIT_OBJECT_TREE);
    if (!trees || seen) return false;
    seen = true;
    if (name == source) continue;
    if (!top || name != bucket) return false;
    // The source's bucket: inside it, the source's directory alone.
    git::TreePtr inner_before, inner_after;
    for (auto [entry, out] : {std::pair{eb, &inner_before}, std::pair{ea, &inner_after}}) {
      if (!entry) continue;
      git_tree* t = nullptr;
      if (git_tree_lookup(&t, repo, git_tree_entry_id(entry)) != 0) {
        git_error_clear();
        return false;
      }
      out->reset(t);
    }
    if (!differs_only_in(repo, inner_before.get(), inner_after.get(), source, false)) return false;
  }
  return seen;
}

}  // namespace feeddiff::source_index
