// One transfer (transfer.h): the easy handle made for a request, the callbacks that fill the
// transfer in as libcurl calls them (the redirect policy among them), and the response it
// ends with.

#include "fetch/transfer.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "feeddiff/core.h"
#include "feeddiff/failpoint.h"

namespace feeddiff::fetch_detail {

namespace {

// The most a transfer reserves for a body on the strength of its Content-Length alone.
constexpr std::uint64_t kReserveMaxBytes = std::uint64_t{8} << 20;

constexpr const char* kAccept =
    "Accept: application/rss+xml, application/atom+xml, application/feed+json, "
    "application/xml;q=0.9, text/xml;q=0.9, application/json;q=0.8, */*;q=0.5";

bool is_redirect_status(long status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

// A header value that could split into a second header line is never sent.
bool safe_header_value(std::string_view v) {
  return v.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

// Test builds only (feeddiff/failpoint.h): FEEDDIFF_TEST_PUBLIC_ORIGIN=1 counts the address a
// request's own URL connects to as a public one, so that a test on loopback can show that a
// redirect from the Internet into loopback is refused. Every other build ignores it.
bool test_public_origin() {
  if (!failpoints_built()) return false;
  const char* value = std::getenv("FEEDDIFF_TEST_PUBLIC_ORIGIN");
  return value && *value && std::string_view(value) != "0";
}

std::size_t header_callback(char* data, std::size_t size, std::size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  return t->on_header_line(std::string_view(data, size * n)) ? size * n : 0;
}

std::size_t write_callback(char* data, std::size_t size, std::size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  return t->on_body(std::string_view(data, size * n)) ? size * n : 0;
}

// Called once a connection (TCP, and TLS when https) is ready for the request, new or reused.
int prereq_callback(void* user, char*, char*, int, int) {
  static_cast<Transfer*>(user)->connected = true;
  return CURL_PREREQFUNC_OK;
}

// Every connection libcurl opens comes here first, with the address it resolved: a redirected
// hop (not the request's own URL) into an address class the policy refuses gets no socket, so
// nothing is sent there.
curl_socket_t open_socket(void* user, curlsocktype purpose, curl_sockaddr* address) {
  auto* t = static_cast<Transfer*>(user);
  t->dialed = true;
  if (purpose == CURLSOCKTYPE_IPCXN && t->policed()) {
    char ip[INET6_ADDRSTRLEN] = {};
    std::optional<AddressClass> c;
    if (address->family == AF_INET && address->addrlen >= sizeof(sockaddr_in)) {
      const auto* in = reinterpret_cast<const sockaddr_in*>(&address->addr);
      c = fetch_detail::classify_ipv4(ntohl(in->sin_addr.s_addr));
      ::inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
    } else if (address->family == AF_INET6 && address->addrlen >= sizeof(sockaddr_in6)) {
      const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&address->addr);
      unsigned char bytes[16];
      std::memcpy(bytes, &in6->sin6_addr, sizeof bytes);
      c = fetch_detail::classify_ipv6(bytes);
      ::inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof ip);
    }
    if (c && !t->may_reach(*c)) {
      t->refuse(*c, ip);
      return CURL_SOCKET_BAD;
    }
  }
  return ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

// Allows http and https only, for the request and every redirect. The _STR options came
// with libcurl 7.85; 7.80 to 7.84 (the oldest the package accepts; Ubuntu 22.04 has 7.81)
// refuse them as unknown, and take the bitmask options they replaced instead.
CURLcode allow_http_only(CURL* h) {
  CURLcode c = curl::easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  if (c == CURLE_OK) c = curl::easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  if (c != CURLE_UNKNOWN_OPTION) return c;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  const long http_only = CURLPROTO_HTTP | CURLPROTO_HTTPS;
  c = curl::easy_setopt(h, CURLOPT_PROTOCOLS, http_only);
  if (c == CURLE_OK) c = curl::easy_setopt(h, CURLOPT_REDIR_PROTOCOLS, http_only);
#pragma GCC diagnostic pop
  return c;
}

std::string http_version_name(long v) {
  switch (v) {
    case CURL_HTTP_VERSION_1_0:
      return "1.0";
    case CURL_HTTP_VERSION_1_1:
      return "1.1";
    case CURL_HTTP_VERSION_2_0:
      return "2";
    case CURL_HTTP_VERSION_3:
      return "3";
    default:
      return "";
  }
}

}  // namespace

void Transfer::refuse(AddressClass c, const std::string& ip) {
  if (redirects.empty()) {
    refused = fmt::format(
        "refused to fetch this link: it leads to {}, {}, and a link that came in a feed may "
        "reach only the Internet and the kind of network the feed itself came from",
        ip, address_class_words(c));
    return;
  }
  refused = fmt::format(
      "refused to follow the redirect to {}: it leads to {}, {} (a source whose feed "
      "really moved there can allow it: allow_private_redirects = true)",
      redirects.back().target, ip, address_class_words(c));
}

// At each response: the address it came from. The first hop's is the origin's (unless the
// URL is a link that came with data, which is policed as a redirect is); a later hop's must
// be one the policy allows. open_socket refuses before connecting; this catches a hop that
// re-used a connection another transfer had opened, before its body is read.
bool Transfer::check_hop() {
  const char* ip = nullptr;
  curl::easy_getinfo(easy.get(), CURLINFO_PRIMARY_IP, &ip);
  const std::optional<AddressClass> c =
      ip && *ip ? classify_address(ip) : std::optional<AddressClass>();
  if (redirects.empty() && !first_hop_class) first_hop_class = c;
  if (redirects.empty() && !request.link_from) {
    if (!origin_class) origin_class = test_public_origin() ? AddressClass::global : c;
    return true;
  }
  if (!c || may_reach(*c)) return true;
  refuse(*c, ip);
  return false;
}

const Header* Transfer::find(std::string_view name) const {
  for (const Header& h : response_headers)
    if (h.name.size() == name.size() && to_lower(h.name) == to_lower(name)) return &h;
  return nullptr;
}

// Called at the blank line that ends a response's headers; false aborts the transfer.
bool Transfer::headers_done() {
  last_was_redirect = false;
  if (!check_hop()) return false;
  if (status / 100 == 1) return true;  // 100 Continue, 103 Early Hints: more to come
  if (is_redirect_status(status) && request.max_redirects > 0) {
    if (const Header* location = find("Location"); location && !location->value.empty()) {
      current_url = fetch_detail::resolve_location(current_url, location->value);
      redirects.push_back(Redirect{status, redact_url(current_url)});
      last_was_redirect = true;
      // The next hop's timeout reason is its own.
      connected = responded = false;
      return true;
    }
  }
  if (status == 204 || status == 304) return true;
  if (const Header* length = find("Content-Length")) {
    std::uint64_t n = 0;
    const char* end = length->value.data() + length->value.size();
    if (std::from_chars(length->value.data(), end, n).ptr != end) return true;
    if (n > request.max_body_bytes) {
      declared_length = n;
      abort = Abort::declared_too_large;
      return false;
    }
    // Room for the declared body at once: appended piece by piece, a body of 600 KB was
    // copied through six doublings, each into fresh pages. Capped, since a server may
    // declare more than it sends (the room is only reserved, not touched).
    body.reserve(std::min<std::uint64_t>(n, kReserveMaxBytes));
  }
  return true;
}

bool Transfer::on_header_line(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (line.starts_with("HTTP/")) {
    // A new response (interim, redirect, auth retry or final) starts here.
    responded = true;
    status = 0;
    auto sp = line.find(' ');
    if (sp != std::string_view::npos) {
      std::string_view code = line.substr(sp + 1, 3);
      std::from_chars(code.data(), code.data() + code.size(), status);
    }
    response_headers.clear();
    body.clear();
    return true;
  }
  if (line.empty()) return headers_done();
  if ((line.front() == ' ' || line.front() == '\t') && !response_headers.empty()) {
    // Obsolete line folding continues the previous header's value.
    response_headers.back().value += ' ';
    response_headers.back().value += trim(line);
    return true;
  }
  auto colon = line.find(':');
  if (colon == std::string_view::npos) return true;
  response_headers.push_back(
      Header{std::string(line.substr(0, colon)), std::string(trim(line.substr(colon + 1)))});
  return true;
}

bool Transfer::on_body(std::string_view data) {
  // Decoded bytes are counted, so a small compressed body that inflates past the limit
  // (a gzip bomb) stops at the limit instead of filling memory.
  if (data.size() > request.max_body_bytes - std::min(body.size(), request.max_body_bytes)) {
    abort = Abort::too_large;
    return false;
  }
  body.append(data);
  return true;
}

Error internal_error(const FetchRequest& request, std::string_view what) {
  return Error{Errc::internal, fmt::format("{}: {}", redact_url(request.url), what)};
}

// Makes the easy handle for a request; the request's URL has passed check_url.
std::optional<Error> setup(Transfer& t, const FetchOptions& options) {
  const FetchRequest& r = t.request;
  if (r.link_from) t.origin_class = r.link_from;
  t.easy.reset(curl::easy_init());
  if (!t.easy) return internal_error(r, "cannot create a libcurl handle");
  CURL* h = t.easy.get();

  auto add_header = [&t](const std::string& line) {
    curl_slist* grown = curl::slist_append(t.headers.get(), line.c_str());
    if (!grown) return false;
    (void)t.headers.release();  // the grown list now owns the old nodes
    t.headers.reset(grown);
    return true;
  };
  bool added_all = add_header(kAccept);
  // Validators go back verbatim: never rebuilt, reformatted or taken from the local clock.
  if (!r.if_none_match.empty() && safe_header_value(r.if_none_match))
    added_all = added_all && add_header("If-None-Match: " + r.if_none_match);
  if (!r.if_modified_since.empty() && safe_header_value(r.if_modified_since))
    added_all = added_all && add_header("If-Modified-Since: " + r.if_modified_since);
  if (r.post_body) {
    if (safe_header_value(r.post_content_type))
      added_all = added_all && add_header("Content-Type: " + r.post_content_type);
    // No `Expect: 100-continue`: most receivers never answer it, which costs a second.
    added_all = added_all && add_header("Expect:");
  }
  if (!added_all) return internal_error(r, "out of memory");

  const std::string user_agent =
      options.user_agent.empty() ? default_user_agent() : options.user_agent;

  CURLcode rc = CURLE_OK;
  auto check = [&rc](CURLcode c) {
    if (rc == CURLE_OK) rc = c;
  };
  check(curl::easy_setopt(h, CURLOPT_URL, r.url.c_str()));
  check(curl::easy_setopt(h, CURLOPT_PRIVATE, &t));
  check(curl::easy_setopt(h, CURLOPT_ERRORBUFFER, t.errbuf));
  check(curl::easy_setopt(h, CURLOPT_NOSIGNAL, 1L));
  check(allow_http_only(h));
  check(curl::easy_setopt(h, CURLOPT_FOLLOWLOCATION, r.max_redirects > 0 ? 1L : 0L));
  check(curl::easy_setopt(h, CURLOPT_MAXREDIRS, static_cast<long>(std::max(r.max_redirects, 0))));
  // Politeness (DESIGN.md): no Referer, no cookie engine (no CURLOPT_COOKIEFILE is set), and
  // user:password from the URL never goes to another host (CURLOPT_UNRESTRICTED_AUTH off).
  check(curl::easy_setopt(h, CURLOPT_AUTOREFERER, 0L));
  check(curl::easy_setopt(h, CURLOPT_UNRESTRICTED_AUTH, 0L));
  check(curl::easy_setopt(h, CURLOPT_ACCEPT_ENCODING, ""));
  check(curl::easy_setopt(h, CURLOPT_USERAGENT, user_agent.c_str()));
  check(curl::easy_setopt(h, CURLOPT_HTTPHEADER, t.headers.get()));
  check(curl::easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, std::max(r.connect_timeout_ms, 1L)));
  check(curl::easy_setopt(h, CURLOPT_TIMEOUT_MS, std::max(r.total_timeout_ms, 0L)));
  if (r.low_speed_bytes_per_second > 0 && r.low_speed_seconds > 0) {
    check(curl::easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, r.low_speed_bytes_per_second));
    check(curl::easy_setopt(h, CURLOPT_LOW_SPEED_TIME, r.low_speed_seconds));
  }
  // Several transfers to one HTTP/2 host share a connection instead of opening more. Only
  // over https, where HTTP/2 is offered: libcurl learns whether a connection multiplexes from
  // TLS's ALPN, while over plain http it waits for the first response, so a transfer set to
  // wait sat behind a server that never answered another one, and timed out unconnected
  // (the trial's "no connection within 5 s" for a server that was sending).
  if (to_lower(t.current_url).starts_with("https:"))
    check(curl::easy_setopt(h, CURLOPT_PIPEWAIT, 1L));
  check(curl::easy_setopt(h, CURLOPT_HEADERFUNCTION, &header_callback));
  check(curl::easy_setopt(h, CURLOPT_HEADERDATA, &t));
  check(curl::easy_setopt(h, CURLOPT_WRITEFUNCTION, &write_callback));
  check(curl::easy_setopt(h, CURLOPT_WRITEDATA, &t));
  check(curl::easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, &open_socket));
  check(curl::easy_setopt(h, CURLOPT_OPENSOCKETDATA, &t));
  check(curl::easy_setopt(h, CURLOPT_PREREQFUNCTION, &prereq_callback));
  check(curl::easy_setopt(h, CURLOPT_PREREQDATA, &t));
  if (r.post_body) {
    check(curl::easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
                            static_cast<curl_off_t>(r.post_body->size())));
    // The request outlives its transfer (fetch_all's caller holds it): no copy is needed.
    check(curl::easy_setopt(h, CURLOPT_POSTFIELDS, r.post_body->data()));
  }
  if (rc != CURLE_OK)
    return internal_error(r, fmt::format("libcurl refused an option: {}", curl::easy_strerror(rc)));
  return std::nullopt;
}

Result<FetchResponse> finish(CURLcode code, Transfer& t) {
  if (code != CURLE_OK) return describe_failure(code, t);
  CURL* h = t.easy.get();
  FetchResponse response;
  curl::easy_getinfo(h, CURLINFO_RESPONSE_CODE, &response.status);
  response.headers = std::move(t.response_headers);
  response.body = std::move(t.body);
  char* effective = nullptr;
  curl::easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &effective);
  response.final_url = redact_url(effective ? effective : t.request.url);
  // A redirect status that libcurl did not follow (following disabled) is the response.
  if (t.last_was_redirect && !t.redirects.empty()) t.redirects.pop_back();
  response.redirects = std::move(t.redirects);
  long version = 0;
  curl::easy_getinfo(h, CURLINFO_HTTP_VERSION, &version);
  response.http_version = http_version_name(version);
  curl_off_t wire = 0, total_us = 0;
  curl::easy_getinfo(h, CURLINFO_SIZE_DOWNLOAD_T, &wire);
  curl::easy_getinfo(h, CURLINFO_TOTAL_TIME_T, &total_us);
  response.wire_bytes = static_cast<std::uint64_t>(std::max<curl_off_t>(wire, 0));
  response.seconds = static_cast<double>(total_us) / 1e6;
  response.address_class =
      test_public_origin() ? std::optional(AddressClass::global) : t.first_hop_class;
  return response;
}

}  // namespace feeddiff::fetch_detail
