// Which sources a commit touched, as the source index (source_index.h) records it: the `raw`
// entry of its root tree against its first parent's (root trees are a few entries: cheap).
// Equal: it touches no source. Otherwise a version commit feeddiff wrote (its identity, one
// parent, a version title (is_version_title), trailer Source: S; poll writes nothing but
// raw/S/ in one) touches S alone, once the two raw/ trees, entry by entry, say so too (that
// metadata can be forged); anything else (a user's commit, an amended or rebased one,
// remove/import, migrate, a hand edit) is indexed by comparing the sources' directories with
// its parent's, each found in its layout (raw_diff).

#include "store/source_index_touched.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <utility>

#include "feeddiff/core.h"
#include "feeddiff/message.h"
#include "feeddiff/store.h"
#include "store/git_handles.h"
#include "store/pack_reader.h"
#include "store/source_index_commit.h"

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

std::string article_key(std::string_view source) {
  return "articles/" + std::string(source);
}

Result<std::vector<std::string>> articles_diff(git_repository* repo, const git_oid& before,
                                               const git_oid& after) {
  // Each side's directories by name; a blob directly under articles/ is no source's.
  const auto directories = [&](const git_oid& id) -> Result<std::map<std::string, git_oid>> {
    std::map<std::string, git_oid> out;
    if (git_oid_is_zero(&id)) return out;
    git_tree* tree = nullptr;
    if (git_tree_lookup(&tree, repo, &id) != 0) return git::last_error("reading articles/");
    git::TreePtr owned(tree);
    for (std::size_t i = 0, n = git_tree_entrycount(tree); i < n; ++i) {
      const git_tree_entry* e = git_tree_entry_byindex(tree, i);
      if (git_tree_entry_type(e) == GIT_OBJECT_TREE)
        out.emplace(git_tree_entry_name(e), *git_tree_entry_id(e));
    }
    return out;
  };
  auto old_dirs = directories(before);
  if (!old_dirs) return old_dirs.error();
  auto new_dirs = directories(after);
  if (!new_dirs) return new_dirs.error();
  std::vector<std::string> names;
  for (const auto& [name, id] : *new_dirs) {
    auto it = old_dirs->find(name);
    if (it == old_dirs->end() || !git_oid_equal(&it->second, &id))
      names.push_back(article_key(name));
  }
  for (const auto& [name, id] : *old_dirs)
    if (!new_dirs->count(name)) names.push_back(article_key(name));
  return names;
}

// The source a version commit names, when feeddiff wrote it as poll does: then it wrote
// nothing under raw/ but raw/<source>/. Anything else: "".
std::string version_source(const git_commit* commit) {
  const git_signature* author = git_commit_author(commit);
  const git_signature* committer = git_commit_committer(commit);
  const char* message = git_commit_message(commit);
  if (!author || !committer || !message) return {};
  return version_source_of(git_commit_parentcount(commit), author->name, author->email,
                           committer->name, committer->email, message);
}

std::string version_source_of(unsigned parents, std::string_view author_name,
                              std::string_view author_email, std::string_view committer_name,
                              std::string_view committer_email, std::string_view text) {
  if (parents != 1) return {};
  if (author_name != "feeddiff" || author_email != "feeddiff@localhost" ||
      committer_name != "feeddiff" || committer_email != "feeddiff@localhost")
    return {};
  const std::string_view title = text.substr(0, text.find('\n'));
  const auto s = message_trailer(text, "Source");
  if (!s || s->empty() || s->find('/') != std::string_view::npos) return {};
  if (is_version_title(title, *s)) return std::string(*s);
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

// A tree object's bytes are read and walked here rather than through git_tree: the index's
// rebuild compares one `raw` tree with the next for every commit of the history, and
// libgit2's parse (an entry array, a name compare per entry, an object cache that evicts)
// cost 60% of a rebuild at 100,000 commits where a walk over the bytes costs a few
// microseconds. The format is git's: entries "<octal mode> <name>\0<20-byte id>", sorted
// with a tree's name compared as if it ended in '/'.
namespace {

// The size of the tree entry rest starts with; 0 when it is malformed.
std::size_t entry_size(std::string_view rest) {
  const std::size_t space = rest.find(' ');
  if (space == std::string_view::npos || space == 0) return 0;
  const std::size_t nul = rest.find('\0', space);
  if (nul == std::string_view::npos || nul == space + 1 || rest.size() - nul - 1 < GIT_OID_RAWSZ)
    return 0;
  return nul + 1 + GIT_OID_RAWSZ;
}

// One entry of a tree object.
struct RawEntry {
  std::string_view bytes;  // the whole entry: mode, name and id
  std::string_view name;
  const unsigned char* id = nullptr;
  bool tree = false;
};

// The entries of a tree object's bytes, in order. A malformed entry ends the walk with bad().
class RawTreeCursor {
 public:
  explicit RawTreeCursor(std::string_view data) : rest_(data) {}

  // The next entry into e; false at the end or at a malformed entry.
  bool next(RawEntry& e) {
    if (rest_.empty()) return false;
    const std::size_t size = entry_size(rest_);
    if (size == 0) {
      bad_ = true;
      rest_ = {};
      return false;
    }
    const std::size_t space = rest_.find(' ');
    e.bytes = rest_.substr(0, size);
    e.name = rest_.substr(space + 1, size - GIT_OID_RAWSZ - space - 2);
    e.id = reinterpret_cast<const unsigned char*>(rest_.data() + size - GIT_OID_RAWSZ);
    e.tree = rest_.substr(0, space) == "40000";
    rest_.remove_prefix(size);
    return true;
  }

  bool bad() const { return bad_; }

 private:
  std::string_view rest_;
  bool bad_ = false;
};

// git's order of two entries: names byte by byte, a tree's as if it ended in '/'.
int entry_order(const RawEntry& a, const RawEntry& b) {
  const std::size_t n = std::min(a.name.size(), b.name.size());
  if (const int c = std::memcmp(a.name.data(), b.name.data(), n); c != 0) return c;
  const auto after = [n](const RawEntry& e) -> unsigned {
    return n < e.name.size() ? static_cast<unsigned char>(e.name[n]) : e.tree ? '/' : 0;
  };
  return static_cast<int>(after(a)) - static_cast<int>(after(b));
}

// The length of the common prefix of a and b, of which the first `known` bytes agree already.
std::size_t common_prefix(std::string_view a, std::string_view b, std::size_t known) {
  const std::size_t n = std::min(a.size(), b.size());
  std::size_t i = std::min(known, n);
  constexpr std::size_t kBlock = 64;
  while (i + kBlock <= n && std::memcmp(a.data() + i, b.data() + i, kBlock) == 0) i += kBlock;
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

// The length of the common suffix of a and b, at most limit, of which the last `known` bytes
// agree already.
std::size_t common_suffix(std::string_view a, std::string_view b, std::size_t limit,
                          std::size_t known) {
  const std::size_t n = std::min({a.size(), b.size(), limit});
  const char* ea = a.data() + a.size();
  const char* eb = b.data() + b.size();
  std::size_t i = std::min(known, n);
  constexpr std::size_t kBlock = 64;
  while (i + kBlock <= n && std::memcmp(ea - i - kBlock, eb - i - kBlock, kBlock) == 0) i += kBlock;
  while (i < n &&
         ea[-1 - static_cast<std::ptrdiff_t>(i)] == eb[-1 - static_cast<std::ptrdiff_t>(i)])
    ++i;
  return i;
}

}  // namespace

git_oid subtree_id(git_odb* odb, const git_oid& tree_id, std::string_view name) {
  git_oid found{};
  if (git_oid_is_zero(&tree_id) == 1) return found;
  git_odb_object* o = nullptr;
  if (git_odb_read(&o, odb, &tree_id) != 0) {
    git_error_clear();
    return found;
  }
  const git::OdbObjectPtr object(o);
  if (!object || git_odb_object_type(object.get()) != GIT_OBJECT_TREE) return found;
  RawTreeCursor cursor({static_cast<const char*>(git_odb_object_data(object.get())),
                        git_odb_object_size(object.get())});
  for (RawEntry e; cursor.next(e);) {
    if (e.name != name) continue;
    if (e.tree) git_oid_fromraw(&found, e.id);
    break;
  }
  return found;
}

// A tree object's bytes, held while they are compared, with where each entry starts; empty
// when there is no tree. A tree that follows another along the chain is indexed from it:
// its entries before the first differing byte and after the last are the other's, so only
// the few in between are parsed.
class TreeBytes {
 public:
  TreeBytes() = default;
  // The tree id names, read through reader when there is one and it can (without a copy),
  // from odb otherwise; false when it cannot be read or is not a tree.
  bool read(git_odb* odb, pack::PackReader* reader, const git_oid& id) {
    if (reader) {
      if (auto object = reader->read(id)) {
        if (object->type != GIT_OBJECT_TREE) return false;
        held_ = std::move(*object);
        data_ = held_.bytes();
        return true;
      }
    }
    git_odb_object* o = nullptr;
    if (git_odb_read(&o, odb, &id) != 0) {
      git_error_clear();
      return false;
    }
    object_.reset(o);
    if (git_odb_object_type(o) != GIT_OBJECT_TREE) return false;
    data_ = {static_cast<const char*>(git_odb_object_data(o)), git_odb_object_size(o)};
    return true;
  }
  std::string_view data() const { return data_; }

  // Where every entry starts, parsing them all; false when one is malformed.
  bool index_all() {
    starts_.clear();
    for (std::size_t pos = 0; pos < data_.size();) {
      const std::size_t size = entry_size(data_.substr(pos));
      if (size == 0) return false;
      starts_.push_back(static_cast<std::uint32_t>(pos));
      pos += size;
    }
    starts_.push_back(static_cast<std::uint32_t>(data_.size()));
    return true;
  }

  // Where every entry starts, from prev's (indexed) where the bytes agree; the entries that
  // differ, prev's and this one's, into changed. false when one is malformed.
  bool index_from(const TreeBytes& prev, std::pair<std::string_view, std::string_view>& changed) {
    const std::string_view b = prev.data_;
    const std::vector<std::uint32_t>& sb = prev.starts_;
    // When one was made from the other by a delta, its copies say how far the two agree at
    // both ends without reading those bytes (comparing them was 12% of a rebuild's CPU).
    const auto [known_head, known_tail] = pack::shared_ends(prev.held_, held_);
    const std::size_t p = common_prefix(data_, b, known_head);
    // The entry of prev in which the first difference lies: the ones before it are shared.
    const std::size_t k =
        static_cast<std::size_t>(std::upper_bound(sb.begin(), sb.end() - 1, p) - sb.begin()) - 1;
    const std::size_t from = sb[k];
    const std::size_t suffix =
        common_suffix(data_, b, std::min(data_.size(), b.size()) - from, known_tail);
    const std::ptrdiff_t shift =
        static_cast<std::ptrdiff_t>(data_.size()) - static_cast<std::ptrdiff_t>(b.size());
    starts_.assign(sb.begin(), sb.begin() + static_cast<std::ptrdiff_t>(k));
    // Parse on from there until an entry starts where prev has one, inside the shared
    // suffix: from there on the entries are prev's, moved by shift.
    const std::size_t tail = data_.size() - suffix;
    std::size_t pos = from;
    std::size_t prev_end = b.size();
    while (pos < data_.size()) {
      if (pos >= tail && pos > from) {
        const auto at = static_cast<std::uint32_t>(static_cast<std::ptrdiff_t>(pos) - shift);
        auto it = std::lower_bound(sb.begin() + static_cast<std::ptrdiff_t>(k), sb.end(), at);
        if (it != sb.end() && *it == at) {
          prev_end = at;
          // About a thousand offsets per tree along a chain of 100,000: one resize and a loop
          // the compiler vectorizes, not a push_back each (6% of a rebuild).
          const std::size_t kept = starts_.size();
          starts_.resize(kept + static_cast<std::size_t>(sb.end() - it));
          const auto delta = static_cast<std::uint32_t>(shift);  // modulo 2^32: adds shift
          std::uint32_t* out = starts_.data() + kept;
          for (const std::uint32_t* in = &*it, *end = sb.data() + sb.size(); in != end; ++in)
            *out++ = *in + delta;
          changed = {b.substr(from, prev_end - from), data_.substr(from, pos - from)};
          return true;
        }
      }
      const std::size_t size = entry_size(data_.substr(pos));
      if (size == 0) return false;
      starts_.push_back(static_cast<std::uint32_t>(pos));
      pos += size;
    }
    starts_.push_back(static_cast<std::uint32_t>(data_.size()));
    changed = {b.substr(from), data_.substr(from)};
    return true;
  }

 private:
  git::OdbObjectPtr object_;
  pack::ReadObject held_;  // or the reader's object
  std::string_view data_;
  std::vector<std::uint32_t> starts_;  // each entry's offset, then the size
};

namespace {

// differs_only_in over two trees' bytes (empty: no tree).
bool differs_only_in_bytes(git_odb* odb, pack::PackReader* reader, std::string_view before,
                           std::string_view after, std::string_view source, bool top) {
  if (before == after) return false;
  const std::string bucket = top ? fanout_bucket(source) : std::string();
  RawTreeCursor b(before), a(after);
  RawEntry eb, ea;
  bool has_b = b.next(eb), has_a = a.next(ea);
  bool seen = false;
  while (has_b || has_a) {
    const int cmp = !has_b ? 1 : !has_a ? -1 : entry_order(eb, ea);
    const RawEntry* old_entry = cmp <= 0 ? &eb : nullptr;
    const RawEntry* new_entry = cmp >= 0 ? &ea : nullptr;
    // Equal entries (same name, mode and id) are the common case: one compare of their bytes.
    if (cmp == 0 && eb.bytes == ea.bytes) {
      has_b = b.next(eb);
      has_a = a.next(ea);
      continue;
    }
    const bool trees = (!old_entry || old_entry->tree) && (!new_entry || new_entry->tree);
    const std::string_view name = old_entry ? old_entry->name : new_entry->name;
    if (!trees || seen) return false;
    seen = true;
    if (name != source) {
      if (!top || name != bucket) return false;
      // The source's bucket: inside it, the source's directory alone.
      TreeBytes inner_before, inner_after;
      git_oid id{};
      if (old_entry) {
        git_oid_fromraw(&id, old_entry->id);
        if (!inner_before.read(odb, reader, id)) return false;
      }
      if (new_entry) {
        git_oid_fromraw(&id, new_entry->id);
        if (!inner_after.read(odb, reader, id)) return false;
      }
      if (!differs_only_in_bytes(odb, reader, inner_before.data(), inner_after.data(), source,
                                 false))
        return false;
    }
    if (old_entry) has_b = b.next(eb);
    if (new_entry) has_a = a.next(ea);
  }
  return seen && !b.bad() && !a.bad();
}

}  // namespace

// Whether two `raw` trees (zero: none) differ in source's directory alone: raw/<source>/, or
// raw/<hh>/<source>/ with nothing else of its bucket changed. What a version commit's
// metadata claims is believed only when its tree says the same: anyone can write a commit
// under feeddiff's name with a poll's title, and have it rewrite other sources too. false on
// any doubt (the caller then runs raw_diff).
bool RawTreeComparer::differs_only_in(const git_oid& before, const git_oid& after,
                                      std::string_view source) {
  // Each raw tree is read once along a chain: this commit's is the next one's "before".
  if (!held_ || !git_oid_equal(&held_id_, &before)) {
    held_ = std::make_unique<TreeBytes>();
    held_id_ = before;
    if (git_oid_is_zero(&before) != 1 &&
        (!held_->read(odb_, reader_, before) || !held_->index_all())) {
      held_.reset();
      return false;
    }
  }
  auto next = std::make_unique<TreeBytes>();
  if (git_oid_is_zero(&after) != 1 && !next->read(odb_, reader_, after)) return false;
  std::pair<std::string_view, std::string_view> changed;
  if (held_->data().empty() || next->data().empty()) {
    if (!next->index_all()) return false;
    changed = {held_->data(), next->data()};
  } else if (!next->index_from(*held_, changed)) {
    return false;
  }
  // changed points into both trees: compared before the older one goes.
  const bool only =
      differs_only_in_bytes(odb_, reader_, changed.first, changed.second, source, true);
  held_ = std::move(next);
  held_id_ = after;
  return only;
}

RawTreeComparer::RawTreeComparer(git_odb* odb) : odb_(odb), reader_(pack::reader_of(odb)) {}
RawTreeComparer::~RawTreeComparer() = default;

}  // namespace feeddiff::source_index
