#pragma once
// The complete-history feed set of each source in `feeddiff site` (RFC 5005 archived feeds):
// sources/NAME/history/current.atom holds the items the current document has not yet sealed,
// each in the newest version recorded (a pulled item as an RFC 6721 tombstone), and
// archive-N.atom the sealed pages of a fixed number of items, which never change; the same
// pages as JSON Feed (.json). What the current document holds is kept beside the site's
// state, so a run reads only the versions recorded since the last one.

#include <cstddef>
#include <filesystem>
#include <string>

#include "feeddiff/changes.h"
#include "feeddiff/result.h"
#include "feeddiff/store.h"
#include "site/site_items.h"

namespace feeddiff::site {

/// What bringing one source's set up to date did.
struct HistoryFeedsReport {
  std::size_t versions = 0;  ///< versions read (those recorded since the last run)
  std::size_t parsed = 0;    ///< versions whose feed was parsed for the items they changed
  std::size_t sealed = 0;    ///< archive pages sealed by this run
  std::size_t archives = 0;  ///< archive pages the set has
  bool restarted = false;    ///< the set was built anew (first run, or its tip left the branch)
};

/// Where the set of a source is written, relative to the site's top.
std::string history_feeds_dir(const std::string& source);

/// Whether the set of the source has been written (its state is kept), so a run that did not
/// touch the source need not read its history.
bool has_history_feeds(const std::filesystem::path& state_dir, const std::string& source);

/// Applies the versions of `history` after the one the set was last brought to (every one
/// when the set is new or that version left the source's history) and writes the current
/// document, the pages sealed meanwhile (page_items items each) and the state. Each new
/// version's feed is parsed only when it added, changed or brought back an item. The items
/// of the publisher's archive (backfill commits) enter after the versions observed before
/// each commit, marked as such; they are read when the set is made anew or new_backfill
/// says that a backfill commit of the source is new.
Result<HistoryFeedsReport> write_history_feeds(const Archive& archive,
                                               const std::filesystem::path& top,
                                               const std::filesystem::path& state_dir,
                                               const std::string& source,
                                               const std::string& feed_id,
                                               const SourceHistory& history, std::size_t page_items,
                                               const WriteFile& write, bool new_backfill = false);

}  // namespace feeddiff::site
