#pragma once
// The site's static search index, DIR/search/ (docs/site.md, "Search"): segments of
// documents, each document one item in one change with the words that appeared in it or left
// it. A change never changes, so documents and postings are only ever appended: the newest
// segment (the tail) takes them and is rewritten in place each run, a full one is sealed and
// never written again, and sealed segments are merged four of a level into one of the next,
// so a query loads O(log n) shards. The browser reads the files; this writes them.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "feeddiff/result.h"
#include "site/site_files.h"
#include "site/site_work.h"

namespace feeddiff::site {

/// Documents a document shard (seg-N/d/K.json) holds.
inline constexpr std::size_t kSearchShardDocs = 1000;
/// Sealed segments of one level merged into one of the next.
inline constexpr std::size_t kSearchMergeFanout = 4;
/// The manifest's "format": bumped when the files change shape.
inline constexpr int kSearchFormat = 1;

/// One document: an item in a change, and its words (each distinct, any order).
struct SearchDoc {
  std::string change, source, title, key, observed;
  std::vector<std::string> appeared, gone;
};

/// The shard a term's postings are in: the hex of its first two bytes (one for a one-byte
/// term).
std::string search_shard(std::string_view term);

/// The index as .feeddiff-site/search-state keeps it, and the run that appends to it.
class SearchIndex {
 public:
  /// Whether the index state exists, covers the site's tip `tip` and no run was cut short
  /// while writing the segments (else the run rebuilds the site and the index with it).
  static bool current(const std::filesystem::path& top, const std::string& tip);
  /// The index of the site at top: its state, or an empty one when `fresh` (a rebuild: the
  /// segments on disk are left for readers until the new manifest replaces them).
  static Result<SearchIndex> open(const std::filesystem::path& top, std::size_t segment_docs,
                                  bool fresh);

  /// A rebuild that re-uses the pages takes over the index the state moved aside to
  /// old_state held: every sealed segment whose documents all came from commits of the new
  /// history (fresh, oldest first) is kept as it is, and the documents of those commits in the
  /// next segment (the one the histories part in, or the tail) are added again from its own
  /// files. Returns how many commits of fresh, from the oldest, the index then covers: their
  /// documents must not be added again. 0 when the old index cannot be read.
  Result<std::size_t> keep_shared(const std::filesystem::path& old_state, CommitSpool& fresh,
                                  Writes& writes);
  /// Appends a change's documents (in the history's order); a tail that fills up is written
  /// and sealed (and merged) at once.
  Status add(std::vector<SearchDoc> docs, Writes& writes);
  /// Writes the tail and the manifest (the segments sealed and merged were written as the
  /// run went).
  Status write(Writes& writes);
  /// Records the index as covering tip (after the segments are on disk).
  Status save(const std::string& tip);
  /// Removes segments no longer in the manifest (merged ones, a rebuild's old ones).
  void remove_dropped();
  /// Documents added by this run.
  std::size_t added() const { return added_; }

 private:
  struct Segment {
    std::size_t number = 0, level = 0, docs = 0;
    bool sealed = false;
  };
  SearchIndex(std::filesystem::path top, std::size_t segment_docs)
      : top_(std::move(top)), segment_docs_(segment_docs) {}
  std::filesystem::path dir(std::size_t number) const;
  Status mark_dirty();
  Status flush_tail(Writes& writes);
  Status seal(Writes& writes);
  Status merge(Writes& writes);
  std::string manifest() const;
  void read_state(const std::string& text);
  Result<std::size_t> add_again(const Segment& s, std::size_t docs, std::size_t covered,
                                CommitSpool& fresh, Writes& writes);

  std::filesystem::path top_;
  std::size_t segment_docs_;
  std::vector<Segment> segments_;  // oldest first; the last one the tail unless sealed
  std::size_t next_ = 1;           // the next segment's number
  bool dirty_ = false;             // the dirty mark is written
  std::size_t added_ = 0;
  // The tail's documents and postings added by this run, not yet in its files.
  std::vector<SearchDoc> new_docs_;
  std::map<std::string, std::map<std::string, std::vector<std::uint32_t>>> new_postings_;
};

}  // namespace feeddiff::site
