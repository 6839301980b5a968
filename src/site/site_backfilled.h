#pragma once
// The items of a feed's own archive (`feeddiff backfill`, backfill/NAME/items) as the
// complete-history set takes them in: each backfill commit of the source with the items it
// recorded first, so that the set can place them where the archive first saw them.

#include <string>
#include <vector>

#include "feeddiff/message.h"
#include "feeddiff/result.h"
#include "feeddiff/store.h"

namespace feeddiff::site {

/// One backfill commit of a source and the items it found that no earlier one had.
struct BackfillEvent {
  std::string commit;               ///< the backfill commit
  std::string observed_at;          ///< its Observed-At (when the walk ran), ISO-8601 UTC
  std::vector<BackfillItem> items;  ///< new in it, oldest first by their own dates
};

/// Whether a commit is a backfill commit (Change-Class: backfill) of a source: its name, else "".
std::string backfill_source(const CommitInfo& commit);

/// The source's backfill commits, oldest first, with their new items; none (and no walk of
/// the history) when the branch's head has no backfill/NAME/items. Otherwise the history is
/// walked for backfill/NAME/ (git log -- backfill/NAME/): called only when a set is made anew
/// or a run found a new backfill commit of the source.
Result<std::vector<BackfillEvent>> backfill_events(const Archive& archive,
                                                   const std::string& source);

}  // namespace feeddiff::site
