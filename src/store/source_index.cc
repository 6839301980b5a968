// The per-source index (source_index.h). Files under .git/feeddiff/index/:
//
//   tip          text, replaced atomically and always last: the format, the generation, the
//                commit the index is complete up to with its first-parent depth (root = 1),
//                each source's record count, and a checksum of all of it.
//   g<N>/<name>  one per source (name escaped to [a-z0-9._%-]), append-only, oldest first:
//                28-byte records of commit id (20), depth (4, little-endian) and a checksum
//                of both (4).
//
// Why this shape: `log NAME -n 5` reads the tip and the last 5 records of one file, then 5
// commits; nothing grows with the history but the tip's one line per source. Fixed-size
// checksummed records make a torn or garbled tail visible. Records are appended before the
// tip is replaced, so a writer killed in between leaves records past the tip's counts, which
// readers ignore and the next writer truncates; a tip whose counts the file cannot cover
// (a truncated file, a lost write after a power cut: the records are not fsync'd, the tip
// is) makes the index rebuilt. A rebuild writes a new generation directory and then the tip
// naming it, so a reader that loaded the old tip never reads half-rewritten files.
//
// When the tip is not an ancestor of head (a sync replayed the newest commits, a reset), the
// index rewinds to the merge base (rewind below) instead of rebuilding from the root.
//
// Indexing a commit: the `raw` entry of its root tree against its first parent's (root trees
// are a few entries: cheap). Equal: it touches no source. Otherwise a version commit
// feeddiff wrote (its identity, one parent, a version title (is_version_title), trailer
// Source: S; poll writes nothing but raw/S/ in one) touches S alone, once the two raw/
// trees, entry by entry, say so too (that metadata can be forged); anything else (a user's
// commit, an amended or rebased one, remove/import, migrate, a hand edit) is indexed by
// comparing the sources' directories with its parent's, each found in its layout (raw_diff). Only
// first-parent history is indexed: a merge on the chain makes the index decline and the caller
// walk.

#include "store/source_index.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "core/failpoint.h"
#include "feeddiff/core.h"
#include "feeddiff/message.h"
#include "feeddiff/store.h"
#include "store/git_handles.h"

namespace feeddiff::source_index {

namespace fs = std::filesystem;

namespace {

// 2: names are sources in either layout (raw/NAME/ or raw/hh/NAME/), where 1 took every
// entry of raw/ for a source; a fan-out archive's index of format 1 would name its buckets.
constexpr std::string_view kMagic = "feeddiff-source-index 2";
constexpr std::size_t kRecord = 28;
// An escaped name longer than this could exceed a file system's name limit; such a name
// under raw/ makes the index decline (the caller walks), which no feeddiff source reaches.
constexpr std::size_t kMaxFileName = 200;

std::uint32_t record_check(const unsigned char* bytes) {
  const std::uint64_t h = fnv1a64({reinterpret_cast<const char*>(bytes), 24});
  return static_cast<std::uint32_t>(h ^ (h >> 32));
}

// A source name as a file name on any file system: lowercase letters, digits, '_', '-' and
// a '.' not leading stay; everything else (uppercase too, for case-insensitive file
// systems) becomes %XX.
std::string escape(std::string_view name) {
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
        (c == '.' && i > 0))
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

struct Tip {
  unsigned generation = 0;
  git_oid id{};
  std::uint32_t depth = 0;
  std::map<std::string, std::uint64_t> counts;  // by escaped name
};

std::string format_tip(const Tip& tip) {
  std::string out = fmt::format("{}\ngeneration {}\ntip {} {}\n", kMagic, tip.generation,
                                git::to_hex(tip.id), tip.depth);
  for (const auto& [name, count] : tip.counts) out += fmt::format("source {} {}\n", count, name);
  out += fmt::format("check {:016x}\n", fnv1a64(out));
  return out;
}

// nullopt when missing or not exactly what format_tip writes.
std::optional<Tip> load_tip(const std::string& dir) {
  auto text = read_file(dir + "/tip");
  if (!text) return std::nullopt;
  const auto check_at = text->rfind("check ");
  if (check_at == std::string::npos || text->back() != '\n') return std::nullopt;
  if (fmt::format("check {:016x}\n", fnv1a64(std::string_view(*text).substr(0, check_at))) !=
      std::string_view(*text).substr(check_at))
    return std::nullopt;
  std::istringstream in(text->substr(0, check_at));
  std::string line;
  if (!std::getline(in, line) || line != kMagic) return std::nullopt;
  Tip tip;
  std::string word, hex;
  if (!(in >> word >> tip.generation) || word != "generation") return std::nullopt;
  if (!(in >> word >> hex >> tip.depth) || word != "tip" || hex.size() != GIT_OID_HEXSZ ||
      git_oid_fromstr(&tip.id, hex.c_str()) != 0 || tip.depth == 0)
    return std::nullopt;
  std::uint64_t count = 0;
  std::string name;
  while (in >> word) {
    if (word != "source" || !(in >> count >> name) || count == 0 || count > tip.depth)
      return std::nullopt;
    tip.counts[name] = count;
  }
  return tip;
}

std::string generation_dir(const std::string& dir, unsigned generation) {
  return fmt::format("{}/g{}", dir, generation);
}

// The bytes of records [from, to) of a source's file; nullopt when the file cannot cover them.
std::optional<std::string> read_bytes(const std::string& path, std::uint64_t from,
                                      std::uint64_t to) {
  std::string bytes((to - from) * kRecord, '\0');
  if (bytes.empty()) return bytes;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pread(fd, bytes.data() + done, bytes.size() - done,
                              static_cast<off_t>(from * kRecord + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (done != bytes.size()) return std::nullopt;
  return bytes;
}

std::uint32_t le32(const unsigned char* r) {
  return r[0] | (r[1] << 8) | (r[2] << 16) | (static_cast<std::uint32_t>(r[3]) << 24);
}

// Records [from, to) of a source's file, oldest first; nullopt when the file cannot cover
// them or one is garbled, or their depths are not rising and within max_depth.
std::optional<std::vector<git_oid>> read_records(const std::string& path, std::uint64_t from,
                                                 std::uint64_t to, std::uint32_t max_depth,
                                                 std::vector<std::uint32_t>* depths = nullptr) {
  std::vector<git_oid> out;
  if (from >= to) return out;
  auto bytes = read_bytes(path, from, to);
  if (!bytes) return std::nullopt;
  std::uint32_t last_depth = 0;
  for (std::size_t i = 0; i < to - from; ++i) {
    const auto* r = reinterpret_cast<const unsigned char*>(bytes->data() + i * kRecord);
    const std::uint32_t depth = le32(r + 20);
    if (le32(r + 24) != record_check(r) || depth <= last_depth || depth > max_depth)
      return std::nullopt;
    last_depth = depth;
    git_oid id;
    std::memcpy(id.id, r, 20);
    out.push_back(id);
    if (depths) depths->push_back(depth);
  }
  return out;
}

void append_record(std::string& out, const git_oid& id, std::uint32_t depth) {
  unsigned char r[kRecord];
  std::memcpy(r, id.id, 20);
  for (int i = 0; i < 4; ++i) r[20 + i] = static_cast<unsigned char>(depth >> (8 * i));
  const std::uint32_t check = record_check(r);
  for (int i = 0; i < 4; ++i) r[24 + i] = static_cast<unsigned char>(check >> (8 * i));
  out.append(reinterpret_cast<const char*>(r), kRecord);
}

// A commit of the first-parent chain, as the backward walk saw it.
struct Seen {
  git_oid id{};
  git_oid raw{};       // the `raw` subtree's id, zero when there is none
  std::string source;  // set when it is a version commit feeddiff wrote
};

// What a catch-up learnt: the commits after the tip (or all, for a rebuild), oldest first,
// each with the escaped names it touched.
struct Pending {
  bool rebuild = false;
  // Rewound (see rewind): the tip's records are a prefix of its generation's files, copied
  // into a new generation before the new ones are appended.
  bool copy = false;
  std::uint32_t base_depth = 0;  // depth of the commit before the first one here
  std::vector<git_oid> ids;
  std::vector<std::vector<std::string>> touched;
};

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

// The first-parent chain from head back to the tip (not included), or to the root when there
// is no tip or the tip is not on it, as a catch-up walks it first: newest first, keeping only
// every chunk-th id, so that it can be walked again a chunk at a time, oldest chunk first.
struct Chain {
  bool found = false;          // it reached the tip
  bool merge = false;          // it met a merge: the index cannot hold this history
  std::size_t count = 0;       // commits after the tip (all of them without it)
  std::vector<git_oid> marks;  // the commits at 0, chunk, 2 chunk, ... back from head
  git_oid before_first{};      // the raw id of the tip (zero for a rebuild: the root has none)
};

Result<Chain> scan(git_repository* repo, const git_oid& head, const std::optional<Tip>& tip,
                   std::size_t chunk) {
  Chain chain;
  git_oid id = head;
  for (;;) {
    git_commit* c = nullptr;
    if (git_commit_lookup(&c, repo, &id) != 0) return git::last_error("reading a commit");
    git::CommitPtr owned(c);
    if (tip && git_oid_equal(&id, &tip->id)) {
      chain.found = true;
      chain.before_first = raw_of(c);
      return chain;
    }
    const unsigned parents = git_commit_parentcount(c);
    if (parents > 1) {
      chain.merge = true;
      return chain;
    }
    if (chain.count % chunk == 0) chain.marks.push_back(id);
    ++chain.count;
    if (parents == 0) return chain;
    id = *git_commit_parent_id(c, 0);
  }
}

// Indexes the chain a chunk at a time, oldest chunk first: each is walked again from its
// newest commit and handed to sink, oldest commit first, with the depths following on. A
// chain of no commit makes one empty chunk. false: the index cannot hold this history (an
// unstorable name); the chunks before were handed on.
Result<bool> index_chain(git_repository* repo, const Chain& chain, std::uint32_t base_depth,
                         std::size_t chunk, const std::function<Status(Pending&)>& sink) {
  if (chain.count == 0) {
    Pending p;
    p.base_depth = base_depth;
    if (auto ok = sink(p); !ok) return ok.error();
    return true;
  }
  git_oid previous = chain.before_first;
  git::TreePtr previous_tree;  // the tree previous_tree_id names, once read
  git_oid previous_tree_id{};  // zero: no tree (the root's parent)
  std::uint32_t depth = base_depth;
  for (std::size_t j = chain.marks.size(); j-- > 0;) {
    const std::size_t size = std::min(chunk, chain.count - j * chunk);
    std::vector<Seen> seen;  // newest first
    seen.reserve(size);
    git_oid id = chain.marks[j];
    for (std::size_t k = 0; k < size; ++k) {
      git_commit* c = nullptr;
      if (git_commit_lookup(&c, repo, &id) != 0) return git::last_error("reading a commit");
      git::CommitPtr owned(c);
      seen.push_back({id, raw_of(c), version_source(c)});
      if (k + 1 < size) id = *git_commit_parent_id(c, 0);
    }
    Pending p;
    p.base_depth = depth;
    for (auto it = seen.rbegin(); it != seen.rend(); ++it) {
      std::vector<std::string> names;
      if (!git_oid_equal(&previous, &it->raw)) {
        bool believed = false;
        if (!it->source.empty()) {
          // Each raw tree is read once: this commit's is the next one's "before".
          if (!git_oid_equal(&previous_tree_id, &previous)) {
            previous_tree.reset();
            previous_tree_id = previous;
            if (git_oid_is_zero(&previous) != 1) {
              git_tree* t = nullptr;
              if (git_tree_lookup(&t, repo, &previous) != 0) return git::last_error("reading raw/");
              previous_tree.reset(t);
            }
          }
          git::TreePtr tree;
          if (git_oid_is_zero(&it->raw) != 1) {
            git_tree* t = nullptr;
            if (git_tree_lookup(&t, repo, &it->raw) != 0) return git::last_error("reading raw/");
            tree.reset(t);
          }
          believed = differs_only_in(repo, previous_tree.get(), tree.get(), it->source, true);
          previous_tree = std::move(tree);
          previous_tree_id = it->raw;
        }
        if (believed) {
          names.push_back(it->source);
        } else {
          auto diff = raw_diff(repo, previous, it->raw);
          if (!diff) return diff.error();
          names = std::move(*diff);
        }
      }
      for (auto& n : names) {
        n = escape(n);
        if (n.size() > kMaxFileName) return false;
      }
      p.ids.push_back(it->id);
      p.touched.push_back(std::move(names));
      previous = it->raw;
    }
    depth += static_cast<std::uint32_t>(size);
    if (auto ok = sink(p); !ok) return ok.error();
  }
  return true;
}

// When the tip is not an ancestor of head (a sync replayed the local commits onto the
// remote's, a `git reset`, an amend), the index up to the commit the tip's history and head
// share: its records whose depth is at most that commit's, found by binary search in each
// source's file. nullopt when no rewind applies (the tip is head or its ancestor) or none is
// possible (no shared commit, a merge, a garbled file), which leaves it to catch_up:
// a full rebuild when the tip is not on head's chain. The cost is the commits between the
// tip and the shared one and log2(records) reads per source, not the history.
std::optional<Tip> rewind(git_repository* repo, const std::string& dir, const Tip& tip,
                          const git_oid& head) {
  if (git_oid_equal(&tip.id, &head)) return std::nullopt;
  git_oid base{};
  if (git_merge_base(&base, repo, &tip.id, &head) != 0) {
    git_error_clear();
    return std::nullopt;
  }
  if (git_oid_equal(&base, &tip.id)) return std::nullopt;
  // base's depth: the tip's, less its distance down the tip's first-parent chain.
  std::uint32_t depth = tip.depth;
  for (git_oid id = tip.id; !git_oid_equal(&id, &base);) {
    git_commit* c = nullptr;
    if (git_commit_lookup(&c, repo, &id) != 0) {
      git_error_clear();
      return std::nullopt;
    }
    git::CommitPtr owned(c);
    if (git_commit_parentcount(c) != 1 || depth <= 1) return std::nullopt;
    id = *git_commit_parent_id(c, 0);
    --depth;
  }
  Tip out;
  out.generation = tip.generation;
  out.id = base;
  out.depth = depth;
  const std::string gdir = generation_dir(dir, tip.generation);
  for (const auto& [name, count] : tip.counts) {
    const std::string path = gdir + "/" + name;
    // The first record deeper than base: records are in rising depth.
    std::uint64_t lo = 0, hi = count;
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      auto r = read_bytes(path, mid, mid + 1);
      if (!r) return std::nullopt;
      const auto* rec = reinterpret_cast<const unsigned char*>(r->data());
      if (le32(rec + 24) != record_check(rec)) return std::nullopt;
      if (le32(rec + 20) <= depth)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo > 0) out.counts[name] = lo;
  }
  return out;
}

Status write_all(const std::string& path, std::string_view bytes, int flags) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);
  if (fd < 0) return Error{Errc::io, fmt::format("cannot open {}: {}", path, std::strerror(errno))};
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Error e{Errc::io, fmt::format("cannot write {}: {}", path, std::strerror(errno))};
      ::close(fd);
      return e;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0)
    return Error{Errc::io, fmt::format("cannot write {}: {}", path, std::strerror(errno))};
  return Ok{};
}

// Writes what a catch-up learnt: the records first (appended, or a whole new generation for
// a rebuild), then the tip. The records are not fsync'd: after a power cut, a tip whose
// records did not reach the disk fails its count check and the index is rebuilt.
// Returns the tip it wrote.
Result<Tip> persist(const std::string& dir, const std::optional<Tip>& old_tip, const Pending& p) {
  if (p.ids.empty() && !p.rebuild && !p.copy) return old_tip.value_or(Tip{});
  std::error_code ec;
  fs::create_directories(dir, ec);
  Tip tip;
  std::map<std::string, std::string> appended;  // escaped name -> records
  for (std::size_t i = 0; i < p.ids.size(); ++i)
    for (const auto& name : p.touched[i])
      append_record(appended[name], p.ids[i], p.base_depth + static_cast<std::uint32_t>(i) + 1);
  if (p.rebuild || p.copy) {
    unsigned generation = old_tip ? old_tip->generation + 1 : 1;
    // Past any generation a killed rebuild left behind.
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string f = entry.path().filename().string();
      if (f.size() > 1 && f.size() < 10 && f[0] == 'g' &&
          f.find_first_not_of("0123456789", 1) == std::string::npos)
        generation = std::max(generation, static_cast<unsigned>(std::stoul(f.substr(1))) + 1);
    }
    tip.generation = generation;
    const std::string gdir = generation_dir(dir, generation);
    fs::create_directories(gdir, ec);
    if (ec) return Error{Errc::io, fmt::format("cannot create {}: {}", gdir, ec.message())};
    std::set<std::string> linked;
    if (p.copy && !p.rebuild)
      for (const auto& [name, count] : old_tip->counts) {
        const std::string from = generation_dir(dir, old_tip->generation) + "/" + name;
        // A file the rewind keeps whole is linked, not copied (most sources: a replay
        // rewrites the few newest commits). Appending to it is safe: a reader of the old
        // tip ignores records past its count, as after any append.
        struct stat st {};
        if (::stat(from.c_str(), &st) == 0 &&
            static_cast<std::uint64_t>(st.st_size) == count * kRecord &&
            ::link(from.c_str(), (gdir + "/" + name).c_str()) == 0) {
          linked.insert(name);
          tip.counts[name] = count;
          continue;
        }
        // The kept records, then the new ones.
        auto kept = read_bytes(from, 0, count);
        if (!kept) return Error{Errc::io, fmt::format("cannot read the index's {}", name)};
        appended[name].insert(0, *kept);
      }
    for (const auto& [name, bytes] : appended) {
      const bool append = linked.contains(name);
      if (auto ok = write_all(gdir + "/" + name, bytes, append ? O_APPEND : O_TRUNC); !ok)
        return ok.error();
      tip.counts[name] = (append ? tip.counts[name] : 0) + bytes.size() / kRecord;
    }
  } else {
    tip.generation = old_tip->generation;
    tip.counts = old_tip->counts;
    const std::string gdir = generation_dir(dir, tip.generation);
    for (const auto& [name, bytes] : appended) {
      const std::string path = gdir + "/" + name;
      const std::uint64_t count = tip.counts.count(name) ? tip.counts[name] : 0;
      struct stat st {};
      const bool exists = ::stat(path.c_str(), &st) == 0;
      if (static_cast<std::uint64_t>(exists ? st.st_size : 0) < count * kRecord)
        return Error{Errc::io, fmt::format("{} is shorter than the index's tip says", path)};
      // Records past the tip's count are a killed writer's: they go.
      if (exists && ::truncate(path.c_str(), static_cast<off_t>(count * kRecord)) != 0)
        return Error{Errc::io, fmt::format("cannot truncate {}: {}", path, std::strerror(errno))};
      if (auto ok = write_all(path, bytes, O_APPEND); !ok) return ok.error();
      tip.counts[name] = count + bytes.size() / kRecord;
    }
  }
  failpoint(Failpoint::index_appended);
  tip.id = p.ids.empty() ? old_tip->id : p.ids.back();
  tip.depth = p.base_depth + static_cast<std::uint32_t>(p.ids.size());
  if (auto ok = write_file_atomic(dir + "/tip", format_tip(tip)); !ok) return ok.error();
  // Older generations, and temporaries of a killed writer.
  std::vector<fs::path> stale;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string f = entry.path().filename().string();
    if ((f.size() > 1 && f[0] == 'g' && f != fmt::format("g{}", tip.generation)) ||
        f.find(".tmp.") != std::string::npos)
      stale.push_back(entry.path());
  }
  for (const auto& path : stale) fs::remove_all(path, ec);
  return tip;
}

// What a catch-up did.
struct CaughtUp {
  bool rebuild = false;            // the tip was not on head's chain (or there was none)
  std::optional<Tip> written;      // the tip written last, when anything was
  std::optional<Error> unwritten;  // why a chunk could not be written (no later one was)
};

// Indexes head's chain after tip (all of it when tip is nullopt or not on the chain), a chunk
// of catch_up_chunk commits at a time: each chunk goes to seen, then, when write() allows
// (asked once, at the first chunk with anything to write), to the files, its tip last, so
// that a rebuild over millions of commits holds one chunk of them and leaves a valid index
// however far it got. copy: tip is rewound (see Pending::copy). nullopt when the index
// cannot hold this history.
Result<std::optional<CaughtUp>> catch_up(git_repository* repo, const std::string& dir,
                                         const git_oid& head, const std::optional<Tip>& tip,
                                         bool copy, const std::function<bool()>& write,
                                         const std::function<void(const Pending&)>& seen) {
  using Answer = std::optional<CaughtUp>;
  const std::size_t chunk = std::max<std::size_t>(catch_up_chunk, 1);
  auto chain = scan(repo, head, tip, chunk);
  if (!chain) return chain.error();
  if (chain->merge) return Answer{};
  CaughtUp out;
  out.rebuild = !chain->found;
  const std::uint32_t base = chain->found ? tip->depth : 0;
  if (base + std::uint64_t{chain->count} > UINT32_MAX) return Answer{};
  std::optional<Tip> current = tip;  // what the next chunk is appended after
  std::optional<bool> writing;
  bool first = true;
  auto held = index_chain(repo, *chain, base, chunk, [&](Pending& p) -> Status {
    p.rebuild = out.rebuild && first;
    p.copy = copy && !out.rebuild && first;
    first = false;
    seen(p);
    if (out.unwritten || (p.ids.empty() && !p.rebuild && !p.copy)) return Ok{};
    if (!writing) writing = write();
    if (!*writing) return Ok{};
    auto written = persist(dir, current, p);
    if (!written) {
      out.unwritten = written.error();
      return Ok{};
    }
    current = *written;
    out.written = current;
    return Ok{};
  });
  if (!held) return held.error();
  if (!*held) return Answer{};
  return Answer(std::move(out));
}

}  // namespace

Result<std::optional<std::vector<git_oid>>> commits_of(git_repository* repo, const std::string& dir,
                                                       const git_oid& head, std::string_view name,
                                                       std::size_t limit,
                                                       const std::function<bool()>& may_write,
                                                       std::vector<std::uint32_t>* depths) {
  using Answer = std::optional<std::vector<git_oid>>;
  if (depths) depths->clear();
  const std::string key = escape(name);
  if (key.size() > kMaxFileName) return Answer{};
  // Asked once: a reader takes the lock at the first write and keeps it.
  std::optional<bool> granted;
  const auto write = [&] {
    if (!granted) granted = may_write();
    return *granted;
  };
  std::optional<Tip> tip = load_tip(dir);
  const std::optional<Tip> rewound = tip ? rewind(repo, dir, *tip, head) : std::nullopt;
  if (rewound) tip = rewound;

  // The new commits touching the source, oldest first (a rebuild: all of them).
  std::vector<git_oid> fresh;
  std::vector<std::uint32_t> fresh_depths;
  const auto collect = [&](const Pending& p) {
    for (std::size_t i = 0; i < p.ids.size(); ++i)
      if (std::find(p.touched[i].begin(), p.touched[i].end(), key) != p.touched[i].end()) {
        fresh.push_back(p.ids[i]);
        fresh_depths.push_back(p.base_depth + static_cast<std::uint32_t>(i) + 1);
      }
  };
  const auto newest = [&](std::vector<git_oid>& out) {
    for (std::size_t k = fresh.size(); k-- > 0 && (!limit || out.size() < limit);) {
      out.push_back(fresh[k]);
      if (depths) depths->push_back(fresh_depths[k]);
    }
  };
  auto caught = catch_up(repo, dir, head, tip, rewound.has_value(), write, collect);
  if (!caught) return caught.error();
  if (!*caught) return Answer{};
  std::vector<git_oid> out;
  newest(out);
  bool rebuilt = (*caught)->rebuild;
  if (!rebuilt && (!limit || out.size() < limit)) {
    const std::uint64_t count = tip->counts.count(key) ? tip->counts.at(key) : 0;
    const std::uint64_t want = limit ? std::min<std::uint64_t>(count, limit - out.size()) : count;
    // The tip's records are where the catch-up left them: a rewind's copy moved them to a
    // new generation (the same records, first in each file).
    const unsigned generation =
        (*caught)->written ? (*caught)->written->generation : tip->generation;
    std::vector<std::uint32_t> record_depths;
    auto records = read_records(generation_dir(dir, generation) + "/" + key, count - want, count,
                                tip->depth, depths ? &record_depths : nullptr);
    if (!records) {
      // Truncated, garbled or missing: rebuild, and answer from the rebuild.
      fresh.clear();
      fresh_depths.clear();
      auto again = catch_up(repo, dir, head, std::nullopt, false, write, collect);
      if (!again) return again.error();
      if (!*again) return Answer{};
      out.clear();
      if (depths) depths->clear();
      newest(out);
      caught = std::move(again);
      rebuilt = true;
    } else {
      out.insert(out.end(), records->rbegin(), records->rend());
      if (depths) depths->insert(depths->end(), record_depths.rbegin(), record_depths.rend());
    }
  }
  if ((*caught)->unwritten && !rebuilt) {
    // Best effort: a file the tip's counts cannot trust is rebuilt (the lock is held: a
    // chunk was being written); a cache that cannot be written is answered from all the same.
    (void)catch_up(repo, dir, head, std::nullopt, false, write, [](const Pending&) {});
  }
  return Answer(std::move(out));
}

Status update(git_repository* repo, const std::string& dir, const git_oid& head) {
  std::optional<Tip> tip = load_tip(dir);
  const std::optional<Tip> rewound = tip ? rewind(repo, dir, *tip, head) : std::nullopt;
  if (rewound) tip = rewound;
  const auto always = [] { return true; };
  const auto nothing = [](const Pending&) {};
  auto caught = catch_up(repo, dir, head, tip, rewound.has_value(), always, nothing);
  if (!caught) return caught.error();
  if (!*caught) return Ok{};  // a history it cannot hold: readers walk
  if (!(*caught)->unwritten) return Ok{};
  if ((*caught)->rebuild) return *(*caught)->unwritten;
  // A file the tip's counts cannot trust: start again.
  auto rebuilt = catch_up(repo, dir, head, std::nullopt, false, always, nothing);
  if (!rebuilt) return rebuilt.error();
  if (!*rebuilt || !(*rebuilt)->unwritten) return Ok{};
  return *(*rebuilt)->unwritten;
}

}  // namespace feeddiff::source_index
