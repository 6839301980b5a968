#pragma once
// The site's search: for each change the site renders, the words each item gained and lost
// (its documents), handed to the static index (site_search_index.h) in the history's order,
// and the page that queries it (search.html, search.js). Words are counted where the change
// is already loaded for its page, so a run costs its new changes only.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/changes.h"
#include "feeddiff/normalize.h"
#include "feeddiff/result.h"
#include "site/site_files.h"
#include "site/site_search_index.h"
#include "site/site_work.h"

namespace feeddiff::site {

/// Bytes of the longest token indexed: longer ones are dropped, not cut.
inline constexpr std::size_t kMaxTokenBytes = 64;
/// Distinct words of one item's text that count (the first in text order): a hostile feed
/// cannot grow the index past this per document.
inline constexpr std::size_t kMaxDocumentWords = 2000;
/// Documents one change gives at most (items beyond are not indexed).
inline constexpr std::size_t kMaxChangeDocuments = 1000;

/// Calls visit with each token of text: runs of bytes that are ASCII letters or digits or
/// >= 0x80 (a UTF-8 sequence stays whole), ASCII letters lowercased, no other folding; a run
/// longer than kMaxTokenBytes, or not valid UTF-8, is dropped. search.js splits the same way.
void for_each_token(std::string_view text, const std::function<void(std::string_view)>& visit);

/// The JavaScript of search.html (search.js).
extern const char* const kSearchScript;

/// What build_site asks of the search in a run.
class SiteSearch {
 public:
  /// Whether the index covers the site's tip (else the run rebuilds).
  static bool current(const std::filesystem::path& top, const std::string& tip) {
    return SearchIndex::current(top, tip);
  }
  /// The index of the site at top (a new one when fresh), with its spool in work; the
  /// files it writes are counted in writes.
  static Result<SiteSearch> open(const std::filesystem::path& top,
                                 const std::filesystem::path& work, std::size_t segment_docs,
                                 bool fresh, Writes& writes);

  /// A rebuild that re-uses pages keeps what the old index holds of the shared history
  /// (SearchIndex::keep_shared); how many commits of fresh, oldest first, it covers.
  Result<std::size_t> keep_shared(const std::filesystem::path& old_state, CommitSpool& fresh) {
    return index_.keep_shared(old_state, fresh, *writes_);
  }
  /// Counts the documents of a loaded change, kept until the next call.
  void collect(const LoadedChange& change, const std::string& observed);
  /// Loads a change for its documents alone (a page a rebuild re-uses).
  Status collect_commit(const Archive& archive, const std::string& id, SourceVersions* versions);
  /// The documents collected last, to the run's spool; where they are.
  Result<std::uint64_t> spool();
  /// The documents spooled at `at` to the index.
  Status index(std::uint64_t at);
  /// The documents collected last to the index.
  Status index_last();
  /// Writes the index's tail and manifest, search.html and search.js.
  Status write();
  /// Records what the index holds, then drops what it no longer lists.
  Status save(const std::string& tip) { return index_.save(tip); }
  void remove_dropped() { index_.remove_dropped(); }
  std::size_t added() const { return index_.added(); }

 private:
  // A version's item model and the words of the items asked about so far.
  struct Version {
    Blob body;
    std::shared_ptr<const Feed> feed;
    std::map<std::size_t, std::vector<std::string>> words;
    const std::vector<std::string>& item_words(std::size_t index);
  };
  SiteSearch(std::filesystem::path top, SearchIndex index, RowSpool spool, Writes& writes)
      : top_(std::move(top)),
        index_(std::move(index)),
        spool_(std::move(spool)),
        writes_(&writes) {}
  static Version parse(const Blob& body);

  std::filesystem::path top_;
  SearchIndex index_;
  RowSpool spool_;
  Writes* writes_;
  std::vector<SearchDoc> last_;
  Version previous_;  // the newest version parsed: the next change's old one, usually
};

}  // namespace feeddiff::site
