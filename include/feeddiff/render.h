#pragma once
// render: one recorded change as a page, for a terminal (text), as markdown, JSON or HTML.
// Every renderer escapes what came from a feed: no control character, escape sequence or
// bidi override reaches a terminal, and no markup reaches a page unescaped.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "feeddiff/core.h"
#include "feeddiff/diff.h"
#include "feeddiff/normalize.h"

namespace feeddiff {

/// One row of the "Recorded headers" table; value nullopt when the response lacked it.
struct HeaderRow {
  std::string name;                  ///< observed_at, origin_date, status, final URL, etag, ...
  std::optional<std::string> value;  ///< as recorded
};

/// Everything a change page shows, gathered from the archive by the caller.
struct ChangeView {
  std::string commit_id;    ///< full id
  std::string title;        ///< commit title: `<source>: changed (<bytes> bytes, HTTP <status>)`
  std::string path;         ///< the raw artifact's path
  std::string path_status;  ///< "modified", "added" or "deleted"
  std::string source;       ///< source name
  std::uint64_t stored_bytes = 0;        ///< size of the artifact at this commit
  std::string timestamp_kind;            ///< "origin" or "observed"
  std::vector<HeaderRow> headers;        ///< the recorded-header rows (message.h's order)
  std::optional<std::string> forge_url;  ///< the commit on GitHub/GitLab/Codeberg, if known
  std::string diff_label;                ///< what was diffed: "raw" or "normalized"
  LineDiff diff;                         ///< the line diff; views bodies the caller keeps alive
  std::optional<ItemDiff> items;         ///< the item-level summary, when both versions parsed
  std::string items_note;                ///< why there is no item summary (a parse error), or ""
  /// The commit of an earlier version (not the previous one) whose raw body this version's
  /// is byte for byte: the feed flip-flopped back to it.
  std::optional<std::string> reverted_to;
};

/// Display limits; the counts shown always come from the whole diff.
struct RenderOptions {
  std::size_t max_items = 100;       ///< item changes listed at most
  std::size_t max_lines = 400;       ///< diff lines shown at most (hunk headers count)
  std::size_t max_line_chars = 300;  ///< characters of one line shown at most
  bool color = false;                ///< ANSI colour (text only)
  /// The item kinds listed (`--only`); empty lists every kind. The summary line still counts
  /// every change, and the pages say how many were left out.
  std::vector<ItemChange::Kind> only;
};

/// The page for a terminal.
std::string render_text(const ChangeView& change, const RenderOptions& options);
/// The page as markdown, laid out like the reference page.
std::string render_markdown(const ChangeView& change, const RenderOptions& options);

// escape_terminal (text for a terminal) and cut_chars are core's (feeddiff/core.h, included
// above): sync and the commands print with them without needing render.

// ===========================================================================================
// JSON and HTML faces of a change, and the pages of a static site (docs/json.md, docs/site.md)
// ===========================================================================================

/// The version of the JSON documents render_json and render_log_json write; raised only
/// when a field is removed or changes meaning (adding a field keeps it).
inline constexpr int kJsonSchemaVersion = 1;

/// The page as one JSON document (docs/json.md, docs/show.schema.json): every field of the
/// text page, the hunks shown within the limits, the item summary, the limits applied.
/// Keys in a fixed order: the same view and options give the same bytes. Controls are
/// JSON-escaped, bidi and other invisible format characters written as \u escapes, invalid
/// UTF-8 replaced by U+FFFD.
std::string render_json(const ChangeView& change, const RenderOptions& options);

/// An article version (docs/articles.md) and the text a reader could trust before it.
struct ArticleView {
  std::string commit_id;    ///< full id
  std::string title;        ///< commit title
  std::string source;       ///< the source whose item links to it
  std::string url;          ///< Article-URL
  std::string item_id;      ///< Item-Id
  std::string status;       ///< the HTTP status, as recorded
  std::string observed_at;  ///< Observed-At
  std::string path;         ///< the page's path in the archive (page.html)
  /// Why the extraction is in doubt (Extraction-Uncertain): archived, not an edit. "" for a
  /// version a reader can trust.
  std::string uncertain;
  bool first = false;  ///< no earlier trusted text: the article's first capture
  /// Headline, byline and published time before (the last trusted text) and after; for an
  /// uncertain version both sides are the last trusted text's.
  std::string old_title, new_title, old_byline, new_byline, old_published, new_published;
  std::size_t words = 0;      ///< words of the body shown (after)
  WordExcerpt body;           ///< the body's word diff, cut down for display; empty when none
  bool body_changed = false;  ///< whether the body's text differs at all
};

/// An article version for a terminal: headline, byline and published-time changes, then the
/// body's word diff ([-removed-]{+added+}, or colour). Every value from the page escaped.
std::string render_article_text(const ArticleView& view, const RenderOptions& options);
/// The same as one JSON document (docs/json.md, "article"): fields, then the body's runs.
std::string render_article_json(const ArticleView& view);
/// The same as markdown: the body's word diff with ~~removed~~ and **added** text.
std::string render_article_markdown(const ArticleView& view);
/// The same as a standalone HTML page (the change page's head, CSP and style): the body's
/// word diff with <del> and <ins>; the URL linked only when it is http(s).
std::string render_article_html(const ArticleView& view);
/// The edit alone, as render_article_html shows it after the fields: headline, byline and
/// published time (<del>/<ins> when changed), then the body's word diff under an h3; for a
/// page or feed that lists many edits (the site's "Corrections and edits"). Escaped HTML.
std::string render_article_diff_html(const ArticleView& view);

/// One page a backfill walked, as its commit's Backfill-Page trailer names it.
struct BackfillPageView {
  std::size_t number = 0;  ///< 2, 3, ... (page 1, the current document, is not listed)
  std::string result;      ///< new, changed or unchanged
  std::string via;         ///< prev-archive, next or next_url: the link that led to it
  std::string url;         ///< the page's URL (text from the feed)
};

/// A backfill commit (docs/backfill.md): the pages walked and the items recorded.
struct BackfillView {
  std::string commit_id;    ///< full id
  std::string title;        ///< commit title
  std::string source;       ///< the source
  std::string observed_at;  ///< when the walk ran (Observed-At)
  std::string summary;      ///< Backfill-Summary
  std::string stop;         ///< Backfill-Stop: last page, loop, page cap, not a feed, failed
  std::vector<BackfillPageView> pages;  ///< in walk order
  std::size_t items = 0;                ///< items of backfill/NAME/items at the commit
  std::string oldest;                   ///< the oldest item's own date, "" when none is dated
  std::string newest;                   ///< the newest
};

/// A backfill commit for a terminal: the source, the pages walked, the items' count and
/// dates; every value from the feed escaped.
std::string render_backfill_text(const BackfillView& view, const RenderOptions& options);
/// The same as one JSON document (docs/json.md, "backfill").
std::string render_backfill_json(const BackfillView& view);

/// One entry of `feeddiff log`.
struct LogEntry {
  std::string id;                          ///< full commit id
  std::string short_id;                    ///< unambiguous abbreviation; "" for id's first 7
  std::string title;                       ///< commit title
  std::string source;                      ///< the source it recorded, or ""
  std::string timestamp;                   ///< the commit's author time, ISO-8601 UTC
  std::optional<std::string> observed_at;  ///< the Observed-At trailer, when recorded
  std::optional<std::string> status;       ///< the Status trailer, when recorded
  /// first, items, minor, cosmetic, not-a-feed or restored: the Change-Class trailer, or for
  /// an older commit the class of its cached item summary; nullopt when neither is known.
  std::optional<std::string> change_class{};
  std::optional<std::string> item_summary{};  ///< the Item-Summary trailer (or cached summary)
  std::optional<std::string> not_a_feed{};    ///< why the response was no feed (not-a-feed)
};

/// `feeddiff log --format json` (docs/json.md, docs/log.schema.json), newest first.
std::string render_log_json(const std::vector<LogEntry>& entries);

/// What the HTML page links to beyond the change itself; every href is used as given
/// (escaped), so relative links keep a page working from file://.
struct HtmlLinks {
  std::optional<std::string> raw;  ///< the raw artifact at this commit
  /// Breadcrumbs above the page, label and href (the site's index, the source's page).
  std::vector<std::pair<std::string, std::string>> nav;
  /// The page's Atom feed, announced in its head and linked from it (the site's item pages).
  std::optional<std::string> atom;
  /// The page of one listed item's history (the site's items/SOURCE/KEY.html), "" for none.
  std::function<std::string(const ItemChange&)> item;
  /// Memento links (RFC 7089) in the head, each (rel, href): "original", "timemap",
  /// "first memento", "prev memento" (the site's change pages).
  std::vector<std::pair<std::string, std::string>> memento;
};

/// A standalone HTML page: inline CSS, no script, no fetch (a Content-Security-Policy says
/// so), every piece of feed text escaped, laid out like the reference page.
std::string render_html(const ChangeView& change, const RenderOptions& options,
                        const HtmlLinks& links = {});

/// A change page in one of `show`'s formats: "text" (options.color applies), "markdown",
/// "json" or "html" (with links); any other name is text.
std::string render_change(const ChangeView& change, const RenderOptions& options,
                          std::string_view format, const HtmlLinks& links = {});

/// Escapes text for HTML content and attribute values; controls, bidi overrides and
/// invalid UTF-8 first become visible as escape_terminal writes them.
std::string escape_html(std::string_view text);

/// The one-line item summary the pages show: "2 added, 1 changed", "cosmetic only
/// (lastBuildDate)", "no item changed".
std::string summarize_items(const ItemDiff& items);

/// One change as the site lists it.
struct SiteChange {
  std::string id;           ///< full commit id
  std::string title;        ///< commit title
  std::string source;       ///< source name
  std::string observed_at;  ///< ISO-8601 UTC (the Observed-At trailer, else commit time)
  std::size_t added = 0;    ///< lines added
  std::size_t removed = 0;  ///< lines removed
  std::string items;        ///< the item summary line, or ""
  std::string href;         ///< its change page, relative to the site's top
};

/// One source as the site's index lists it.
struct SiteSource {
  std::string name;                 ///< source name
  std::string url;                  ///< its feed URL, or "" when no longer configured
  std::string status;               ///< last poll result in a few words, or ""
  std::vector<SiteChange> changes;  ///< its newest changes (at most a page's worth), newest first
  std::string href;                 ///< its page, relative to the site's top
  std::size_t total = 0;            ///< its count of changes (changes.size() when 0)
  std::size_t pages = 0;            ///< its history pages, sources/NAME/1.html (oldest) up
  /// Its edited items, newest edit first: label (the item's title) and href of its page,
  /// relative to the site's top (items/NAME/KEY.html).
  std::vector<std::pair<std::string, std::string>> edited;
  /// Its complete-history feed set (RFC 5005), relative to the source's page (NAME/history/),
  /// or "" when the site wrote none.
  std::string history_dir;
  /// Its "Corrections and edits" page (NAME/edits.html, relative to the source's page; its
  /// Atom feed edits.atom beside it), or "" when the source captured no article.
  std::string edits_href;
  /// Its TimeMap (RFC 7089), relative to the source's page (NAME/timemap.link), or "".
  std::string timemap;
};

/// Changes on one history page of the site; only the newest page of a list fills up, so
/// every other page's bytes never change.
inline constexpr std::size_t kSitePageSize = 50;

/// One page of a history: the archive's (history/N.html) or a source's
/// (sources/NAME/N.html). Page 1 holds the oldest kSitePageSize changes.
struct SiteHistoryPage {
  std::string source;               ///< the source's name, or "" for the archive's history
  std::size_t number = 1;           ///< 1 for the oldest page
  std::vector<SiteChange> changes;  ///< its changes, newest first
};

/// The site's index: every source with its last change and its count of changes, the most
/// recent changes and links to the archive's history pages (history/1.html up).
std::string render_site_index(const std::vector<SiteSource>& sources,
                              const std::vector<SiteChange>& recent, std::size_t history_pages = 0);
/// The Content-Security-Policy of the site's search page: its own script file and fetches
/// of the site's files, nothing else (every other page allows no script at all).
inline constexpr const char* kSearchPageCsp =
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; "
    "base-uri 'none'; form-action 'self'";
/// The site's search page (search.html): a GET form (q) and, until search.js runs, what
/// search needs (script, http(s)) and `feeddiff search`; what a query matches. Static: the
/// same bytes for every site.
std::string render_search_page();
/// One page of a history; it links to the older page, never to a newer one (so it is
/// written once it is full), and to the list's front page (the index or the source's page).
std::string render_history_page(const SiteHistoryPage& page);
/// One source's page: its newest changes, newest first, and links to its history pages;
/// links are relative to the page, which lives one directory below the site's top.
std::string render_source_page(const SiteSource& source);
/// An Atom feed of the archive's changes, one entry per commit (id urn:feeddiff:commit:<id>),
/// newest first. feed_id names the archive; base_url, when not empty, makes links absolute.
std::string render_site_atom(const std::vector<SiteChange>& changes, const std::string& feed_id,
                             const std::string& base_url);

/// The Items section of the change page alone: the item summary line and each item change,
/// a changed field's before and after as <del>/<ins> (long text as its word diff), every
/// piece of feed text escaped as escape_html does; "" when the change has no item summary.
std::string render_items_html(const ChangeView& change, const RenderOptions& options);

/// Changes in a source's Atom feed (sources/NAME/feed.atom) at most.
inline constexpr std::size_t kSourceFeedEntries = 50;

/// One entry of a source's Atom feed: the change and its item changes as HTML.
struct SiteFeedEntry {
  SiteChange change;       ///< the change, as the history pages list it
  std::string items_html;  ///< render_items_html of the change (already escaped HTML), or ""
  /// The ids of the items the change pulled from the feed (removed while older items stayed,
  /// not aged out): each an RFC 6721 tombstone after the entry.
  std::vector<std::string> pulled;
};

/// A source's Atom feed: one entry per commit that changed it (id urn:feeddiff:commit:<id>,
/// as in the archive's feed), newest first; each entry's content (type html) holds the item
/// changes with their before and after, so a feed reader shows what changed. feed_id names
/// the feed; the feed lives at sources/NAME/feed.atom, so its links are relative to that
/// directory unless base_url (the site's top, ending in '/') makes them absolute. A change
/// that pulled items is followed by an `at:deleted-entry` (RFC 6721) for each, dated by the
/// change; the tombstone namespace is declared only in a feed that has one, so every other
/// feed keeps its bytes.
std::string render_source_atom(const std::string& source, const std::vector<SiteFeedEntry>& entries,
                               const std::string& feed_id, const std::string& base_url);

/// One article edit (docs/articles.md: a version whose text a reader reads changed, not a
/// first capture, not an uncertain extraction) as the site's corrections page lists it.
struct SiteEdit {
  std::string id;           ///< the article commit's full id
  std::string observed_at;  ///< ISO-8601 UTC (Observed-At)
  std::string headline;     ///< the headline after the edit (page text, not escaped)
  std::string url;          ///< the article's URL, redacted as recorded (not escaped)
  std::string diff_html;    ///< render_article_diff_html of the edit (already escaped HTML)
};

/// Article edits on one page of a source's corrections, and in its feed (edits.atom), at most.
inline constexpr std::size_t kEditsPageSize = 50;

/// One page of a source's "Corrections and edits": the front page (number 0,
/// sources/NAME/edits.html: the newest edits and links to the pages) or page `number` of
/// sources/NAME/edits/N.html (1 the oldest, kEditsPageSize edits each).
struct SiteEditsPage {
  std::string source;           ///< the source's name
  std::size_t number = 0;       ///< 0: the front page
  std::size_t pages = 0;        ///< the numbered pages the source has
  std::size_t total = 0;        ///< its edits
  std::size_t captures = 0;     ///< articles first captured (not edits)
  std::size_t uncertain = 0;    ///< versions archived with an uncertain extraction (not edits)
  std::vector<SiteEdit> edits;  ///< newest first
};

/// The page, like NewsDiffs: each edit with its headline, URL (linked when http(s)), when
/// it was observed and its diff. A numbered page links to the older one only (its bytes
/// never change once full); the front page links its feed and the pages.
std::string render_edits_page(const SiteEditsPage& page);
/// An Atom feed of a source's article edits (sources/NAME/edits.atom), newest first: entry id
/// urn:feeddiff:commit:ID, content (type html) the edit's diff. Links are relative to the
/// feed's directory unless base_url (the site's top, ending in '/') makes them absolute.
std::string render_edits_atom(const std::string& source, const std::vector<SiteEdit>& edits,
                              const std::string& feed_id, const std::string& base_url);

/// One item of a source's complete-history feed set (RFC 5005 archived feeds): the newest
/// version feeddiff recorded of it, or, when it was pulled from the feed, its tombstone.
struct HistoryFeedItem {
  std::string id;        ///< the item's identity (Item::id)
  bool deleted = false;  ///< pulled from the feed (not aged out): an RFC 6721 tombstone
  /// Found in the publisher's own archive (`feeddiff backfill`), never observed in the feed:
  /// dated by itself, marked as such, and with no change page.
  bool backfilled = false;
  std::string recorded_at;           ///< when feeddiff recorded this version (ISO-8601 UTC)
  std::string commit;                ///< the commit of that version (its change page)
  std::string title;                 ///< plain text, as the feed had it
  std::string link;                  ///< the item's page
  std::string published;             ///< RFC 3339 (the feed's date converted), or "" when unknown
  std::vector<std::string> authors;  ///< names
  std::string summary;               ///< HTML as the feed wrote it
  std::string content;               ///< HTML as the feed wrote it
};

/// One document of a source's complete-history set: the current one (number 0) or the
/// sealed archive page `number` (1 the oldest). Its files are history/current.atom|json and
/// history/archive-N.atom|json under sources/NAME/, so its links are relative to that
/// directory.
struct HistoryFeedPage {
  std::string source;                  ///< the source's name
  std::string feed_id;                 ///< the set's atom:id (every document of the set shares it)
  std::size_t number = 0;              ///< 0: the current document; else the archive page
  std::size_t archives = 0;            ///< sealed pages when this one was written
  std::string updated;                 ///< ISO-8601 UTC: the newest recorded_at it shows
  std::vector<HistoryFeedItem> items;  ///< oldest first (as they entered the set)
};

/// The document as Atom: the current one links `prev-archive` to the newest archive page;
/// an archive page carries `fh:archive`, `current`, `prev-archive` (but the first) and
/// `next-archive` (archive-N+1, which for the newest page exists once it is sealed in turn:
/// a page's bytes never change). Items newest first; a pulled item is an `at:deleted-entry`. Each
/// entry's updated is its recorded_at, so RFC 5005's "most recently updated" rule picks the newest
/// version. Text from the feed is XML-escaped (characters XML forbids become U+FFFD).
std::string render_history_atom(const HistoryFeedPage& page);
/// The same document as JSON Feed 1.1: next_url chains to the next older page; a pulled
/// item is an item with `_feeddiff: {"deleted": TIME}` and empty content_text.
std::string render_history_json(const HistoryFeedPage& page);

/// One memento of a source's TimeMap (RFC 7089): a recorded version, as it was received.
struct Memento {
  std::string href;      ///< URI-M: the version's raw copy on the site
  std::string datetime;  ///< ISO-8601 UTC: when feeddiff observed it (Observed-At)
};

/// Another page of a paged TimeMap (RFC 7089 section 5.1.2), with the span of its mementos.
struct TimeMapLink {
  std::string href;   ///< the page's URI
  std::string from;   ///< ISO-8601 UTC of its first memento, "" when not known
  std::string until;  ///< ISO-8601 UTC of its last memento, "" when not known
};

/// One page of a source's TimeMap (sources/NAME/timemap.link and its sealed pages).
struct TimeMapPage {
  std::string original;            ///< URI-R: the feed's URL, redacted; "" when not configured
  std::string self;                ///< this page's URI
  std::vector<TimeMapLink> pages;  ///< the other pages it names (rel="timemap"), oldest first
  std::vector<Memento> mementos;   ///< oldest first
  bool holds_first = false;        ///< mementos.front() is the source's first memento
  bool holds_last = false;         ///< mementos.back() is its last one (when written)
};

/// The page in application/link-format (RFC 6690) as RFC 7089 section 5 writes a TimeMap:
/// rel="original", rel="self" with from/until, each other page as rel="timemap" and each
/// memento as rel="memento" with its datetime (RFC 1123), "first memento" / "last memento"
/// on the ends it holds. A URI's bytes outside RFC 3986's set are percent-encoded, so no feed
/// or config text can close a `<...>` or add a link.
std::string render_timemap(const TimeMapPage& page);

/// A feed's items as a table for a terminal: position, identity, date, title (escaped).
std::string render_items_text(const Feed& feed);
/// A feed's items as JSON: {"schema": "feeddiff.items/1", "format", "items": [...]}.
std::string render_items_json(const Feed& feed, const std::string& encoding);

// ===========================================================================================
// The life of items across a source's versions (`feeddiff history`, the site's item pages)
// ===========================================================================================

/// One version of a source as a history names it.
struct HistoryVersion {
  std::string commit;       ///< full commit id
  std::string observed_at;  ///< ISO-8601 UTC (the Observed-At trailer, else commit time)
  /// Why its items could not be read (it then changed no item's history), or "".
  std::string note;
  std::string href;  ///< its change page for the HTML page, or "" for none
};

/// A version of the page an item links to (docs/articles.md), as `history NAME ITEM` lists
/// it beside the item's events.
struct HistoryArticle {
  std::string commit;       ///< full id
  std::string observed_at;  ///< Observed-At, ISO 8601
  std::string url;          ///< Article-URL, as recorded
  std::string result;       ///< "added", "changed" or "uncertain", from the commit's title
  std::string summary;      ///< Article-Summary, or why the extraction is uncertain
};

/// What `feeddiff history` shows: one item's events (single) or a table of the items.
struct HistoryView {
  std::string source;                    ///< the source's name
  std::vector<HistoryVersion> versions;  ///< its versions, oldest first; events index them
  std::vector<ItemLife> items;           ///< the item (single) or every item, as first seen
  bool single = false;                   ///< one item, with its events
  std::vector<HistoryArticle> articles;  ///< single: its article's versions, oldest first
};

/// `feeddiff history` for a terminal: an item's events with each edit's fields before and
/// after as `show` writes them, or the table of items. Feed text is escaped.
std::string render_history_text(const HistoryView& view, bool color);
/// The same as markdown.
std::string render_history_markdown(const HistoryView& view);
/// The same as one JSON document (docs/json.md, docs/history.schema.json).
std::string render_history_json(const HistoryView& view);
/// The same as a standalone HTML page (no script, every piece of feed text escaped).
std::string render_history_html(const HistoryView& view, const HtmlLinks& links = {});

/// Edits in an edited item's Atom feed (items/SOURCE/KEY.atom) at most.
inline constexpr std::size_t kItemFeedEntries = 50;

/// An edited item's Atom feed in the site: view is single (one item, versions oldest first),
/// one entry per edit, newest first, at most kItemFeedEntries, with the entry id
/// urn:feeddiff:item:<key>:<commit> (key names the item, a hash of its id), its content (type
/// html) the edited fields before and after. The feed lives at items/SOURCE/KEY.atom: links
/// go to changes/ID.html relative to that directory unless base_url (the site's top, ending
/// in '/') makes them absolute.
std::string render_item_atom(const HistoryView& view, const std::string& key,
                             const std::string& base_url);

}  // namespace feeddiff
