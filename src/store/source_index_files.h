#pragma once
// The source index's files under .git/feeddiff/index/ (source_index_files.cc describes them):
// the tip, each source's records, and writing what a catch-up learnt. Internal to store.

#include <git2.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/result.h"

namespace feeddiff::source_index {

/// An escaped name longer than this could exceed a file system's name limit; such a name
/// under raw/ makes the index decline (the caller walks), which no feeddiff source reaches.
inline constexpr std::size_t kMaxFileName = 200;

/// A source name as a file name on any file system: lowercase letters, digits, '_', '-' and
/// a '.' not leading stay; everything else (uppercase too, for case-insensitive file
/// systems) becomes %XX.
std::string escape(std::string_view name);

/// What the tip file says: the index is complete up to commit `id`.
struct Tip {
  unsigned generation = 0;                      ///< the g<N> directory the records are in
  git_oid id{};                                 ///< the newest commit indexed
  std::uint32_t depth = 0;                      ///< its first-parent depth (the root is 1)
  std::map<std::string, std::uint64_t> counts;  ///< records per source, by escaped name
};

/// The tip under dir; nullopt when missing or not exactly what persist() writes.
std::optional<Tip> load_tip(const std::string& dir);

/// The tip's header, and the record count of one source (by escaped name; 0 when the tip
/// lists none): what a reader needs when the index is already at the branch's head.
struct TipOf {
  Tip tip;                  ///< generation, id and depth; counts left empty
  std::uint64_t count = 0;  ///< the source's records
};

/// The tip under dir read for one source: checked whole, as load_tip does, but only that
/// source's line is parsed (a reader of one source need not build a map of every source).
std::optional<TipOf> load_tip_of(const std::string& dir, std::string_view name);

/// The directory of a generation's files.
std::string generation_dir(const std::string& dir, unsigned generation);

/// The bytes of records [from, to) of a source's file; nullopt when the file cannot cover them.
std::optional<std::string> read_bytes(const std::string& path, std::uint64_t from,
                                      std::uint64_t to);

/// A record's depth (at offset 20) or checksum (at 24): four bytes, little-endian.
std::uint32_t le32(const unsigned char* r);

/// The checksum of a record's first 24 bytes (commit id and depth).
std::uint32_t record_check(const unsigned char* bytes);

/// Records [from, to) of a source's file, oldest first; nullopt when the file cannot cover
/// them or one is garbled, or their depths are not rising and within max_depth. With depths,
/// each record's depth goes there.
std::optional<std::vector<git_oid>> read_records(const std::string& path, std::uint64_t from,
                                                 std::uint64_t to, std::uint32_t max_depth,
                                                 std::vector<std::uint32_t>* depths = nullptr);

/// What a catch-up learnt: the commits after the tip (or all, for a rebuild), oldest first,
/// each with the escaped names it touched.
struct Pending {
  bool rebuild = false;  ///< a new generation, from the root
  /// Rewound (see rewind): the tip's records are a prefix of its generation's files, copied
  /// into a new generation before the new ones are appended.
  bool copy = false;
  std::uint32_t base_depth = 0;                   ///< depth of the commit before the first one here
  std::vector<git_oid> ids;                       ///< the commits, oldest first
  std::vector<std::vector<std::string>> touched;  ///< the escaped names each touched
};

/// Writes what a catch-up learnt after old_tip: the records first, then the tip. Returns the
/// tip it wrote.
Result<Tip> persist(const std::string& dir, const std::optional<Tip>& old_tip, const Pending& p);

}  // namespace feeddiff::source_index
