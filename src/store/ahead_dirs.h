#pragma once
// The source directories a site's first build reads ahead (Archive::read_source_dirs_ahead),
// kept for the whole run: each change page reads its source's directory at two commits, and
// each source's pages read every version's again at the end, out of the history's order, where
// reading a raw/ tree costs a chain of deltas. Kept in memory, they cost 48 bytes a commit,
// and more while the one sorted array they were in was reallocated: 48 MB of the 137 MB
// at the peak of a first build over 1M changes (heaptrack, 2026-12-07). Here the newest few are in
// memory and every one is also written to an unnamed file beside the archive's own, each batch's
// grouped by source: a source's are read back together, once, when it is asked for and not in
// memory. Memory: kInMemory entries, one source's (its versions), and 12 bytes a source a batch.
// Internal to store.

#include <git2.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "feeddiff/core.h"

namespace feeddiff {

class AheadDirs {
 public:
  /// A source's directory at a commit, as read: its tree id (zero: none) and layout.
  struct Dir {
    git_oid id{};
    Layout layout = Layout::flat;
  };
  /// What was read for one commit.
  struct Read {
    git_oid commit{};
    std::string name;
    Dir dir;
  };

  /// Entries kept in memory besides the file: more than a round of a site's first build
  /// (100,000 commits) reads ahead, so that its pages find theirs here.
  static inline std::size_t kInMemory = 131'072;
  /// How many times a source's directories were read back from the file, in this process
  /// (tests read it).
  static inline std::size_t reads_back = 0;

  /// Spills to an unnamed file made in dir (when none can be made, everything stays in
  /// memory, as before).
  explicit AheadDirs(std::string dir) : dir_(std::move(dir)) {}
  ~AheadDirs();
  AheadDirs(const AheadDirs&) = delete;
  AheadDirs& operator=(const AheadDirs&) = delete;

  /// Keeps a batch's directories.
  void add(const std::vector<Read>& batch);
  /// The directory kept for commit and name, if any; reads the name's back from the file
  /// when they are not in memory.
  bool find(const git_oid& commit, std::string_view name, Dir& out);
  /// Whether commit and name are among those in memory (no file read).
  bool in_memory(const git_oid& commit, std::string_view name) const;
  /// How many were kept (each commit once per batch it was read in).
  std::size_t size() const { return count_; }
  /// Forgets them all (and the file).
  void clear();
  /// What other kept, shared with it: its file's records are read through a descriptor of
  /// this one's own (a forked child's archive reads its parent's).
  void copy_from(const AheadDirs& other);

 private:
  struct Entry {
    git_oid commit{};
    git_oid dir{};
    std::uint32_t name = 0;
    Layout layout = Layout::flat;
  };
  struct Block {
    std::uint64_t offset = 0;  // in records
    std::uint32_t count = 0;
  };
  static bool by_commit(const Entry& a, const Entry& b);
  std::uint32_t name_id(std::string_view name);
  bool spill(const std::vector<Entry>& batch);
  bool load(std::uint32_t name);
  static bool search(const std::vector<Entry>& in, const git_oid& commit, std::uint32_t name,
                     Dir& out);

  std::string dir_;
  int fd_ = -1;
  bool spilling_ = true;       // false once the file failed: all in memory
  std::uint64_t records_ = 0;  // in the file
  std::size_t count_ = 0;
  std::vector<Entry> memory_;  // sorted by commit
  std::unordered_map<std::string, std::uint32_t> name_ids_;
  std::vector<std::vector<Block>> blocks_;  // by name id (ids are given in order)
  std::uint32_t loaded_name_ = UINT32_MAX;
  std::vector<Entry> loaded_;  // the name's, read back, sorted by commit
};

}  // namespace feeddiff
