#include <fmt/format.h>

#include "feeddiff/core.h"
#include "feeddiff/fetch.h"
#include "fetch/internal.h"

namespace feeddiff {

namespace curl = fetch_detail::curl;

namespace fetch_detail {

bool ensure_curl_initialized() {
  static const bool ok = curl::load() && curl::fn().global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  return ok;
}

std::string curl_failure() {
  std::string why;
  if (!curl::load(&why)) return fmt::format("libcurl could not be loaded ({})", why);
  return "libcurl could not be initialized";
}

namespace {

std::string get_part(CURLU* url, CURLUPart part) {
  char* raw = nullptr;
  if (curl::url_get(url, part, &raw, 0) != CURLUE_OK || raw == nullptr) return {};
  CurlString owned(raw);
  return owned.get();
}

std::string percent_decode(std::string_view s) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

std::string resolve_location(const std::string& base, const std::string& location) {
  CurlUrlPtr url = make_url_handle();
  if (!url || curl::url_set(url.get(), CURLUPART_URL, base.c_str(), 0) != CURLUE_OK ||
      curl::url_set(url.get(), CURLUPART_URL, location.c_str(), 0) != CURLUE_OK)
    return location;
  std::string resolved = get_part(url.get(), CURLUPART_URL);
  return resolved.empty() ? location : resolved;
}

std::string host_of(const std::string& url) {
  CurlUrlPtr handle = make_url_handle();
  if (!handle || curl::url_set(handle.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK) return {};
  return get_part(handle.get(), CURLUPART_HOST);
}

std::vector<std::string> secrets_of(std::string_view url) {
  std::vector<std::string> secrets;
  const std::string_view info = split_url(url).userinfo.value_or(std::string_view());
  if (info.empty()) return secrets;
  auto add = [&](std::string_view s) {
    if (!s.empty()) {
      secrets.emplace_back(s);
      std::string decoded = percent_decode(s);
      if (decoded != s) secrets.push_back(std::move(decoded));
    }
  };
  add(info);
  if (auto colon = info.find(':'); colon != std::string_view::npos) add(info.substr(colon + 1));
  return secrets;
}

std::string scrub(std::string text, const std::vector<std::string>& secrets) {
  for (const std::string& secret : secrets) {
    if (secret.empty()) continue;
    for (std::size_t at = text.find(secret); at != std::string::npos;
         at = text.find(secret, at + 3))
      text.replace(at, secret.size(), "***");
  }
  return text;
}

}  // namespace fetch_detail

using fetch_detail::CurlUrlPtr;

Status check_url(std::string_view url) {
  auto bad = [&](std::string_view why) {
    return Error{Errc::bad_url, fmt::format("{}: {}", redact_url(url), why)};
  };
  if (trim(url).empty()) return Error{Errc::bad_url, "the URL is empty"};
  for (char c : url)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
      return bad("the URL contains a space or a control character");
  const UrlParts parts = split_url(url);
  if (!parts.has_authority || parts.scheme.empty()) {
    // "http:/x" and "https:x" are typos of absolute URLs; anything else is relative.
    std::string lower = to_lower(url.substr(0, 6));
    if (lower.starts_with("http:") || lower.starts_with("https:"))
      return bad("malformed URL (expected '//' after the scheme)");
    return bad("not an absolute URL (it must start with http:// or https://)");
  }
  const std::string scheme = to_lower(parts.scheme);
  if (scheme != "http" && scheme != "https")
    return bad(fmt::format("unsupported URL scheme '{}' (use http or https)", scheme));

  // libcurl reads "http:///feed.xml" as host "feed.xml"; a browser would not.
  const std::string_view rest = url.substr(parts.scheme.size() + 3);
  if (rest.empty() || rest.front() == '/' || rest.front() == '?' || rest.front() == '#')
    return bad("the URL has no host");

  CurlUrlPtr handle = fetch_detail::make_url_handle();
  if (!handle)
    return Error{Errc::internal, fetch_detail::ensure_curl_initialized()
                                     ? "out of memory parsing a URL"
                                     : fetch_detail::curl_failure()};
  const std::string text(url);
  CURLUcode rc = curl::url_set(handle.get(), CURLUPART_URL, text.c_str(), 0);
  switch (rc) {
    case CURLUE_OK:
      break;
    case CURLUE_NO_HOST:
      return bad("the URL has no host");
    case CURLUE_BAD_PORT_NUMBER:
      return bad("bad port number");
    case CURLUE_BAD_HOSTNAME:
    case CURLUE_BAD_IPV6:
      return bad("bad host name");
    case CURLUE_BAD_LOGIN:
    case CURLUE_BAD_USER:
    case CURLUE_BAD_PASSWORD:
      return bad("bad user name or password in the URL");
    default:
      return bad(fmt::format("malformed URL ({})", curl::url_strerror(rc)));
  }
  if (fetch_detail::host_of(text).empty()) return bad("the URL has no host");
  return Ok{};
}

std::string default_user_agent() {
  return fmt::format("feeddiff/{} (+{})", version(), project_url());
}

Result<std::string> libcurl_version() {
  std::string why;
  if (!curl::load(&why)) return Error{Errc::network, why};
  const curl_version_info_data* info = curl::version_info(CURLVERSION_NOW);
  if (!info || !info->version) return Error{Errc::network, "libcurl reports no version"};
  return std::string(info->version);
}

const Header* FetchResponse::header(std::string_view name) const {
  const std::string wanted = to_lower(name);
  for (const Header& h : headers)
    if (h.name.size() == wanted.size() && to_lower(h.name) == wanted) return &h;
  return nullptr;
}

}  // namespace feeddiff
