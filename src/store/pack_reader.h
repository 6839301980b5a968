#pragma once
// A reader of the objects in an archive's packs, for the source index's long catch-ups (a
// rebuild above all); pack_reader.cc says why it is written by hand. It answers only what it
// can answer for sure, and says nullopt otherwise: the caller (or libgit2, behind it) then
// reads the object as before. Internal to store.

#include <git2.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "feeddiff/result.h"
#include "store/git_handles.h"

namespace feeddiff::pack {

/// One object as its pack holds it, materialized.
struct ReadObject {
  git_object_t type = GIT_OBJECT_INVALID;  ///< commit, tree, blob or tag
  std::shared_ptr<const char[]> data;      ///< size bytes (shared with the reader's cache)
  std::size_t size = 0;                    ///< its length
  std::uint64_t key = 0;                   ///< where it is: its pack << 48 | its offset
  /// Made from a delta: its base's key; 0 when the pack holds it whole.
  std::uint64_t base_key = 0;
  /// Made from a delta: how many of its first bytes the delta copied from the same offsets
  /// of its base, and how many of its last from its base's last: bytes the two share for
  /// certain, without comparing them (shared_ends).
  std::size_t same_head = 0;
  std::size_t same_tail = 0;  ///< see same_head
  /// Its bytes.
  std::string_view bytes() const { return {data.get(), size}; }
};

/// How many leading and trailing bytes a and b share because one was made from the other
/// by a delta (same_head and same_tail); {0, 0} when neither is the other's base. A lower
/// bound: the bytes beyond may agree too.
std::pair<std::size_t, std::size_t> shared_ends(const ReadObject& a, const ReadObject& b);

/// The packs of an objects directory (each pack with an index of version 2), read through
/// memory maps, one object at a time. Not for concurrent use: one per thread (or process).
class PackReader {
 public:
  /// The packs in objects_dir/pack/ as they are now; a pack it cannot use is left out (its
  /// objects are read elsewhere), as are packs added later.
  explicit PackReader(const std::string& objects_dir);
  /// Unmaps what it mapped.
  ~PackReader();
  PackReader(const PackReader&) = delete;
  PackReader& operator=(const PackReader&) = delete;

  /// The object, or nullopt when it is in none of the packs, or anything about it is not
  /// what this reader handles or trusts (a bad header, a size or checksum that does not
  /// match, a delta whose base it cannot read).
  std::optional<ReadObject> read(const git_oid& id);

  /// How many packs it reads.
  std::size_t packs() const { return packs_.size(); }
  /// How many reads it answered nullopt for an object one of its packs holds.
  std::size_t declined() const { return declined_; }

 private:
  struct Mapping;
  struct Pack;
  struct Window {
    std::size_t pack = 0;
    std::uint64_t start = 0;
    std::size_t length = 0;
    const unsigned char* data = nullptr;
    std::uint64_t used = 0;
  };
  struct Cached {
    std::uint64_t key = 0;  // pack << 48 | offset
    std::uint64_t used = 0;
    ReadObject object;
  };
  std::optional<ReadObject> read_at(std::size_t pack, std::uint64_t offset, unsigned depth);
  std::optional<std::pair<std::size_t, std::uint64_t>> find(const git_oid& id) const;
  void remember(std::uint64_t key, const ReadObject& object);
  std::pair<const unsigned char*, const unsigned char*> bytes_at(std::size_t pack,
                                                                 std::uint64_t offset,
                                                                 std::uint64_t want);
  void unmap(const Window& w);

  std::vector<std::unique_ptr<Pack>> packs_;
  // The parts of the packs mapped (pack indexes are mapped whole, as libgit2 maps them).
  std::vector<Window> windows_;
  struct Decompressor;
  std::unique_ptr<Decompressor> inflater_;
  // The objects read last that were or may become delta bases, by pack and offset: a chain's
  // trees are read oldest to newest, and each is the next one's base.
  std::vector<Cached> cache_;  // searched in place: a few dozen, where a map cost more
  std::size_t cached_bytes_ = 0;
  std::uint64_t clock_ = 0;
  std::size_t declined_ = 0;
};

/// Puts a PackReader of objects_dir in front of odb's own backends (priority): git_odb_read
/// and every lookup through odb ask it first, and libgit2's readers when it declines.
Status add_reader_backend(git_odb* odb, const std::string& objects_dir, int priority);

/// The PackReader add_reader_backend put in odb, or nullptr.
PackReader* reader_of(git_odb* odb);

/// A repository opened afresh at git_dir (as git_repository_open does) whose object
/// database reads through a PackReader first.
Result<git::RepositoryPtr> open_with_reader(const std::string& git_dir);

}  // namespace feeddiff::pack
