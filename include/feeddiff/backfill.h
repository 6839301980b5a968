#pragma once
// backfill: the publisher's own archive of a feed (docs/backfill.md). From the feed's current
// document (its newest recorded version) it follows RFC 5005 `prev-archive` links (Atom, or
// atom:link in RSS), a paged feed's `next` (RFC 5005 section 3: older entries) and JSON
// Feed's `next_url`, fetching each page as politely as poll fetches a feed, and records what
// it found in one commit of its own kind (Change-Class: backfill) under backfill/NAME/, which
// no reader of feed versions takes for an observed version.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/core.h"
#include "feeddiff/fetch.h"
#include "feeddiff/message.h"
#include "feeddiff/poll.h"
#include "feeddiff/result.h"
#include "feeddiff/store.h"

namespace feeddiff {

/// Pages a walk fetches at most unless told otherwise (`--max-pages`).
inline constexpr std::size_t kDefaultBackfillPages = 100;

/// How a page was reached, which says whether it may change: an RFC 5005 archive document
/// (prev-archive) never should; a paged feed's page or a JSON Feed's next_url page shifts as
/// the feed grows.
enum class BackfillLink {
  prev_archive,  ///< RFC 5005 section 4: rel="prev-archive"
  next_page,     ///< RFC 5005 section 3: rel="next" in a paged feed (older entries)
  next_url,      ///< JSON Feed 1.1: next_url
};

/// The links of a feed document that lead to older entries, as the document gives them
/// (relative ones resolved against base_url).
struct ArchiveLinks {
  std::optional<std::string> prev_archive;  ///< rel="prev-archive"
  std::optional<std::string> next_page;     ///< rel="next"
  std::optional<std::string> next_url;      ///< JSON Feed's next_url
};

/// The archive links of a feed document's channel (Atom `link`, RSS `atom:link`, JSON Feed
/// `next_url`), resolved against base_url; nothing for a body that does not parse.
ArchiveLinks archive_links(std::string_view body, std::string_view base_url);

/// The one link a walk follows from a page with these links, and how it was reached:
/// prev-archive first, then next, then next_url. nullopt at the last page.
std::optional<std::pair<std::string, BackfillLink>> next_archive_link(const ArchiveLinks& links);

/// `reference` resolved against the absolute URL `base` (RFC 3986 section 5.2: scheme,
/// authority, path with dot segments removed, query; the fragment dropped).
std::string resolve_url(std::string_view base, std::string_view reference);

/// What a walk does, and how politely.
struct BackfillOptions {
  std::string name;                               ///< the source
  std::size_t max_pages = kDefaultBackfillPages;  ///< pages fetched at most (the current excluded)
  TimeMs delay = 1000;                            ///< between two requests to one host
  bool wait_for_lock = false;                     ///< wait for a running command instead of failing
  TimeMs now = 0;                                 ///< the clock; 0 reads now_ms()
  FetchOptions fetch;                             ///< identity (user agent)
  FetchRequest limits;  ///< timeouts, body cap, redirects (url and validators unused)
  /// The kind of network the feed came from (SourceOutcome::address_class of a poll just
  /// made): what its archive links may reach besides the Internet. nullopt: the kind of
  /// address the configured URL's host names when it is numeric, else the Internet only.
  std::optional<AddressClass> feed_class;
  /// Called as each page is settled (for a progress line); may be empty.
  std::function<void(std::size_t page, std::string_view url)> on_page;
};

/// One page of the walk (page 1 is the current document, read from the archive).
struct BackfillPage {
  std::size_t number = 0;  ///< 1 for the current document, then 2, 3, ...
  std::string url;         ///< as requested, credentials removed
  std::string key;         ///< its directory under backfill/NAME/ ("" for page 1)
  /// current (page 1), new, changed (its bytes differ from those recorded), unchanged
  /// (byte-identical, or 304 to the recorded validators)
  std::string result;
  long status = 0;                                ///< HTTP status, 0 for page 1
  std::size_t bytes = 0;                          ///< body bytes
  std::size_t items = 0;                          ///< items the page holds
  BackfillLink via = BackfillLink::prev_archive;  ///< how it was reached (not for page 1)
};

/// Why a walk stopped.
enum class BackfillStop {
  last_page,   ///< a page with no link to older entries: the end of the archive
  loop,        ///< a link back to a page already walked
  page_cap,    ///< max_pages reached with a link still to follow
  not_a_feed,  ///< a page that is no feed (an HTML page, a bot challenge, ...)
  failed,      ///< a fetch failed or answered other than 2xx/304
};

/// What a walk found and recorded.
struct BackfillReport {
  std::string name;                             ///< the source
  std::vector<BackfillPage> pages;              ///< in walk order, page 1 first
  BackfillStop stop = BackfillStop::last_page;  ///< why it stopped
  /// One line saying where and why it stopped, e.g. `backfill: NAME: archive links loop at
  /// URL (page 2); stopped` (URLs are the feed's text: escape where shown).
  std::string stop_line;
  /// Archive pages (RFC 5005 prev-archive) whose bytes changed since they were recorded,
  /// one line each: such a page should never change.
  std::vector<std::string> warnings;
  std::size_t items = 0;      ///< distinct items of the archive pages recorded, all runs
  std::size_t new_items = 0;  ///< of which this run found first
  std::string oldest;         ///< the oldest item date (ISO 8601), "" when none is dated
  std::string newest;         ///< the newest item date
  std::string commit;         ///< the backfill commit, "" when nothing new was found
  /// Whether any page was recorded in this run or an earlier one before a failure stopped
  /// the walk (a partial walk: exit 1 rather than 2).
  bool partial = false;
};

/// Walks source options.name's own archive from its newest recorded version (not fetched
/// again) and records every page new or changed since the last walk, with the items of all
/// recorded pages, as one commit (title `NAME: publisher's archive (...)`, trailers Source,
/// Change-Class: backfill, Backfill-Summary, Backfill-Stop, Backfill-Page per page walked).
/// Pages are fetched one at a time (options.delay apart per host), conditionally against
/// what was recorded, with the source's credentials only on their origin, and with
/// link_from set (a page's links are the publisher's word, not the user's). Errors:
/// Errc::not_found (no such source, or no version recorded yet), Errc::locked, store's
/// errors; a page that fails is a stop (BackfillStop::failed), not an error.
Result<BackfillReport> backfill(Archive& archive, const BackfillOptions& options);

/// A walk's report as a terminal shows it (docs/backfill.md).
struct BackfillText {
  /// A line per page (`backfill: NAME: page N RESULT (...) URL`), the stop line unless it
  /// failed, and what was recorded: for stdout.
  std::string out;
  /// Warnings about archive pages that changed, and the stop line of a failed walk: for stderr.
  std::string err;
  bool failed = false;  ///< the walk stopped on a failure or a page that was not a feed
};
/// See BackfillText; text from pages is escaped for the terminal.
BackfillText backfill_text(const BackfillReport& report);

/// `add --backfill`: polls the new source (forced, whatever its schedule), then backfills it
/// with the poll's view of where the feed came from. The poll's outcome for the source is
/// given back with the walk; a poll that recorded no version is an Errc::not_found error
/// naming its message.
struct FirstPollReport {
  SourceOutcome poll;       ///< the source's first poll
  BackfillReport backfill;  ///< the walk after it
};
/// See FirstPollReport.
Result<FirstPollReport> poll_and_backfill(Archive& archive, const BackfillOptions& options);

}  // namespace feeddiff
