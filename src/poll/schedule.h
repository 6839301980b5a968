#pragma once
// When a source is next due, from its interval and what the server said.

#include <optional>
#include <string_view>

#include "feeddiff/core.h"
#include "feeddiff/fetch.h"

namespace feeddiff::schedule {

/// The longest a server's caching hints may push a poll out: a broken Expires must not
/// silence a source for years.
inline constexpr TimeMs kMaxHint = 7 * 86'400'000LL;
/// The cap of the error backoff.
inline constexpr TimeMs kMaxBackoff = 86'400'000LL;

/// Seconds from Cache-Control max-age (less Age), Expires (less Date) and RSS <ttl>
/// (minutes) in the body: the longest of them, in ms, or 0.
TimeMs freshness_hint(const FetchResponse& response);

/// Retry-After as seconds or an HTTP date, relative to the response's Date (or now); ms.
std::optional<TimeMs> retry_after(const FetchResponse& response, TimeMs now);

/// The delay after the n-th consecutive failure: the interval doubled each time, capped.
TimeMs backoff(TimeMs every, int failures);

}  // namespace feeddiff::schedule
