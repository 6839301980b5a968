// The one URL splitter. Hand-written rather than libcurl's CURLU: core is the base every
// module links, and libcurl is loaded only by fetch (dlopen, src/fetch/curl_api.h); and the
// splitter must also take apart URLs libcurl refuses, which is when an error message most
// needs its credentials removed.

#include "feeddiff/core.h"

namespace feeddiff {

namespace {

bool is_scheme_char(char c, bool first) {
  const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  if (first) return alpha;
  return alpha || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
}

// Where the authority starts: after "scheme://" or a leading "//"; npos when there is none.
std::size_t authority_start(std::string_view url) {
  if (url.starts_with("//")) return 2;
  const auto sep = url.find("://");
  if (sep == std::string_view::npos || sep == 0) return std::string_view::npos;
  for (std::size_t i = 0; i < sep; ++i)
    if (!is_scheme_char(url[i], i == 0)) return std::string_view::npos;
  return sep + 3;
}

}  // namespace

UrlParts split_url(std::string_view url) {
  UrlParts parts;
  if (const auto hash = url.find('#'); hash != std::string_view::npos) {
    parts.fragment = url.substr(hash + 1);
    url = url.substr(0, hash);
  }
  if (const auto start = authority_start(url); start != std::string_view::npos) {
    parts.has_authority = true;
    parts.scheme = url.substr(0, start >= 3 ? start - 3 : 0);
    auto end = url.find_first_of("/?", start);
    if (end == std::string_view::npos) end = url.size();
    std::string_view authority = url.substr(start, end - start);
    url = url.substr(end);
    if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
      parts.userinfo = authority.substr(0, at);
      authority.remove_prefix(at + 1);
    }
    // An IPv6 literal keeps its brackets; its colons are not a port's.
    std::size_t colon = std::string_view::npos;
    if (authority.starts_with('[')) {
      const auto close = authority.find(']');
      if (close != std::string_view::npos && close + 1 < authority.size() &&
          authority[close + 1] == ':')
        colon = close + 1;
    } else {
      colon = authority.rfind(':');
    }
    if (colon != std::string_view::npos) {
      parts.port = authority.substr(colon + 1);
      authority = authority.substr(0, colon);
    }
    parts.host = authority;
  }
  if (const auto question = url.find('?'); question != std::string_view::npos) {
    parts.query = url.substr(question + 1);
    url = url.substr(0, question);
  }
  parts.path = url;
  return parts;
}

std::string redact_url(std::string_view url) {
  const UrlParts parts = split_url(url);
  if (!parts.userinfo) return std::string(url);
  const auto userinfo_at = static_cast<std::size_t>(parts.userinfo->data() - url.data());
  return std::string(url.substr(0, userinfo_at)) +
         std::string(url.substr(userinfo_at + parts.userinfo->size() + 1));
}

std::string host_and_port(std::string_view url) {
  const UrlParts parts = split_url(url);
  if (!parts.has_authority) return {};
  std::string host = to_lower(parts.host);
  if (parts.port) host += ":" + std::string(*parts.port);
  return host;
}

}  // namespace feeddiff
