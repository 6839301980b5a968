#pragma once
// The commit message of an archived version: its title line and trailers are the archive's
// record of a response. Part of the store module's contract (src/store/message.cc): this
// is the one place that writes the message, reads it back, lists the "Recorded headers"
// rows `show` displays, and decides what is redacted before anything is recorded. poll
// commits with it, `fixtures` keeps response.headers with it, show and fixtures read it.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "feeddiff/core.h"
#include "feeddiff/store.h"

namespace feeddiff {

/// One response header as received.
struct RecordedHeader {
  std::string name;   ///< as sent (case kept)
  std::string value;  ///< as sent
  /// Field by field.
  bool operator==(const RecordedHeader&) const = default;
};

/// One redirect hop: its status and where it pointed.
struct RecordedRedirect {
  long status = 0;     ///< 301, 302, 303, 307 or 308
  std::string target;  ///< the absolute URL it pointed to
  /// Field by field.
  bool operator==(const RecordedRedirect&) const = default;
};

/// What a commit is made from: a fetched response in std types (store does not know fetch).
struct RecordedResponse {
  long status = 0;                          ///< the final HTTP status
  std::string final_url;                    ///< after redirects
  std::vector<RecordedRedirect> redirects;  ///< the hops, in order
  std::vector<RecordedHeader> headers;      ///< the final response's headers, in order
};

/// The fields of a version's commit message; every value is one line. A message made by
/// record_response is redacted; parse_commit_message gives back what was written.
struct CommitMessage {
  std::string title;                        ///< first line; empty for a bare trailer block
  std::optional<std::string> source;        ///< Source: the source's name
  std::optional<std::string> observed_at;   ///< Observed-At: when it was fetched (ISO 8601)
  std::optional<std::string> origin_date;   ///< Origin-Date: Date − Age, by the origin's clock
  std::optional<std::string> status;        ///< Status: the HTTP status
  std::optional<std::string> final_url;     ///< Final-URL: after redirects
  std::vector<RecordedRedirect> redirects;  ///< Redirect: `STATUS URL`, one per hop
  std::vector<RecordedHeader> headers;      ///< Response-Header: `name: value`, one each
  /// Change-Class: first, items, minor, cosmetic, not-a-feed or restored (kChangeClasses);
  /// absent on commits made before feeddiff wrote it (readers fall back to what they did).
  std::optional<std::string> change_class;
  /// Item-Summary: `3 added, 2 aged out, 1 removed, 1 changed` or `cosmetic only:
  /// lastBuildDate`, for the items, minor and cosmetic classes.
  std::optional<std::string> item_summary;
  /// Not-A-Feed: why the body is no feed (FeedCheck::reason), on not-a-feed versions only.
  std::optional<std::string> not_a_feed;

  /// The first response header's value with this name (case-insensitive), or nullptr.
  const std::string* header(std::string_view name) const;
  /// Field by field.
  bool operator==(const CommitMessage&) const = default;
};

/// What a commit records of a response fetched at `observed` for `source` (title left
/// empty): every URL through redact_recorded_url, every header through
/// redact_recorded_header, Origin-Date from Date − Age when the response has a Date.
CommitMessage record_response(std::string_view source, const RecordedResponse& response,
                              TimeMs observed);

/// Date − Age of a response: when the origin made it, by its own clock; nullopt without a
/// Date it can read (a missing or malformed Age counts as 0).
std::optional<TimeMs> origin_date_of(const std::vector<RecordedHeader>& headers);

/// The Change-Class values a poll writes (include/feeddiff/poll.h says when each applies).
inline constexpr std::string_view kChangeClasses[] = {"first",    "items",      "minor",
                                                      "cosmetic", "not-a-feed", "restored"};
// Article versions carry kArticleClass or kArticleUncertainClass (below): not a feed version.

/// The title of a version's commit: `NAME: added (N bytes, HTTP S)`, or `changed`.
std::string version_title(std::string_view source, bool added, std::size_t bytes,
                          std::string_view status);

/// The title of a not-a-feed version's commit: `NAME: not a feed (KIND, N bytes, HTTP S)`,
/// KIND being FeedCheck::kind ("HTML document", "empty body", ...).
std::string not_a_feed_title(std::string_view source, std::string_view kind, std::size_t bytes,
                             std::string_view status);

/// The title of a restored version's commit (the feed came back byte-identical to its last
/// feed version after not-a-feed responses): `NAME: restored (N bytes, HTTP S)`.
std::string restored_title(std::string_view source, std::size_t bytes, std::string_view status);

/// Whether title is one a poll gives a version of source: `S: added (`, `S: changed (`,
/// `S: not a feed (` or `S: restored (`.
bool is_version_title(std::string_view title, std::string_view source);

/// The trailer block: Source, Change-Class, Item-Summary, Not-A-Feed, Observed-At,
/// Origin-Date, Status, Final-URL, then a Redirect line per hop and a Response-Header line per
/// header; absent fields are left out.
std::string format_trailers(const CommitMessage& message);

/// The title, a blank line and the trailer block.
std::string format_commit_message(const CommitMessage& message);

/// The trailers of a block of `Key: value` lines (key of letters, digits and '-', value
/// trimmed); empty when any line is not one, as git reads a trailer block.
std::vector<Trailer> parse_trailer_block(std::string_view block);

/// The trailer block of a whole message: its last paragraph, when that is all trailers.
std::vector<Trailer> message_trailers(std::string_view message);

/// The value of the first trailer called key (case as written) among message_trailers,
/// without copying the others; nullopt when there is none. Points into message.
std::optional<std::string_view> message_trailer(std::string_view message, std::string_view key);

/// The fields of trailers read back; unknown keys are skipped, the first of a repeated
/// single-valued key is taken.
CommitMessage message_from_trailers(const std::vector<Trailer>& trailers);

/// Reads format_commit_message's output back: the first line is the title.
CommitMessage parse_commit_message(std::string_view message);

/// The names of the "Recorded headers" rows, in the reference page's order: observed_at,
/// origin_date, status, final URL, then response headers by lower-case name (the reference
/// page's eight, then content-type and server, which say what the server sent and who).
const std::vector<std::string>& recorded_header_names();

/// Each recorded-header row of a message, value nullopt when the message lacks it.
std::vector<std::pair<std::string, std::optional<std::string>>> header_rows(
    const CommitMessage& message);

/// A URL as it may be recorded: user:password@ removed (redact_url), and the value of every
/// query parameter that conventionally carries a secret (token, access_token, key, api_key,
/// password, secret, sig, signature, X-Amz-Signature, ...) replaced by `***`.
std::string redact_recorded_url(std::string_view url);

/// A header value as it may be recorded: Set-Cookie, Set-Cookie2, Authorization,
/// Proxy-Authorization and Cookie become `[not recorded]`; Location and Content-Location go
/// through redact_recorded_url; CR and LF become spaces so that the value stays one line.
std::string redact_recorded_header(std::string_view name, std::string_view value);

// ---- Article versions (docs/articles.md): the extracted text beside each archived page ----

/// The readable text of an article as the archive keeps it (article.txt beside page.html):
/// three header lines, a blank line, then the body's paragraphs, so that `git log -p` reads
/// as prose.
struct ArticleFile {
  std::string title;      ///< the headline
  std::string byline;     ///< the author(s), "" when the page names none
  std::string published;  ///< when the page says it was published, as it says it
  std::string body;       ///< paragraphs, a blank line between them, ending with '\n'
  /// Field by field.
  bool operator==(const ArticleFile&) const = default;
};

/// `Title: ...`, `Byline: ...`, `Published: ...` (CR, LF and tabs in them become spaces),
/// a blank line, then the body.
std::string format_article_file(const ArticleFile& article);

/// Reads format_article_file's output back; a text without the three header lines is all
/// body (a file edited by hand still shows).
ArticleFile parse_article_file(std::string_view text);

/// The Change-Class of a captured article version whose text a reader can trust (its first
/// capture or an edit), and of one whose extraction is in doubt (a trailer says why).
inline constexpr std::string_view kArticleClass = "article";
/// See kArticleClass: archived, marked Extraction-Uncertain, never reported as an edit.
inline constexpr std::string_view kArticleUncertainClass = "article-uncertain";

// ---- The publisher's archive (docs/backfill.md): backfill/NAME/items ----

/// The Change-Class of a backfill commit: pages of the publisher's own archive and their
/// items, under backfill/NAME/ (never raw/): not an observed version of the feed.
inline constexpr std::string_view kBackfillClass = "backfill";

/// One item of a publisher's archive as a backfill commit keeps it: dated by the item's
/// own published (else updated) time, never by when it was fetched.
struct BackfillItem {
  std::string date;     ///< that time, ISO 8601 UTC (format_iso8601_ms); "" when undated
  std::string written;  ///< the date as the feed wrote it ("" when undated)
  std::string id;       ///< the item's identity (Item::id)
  std::string page;     ///< the page's key: the directory backfill/NAME/<page>/ it came from
  std::string title;    ///< its title, plain text
  std::string link;     ///< its link
  /// Field by field.
  bool operator==(const BackfillItem&) const = default;
};

/// One line per item, each field after a tab (append_tab_field: tab, newline and backslash
/// escaped), in the order given: date, written, id, page, title, link.
std::string format_backfill_items(const std::vector<BackfillItem>& items);

/// Reads format_backfill_items's output back; a line that is not one is skipped.
std::vector<BackfillItem> parse_backfill_items(std::string_view text);

}  // namespace feeddiff
