#pragma once
// Internal to fetch (no other module includes curl): RAII owners for libcurl handles, the
// one-time global initialization, and URL helpers shared by the transfer code.

#include <curl/curl.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace feeddiff::fetch_detail {

using CurlPtr = std::unique_ptr<CURL, decltype(&curl_easy_cleanup)>;
using CurlMultiPtr = std::unique_ptr<CURLM, decltype(&curl_multi_cleanup)>;
using CurlSlistPtr = std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)>;
using CurlUrlPtr = std::unique_ptr<CURLU, decltype(&curl_url_cleanup)>;

/// Runs curl_global_init exactly once per process, before any handle is made. A
/// function-local static makes the first call thread-safe.
bool ensure_curl_initialized();

/// A fresh URL handle (after global initialization); null only when out of memory.
inline CurlUrlPtr make_url_handle() {
  ensure_curl_initialized();
  return CurlUrlPtr(curl_url(), &curl_url_cleanup);
}

/// `base` with the Location value resolved against it (relative references included);
/// the location itself when it cannot be resolved.
std::string resolve_location(const std::string& base, const std::string& location);

/// The host name of an absolute URL, or "" when there is none.
std::string host_of(const std::string& url);

/// The credential strings a URL carries (userinfo and password, raw and percent-decoded),
/// so that text from libcurl can be scrubbed of them.
std::vector<std::string> secrets_of(std::string_view url);

/// The text with every occurrence of each secret replaced by "***".
std::string scrub(std::string text, const std::vector<std::string>& secrets);

}  // namespace feeddiff::fetch_detail
