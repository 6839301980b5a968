// Plain words for a failed transfer (transfer.h): what libcurl's code, the OS error and what
// the transfer itself saw say went wrong, limits written the way they were most likely set.

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "feeddiff/core.h"
#include "fetch/transfer.h"

namespace feeddiff::fetch_detail {

namespace {

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

}  // namespace

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

}  // namespace feeddiff::fetch_detail
