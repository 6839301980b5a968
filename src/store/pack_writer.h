#pragma once
// Writes a set of objects from an object database as one pack with its index, durably:
// both files are fsync'd and renamed into objects/pack, the directory fsync'd after each
// rename, before the caller moves any ref.

#include <git2.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "feeddiff/result.h"

namespace feeddiff::git {
class BatchBackend;
}  // namespace feeddiff::git

namespace feeddiff::pack {

class Precompressor;

/// An object to pack, and the path it was written at: an object may be stored as a delta
/// against the previous object of the same path in the same pack (successive versions of
/// raw/ trees differ by one entry).
struct PackObject {
  git_oid id;        ///< the object
  std::string path;  ///< "" for commits, the tree's or blob's path otherwise
  /// The position in the same list of the object to try as this one's delta base (an earlier
  /// one), or kPreviousOfPath, or kWhole.
  std::size_t base = kPreviousOfPath;

  /// Try the previous object of the same path as the base.
  static constexpr std::size_t kPreviousOfPath = static_cast<std::size_t>(-1);
  /// Store the object whole.
  static constexpr std::size_t kWhole = static_cast<std::size_t>(-2);
};

/// Deltas chain at most this deep, so reading any version stays cheap (git's default too).
inline constexpr int kMaxDepth = 50;

/// Writes the objects (read from odb) as `pack-<checksum>.pack` and `.idx` in pack_dir and
/// returns the name `pack-<checksum>`. Trees are delta'd entry by entry, other objects by
/// their common prefix and suffix; a base that would chain deeper than kMaxDepth is not
/// used. The caller must hold the archive lock: leftover temporary files of an earlier
/// writer that was killed are removed first. An object stored whole whose compressed bytes
/// `made` holds is not compressed again. Objects `batch` holds are read there, in place.
Result<std::string> write_pack(git_odb* odb, const std::vector<PackObject>& objects,
                               const std::string& pack_dir, Precompressor* made = nullptr,
                               const git::BatchBackend* batch = nullptr);

/// Temporary files in objects/pack start with this; a writer holding the archive lock
/// removes any it finds (an earlier writer's, killed).
inline constexpr const char* kTempPrefix = "tmp_pack_feeddiff_";

/// Removes the temporary files a killed writer left in pack_dir (made if missing).
void remove_temporaries(const std::string& pack_dir);

/// One object of a pack as its index records it.
struct IndexEntry {
  git_oid id;            ///< the object
  std::uint64_t offset;  ///< where its entry starts in the pack
  std::uint32_t crc;     ///< CRC-32 of the entry's bytes, as stored
};

/// The version 2 index of a pack whose trailing checksum is pack_sum; sorts entries by id.
std::string index_bytes(std::vector<IndexEntry>& entries,
                        const std::array<unsigned char, 20>& pack_sum);

/// Writes bytes to a new file at path (mode 0444) and fsyncs it.
Status write_durably(const std::string& path, std::string_view bytes);

/// Objects in the pack whose version 2 index is at idx_path (read from its fan-out table);
/// nullopt when the file is no readable version 2 index.
std::optional<std::uint32_t> index_object_count(const std::string& idx_path);

/// A pack written under temporary names, not yet in place.
struct RolledUp {
  std::string tmp_pack;     ///< the pack's temporary path
  std::string tmp_idx;      ///< its index's
  std::string name;         ///< `pack-<checksum>`: its name once in place
  std::size_t objects = 0;  ///< objects in it
};

/// Writes every object of the packs `<pack_dir>/<stem>.pack` as one new pack with its index,
/// both fsync'd, under temporary names. Entries are copied as stored (compressed, deltas
/// kept), not inflated: each one's CRC-32 is checked against its index first, and an
/// offset delta's distance to its base is rewritten. An object in several of the packs is
/// written once. The caller holds the archive lock and renames the files into place.
Result<RolledUp> roll_up(const std::vector<std::string>& stems, const std::string& pack_dir);

/// Renames a rolled-up pack into place, the pack before its index, each rename made durable
/// before the next: a reader finds a pack through its index, so never one half there.
Status install(const RolledUp& rolled, const std::string& pack_dir);

/// The lowercase hex of a checksum.
std::string hex(const std::array<unsigned char, 20>& digest);

}  // namespace feeddiff::pack
