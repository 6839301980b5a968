#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "core/failpoint.h"
#include "feeddiff/core.h"
#include "feeddiff/fetch.h"
#include "fetch/internal.h"

namespace feeddiff {

namespace {

using fetch_detail::CurlMultiPtr;
using fetch_detail::CurlPtr;
using fetch_detail::CurlSlistPtr;
namespace curl = fetch_detail::curl;

constexpr const char* kAccept =
    "Accept: application/rss+xml, application/atom+xml, application/feed+json, "
    "application/xml;q=0.9, text/xml;q=0.9, application/json;q=0.8, */*;q=0.5";

// "50 MiB", "64 KiB", "1000 bytes": limits read the way they were most likely set.
std::string format_size(std::uint64_t n) {
  if (n >= (1u << 20) && n % (1u << 20) == 0) return fmt::format("{} MiB", n >> 20);
  if (n >= (1u << 10) && n % (1u << 10) == 0) return fmt::format("{} KiB", n >> 10);
  return fmt::format("{} bytes", with_thousands(n));
}

std::string format_ms(long ms) {
  if (ms % 1000 == 0) return fmt::format("{} s", ms / 1000);
  return fmt::format("{} ms", ms);
}

bool is_redirect_status(long status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

// A header value that could split into a second header line is never sent.
bool safe_header_value(std::string_view v) {
  return v.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

// Test builds only (core/failpoint.h): FEEDDIFF_TEST_PUBLIC_ORIGIN=1 counts the address a
// request's own URL connects to as a public one, so that a test on loopback can show that a
// redirect from the Internet into loopback is refused. Every other build ignores it.
bool test_public_origin() {
  if (!failpoints_built()) return false;
  const char* value = std::getenv("FEEDDIFF_TEST_PUBLIC_ORIGIN");
  return value && *value && std::string_view(value) != "0";
}

// One transfer in flight: its easy handle and everything its callbacks fill in.
struct Transfer {
  enum class Abort { none, declared_too_large, too_large };

  Transfer(std::size_t i, const FetchRequest& r, CURLM* m)
      : index(i), request(r), multi(m), current_url(r.url) {}
  ~Transfer() {
    if (added) curl::multi_remove_handle(multi, easy.get());
  }
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;

  std::size_t index;
  const FetchRequest& request;
  CURLM* multi;
  CurlPtr easy;
  CurlSlistPtr headers;
  bool added = false;

  // The URL now being fetched (credentials kept: relative Locations resolve against it).
  std::string current_url;
  // The response whose headers are arriving; a new status line starts a new one.
  long status = 0;
  std::vector<Header> response_headers;
  bool last_was_redirect = false;
  std::vector<Redirect> redirects;
  std::string body;
  Abort abort = Abort::none;
  std::uint64_t declared_length = 0;
  char errbuf[CURL_ERROR_SIZE] = {};
  // What this transfer itself saw, for the reason of a timeout: CURLINFO_CONNECT_TIME_T reads
  // 0 for a transfer that was connected and receiving when it timed out beside others in the
  // same multi handle (the trial's "no connection within 5 s" for a server that was sending).
  bool connected = false;  // libcurl had a connection ready for its request (prereq callback)
  bool responded = false;  // a response's first line arrived
  bool dialed = false;     // libcurl opened a socket of its own for it (open_socket)
  // The redirect policy (FetchRequest::allow_private_redirects): the class of the address
  // that answered the request's own URL, and why a later hop was refused ("" when none was).
  std::optional<AddressClass> origin_class;
  std::string refused;

  // Whether a redirected hop may connect to an address of this class.
  bool may_reach(AddressClass c) const {
    return request.allow_private_redirects || c == AddressClass::global ||
           (origin_class && *origin_class == c);
  }

  void refuse(AddressClass c, const std::string& ip) {
    refused = fmt::format(
        "refused to follow the redirect to {}: it leads to {}, {} (a source whose feed "
        "really moved there can allow it: allow_private_redirects = true)",
        redirects.empty() ? std::string("?") : redirects.back().target, ip, address_class_words(c));
  }

  // At each response: the address it came from. The first hop's is the origin's; a later
  // hop's must be one the policy allows. open_socket refuses before connecting; this catches
  // a hop that re-used a connection another transfer had opened, before its body is read.
  bool check_hop() {
    const char* ip = nullptr;
    curl::easy_getinfo(easy.get(), CURLINFO_PRIMARY_IP, &ip);
    const std::optional<AddressClass> c =
        ip && *ip ? classify_address(ip) : std::optional<AddressClass>();
    if (redirects.empty()) {
      if (!origin_class) origin_class = test_public_origin() ? AddressClass::global : c;
      return true;
    }
    if (!c || may_reach(*c)) return true;
    refuse(*c, ip);
    return false;
  }

  const Header* find(std::string_view name) const {
    for (const Header& h : response_headers)
      if (h.name.size() == name.size() && to_lower(h.name) == to_lower(name)) return &h;
    return nullptr;
  }

  // Called at the blank line that ends a response's headers; false aborts the transfer.
  bool headers_done() {
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
      if (std::from_chars(length->value.data(), end, n).ptr == end && n > request.max_body_bytes) {
        declared_length = n;
        abort = Abort::declared_too_large;
        return false;
      }
    }
    return true;
  }

  bool on_header_line(std::string_view line) {
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

  bool on_body(std::string_view data) {
    // Decoded bytes are counted, so a small compressed body that inflates past the limit
    // (a gzip bomb) stops at the limit instead of filling memory.
    if (data.size() > request.max_body_bytes - std::min(body.size(), request.max_body_bytes)) {
      abort = Abort::too_large;
      return false;
    }
    body.append(data);
    return true;
  }
};

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
  if (purpose == CURLSOCKTYPE_IPCXN && !t->redirects.empty()) {
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

Error internal_error(const FetchRequest& request, std::string_view what) {
  return Error{Errc::internal, fmt::format("{}: {}", redact_url(request.url), what)};
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

// Makes the easy handle for a request; the request's URL has passed check_url.
std::optional<Error> setup(Transfer& t, const FetchOptions& options) {
  const FetchRequest& r = t.request;
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

// Plain words for what went wrong; the caller prefixes the URL.
Error describe_failure(CURLcode code, Transfer& t) {
  CURL* h = t.easy.get();
  const FetchRequest& r = t.request;
  // A hop the redirect policy refused: no socket (COULDNT_CONNECT) or an aborted header.
  if (!t.refused.empty() && (code == CURLE_COULDNT_CONNECT || code == CURLE_WRITE_ERROR))
    return Error{Errc::bad_url, fmt::format("{}: {}", redact_url(r.url), t.refused)};
  long os_errno = 0;
  curl::easy_getinfo(h, CURLINFO_OS_ERRNO, &os_errno);
  curl_off_t got = 0, expected = -1;
  curl::easy_getinfo(h, CURLINFO_SIZE_DOWNLOAD_T, &got);
  curl::easy_getinfo(h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &expected);
  // libcurl's own text, for the cases where it says more than the code does.
  const std::string detail = fetch_detail::scrub(
      t.errbuf[0] ? std::string(t.errbuf) : std::string(curl::easy_strerror(code)),
      fetch_detail::secrets_of(r.url));

  Errc errc = Errc::network;
  std::string why;
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST: {
      std::string host = fetch_detail::host_of(t.current_url);
      why = host.empty() ? "could not resolve the host name"
                         : fmt::format("could not resolve host '{}'", host);
      break;
    }
    case CURLE_COULDNT_RESOLVE_PROXY:
      why = "could not resolve the proxy's host name";
      break;
    case CURLE_COULDNT_CONNECT:
      switch (os_errno) {
        case ECONNREFUSED:
          why = "connection refused";
          break;
        case ENETUNREACH:
          why = "network unreachable";
          break;
        case EHOSTUNREACH:
          why = "host unreachable";
          break;
        default:
          why = os_errno ? fmt::format("could not connect ({})", std::strerror(os_errno))
                         : "could not connect";
      }
      break;
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
      if (os_errno == ECONNRESET || os_errno == EPIPE)
        why = "connection reset by the server";
      else
        why = code == CURLE_RECV_ERROR ? "receiving failed" : "sending failed";
      if (os_errno && os_errno != ECONNRESET && os_errno != EPIPE)
        why += fmt::format(" ({})", std::strerror(os_errno));
      break;
    case CURLE_GOT_NOTHING:
      why = "the server closed the connection without answering";
      break;
    case CURLE_WEIRD_SERVER_REPLY:
      why = "the server's reply is not valid HTTP";
      break;
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      why = fmt::format("HTTP/2 error ({})", detail);
      break;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_SSL_SHUTDOWN_FAILED:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CLIENTCERT:
    case CURLE_USE_SSL_FAILED:
      why = fmt::format("TLS failed: {}", detail);
      break;
    case CURLE_OPERATION_TIMEDOUT: {
      errc = Errc::timeout;
      curl_off_t connect_us = 0, tls_us = 0;
      curl::easy_getinfo(h, CURLINFO_CONNECT_TIME_T, &connect_us);
      curl::easy_getinfo(h, CURLINFO_APPCONNECT_TIME_T, &tls_us);
      const bool tls = to_lower(t.current_url).starts_with("https:");
      // libcurl applies the smaller of the two limits while connecting.
      const long connect_limit = r.total_timeout_ms > 0
                                     ? std::min(r.connect_timeout_ms, r.total_timeout_ms)
                                     : r.connect_timeout_ms;
      const std::string_view said(t.errbuf);
      // Body bytes as this transfer's write callback counted them (decoded).
      const std::uint64_t received = std::max<std::uint64_t>(
          static_cast<std::uint64_t>(std::max<curl_off_t>(got, 0)), t.body.size());
      if (said.starts_with("Operation too slow"))
        why = fmt::format("too slow: under {} bytes/s for {} s", r.low_speed_bytes_per_second,
                          r.low_speed_seconds);
      else if (t.responded || received > 0)
        why = fmt::format("timed out after {} ({} bytes received)", format_ms(r.total_timeout_ms),
                          with_thousands(received));
      else if (t.connected)
        why = fmt::format("timed out after {} waiting for a response (connected, 0 bytes received)",
                          format_ms(r.total_timeout_ms));
      else if (said.starts_with("Resolving timed out"))
        why = fmt::format("host name lookup timed out after {}", format_ms(connect_limit));
      else if (said.starts_with("SSL connection timeout") || (tls && connect_us > 0 && tls_us == 0))
        why = fmt::format("TLS handshake not finished within {}", format_ms(connect_limit));
      else if (!t.dialed)
        why = fmt::format(
            "no connection within {}: it waited for another transfer's connection to {} "
            "(the host's other request did not finish)",
            format_ms(connect_limit), fetch_detail::host_of(t.current_url));
      else if (connect_us == 0)
        why = fmt::format("no connection within {}", format_ms(connect_limit));
      else
        why = fmt::format("timed out after {} ({} bytes received)", format_ms(r.total_timeout_ms),
                          with_thousands(received));
      break;
    }
    case CURLE_WRITE_ERROR:
    case CURLE_FILESIZE_EXCEEDED:
      errc = Errc::body;
      if (t.abort == Transfer::Abort::declared_too_large)
        why = fmt::format("body exceeds the {} limit (Content-Length: {})",
                          format_size(r.max_body_bytes), t.declared_length);
      else if (t.abort == Transfer::Abort::too_large || code == CURLE_FILESIZE_EXCEEDED)
        why = fmt::format("body exceeds the {} limit", format_size(r.max_body_bytes));
      else {
        errc = Errc::internal;
        why = fmt::format("writing the body failed ({})", detail);
      }
      break;
    case CURLE_PARTIAL_FILE:
      errc = Errc::body;
      if (expected >= 0)
        why = fmt::format("body truncated: got {} of {} bytes", got, expected);
      else
        why = fmt::format("body truncated: the connection closed after {} bytes", got);
      break;
    case CURLE_BAD_CONTENT_ENCODING: {
      errc = Errc::body;
      const Header* coding = t.find("Content-Encoding");
      why = coding ? fmt::format("body cannot be decoded (Content-Encoding: {})", coding->value)
                   : std::string("body cannot be decoded");
      break;
    }
    case CURLE_TOO_MANY_REDIRECTS: {
      // The server keeps answering with redirects; there is no feed to be had.
      errc = Errc::http_status;
      bool loop = false;
      for (std::size_t i = 0; i < t.redirects.size() && !loop; ++i)
        for (std::size_t j = i + 1; j < t.redirects.size() && !loop; ++j)
          loop = t.redirects[i].target == t.redirects[j].target;
      why = loop ? fmt::format("redirect loop (stopped after {} redirects)", r.max_redirects)
                 : fmt::format("too many redirects (more than {})", r.max_redirects);
      break;
    }
    case CURLE_UNSUPPORTED_PROTOCOL:
      errc = Errc::bad_url;
      why = t.redirects.empty() ? std::string("unsupported URL scheme (use http or https)")
                                : fmt::format("redirected to {}, which is not an http or https URL",
                                              t.redirects.back().target);
      break;
    case CURLE_URL_MALFORMAT:
      errc = Errc::bad_url;
      why = t.redirects.empty() ? std::string("malformed URL")
                                : fmt::format("redirected to a malformed URL");
      break;
    case CURLE_OUT_OF_MEMORY:
      errc = Errc::internal;
      why = "out of memory";
      break;
    default:
      why = detail;
      break;
  }
  std::string message = fmt::format("{}: {}", redact_url(r.url), why);
  if (!t.redirects.empty() && code != CURLE_TOO_MANY_REDIRECTS &&
      code != CURLE_UNSUPPORTED_PROTOCOL)
    message += fmt::format(" (after redirect to {})", t.redirects.back().target);
  return Error{errc, std::move(message)};
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
  return response;
}

}  // namespace

void fetch_all(std::span<const FetchRequest> requests, const FetchOptions& options,
               const FetchDone& on_done) {
  if (requests.empty()) return;
  auto fail_all_from = [&](std::size_t from, std::string_view why) {
    for (std::size_t i = from; i < requests.size(); ++i)
      on_done(i, internal_error(requests[i], why));
  };
  if (!fetch_detail::ensure_curl_initialized())
    return fail_all_from(0, fetch_detail::curl_failure());

  CurlMultiPtr multi(curl::multi_init());
  if (!multi) return fail_all_from(0, "cannot create a libcurl multi handle");
  const long jobs = std::max(options.jobs, 1);
  curl::multi_setopt(multi.get(), CURLMOPT_MAX_HOST_CONNECTIONS,
                     static_cast<long>(std::max(options.per_host, 1)));
  curl::multi_setopt(multi.get(), CURLMOPT_PIPELINING, static_cast<long>(CURLPIPE_MULTIPLEX));

  // Requests wait here, by host, until their host has a free slot. libcurl could queue them
  // itself (CURLMOPT_MAX_HOST_CONNECTIONS), but its timeouts would then run while a request
  // waits: with 100 feeds on one host, the last ones would time out before being sent. A
  // request's timeouts measure its own transfer only.
  struct HostQueue {
    std::string host;
    std::deque<std::size_t> waiting;
    int active = 0;
  };
  std::vector<HostQueue> hosts;
  std::vector<std::size_t> host_of_request(requests.size());
  {
    std::unordered_map<std::string, std::size_t> index_of_host;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      std::string host = fetch_detail::host_of(requests[i].url);
      auto [it, fresh] = index_of_host.try_emplace(host, hosts.size());
      if (fresh) hosts.push_back(HostQueue{std::move(host), {}, 0});
      hosts[it->second].waiting.push_back(i);
      host_of_request[i] = it->second;
    }
  }
  const int per_host = std::max(options.per_host, 1);
  std::size_t started = 0;
  // Round robin over hosts, so one host with many feeds does not hold back the others.
  std::size_t host_cursor = 0;
  auto next_ready = [&]() -> std::optional<std::size_t> {
    for (std::size_t k = 0; k < hosts.size(); ++k) {
      HostQueue& h = hosts[(host_cursor + k) % hosts.size()];
      if (h.waiting.empty() || h.active >= per_host) continue;
      host_cursor = (host_cursor + k + 1) % hosts.size();
      const std::size_t index = h.waiting.front();
      h.waiting.pop_front();
      return index;
    }
    return std::nullopt;
  };

  // Declared after the multi handle, so each transfer leaves it before it is cleaned up.
  std::vector<std::unique_ptr<Transfer>> active;

  auto complete = [&](Transfer* t, Result<FetchResponse> result) {
    const std::size_t index = t->index;
    auto it = std::find_if(active.begin(), active.end(),
                           [t](const std::unique_ptr<Transfer>& p) { return p.get() == t; });
    // Free the handle and body first: memory stays bounded by `jobs` transfers.
    if (it != active.end()) {
      --hosts[host_of_request[index]].active;
      active.erase(it);
    }
    on_done(index, std::move(result));
  };

  for (;;) {
    while (static_cast<long>(active.size()) < jobs && started < requests.size()) {
      const std::optional<std::size_t> ready = next_ready();
      if (!ready) break;
      const std::size_t index = *ready;
      ++started;
      const FetchRequest& request = requests[index];
      if (Status ok = check_url(request.url); !ok) {
        on_done(index, ok.error());
        continue;
      }
      auto t = std::make_unique<Transfer>(index, request, multi.get());
      if (auto error = setup(*t, options)) {
        on_done(index, std::move(*error));
        continue;
      }
      if (curl::multi_add_handle(multi.get(), t->easy.get()) != CURLM_OK) {
        on_done(index, internal_error(request, "libcurl would not start the transfer"));
        continue;
      }
      t->added = true;
      ++hosts[host_of_request[index]].active;
      active.push_back(std::move(t));
    }
    if (active.empty()) break;

    int running = 0;
    CURLMcode mc = curl::multi_perform(multi.get(), &running);
    if (mc != CURLM_OK) {
      const std::string why = fmt::format("libcurl failed: {}", curl::multi_strerror(mc));
      while (!active.empty()) {
        Transfer* t = active.front().get();
        complete(t, internal_error(t->request, why));
      }
      for (const HostQueue& h : hosts)
        for (std::size_t index : h.waiting) on_done(index, internal_error(requests[index], why));
      return;
    }

    bool completed = false;
    int queued = 0;
    while (CURLMsg* msg = curl::multi_info_read(multi.get(), &queued)) {
      if (msg->msg != CURLMSG_DONE) continue;
      Transfer* t = nullptr;
      curl::easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&t));
      const CURLcode code = msg->data.result;  // msg dies with the handle's removal
      complete(t, finish(code, *t));
      completed = true;
    }
    // Start the next transfers before waiting, so `jobs` stay in flight.
    if (completed) continue;
    curl::multi_poll(multi.get(), nullptr, 0, 1000, nullptr);
  }
}

Result<FetchResponse> fetch(const FetchRequest& request, const FetchOptions& options) {
  std::optional<Result<FetchResponse>> out;
  fetch_all(std::span<const FetchRequest>(&request, 1), options,
            [&out](std::size_t, Result<FetchResponse> response) { out = std::move(response); });
  if (!out) return internal_error(request, "the transfer never completed");
  return std::move(*out);
}

}  // namespace feeddiff
