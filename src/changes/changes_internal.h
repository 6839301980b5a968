#pragma once
// What the changes module's files share and its contract leaves out: helpers of one file
// that another (or a test) needs.

#include <optional>
#include <string>
#include <string_view>

#include "feeddiff/changes.h"

namespace feeddiff {

/// The cache's format, for tests: after this line, one `v` line per version (commit, blob,
/// the keys of the ids it showed first: item_id_key in 32 hex digits), tab-separated,
/// appended as versions are learnt. A reader uses the complete, well-formed lines up to the
/// first that is not (a write cut short) or whose commit is not the history's at its place.
inline constexpr const char* kVersionsCacheHeader = "feeddiff versions 3";

/// The key an item id is remembered by.
ItemIdKey item_id_key(std::string_view id);

/// The web page of a commit when the archive's origin is on GitHub, GitLab or Codeberg.
std::optional<std::string> forge_commit_url(const std::string& remote, const std::string& id);

/// observed_at of a commit: its Observed-At trailer, else its commit time, ISO-8601 UTC.
std::string observed_time(const CommitInfo& commit);

/// The class a summary_key gives: first, or the class of the cached summary; nullopt when
/// the cache holds none (nothing is normalized).
std::optional<ChangeClass> class_from_key(const Archive& archive, const std::string& key);

/// The cache entry that keeps the summary key of a commit without class trailers (one poll
/// wrote before it recorded classes): what `log` reads to name its class.
std::string summary_key_entry(const std::string& commit_id);

/// Keeps key as the summary key of a commit that has no class trailers (nothing for one that
/// has: its trailers say its class).
void remember_summary_key(const Archive& archive, const CommitInfo& commit, const std::string& key);

}  // namespace feeddiff
