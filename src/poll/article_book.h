#pragma once
// What poll remembers of a source's articles between runs: .git/feeddiff/articles/NAME.json
// (not committed, like state.json). Validators and the recheck schedule only: whether a page
// changed is always decided against the archive (HEAD's page.html and article.txt), so a
// poll killed between its article commits and this file loses nothing.

#include <map>
#include <string>

#include "feeddiff/core.h"
#include "feeddiff/result.h"
#include "feeddiff/store.h"

namespace feeddiff::articles {

/// One item's article.
struct Entry {
  std::string url;            ///< the item's link when last fetched
  std::string etag;           ///< ETag of the last 2xx, verbatim
  std::string last_modified;  ///< Last-Modified of the last 2xx, verbatim
  TimeMs first_seen = 0;      ///< when the article was first fetched (its schedule's origin)
  TimeMs last_fetch = 0;      ///< when it was last fetched (or found disallowed)
  TimeMs next_due = 0;        ///< when it is fetched again; 0: never
  int failures = 0;           ///< failures in a row
  std::string result;         ///< ArticleOutcome::result of the last attempt
  std::string note;           ///< its message
};

/// A source's articles by item id, and whether new items were left for the next poll.
struct Book {
  std::map<std::string, Entry> entries;  ///< by item id
  bool backlog = false;                  ///< more new items than article_cap last time
  /// The kind of network the feed last came from ("global", "loopback", "private",
  /// "link-local", "unspecified"; "" when never seen): what its links may reach when a poll
  /// rechecks articles without fetching the feed.
  std::string feed_class;
};

/// Reads the source's book; an empty one when there is none (or it does not parse: it is
/// only validators and a schedule, and the archive decides what changed).
Book load_book(const Archive& archive, const std::string& source);
/// Writes it atomically.
Status save_book(const Archive& archive, const std::string& source, const Book& book);

/// When an article first captured at first_seen is next fetched after a fetch at now:
/// every 6 hours for its first 2 days, then daily, until `until` after first_seen; 0 once
/// past that (never again).
TimeMs next_recheck(TimeMs first_seen, TimeMs now, TimeMs until);

}  // namespace feeddiff::articles
