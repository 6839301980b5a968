#pragma once
// What kind of change a commit recorded (contract: the Change-Class, Item-Summary and
// Not-A-Feed trailers poll writes), as `log` and the site show it: read from the trailers,
// or, for a commit made before poll wrote them, from the item summary cache when it holds
// the change's summary. Never by normalizing: `log` lists thousands of commits, and what
// a listing costs must be what it prints.

#include <optional>
#include <string>

#include "feeddiff/diff.h"
#include "feeddiff/store.h"

namespace feeddiff::cli {

/// A change's class and its one-line summary.
struct ChangeClass {
  /// first, items, minor, cosmetic, not-a-feed or restored (or what a newer feeddiff wrote).
  std::string name;
  /// The item summary (`3 added, 1 changed`, `cosmetic only: lastBuildDate`), or for a
  /// not-a-feed version why it is none; "" when there is nothing to say.
  std::string summary;
};

/// The class the commit's trailers record, nullopt when it has no Change-Class trailer.
std::optional<ChangeClass> class_from_trailers(const CommitInfo& commit);

/// Where the class of a source's version without trailers comes from: "first" for the
/// source's first version, else the name of its item summary in the cache (whether or not
/// the cache holds it yet); nullopt when the commit recorded no feed version of the source.
/// Costs a look at the commit's trees, so `log NAME` keeps it in its records.
std::optional<std::string> summary_key(const Archive& archive, const std::string& commit_id,
                                       const std::string& source);

/// The class a summary_key gives: first, or the class of the cached summary; nullopt when
/// the cache holds none (nothing is normalized).
std::optional<ChangeClass> class_from_key(const Archive& archive, const std::string& key);

/// The class of a commit: its trailers; else, for a commit that names a Source, from the
/// summary cache: through its "Summary-Key" (what `log NAME` records keep of summary_key)
/// when it has one, else by summary_key when `look` (a commit read from git, not a record)
/// and the cache holds any item summaries at all (an archive never summarized costs nothing).
std::optional<ChangeClass> change_class(const Archive& archive, const CommitInfo& commit,
                                        bool look = true);

/// The item cell of a change on the site: the summary as the site showed it, marked with the
/// class where the summary alone does not say it (minor, cosmetic, not a feed, restored).
/// items is the change's summary when it was computed.
std::string site_items_label(const CommitInfo& commit, const std::optional<ItemDiff>& items);

}  // namespace feeddiff::cli
