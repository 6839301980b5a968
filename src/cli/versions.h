#pragma once
// What earlier versions of a source held: which item ids it has ever shown, and each
// version's raw blob. An item diff knows two versions only; this is what lets a page say
// that an added item reappeared, or that a version reverted to an earlier one.

#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cli/oid.h"
#include "feeddiff/result.h"
#include "feeddiff/store.h"

namespace feeddiff::cli {

/// The key an item id is remembered by: the first 16 bytes of its SHA-1. Two ids of one
/// source share a key only through a search of about 2^64 hashes, so no feed can make an
/// added item read as reappeared by choosing its ids (64 bits took about 2^32).
struct ItemIdKey {
  std::uint64_t high = 0;  ///< bytes 0-7 of the SHA-1, big-endian
  std::uint64_t low = 0;   ///< bytes 8-15
  /// Same key.
  bool operator==(const ItemIdKey&) const = default;
  /// Ordered as the hex is, for the cache's lines.
  auto operator<=>(const ItemIdKey&) const = default;
};

/// Hashes an ItemIdKey (its bits are a SHA-1's already).
struct ItemIdKeyHash {
  /// The high half.
  std::size_t operator()(const ItemIdKey& key) const noexcept {
    return static_cast<std::size_t>(key.high);
  }
};

/// The versions of one source, oldest first, as its commits in the source index list them,
/// with what the cache `.git/feeddiff/cache/versions/` knows of them. Reading an id of
/// version k means normalizing its body, once: the cache keeps, per version, its commit,
/// its raw blob and the ids it showed first, so a later call parses only versions recorded
/// since. A cache that no longer fits the history (rewritten, or another source's) is
/// dropped and rebuilt.
class SourceVersions {
 public:
  /// The source's commits from the index, and the cache; parses nothing yet.
  static Result<SourceVersions> load(const Archive& archive, const std::string& source);

  /// The position of a commit among the source's versions (0: the first), nullopt when it
  /// is not one of them.
  std::optional<std::size_t> ordinal(const std::string& commit) const;
  /// Reads versions [known, n) that the cache lacks (n at most the count of versions), then
  /// writes the cache when it learnt something. Versions that do not parse show no ids.
  void learn(std::size_t n);
  /// Whether a version before `ordinal` showed the id (learn(ordinal) first).
  bool seen_before(const std::string& id, std::size_t ordinal) const;
  /// The newest version before ordinal - 1 whose raw blob is `blob`: the commit id a version
  /// byte-identical to an older one (not its parent) reverted to (learn(ordinal) first).
  std::optional<std::string> reverted_to(const std::string& blob, std::size_t ordinal) const;
  /// Writes the cache when this object learnt versions it does not hold yet (learn() writes
  /// it only as the versions known double, or on reaching the newest): call it before
  /// dropping an object that a later one, loaded from the cache, is to continue.
  void save();
  /// Reads through this archive from now on (the same repository, opened again).
  void use(const Archive& archive) { archive_ = &archive; }
  /// The source whose versions these are.
  const std::string& source() const { return source_; }
  /// Versions parsed by learn() in this process (for measuring).
  std::size_t parsed() const { return parsed_; }

 private:
  SourceVersions(const Archive& archive, std::string source)
      : archive_(&archive), source_(std::move(source)) {}
  void add_known(const Oid& blob);  // the next version's blob (all zeros for none)
  // Ids in 20 bytes: `site` keeps one of these per source for a whole run.
  const Archive* archive_;
  std::string source_;
  std::vector<Oid> commits_;  // oldest first
  std::vector<Oid> blobs_;    // of versions [0, known): the raw blob, all zeros for none
  // Item ids by the first 16 bytes of their SHA-1 (ItemIdKey), not as strings: at 1M
  // changes that is still far less for site to hold. Every id the source ever showed is
  // here, as "reappeared" needs: as many as the history holds distinct ids, no more.
  std::unordered_map<ItemIdKey, std::uint32_t, ItemIdKeyHash> first_seen_;  // -> ordinal
  std::unordered_map<Oid, std::uint32_t, OidHash> last_with_blob_;  // blob -> newest ordinal
  std::vector<std::uint32_t> previous_same_;  // per ordinal: the one before with its blob
  std::size_t written_ = 0;                   // versions the cache held when last read or written
  // The keys first seen by versions [written_, known), one list per version: what save()
  // appends. The cache is rewritten whole only when it was missing, of another format, or
  // did not fit the history (rewrite_), so a save costs the versions learnt since the last.
  std::vector<std::vector<ItemIdKey>> pending_;
  bool rewrite_ = true;
  mutable std::size_t last_ordinal_ = ~std::size_t{0};  // ordinal()'s last answer
  std::size_t parsed_ = 0;
};

/// The name under .git/feeddiff/cache of a per-source value of this kind ("versions",
/// "history"): the source's name as hex (cut and hashed when long), as cache names allow.
std::string source_cache_name(std::string_view kind, std::string_view source);

/// The cache's format, for tests: after this line, one `v` line per version (commit, blob,
/// the keys of the ids it showed first: item_id_key in 32 hex digits), tab-separated,
/// appended as versions are learnt. A reader uses the complete, well-formed lines up to the
/// first that is not (a write cut short) or whose commit is not the history's at its place.
inline constexpr const char* kVersionsCacheHeader = "feeddiff versions 3";

/// The key an item id is remembered by.
ItemIdKey item_id_key(std::string_view id);

}  // namespace feeddiff::cli
