// Trees spliced rather than rebuilt (tree_splice.h).

#include "store/tree_splice.h"

#include <git2/sys/odb_backend.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <string_view>

#include "feeddiff/core.h"
#include "store/git_handles.h"

namespace feeddiff::tree_splice {

namespace {

constexpr std::string_view kBlobMode = "100644";
constexpr std::string_view kTreeMode = "40000";

// One entry of a tree: its mode and name as stored, and its id.
struct Entry {
  std::string_view mode;
  std::string_view name;
  git_oid id;
  bool dir;
};

// Whether a stored mode names a directory (git's S_ISDIR on the octal value).
bool mode_is_dir(std::string_view mode) {
  unsigned value = 0;
  for (char c : mode) value = value * 8 + static_cast<unsigned>(c - '0');
  return (value & 0170000u) == 0040000u;
}

// The modes git writes. Any other (a zero-padded "040000", a group-writable "100664": old
// tools', or a crafted tree's) is left to libgit2, which normalizes it.
bool canonical_mode(std::string_view mode) {
  return mode == kBlobMode || mode == kTreeMode || mode == "100755" || mode == "120000" ||
         mode == "160000";
}

// A tree's bytes as entries; false when they do not parse, or are not as git writes them
// (a mode above, entries out of git's order or named twice): splicing into such a tree
// would keep its faults, where libgit2's tree update rewrites it sound. False too for a
// name that is not printable ASCII (below).
bool parse(std::string_view bytes, std::vector<Entry>& out) {
  std::size_t at = 0;
  while (at < bytes.size()) {
    const std::size_t space = bytes.find(' ', at);
    if (space == std::string_view::npos || space == at) return false;
    const std::size_t nul = bytes.find('\0', space + 1);
    if (nul == std::string_view::npos || nul == space + 1 ||
        bytes.size() - (nul + 1) < GIT_OID_RAWSZ)
      return false;
    Entry e;
    e.mode = bytes.substr(at, space - at);
    if (!canonical_mode(e.mode)) return false;
    e.name = bytes.substr(space + 1, nul - space - 1);
    // Printable ASCII only: the tree is hashed without collision detection (rewrite), and
    // a collision's blocks are made of arbitrary bytes. A name of others (a user's UTF-8
    // file name, a crafted tree's) sends the tree to libgit2, which hashes with it.
    if (!std::all_of(e.name.begin(), e.name.end(), [](char c) { return c >= ' ' && c <= '~'; }))
      return false;
    std::memcpy(e.id.id, bytes.data() + nul + 1, GIT_OID_RAWSZ);
    e.dir = mode_is_dir(e.mode);
    if (!out.empty() && (out.back().name == e.name ||
                         compare_entries(out.back().name, out.back().dir, e.name, e.dir) >= 0))
      return false;
    out.push_back(e);
    at = nul + 1 + GIT_OID_RAWSZ;
  }
  return true;
}

// A name the fast path writes: what feeddiff's own paths are made of, and nothing git or
// libgit2 would treat specially (libgit2 refuses ".", ".." and ".git" in a tree).
bool plain_name(std::string_view name) {
  if (name.empty() || name == "." || name == "..") return false;
  if (name.size() >= 4 && (name[0] == '.') && (name[1] == 'g' || name[1] == 'G') &&
      (name[2] == 'i' || name[2] == 'I') && (name[3] == 't' || name[3] == 'T'))
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

// The changes below one directory, keyed by their first component: either one file's
// change (leaf) or changes further down (below), never both.
struct Group {
  const std::optional<git_oid>* leaf = nullptr;
  std::vector<std::pair<std::string_view, const std::optional<git_oid>*>> below;
};

class Splicer {
 public:
  Splicer(git_odb* odb, git_odb_backend* mempack) : odb_(odb), mempack_(mempack) {}

  // The new tree for dir (nullopt: declined), base its old one (null when there is none).
  Result<std::optional<git_oid>> rewrite(
      const git_oid* base, const std::string& dir,
      const std::vector<std::pair<std::string_view, const std::optional<git_oid>*>>& changes) {
    std::map<std::string_view, Group> groups;
    for (const auto& [rest, blob] : changes) {
      const std::size_t slash = rest.find('/');
      const std::string_view first = rest.substr(0, slash);
      if (!plain_name(first)) return std::optional<git_oid>{};
      Group& g = groups[first];
      if (slash == std::string_view::npos) {
        if (g.leaf || !g.below.empty()) return std::optional<git_oid>{};
        g.leaf = blob;
      } else {
        if (g.leaf) return std::optional<git_oid>{};
        g.below.emplace_back(rest.substr(slash + 1), blob);
      }
    }

    git_odb_object* old = nullptr;
    git::OdbObjectPtr old_owned;
    std::vector<Entry> entries;
    if (base) {
      if (git_odb_read(&old, odb_, base) != 0) return git::last_error("reading a tree");
      old_owned.reset(old);
      if (git_odb_object_type(old) != GIT_OBJECT_TREE) return std::optional<git_oid>{};
      const std::string_view bytes(static_cast<const char*>(git_odb_object_data(old)),
                                   git_odb_object_size(old));
      entries.reserve(bytes.size() / 40 + groups.size() + 1);
      if (!parse(bytes, entries)) return std::optional<git_oid>{};
    }

    for (const auto& [group_name, g] : groups) {
      const std::string_view name = group_name;  // a lambda may not capture a binding (C++20)
      auto it = std::find_if(entries.begin(), entries.end(),
                             [&](const Entry& e) { return e.name == name; });
      const bool present = it != entries.end();
      Entry next{};
      if (g.leaf) {
        if (present && it->dir) return std::optional<git_oid>{};
        if (!*g.leaf) {
          if (!present) return std::optional<git_oid>{};
          entries.erase(it);
          continue;
        }
        next = Entry{kBlobMode, name, **g.leaf, false};
      } else {
        if (present && !it->dir) return std::optional<git_oid>{};
        const std::string sub = dir.empty() ? std::string(name) : dir + "/" + std::string(name);
        auto made = rewrite(present ? &it->id : nullptr, sub, g.below);
        if (!made) return made.error();
        if (!*made) return std::optional<git_oid>{};
        next = Entry{kTreeMode, name, **made, true};
      }
      if (present) {
        // Same name and kind: the entry keeps its place.
        it->mode = next.mode;
        it->id = next.id;
        continue;
      }
      auto at = std::find_if(entries.begin(), entries.end(), [&](const Entry& e) {
        return compare_entries(e.name, e.dir, next.name, next.dir) > 0;
      });
      entries.insert(at, next);
    }
    if (entries.empty()) return std::optional<git_oid>{};

    std::string& out = buffer_;
    out.clear();
    for (const Entry& e : entries) {
      out.append(e.mode);
      out.push_back(' ');
      out.append(e.name);
      out.push_back('\0');
      out.append(reinterpret_cast<const char*>(e.id.id), GIT_OID_RAWSZ);
    }
    // libcrypto's SHA-1, not libgit2's collision-detecting one, which took 10% of a cold
    // poll's main thread here (each commit hashes its raw/ tree of an entry per source). A
    // colliding pair needs blocks of near-arbitrary bytes that its maker chooses; a tree's
    // bytes here are modes, names of printable ASCII (new ones of [A-Za-z0-9._-]; anything
    // else was declined above) and ids, which are SHA-1 outputs nobody chooses. Blobs and commits,
    // whose bytes a server does choose, are still hashed with collision detection
    // (Archive::commit), and git fsck rehashes every tree with it.
    Sha1 digest;
    digest.update(fmt::format("tree {}", out.size()));
    digest.update(std::string_view("\0", 1));
    digest.update(out);
    const std::array<unsigned char, 20> raw = digest.finish();
    git_oid id{};
    std::memcpy(id.id, raw.data(), raw.size());
    if (!base || !git_oid_equal(&id, base)) {
      const int rc = mempack_
                         ? mempack_->write(mempack_, &id, out.data(), out.size(), GIT_OBJECT_TREE)
                         : git_odb_write(&id, odb_, out.data(), out.size(), GIT_OBJECT_TREE);
      if (rc != 0) return git::last_error("writing a tree");
    }
    written_.push_back({dir, id, out.size()});
    return std::optional<git_oid>(id);
  }

  std::vector<Written>& written() { return written_; }

 private:
  git_odb* odb_;
  git_odb_backend* mempack_;
  std::string buffer_;  // one tree's bytes at a time: a subtree's are written before its parent's
  std::vector<Written> written_;
};

}  // namespace

int compare_entries(std::string_view a, bool a_dir, std::string_view b, bool b_dir) {
  const std::size_t common = std::min(a.size(), b.size());
  if (const int c = std::memcmp(a.data(), b.data(), common); c != 0) return c;
  const unsigned char ca =
      a.size() > common ? static_cast<unsigned char>(a[common]) : (a_dir ? '/' : '\0');
  const unsigned char cb =
      b.size() > common ? static_cast<unsigned char>(b[common]) : (b_dir ? '/' : '\0');
  return ca < cb ? -1 : ca > cb ? 1 : 0;
}

Result<std::optional<Spliced>> apply(git_odb* odb, git_odb_backend* mempack, const git_oid* base,
                                     std::vector<Change> changes) {
  if (changes.empty()) return std::optional<Spliced>{};
  std::vector<std::pair<std::string_view, const std::optional<git_oid>*>> top;
  top.reserve(changes.size());
  for (const Change& c : changes) top.emplace_back(c.path, &c.blob);
  Splicer splicer(odb, mempack);
  auto root = splicer.rewrite(base, "", top);
  if (!root) return root.error();
  if (!*root) return std::optional<Spliced>{};
  Spliced out;
  out.root = **root;
  out.trees = std::move(splicer.written());
  // Written children first; listed parents first, as a pack's readers like them.
  std::reverse(out.trees.begin(), out.trees.end());
  out.blobs = std::move(changes);
  return std::optional<Spliced>(std::move(out));
}

}  // namespace feeddiff::tree_splice
