#pragma once
// Internal to fetch (no other module includes curl): RAII owners for libcurl handles, the
// one-time loading and global initialization, and URL helpers shared by the transfer code.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/fetch.h"
#include "fetch/curl_api.h"

namespace feeddiff::fetch_detail {

// Deleters call libcurl through the loaded table (fetch/curl_api.h); a handle exists only
// once it was loaded.
struct EasyCleanup {
  void operator()(CURL* h) const { curl::easy_cleanup(h); }
};
struct MultiCleanup {
  void operator()(CURLM* m) const { curl::multi_cleanup(m); }
};
struct SlistFree {
  void operator()(curl_slist* list) const { curl::slist_free_all(list); }
};
struct UrlCleanup {
  void operator()(CURLU* u) const { curl::url_cleanup(u); }
};
struct CurlFree {
  void operator()(char* p) const { curl::free(p); }
};

using CurlPtr = std::unique_ptr<CURL, EasyCleanup>;
using CurlMultiPtr = std::unique_ptr<CURLM, MultiCleanup>;
using CurlSlistPtr = std::unique_ptr<curl_slist, SlistFree>;
using CurlUrlPtr = std::unique_ptr<CURLU, UrlCleanup>;
/// A curl-allocated string, freed with curl_free.
using CurlString = std::unique_ptr<char, CurlFree>;

/// Loads libcurl and runs curl_global_init exactly once per process, before any handle is
/// made. A function-local static makes the first call thread-safe. False when either failed;
/// curl_failure() then says why.
bool ensure_curl_initialized();

/// Why ensure_curl_initialized() returned false: "libcurl could not be loaded (...)" or
/// "libcurl could not be initialized".
std::string curl_failure();

/// A fresh URL handle (after loading and global initialization); null when libcurl is
/// missing or out of memory.
inline CurlUrlPtr make_url_handle() {
  if (!ensure_curl_initialized()) return nullptr;
  return CurlUrlPtr(curl::url());
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

/// The class of an IPv4 address in host byte order.
AddressClass classify_ipv4(std::uint32_t address);
/// The class of an IPv6 address in network byte order.
AddressClass classify_ipv6(const unsigned char (&bytes)[16]);

}  // namespace feeddiff::fetch_detail
