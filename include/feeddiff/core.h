#pragma once
// Small shared vocabulary: clocks, dates, durations, number formatting and source names.
// Pure functions only; nothing here touches the network, git or the terminal.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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

/// The shortest exact form parse_duration reads back: `1h30m`, `2d`, `45s`.
std::string format_duration(TimeMs ms);

/// `250073` -> `250,073`.
std::string with_thousands(std::uint64_t n);

/// The one version string: `feeddiff/<version> (+<project url>)` is built from it.
std::string_view version();

/// The project's home page, named in the User-Agent.
std::string_view project_url();

/// Checks that a source name is safe as a path component and a git ref-free path segment:
/// 1 to 100 characters of [A-Za-z0-9._-], starting with a letter or digit.
Status check_source_name(std::string_view name);

/// Trims ASCII whitespace at both ends.
std::string_view trim(std::string_view s);

/// ASCII lower case.
std::string to_lower(std::string_view s);

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

/// The URL with any user:password@ removed; safe to write to commits, state and logs.
std::string redact_url(std::string_view url);

}  // namespace feeddiff
