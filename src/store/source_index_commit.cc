// A commit's facts for the index's walks (source_index_commit.h). A rebuild reads every
// commit of the history, in a walk that one process must do alone (each commit names the
// next); through libgit2 each read is a copy out of the pack reader and a parse that
// allocates every header, signature and the message. At 100,000 changes the walk was most
// of the main process's 0.83 s of CPU with the pack reader behind libgit2; with plain
// commits parsed here, and each root tree read by the process that compares the commit's
// trees (tree_roots) rather than in the walk, 0.73 s (release build, a loaded machine;
// docs/index.md).
//
// Only a plain commit is read that way: "tree", "parent" lines, one "author" and one
// "committer" line each ending in a well-formed time and zone, then the blank line and the
// message, no NUL byte anywhere; and a root tree whose entries all parse. Those are what
// feeddiff and git write; for them libgit2's parse gives the same parents, signatures (name
// and email between the last '<' and '>', whitespace trimmed) and message (leading newlines
// skipped). Anything else (another header such as gpgsig or encoding, a second author, an
// object the reader declines) is read through libgit2, as before, errors included.

#include "store/source_index_commit.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <tuple>

#include "store/git_handles.h"
#include "store/pack_reader.h"

namespace feeddiff::source_index {

namespace {

// A header line "<key><40 hex>\n" at the start of rest: its id, and rest moved past it.
bool take_id_line(std::string_view& rest, std::string_view key, git_oid& id) {
  if (rest.size() < key.size() + GIT_OID_HEXSZ + 1 || !rest.starts_with(key) ||
      rest[key.size() + GIT_OID_HEXSZ] != '\n')
    return false;
  for (char c : rest.substr(key.size(), GIT_OID_HEXSZ))
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  if (git_oid_fromstrn(&id, rest.data() + key.size(), GIT_OID_HEXSZ) != 0) return false;
  rest.remove_prefix(key.size() + GIT_OID_HEXSZ + 1);
  return true;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// A signature line "<key>NAME <EMAIL> TIME +ZZZZ\n" at the start of rest, split as libgit2
// splits it; false for anything less regular (libgit2 then reads the commit).
bool take_signature(std::string_view& rest, std::string_view key, std::string_view& name,
                    std::string_view& email) {
  const std::size_t eol = rest.find('\n');
  if (eol == std::string_view::npos || !rest.starts_with(key)) return false;
  const std::string_view line = rest.substr(key.size(), eol - key.size());
  const std::size_t lt = line.rfind('<');
  const std::size_t gt = line.rfind('>');
  if (lt == std::string_view::npos || gt == std::string_view::npos || gt <= lt) return false;
  // " TIME +ZZZZ" after the email, TIME of at most 18 digits (no overflow).
  const std::string_view when = line.substr(gt + 1);
  if (when.size() < 8 || when[0] != ' ') return false;
  const std::size_t zone = when.rfind(' ');
  if (zone == 0 || when.size() - zone != 6 || (when[zone + 1] != '+' && when[zone + 1] != '-') ||
      !all_digits(when.substr(zone + 2)) || zone - 1 > 18 || !all_digits(when.substr(1, zone - 1)))
    return false;
  name = trimmed(line.substr(0, lt));
  email = trimmed(line.substr(lt + 1, gt - lt - 1));
  rest.remove_prefix(eol + 1);
  return true;
}

// Whether entry b may follow entry a in a tree (a empty: b is the first): git's order, names
// byte by byte, a directory's as if it ended in '/'.
bool in_order(std::string_view a, bool a_dir, std::string_view b, bool b_dir) {
  if (a.empty()) return true;
  const std::size_t n = std::min(a.size(), b.size());
  if (const int c = std::memcmp(a.data(), b.data(), n); c != 0) return c < 0;
  const auto after = [n](std::string_view s, bool dir) -> unsigned {
    return n < s.size() ? static_cast<unsigned char>(s[n]) : dir ? '/' : 0;
  };
  return after(a, a_dir) < after(b, b_dir);
}

// The `raw` and `articles` subtrees of a root tree's bytes, as git_tree_entry_byname and
// git_tree_entry_type find them; nullopt when an entry does not parse or a name repeats.
std::optional<Roots> roots_in(std::string_view tree) {
  Roots roots;
  bool raw = false, articles = false;
  std::string_view previous;
  bool previous_dir = false;
  while (!tree.empty()) {
    const std::size_t space = tree.find(' ');
    if (space == std::string_view::npos || space == 0 || space > 6) return std::nullopt;
    unsigned mode = 0;
    for (char c : tree.substr(0, space)) {
      if (c < '0' || c > '7') return std::nullopt;
      mode = mode * 8 + static_cast<unsigned>(c - '0');
    }
    if (mode > 0xffff) return std::nullopt;
    const std::size_t nul = tree.find('\0', space);
    if (nul == std::string_view::npos || nul == space + 1 || tree.size() - nul - 1 < GIT_OID_RAWSZ)
      return std::nullopt;
    const std::string_view name = tree.substr(space + 1, nul - space - 1);
    // git_tree_entry_byname searches in order: an unsorted tree is left to it.
    if (!in_order(previous, previous_dir, name, S_ISDIR(mode))) return std::nullopt;
    previous = name;
    previous_dir = S_ISDIR(mode);
    const auto* id = reinterpret_cast<const unsigned char*>(tree.data() + nul + 1);
    for (auto [key, seen, out] : {std::tuple{"raw", &raw, &roots.raw},
                                  std::tuple{"articles", &articles, &roots.articles}}) {
      if (name != key) continue;
      if (*seen) return std::nullopt;
      *seen = true;
      if (S_ISDIR(mode & 0xffff)) git_oid_fromraw(out, id);
    }
    tree.remove_prefix(nul + 1 + GIT_OID_RAWSZ);
  }
  return roots;
}

std::optional<CommitFacts> facts_from_pack(pack::PackReader& reader, const git_oid& id) {
  auto commit = reader.read(id);
  if (!commit || commit->type != GIT_OBJECT_COMMIT) return std::nullopt;
  std::string_view rest = commit->bytes();
  if (std::memchr(rest.data(), '\0', rest.size())) return std::nullopt;
  CommitFacts facts;
  git_oid tree{};
  if (!take_id_line(rest, "tree ", tree)) return std::nullopt;
  for (git_oid parent{}; take_id_line(rest, "parent ", parent);)
    if (facts.parents++ == 0) facts.parent = parent;
  std::string_view author_name, author_email, committer_name, committer_email;
  if (!take_signature(rest, "author ", author_name, author_email) ||
      !take_signature(rest, "committer ", committer_name, committer_email) ||
      !rest.starts_with('\n'))
    return std::nullopt;
  rest.remove_prefix(1);
  while (rest.starts_with('\n')) rest.remove_prefix(1);
  facts.tree = tree;
  facts.source = version_source_of(facts.parents, author_name, author_email, committer_name,
                                   committer_email, rest);
  return facts;
}

}  // namespace

Result<CommitFacts> commit_facts(git_repository* repo, pack::PackReader* reader,
                                 const git_oid& id) {
  if (reader)
    if (auto facts = facts_from_pack(*reader, id)) return std::move(*facts);
  git_commit* c = nullptr;
  if (git_commit_lookup(&c, repo, &id) != 0) return git::last_error("reading a commit");
  git::CommitPtr owned(c);
  CommitFacts facts;
  facts.parents = git_commit_parentcount(c);
  if (facts.parents > 0) facts.parent = *git_commit_parent_id(c, 0);
  facts.tree = *git_commit_tree_id(c);
  facts.source = version_source(c);
  return facts;
}

Roots tree_roots(git_repository* repo, pack::PackReader* reader, const git_oid& tree) {
  if (reader)
    if (auto root = reader->read(tree); root && root->type == GIT_OBJECT_TREE)
      if (auto roots = roots_in(root->bytes())) return *roots;
  Roots roots;
  git_tree* t = nullptr;
  if (git_tree_lookup(&t, repo, &tree) != 0) {
    git_error_clear();
    return roots;
  }
  git::TreePtr owned(t);
  for (auto [name, id] : {std::pair{"raw", &roots.raw}, std::pair{"articles", &roots.articles}}) {
    const git_tree_entry* entry = git_tree_entry_byname(t, name);
    if (entry && git_tree_entry_type(entry) == GIT_OBJECT_TREE) *id = *git_tree_entry_id(entry);
  }
  return roots;
}

}  // namespace feeddiff::source_index
