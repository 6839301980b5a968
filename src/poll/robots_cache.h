#pragma once
// Each origin's robots.txt, cached across polls in .git/feeddiff/cache/robots/ (a cache:
// never committed, rebuilt when missing) as RFC 9309 section 2.4 allows: a copy serves for
// at most 24 hours, then is asked for again with conditional GET; while the file is
// unreachable (5xx, 429, no answer) the cached copy keeps serving, up to 30 days.

#include <optional>
#include <string>

#include "feeddiff/core.h"
#include "feeddiff/store.h"

namespace feeddiff::articles {

/// How long a cached robots.txt decides without being asked again (RFC 9309 2.4: "SHOULD
/// NOT use the cached version for more than 24 hours, unless the robots.txt file is
/// unreachable").
inline constexpr TimeMs kRobotsFresh = 24 * 3'600'000LL;
/// How long a cached copy serves while the origin's robots.txt is unreachable (RFC 9309
/// 2.3.1.4 names 30 days as a reasonably long period); after that its pages wait.
inline constexpr TimeMs kRobotsUnreachableKeep = 30 * 24 * 3'600'000LL;
/// The cache's bound: its files together (each robots.txt is read up to 512 KiB), the
/// least recently written removed first.
inline constexpr std::size_t kRobotsCacheBytes = 8u << 20;

/// One origin's robots.txt as last fetched.
struct CachedRobots {
  std::string origin;         ///< scheme://host[:port]
  TimeMs fetched = 0;         ///< when it was fetched, or confirmed by a 304
  bool found = true;          ///< false: a 4xx (no robots.txt: everything allowed)
  std::string etag;           ///< its validators, sent back when it is asked again
  std::string last_modified;  ///< see etag
  std::string body;           ///< the file, when found
};

/// The origin's cached robots.txt; nullopt when there is none, or its file is not whole.
std::optional<CachedRobots> load_robots(const Archive& archive, const std::string& origin);

/// Caches it, best effort (a read-only archive caches nothing).
void save_robots(const Archive& archive, const CachedRobots& robots);

/// Keeps the cache within kRobotsCacheBytes, removing the files written longest ago first.
void prune_robots(const Archive& archive);

}  // namespace feeddiff::articles
