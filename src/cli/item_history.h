#pragma once
// Reads one source's versions, oldest first, and follows its items through them: what
// `feeddiff history` and the site's item pages show.

#include <optional>
#include <string>
#include <vector>

#include "feeddiff/diff.h"
#include "feeddiff/render.h"
#include "feeddiff/store.h"

namespace feeddiff::cli {

/// A source's versions and the life of its items.
struct SourceHistory {
  std::vector<HistoryVersion> versions;  ///< oldest first (href left empty)
  std::vector<std::string> blobs;        ///< each version's blob id ("" when it was deleted)
  ItemTracker items;                     ///< every item's life, events indexed by version
  std::size_t parsed = 0;                ///< versions normalized (the others came from the cache)
};

/// Walks the commits of raw/<source>/ (from the source index), oldest first, and diffs each
/// version's items with the last readable version before it. Each diff comes from the
/// archive's item-summary cache when it holds one (poll and show write it), else both
/// versions are normalized (each at most once) and the summary is cached. The cache
/// history/<source> keeps what each version was (commit, time, blob, summary name), appended
/// to, so a later call reads from git only the versions recorded since; a record that no
/// longer names the source's commit at its place (a reset, a replay) ends what is trusted.
/// An empty history for a source that has no recorded change.
Result<SourceHistory> read_source_history(const Archive& archive, const std::string& source);

/// The id of an item whose link is `link`, looking in the newest version first, then older
/// ones; nullopt when no version has one.
Result<std::optional<std::string>> item_with_link(const Archive& archive,
                                                  const SourceHistory& history,
                                                  const std::string& link);

/// observed_at of a commit: its Observed-At trailer, else its commit time, ISO-8601 UTC.
std::string observed_time(const CommitInfo& commit);

}  // namespace feeddiff::cli
