#pragma once
// poll: the cron entry point's engine. Picks the sources that are due, fetches them
// concurrently and politely, commits every changed body as one commit per source, and
// remembers validators, schedules, failures and redirects in the state file.

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "feeddiff/config.h"
#include "feeddiff/core.h"
#include "feeddiff/diff.h"
#include "feeddiff/fetch.h"
#include "feeddiff/message.h"
#include "feeddiff/result.h"
#include "feeddiff/store.h"

namespace feeddiff {

// ---- The poll state: what poll remembers between runs, in .git/feeddiff/state.json ----

/// A change whose notification waits for `after` (NotifySettings::after): it notifies only
/// once it is still there that many polls in a row.
struct HeldNotification {
  std::string commit;  ///< the change's commit (full id)
  unsigned polls = 1;  ///< polls that have seen it so far, the one that recorded it included
  /// Equal when both members are.
  bool operator==(const HeldNotification&) const = default;
};

/// Poll state of one source: validators, schedule, failures, redirects. Not committed.
struct SourceState {
  std::string etag;                ///< last ETag, verbatim
  std::string last_modified;       ///< last Last-Modified, verbatim
  TimeMs last_attempt = 0;         ///< when it was last fetched
  TimeMs last_success = 0;         ///< when a fetch last succeeded
  TimeMs last_change = 0;          ///< when a change was last committed
  std::string last_result;         ///< added, changed, unchanged, not-modified, failed
  std::string last_error;          ///< the failure's one-line message, if it failed
  long last_status = 0;            ///< HTTP status of the last response, 0 for none
  int consecutive_failures = 0;    ///< failures since the last success
  TimeMs next_due = 0;             ///< not fetched before this (0: now)
  std::string pending_redirect;    ///< a permanent redirect target seen, not yet adopted
  int pending_redirect_count = 0;  ///< how many polls in a row saw it
  bool disabled = false;           ///< set by 410 Gone; cleared by `enable`
  std::string disabled_reason;     ///< why it was disabled
  /// Why the items of the newest recorded version could not be read (its raw body is
  /// archived all the same), empty when they could or when no change was read yet.
  std::string items_error;
  /// Commits whose hooks ([notify]) have not all succeeded yet, oldest first; the next poll
  /// runs their hooks again. Bounded (kMaxPendingNotifications): the oldest go first.
  std::vector<std::string> pending_notifications;
  /// The last hook failure's one-line message, "" once every hook succeeded.
  std::string notify_error;
  /// Changes held by `after`, oldest first; each notifies once it has stayed, or is dropped
  /// (and named in notify_reverted) when a poll finds it gone.
  std::vector<HeldNotification> held_notifications;
  /// The last held change that went before it notified, as status shows it: "3f2a9c1
  /// reverted after 1 poll (2026-10-05T05:00:00Z), not notified"; "" when none did.
  std::string notify_reverted;
  /// Why the last 200 response was not a feed (FeedCheck::reason), "" once a feed came back.
  std::string not_a_feed;
  /// When the run of not-a-feed responses began (0 when not_a_feed is empty).
  TimeMs not_a_feed_since = 0;
  /// The commit that recorded the newest not-a-feed response ("" when it was unchanged).
  std::string not_a_feed_commit;
};

/// Undelivered notifications kept per source; past this the oldest are dropped (with a note).
inline constexpr std::size_t kMaxPendingNotifications = 100;

/// The state of every source, by name.
struct State {
  std::map<std::string, SourceState> sources;  ///< keyed by source name
};

/// Reads `.git/feeddiff/state.json` (Archive::private_dir); an empty State when the file does not
/// exist.
Result<State> load_state(const Archive& archive);
/// Writes `.git/feeddiff/state.json` atomically (temporary file, fsync, rename, directory
/// fsync).
Status save_state(const Archive& archive, const State& state);

// ---- Polling ----

/// A permanent redirect (301/308) becomes the source's URL after this many polls in a row saw it.
inline constexpr int kAdoptRedirectAfter = 3;

/// What happened to one source in a poll.
enum class Outcome {
  added,         ///< first version recorded
  changed,       ///< a new version recorded
  unchanged,     ///< 200 with a body byte-identical to the stored one: no commit
  not_modified,  ///< 304: no commit
  failed,        ///< network error, bad status or bad body: no commit, backoff
  gone,          ///< 410: no commit, the source is disabled until `feeddiff enable`
  not_due,       ///< skipped: its next poll is later
  disabled,      ///< skipped: disabled after a 410
  /// 200 with a body that is not a feed (check_feed): archived at raw/NAME/not-a-feed (a
  /// commit unless byte-identical to the stored one), never item-diffed; a failure for the
  /// exit code and the backoff
  not_a_feed,
  /// the feed came back byte-identical to its last feed version after not-a-feed responses:
  /// a commit that only deletes raw/NAME/not-a-feed
  restored,
};

/// The word used for an outcome in output and state: "changed", "not-modified", ...
const char* outcome_name(Outcome outcome);

/// One source's result.
struct SourceOutcome {
  std::string name;                    ///< the source
  Outcome outcome = Outcome::not_due;  ///< what happened
  std::string message;                 ///< one line: the failure, or what was recorded
  std::string commit;         ///< the new commit's id, for added, changed, restored and not_a_feed
  long status = 0;            ///< HTTP status, 0 when none
  std::size_t bytes = 0;      ///< body size, for added, changed and unchanged
  TimeMs next_due = 0;        ///< when it will next be fetched
  std::string redirect_note;  ///< a permanent redirect seen or adopted
  /// The kind of network the feed came from this poll (FetchResponse::address_class):
  /// what the links of its items may reach (FetchRequest::link_from); nullopt when it was
  /// not fetched.
  std::optional<AddressClass> address_class;
  /// Credentials of the source that were not sent, and why (their origin is not the URL's).
  std::string credentials_note;
  /// The Change-Class trailer of the commit made (first, items, minor, cosmetic, not-a-feed,
  /// restored), "" when none was made or its class is unknown.
  std::string change_class;
  /// For not_a_feed: why the body is no feed (FeedCheck::reason, text from the body: escape
  /// it where it is shown).
  std::string not_a_feed;
};

/// What happened to one article page in a poll's article phase (docs/articles.md).
struct ArticleOutcome {
  std::string source;   ///< the source whose item links to it
  std::string item_id;  ///< the item's id (text from the feed: escape it where shown)
  std::string url;      ///< the page's URL, credentials removed
  /// added, changed, uncertain (archived, not an edit), noted (the page's bytes changed, its
  /// text did not: no commit), unchanged, not-modified, disallowed (robots.txt), failed
  std::string result;
  std::string message;  ///< one line: what was recorded, or why not (text from the page)
  std::string commit;   ///< the version's commit, for added, changed and uncertain
};

/// The outcome of a poll, source by source, in config order.
struct PollReport {
  std::vector<SourceOutcome> sources;  ///< one per source considered
  /// The article phase's pages, source by source; never a failure of the poll.
  std::vector<ArticleOutcome> articles;
  /// Why the article phase stopped early (its commits so far are kept), or "".
  std::string articles_error;
  ConsolidateReport packs;  ///< what the poll's pack consolidation did
  /// Why consolidating the packs failed (the changes are recorded all the same), or "".
  std::string packs_error;
  /// How many sources failed, are gone or answered with something that is not a feed.
  std::size_t failures() const;
};

/// Whether an outcome is a failure of the poll (exit 1, stderr): failed, gone, not a feed.
bool is_failure(Outcome outcome);

/// A source's line as `poll` prints it, escaped for a terminal: `NAME: changed (1,234 bytes,
/// HTTP 200) abc1234`, `NAME: failed: WHY (retry in 20m)`, ..., with the redirect and
/// credentials notes in brackets. `now` measures the time to the next poll.
std::string outcome_line(const SourceOutcome& outcome, TimeMs now);
/// An article page's line, escaped: `NAME: article changed: HEADLINE abc1234`, or for the
/// other results `NAME: article RESULT: WHY (URL)`.
std::string article_line(const ArticleOutcome& article);
/// `articles: stopped early, ...: WHY`, escaped; "" when the article phase ran to its end.
std::string articles_error_line(const PollReport& report);
/// `packs: not consolidated: WHY (...)`, escaped; "" when consolidating did not fail.
std::string packs_error_line(const PollReport& report);
/// `packs: N rolled up into one (...)`; "" when no pack was rolled up.
std::string packs_rolled_line(const PollReport& report);

/// One poller's part of a fleet: shard `index` of `count` (`poll --shard K/N`, K from 0).
struct Shard {
  unsigned index = 0;  ///< K: 0 <= K < N
  unsigned count = 1;  ///< N: how many pollers share the sources
  /// Field by field.
  bool operator==(const Shard&) const = default;
};

// ---- Articles: the pages items link to (docs/articles.md) ----

/// The directory of an item's article in the archive: `articles/<source>/<hh>/<key>/`, key
/// the first 20 hex digits of the SHA-1 of the item's id and hh its first two, so that a
/// source's tens of thousands of articles fan out into 256 directories. page.html (the page
/// byte for byte) and article.txt (format_article_file) live there.
std::string article_dir(std::string_view source, std::string_view item_id);

/// Whether robots.txt lets `agent` (a product token such as "feeddiff", matched
/// case-insensitively against User-agent lines, else the `*` group) fetch `path` (path and
/// query): RFC 9309's longest matching Allow or Disallow rule wins, Allow on a tie; `*` and
/// a final `$` in rules; no group or no rule matching: allowed.
bool robots_allows(std::string_view robots_txt, std::string_view agent, std::string_view path);

/// Why an archived page's extraction is not to be trusted as the article, or "" when it
/// can be: a status that is not 2xx; no text at all; a page that needs JavaScript; a bot
/// challenge, consent wall, paywall or error page (by their words, docs/articles.md); fewer
/// than kArticleMinWords words; or, when previous_words is not 0, fewer than half of them.
/// `text` is the extracted body ("" when there is none), `html` the page.
std::string article_doubt(long status, std::string_view html, std::string_view title,
                          std::string_view text, std::size_t previous_words);

/// Words under which an article's text is in doubt.
inline constexpr std::size_t kArticleMinWords = 50;

/// Reads `K/N` (0 <= K < N <= kMaxShards). Errc::usage with the reason otherwise.
Result<Shard> parse_shard(std::string_view text);

/// The shard of `count` that polls a source: its `shard = K` when set, else a stable hash
/// (FNV-1a, the same on every machine and release) of its URL's host, lower-cased and
/// without port, so that every source of one host is polled by one machine and per-host
/// limits, Retry-After and backoff hold across the fleet. A `shard = K` with K >= count is
/// returned as is: no poller of that fleet size owns the source (poll refuses that).
unsigned shard_of(const SourceConfig& source, unsigned count);

/// How to poll.
struct PollOptions {
  std::vector<std::string> names;  ///< only these sources (empty: all)
  /// Only the sources of this shard (shard_of); nullopt: every source.
  std::optional<Shard> shard;
  bool force = false;          ///< fetch even what is not due
  bool wait_for_lock = false;  ///< wait for another poll instead of failing at once
  /// Once more packs than this are in .git/objects/pack, the poll rolls the smallest up
  /// (Archive::consolidate_packs); 0: never.
  std::size_t pack_limit = kDefaultPackLimit;
  TimeMs now = 0;       ///< the clock; 0 reads now_ms()
  FetchOptions fetch;   ///< concurrency and identity
  FetchRequest limits;  ///< timeouts and body limit (its url and validators unused)
  /// Called as each fetched source is settled, with how many of the `to_fetch` sources this
  /// poll fetches are settled so far (for a progress line); may be empty.
  std::function<void(const SourceOutcome&, std::size_t settled, std::size_t to_fetch)> on_outcome;
};

/// Polls the archive's sources. Errors are for the poll as a whole (lock held, config
/// unreadable, an unknown name); a source that fails is an outcome, not an error.
///
/// Every 200 body is classified before it is committed (check_feed). A feed is written to
/// raw/NAME/response.xml (.json), deleting raw/NAME/not-a-feed when there is one; anything
/// else to raw/NAME/not-a-feed, leaving response.xml/.json at the last feed version. Each
/// new version's commit carries a Change-Class trailer: `first` (the source's first feed
/// version, or the first that reads as one), `items` (an item added, removed, reappeared,
/// duplicated or changed in a way that is not minor), `minor` (neither items nor cosmetic:
/// minor item edits, moves, channel fields), `cosmetic` (only volatile or ignored fields, or
/// no item-level difference at all), `not-a-feed` (with a Not-A-Feed trailer saying why) or
/// `restored` (the feed came back byte-identical to its last feed version: the commit only
/// deletes not-a-feed); items, minor and cosmetic ones also an Item-Summary trailer
/// (item_summary_trailer). A feed whose items normalize refused to read (a limit) gets none.
Result<PollReport> poll(Archive& archive, const PollOptions& options);
/// poll() for a caller that holds the archive lock already (`poll --sync` polls and syncs
/// in one locked step); options.wait_for_lock is not used.
Result<PollReport> poll(Archive& archive, const PollOptions& options, const ArchiveLock& held);

/// Re-enables a source that 410 Gone disabled, and forgets its failures and backoff, so the
/// next poll fetches it. Errc::not_found when no source has that name. The value says whether
/// the source was disabled.
Result<bool> enable_source(Archive& archive, const std::string& name, bool wait_for_lock);

/// A feed listed in an OPML subscription list.
struct OpmlFeed {
  std::string name;                 ///< feeddiff:name when feeddiff wrote the file, else ""
  std::string title;                ///< the outline's text (or title) attribute
  std::string url;                  ///< xmlUrl, entities decoded
  std::optional<TimeMs> every;      ///< feeddiff:every, when given
  std::vector<std::string> ignore;  ///< feeddiff:ignore (space-separated paths)
  bool skip_cosmetic = false;       ///< feeddiff:skip-cosmetic="true"
};

/// Reads every outline with an xmlUrl, at any depth (folders are flattened), in document
/// order. A small, careful scanner, not an XML parser: comments, CDATA, processing
/// instructions and the doctype are skipped, attribute names match case-insensitively,
/// values may use either quote and carry XML entities. Errc::bad_xml when the document is
/// no OPML (no <opml> element) or an outline tag is broken, with the line.
Result<std::vector<OpmlFeed>> parse_opml(std::string_view text);

/// An OPML 2.0 document listing the sources in config order; parse_opml reads back every
/// field feeddiff keeps (name, URL, interval, ignore, skip_cosmetic).
std::string format_opml(const Config& config);

/// A source name for a feed that has none: its title (or the URL's host and path) made safe
/// (see check_source_name): lower case, runs of other characters turned into '-', at most
/// 60 characters, and a "-2", "-3", ... suffix when `taken` holds it already.
std::string source_name_for(std::string_view title, std::string_view url,
                            const std::vector<std::string>& taken);

/// The path a source's raw body is stored at in a layout: raw/<name>/response.xml or .json,
/// or raw/<hh>/<name>/... fanned out (source_dir).
std::string raw_path(const std::string& name, bool json, Layout layout = Layout::flat);

/// The path a source's last response that was not a feed is stored at (contract: the body
/// byte for byte, while response.xml/.json keep the last feed version): raw/<name>/not-a-feed,
/// or raw/<hh>/<name>/not-a-feed fanned out.
std::string not_a_feed_path(const std::string& name, Layout layout = Layout::flat);

/// The Item-Summary trailer of a feed version's item diff against the feed version before
/// it: the counts in kItemKinds order, aged-out removals counted apart from other removals,
/// e.g. `3 added, 2 aged out, 1 removed, 1 changed (minor)`, then `; channel: title` when
/// channel fields differ; `cosmetic only: lastBuildDate` (or `formatting`) for a cosmetic one.
std::string item_summary_trailer(const ItemDiff& diff);

/// A fetched response in the commit message's terms (include/feeddiff/message.h): what a
/// poll commits of it, and what `fixtures` keeps of it, through record_response.
RecordedResponse recorded_response(const FetchResponse& response);

/// The poll state of an archive that has none (a fresh `feeddiff clone`), rebuilt from
/// history so that its first poll is conditional: for each source of config, its last
/// version's commit gives the ETag and Last-Modified (its Response-Header trailers), the
/// status and when it was observed, and its next due time is that moment plus the larger
/// of its interval and the recorded Cache-Control max-age, Expires or RSS <ttl> (as a poll
/// schedules). A source with no version yet gets an empty state (due now). Reads one commit
/// per source through the source index.
Result<State> rebuild_state(const Archive& archive, const Config& config);

/// Reads feeddiff.toml from the archive's work tree.
Result<Config> load_config(const Archive& archive);
/// A source's credentials, kept apart from feeddiff.toml, and the origin they were given for:
/// they are sent to that origin only, whatever URL feeddiff.toml later holds (a sync, a pull,
/// an adopted redirect or a hand edit can change it).
struct StoredCredentials {
  std::string source;    ///< the source's name
  std::string userinfo;  ///< `user:password`
  /// `scheme://host:port` (url_origin); "" for a line an older feeddiff wrote, which poll
  /// binds to the source's URL at its first use.
  std::string origin;
};

/// The origin credentials are bound to: scheme and host in lower case and the port, the
/// scheme's default (80, 443) when the URL names none, as `https://example.com:443`. "" for a
/// URL without an authority.
std::string url_origin(std::string_view url);

/// Whether credentials bound to `origin` may be sent to `url`: the same scheme, host and port.
bool credentials_apply(const StoredCredentials& credentials, std::string_view url);

/// Reads the credentials kept apart from feeddiff.toml (.git/feeddiff/credentials).
Result<std::vector<StoredCredentials>> load_credentials(const Archive& archive);
/// Stores a source's credentials, bound to the origin of `url` (the URL they came with), or
/// clears them (credentials empty), outside the committed tree.
Status save_credentials(const Archive& archive, const std::string& name,
                        const std::string& credentials, std::string_view url);

}  // namespace feeddiff
