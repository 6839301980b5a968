#pragma once
// Small shared vocabulary: clocks, dates, durations, number formatting, source names, UTF-8,
// character references, hex, FNV-1a, SHA-1, the escaping of text for markup and terminals,
// and whole-file reads and atomic writes. Nothing here touches the network, git or the
// terminal.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/result.h"

namespace feeddiff {

/// Milliseconds since the Unix epoch, UTC.
using TimeMs = std::int64_t;

/// The wall clock, in milliseconds since the epoch.
TimeMs now_ms();

/// `2026-10-01T05:54:04.027Z`: UTC with milliseconds, as the archive records times.
std::string format_iso8601_ms(TimeMs t);

/// Parses format_iso8601_ms output (and the same without milliseconds); nullopt otherwise.
std::optional<TimeMs> parse_iso8601(std::string_view text);

/// `Thu, 01 Oct 2026 05:54:03 GMT` (RFC 9110 IMF-fixdate).
std::string format_http_date(TimeMs t);

/// Parses an HTTP date: IMF-fixdate, the obsolete RFC 850 and asctime forms; nullopt otherwise.
std::optional<TimeMs> parse_http_date(std::string_view text);

/// Parses `90s`, `15m`, `1h`, `1h30m`, `2d`, `1w` or a bare number of seconds, into ms; 100
/// years at most.
Result<TimeMs> parse_duration(std::string_view text);

/// A moment as a person gives one: ISO 8601 (`2026-03-12`, midnight UTC; `2026-03-12T09:30Z`,
/// `2026-03-12 09:30:00`, `2026-03-12T10:30:00+01:00`; no zone is UTC), `now`, or a time
/// before now (`2 weeks ago`, `3 days ago`, `90m ago`; a month is 30.44 days, a year 365.24).
/// Errc::usage, naming the accepted forms, for anything else.
Result<TimeMs> parse_moment(std::string_view text, TimeMs now);

/// Cuts text to at most max_chars characters (code points), never inside a UTF-8
/// sequence; true in `cut` when it did.
std::string_view cut_chars(std::string_view text, std::size_t max_chars, bool* cut);

/// Text on one line: line breaks and tabs become spaces; cut to max_chars characters with
/// "…" when longer (0: never cut). Not escaped.
std::string one_line(std::string_view text, std::size_t max_chars = 0);

/// A value as a trailer written by feeddiff keeps it: every control character a space,
/// trimmed, cut to max_bytes on a character boundary with "..." when longer. What poll
/// writes and what readers compare with go through this one function.
std::string trailer_value(std::string_view text, std::size_t max_bytes);

/// The edit distance of two words where swapping two neighbours costs one, as in a typo
/// ("sycn" for "sync"): optimal string alignment distance.
std::size_t typo_distance(std::string_view a, std::string_view b);

/// The candidates a few typos from word (typo_distance at most a third of word's length, at
/// least one), all at the smallest such distance, in the candidates' order: what "did you
/// mean" offers. With prefixes, a candidate that word (of two letters or more) begins counts
/// as at that limit ("stat" for "status").
std::vector<std::string_view> nearest_words(std::string_view word,
                                            const std::vector<std::string_view>& candidates,
                                            bool prefixes);

/// Whether a body is JSON rather than XML by its first character (after a UTF-8 BOM and
/// space): `{` or `[`. What decides response.json over response.xml.
bool looks_like_json(std::string_view body);

/// Parses a size as limits are given: `50MiB`, `512KiB`, `2GiB` (or K, M, G), `1MB`, `10KB`,
/// or a bare number of bytes; Errc::usage naming the accepted forms otherwise.
Result<std::size_t> parse_size(std::string_view text);

/// The shortest exact form parse_duration reads back: `1h30m`, `2d`, `45s`.
std::string format_duration(TimeMs ms);

/// `250073` -> `250,073`.
std::string with_thousands(std::uint64_t n);

/// "1 commit", "1,234 commits": a count with thousands separators and the noun that fits.
std::string plural(std::size_t n, const char* one, const char* many);

/// The one version string: `feeddiff/<version> (+<project url>)` is built from it.
std::string_view version();

/// The project's home page, named in the User-Agent.
std::string_view project_url();

/// Checks that a source name is safe as a path component and a git ref-free path segment:
/// 1 to 100 characters of [A-Za-z0-9._-], starting with a letter or digit.
Status check_source_name(std::string_view name);

/// How raw/ lays out the sources' directories: `raw/NAME/` (flat, the default), or
/// `raw/hh/NAME/` (fanout), hh being the first two hex digits of the SHA-1 of NAME, which
/// keeps each tree git rewrites per commit small in an archive of 10,000 sources and more.
enum class Layout { flat, fanout };

/// "flat" or "fanout", as feeddiff.toml's `layout` key spells it.
std::string_view layout_name(Layout layout);

/// The layout a `layout` value names; nullopt for anything but "flat" and "fanout".
std::optional<Layout> parse_layout(std::string_view text);

/// The fan-out bucket of a source: the first two lower-case hex digits of the SHA-1 of its
/// name (bench/scale/generate's `hashlib.sha1(name).hexdigest()[:2]`).
std::string fanout_bucket(std::string_view name);

/// The one place a source's directory is spelled: `raw/NAME/` or `raw/hh/NAME/`.
std::string source_dir(std::string_view name, Layout layout);

/// The source a path under raw/ belongs to, in either layout: NAME for `raw/NAME/FILE` and
/// for `raw/hh/NAME/FILE` (a source's directory holds files only, so the depth tells the two
/// apart); nullopt for any other path.
std::optional<std::string_view> source_of_raw_path(std::string_view path);

/// The file a response that is not a feed is archived in, byte for byte, in the source's
/// directory (`raw/NAME/not-a-feed`): response.xml/.json keep the last real feed version, so
/// an item diff read from git compares feed versions across the gap. The next feed version's
/// commit deletes it.
inline constexpr std::string_view kNotAFeedFile = "not-a-feed";

/// Whether a path under raw/ is a source's not-a-feed file (kNotAFeedFile), in either layout.
bool is_not_a_feed_path(std::string_view path);

/// Trims ASCII whitespace at both ends.
std::string_view trim(std::string_view s);

/// ASCII lower case.
std::string to_lower(std::string_view s);

/// The words of text: runs of characters between spaces, tabs and line ends (the article
/// rules' measure of a text: too short, shrunk by half, +N -M words).
std::size_t count_words(std::string_view text);

/// Two lower-case hex digits per byte (`"\x1f"` -> `1f`): object ids, digests, cache names.
std::string hex_encode(std::string_view bytes);
/// As hex_encode, for a digest or an object id held as unsigned bytes.
std::string hex_encode(const unsigned char* bytes, std::size_t size);
/// A number as 16 lower-case hex digits, zero-padded (`{:016x}` without fmt).
std::string hex_u64(std::uint64_t value);
/// RFC 4648 base32 (upper case, `=` padded): how WARC writes a digest (`sha1:` and 32
/// characters for SHA-1's 20 bytes).
std::string base32_encode(std::string_view bytes);

/// FNV-1a's 64-bit offset basis: where a hash of nothing starts.
inline constexpr std::uint64_t kFnv1aBasis = 14695981039346656037ull;
/// FNV-1a (64 bits) of bytes, continued from h (kFnv1aBasis to start afresh). Written down
/// rather than std::hash because its values are stored (cache file names, index checks,
/// shards) and must not change with the standard library.
std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t h = kFnv1aBasis);

/// Appends text with &, <, > and " as entities (and ' as `&#39;` when apostrophe): safe in
/// markup content and in a quoted attribute; every other byte as it is.
void append_markup_escaped(std::string& out, std::string_view text, bool apostrophe = false);

/// Escapes text for a terminal: C0/C1 controls (but tab), DEL, bidi and other invisible
/// format characters, and invalid UTF-8 become visible `\x1b`, `\u202e` forms.
std::string escape_terminal(std::string_view text);

/// Appends a tab, then field with tab, newline and backslash escaped (\t, \n, \\): one field
/// of the line-per-record text files under .git/feeddiff/cache.
void append_tab_field(std::string& out, std::string_view field);
/// The tab-separated fields of such a line, unescaped; false on a bad escape.
bool split_tab_fields(std::string_view line, std::vector<std::string>& fields);

/// The parts of a URL as written (RFC 3986's generic syntax), found textually: nothing is
/// decoded or validated, so that URLs libcurl would refuse can still be redacted. Every part
/// is a view into the argument, which must outlive it.
struct UrlParts {
  std::string_view scheme;                   ///< `https`; empty for `//host` or no authority
  bool has_authority = false;                ///< it began with `scheme://` or `//`
  std::optional<std::string_view> userinfo;  ///< `user:password`, before the authority's last @
  std::string_view host;                     ///< `example.com`, `[::1]` (brackets kept)
  std::optional<std::string_view> port;      ///< after the host's `:` (may be empty)
  std::string_view path;                     ///< `/feed.xml`; everything before ? or # when
                                             ///< there is no authority
  std::optional<std::string_view> query;     ///< after `?`, up to `#`
  std::optional<std::string_view> fragment;  ///< after `#`
};

/// Splits a URL into its parts; the one URL splitter of feeddiff (config, fetch, poll and
/// cli all call it).
UrlParts split_url(std::string_view url);

/// `host:port` of a URL (the host lower-cased, the port only when given); "" when it has no
/// authority: what per-host limits and credentials go by.
std::string host_and_port(std::string_view url);

/// The URL with any user:password@ removed; safe to write to commits, state and logs.
std::string redact_url(std::string_view url);

/// One character decoded from UTF-8.
struct Utf8Char {
  char32_t cp = 0;       ///< the code point; meaningless when size is 0
  std::size_t size = 0;  ///< its length in bytes, 1 to 4; 0 when the bytes are not UTF-8
};

/// Decodes the UTF-8 sequence that starts at s[i] (i < s.size()). Size 0 for anything
/// RFC 3629 rejects: a continuation or 0xC0, 0xC1, 0xF5-0xFF lead byte, an overlong form, a
/// surrogate, a value past U+10FFFF, a sequence cut short by a non-continuation byte or by the
/// end of s.
Utf8Char decode_utf8(std::string_view s, std::size_t i);

/// Appends cp as UTF-8; a surrogate or a value past U+10FFFF is appended as U+FFFD.
void append_utf8(std::string& out, char32_t cp);

/// A numeric character reference as XML and HTML write one: `&#233;`, `&#xE9;` or `&#XE9;`.
struct CharRef {
  /// The number written, or kCharRefTooLarge for any number past U+10FFFF (however many
  /// digits). Zero and surrogates are returned as written: XML forbids them, HTML reads them
  /// as U+FFFD, so the caller decides.
  char32_t value = 0;
  std::size_t size = 0;  ///< bytes from the '&' through the ';'
};

/// CharRef::value for a reference to a number past U+10FFFF.
inline constexpr char32_t kCharRefTooLarge = 0x110000;

/// The numeric character reference at the start of s (which starts with '&'); nullopt unless
/// s starts with `&#`, then an optional x or X, then one or more digits of that base (any
/// number of them), then ';'.
std::optional<CharRef> parse_char_ref(std::string_view s);

/// Incremental SHA-1 (libcrypto's). Names git objects and packs and the fallback ids of items;
/// not for security.
class Sha1 {
 public:
  /// A digest of nothing yet.
  Sha1();
  /// Releases the libcrypto context.
  ~Sha1();
  Sha1(const Sha1&) = delete;             ///< one context, one owner
  Sha1& operator=(const Sha1&) = delete;  ///< one context, one owner
  /// Adds bytes.
  void update(std::string_view data);
  /// The digest of everything added; the object is spent afterwards.
  std::array<unsigned char, 20> finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// The SHA-1 of data, 20 bytes.
std::array<unsigned char, 20> sha1(std::string_view data);

/// The SHA-1 of data in 40 lower-case hex digits, as git writes object names.
std::string sha1_hex(std::string_view data);

/// The SHA-256 of data in 64 lower-case hex digits: for what must resist a chosen collision
/// (the hook values a machine consents to run), where SHA-1 no longer does.
std::string sha256_hex(std::string_view data);

/// Writes a file atomically and durably: a temporary file beside it, fsync, rename, then an
/// fsync of the directory (without it a power loss can undo the rename). The temporary is a
/// new file created with mode (less the umask), so the bytes are never readable more widely
/// than mode allows; pass 0600 for secrets.
Status write_file_atomic(const std::string& path, std::string_view content, unsigned mode = 0644);
/// Replaces a file atomically (a temporary beside it, then a rename) without waiting for the
/// disk: readers see the old bytes or the new, never a mix, but a power loss may lose either.
/// For many files whose writer then calls sync_filesystem once before it records them done.
Status write_file_replace(const std::string& path, std::string_view content);
/// Creates a file that is not there yet, writing it in place (no temporary, no rename: a
/// file creation less for each of the tens of thousands of pages a first site build writes).
/// A reader may see it empty or short while it is written, and a process killed meanwhile
/// leaves it so: for files that no reader knows of yet and that the writer's next run writes
/// again. Errc::exists when the file is there, Errc::not_found when its directory is not.
Status write_file_new(const std::string& path, std::string_view content);
/// Flushes the file system that holds the directory (syncfs): every write_file_replace
/// before it is then on disk. Errc::io naming the directory on failure.
Status sync_filesystem(const std::string& path);
/// fsyncs a directory, so that the renames and new names in it are on disk; Errc::io naming
/// the directory when it cannot be opened or flushed.
Status fsync_dir(const std::string& path);
/// Reads a whole file.
Result<std::string> read_file(const std::string& path);

/// Room for at least `bytes` in `buffer` (its size unchanged), backed by transparent huge
/// pages where the kernel offers them on request: call it before the first write to a
/// buffer of many megabytes (a 20 MB feed), whose 4 KB pages would otherwise fault in one by
/// one. Only a hint; small sizes just reserve.
void reserve_large(std::string& buffer, std::size_t bytes);

/// Asks for transparent huge pages over the whole 2 MB pages inside [data, data + bytes),
/// when bytes is at least 4 MB (a hint; what reserve_large does after reserving).
void advise_huge_pages(const void* data, std::size_t bytes);

/// As reserve_large, for a vector: room for at least `count` elements, backed by huge pages
/// where whole ones fit. Call it before the first write.
template <class Vector>
void reserve_large(Vector& vector, std::size_t count) {
  vector.reserve(count);
  advise_huge_pages(vector.data(), vector.capacity() * sizeof(*vector.data()));
}

}  // namespace feeddiff
