#pragma once
// One transfer in flight (transfer.cc): its easy handle, what its callbacks fill in, and
// the response or the error it ends with (failure.cc words the errors). fetch_all.cc runs
// many at once. Internal to fetch.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/fetch.h"
#include "fetch/internal.h"

namespace feeddiff::fetch_detail {

/// One transfer in flight: its easy handle and everything its callbacks fill in.
struct Transfer {
  /// Why the transfer stopped itself: a body past the limit, declared or received.
  enum class Abort { none, declared_too_large, too_large };

  /// The transfer of request `i` of a fetch_all, to be added to multi handle `m`.
  Transfer(std::size_t i, const FetchRequest& r, CURLM* m)
      : index(i), request(r), multi(m), current_url(r.url) {}
  ~Transfer() {
    if (added) curl::multi_remove_handle(multi, easy.get());
  }
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;

  std::size_t index;            ///< the request's index in fetch_all's span
  const FetchRequest& request;  ///< the request, which outlives the transfer
  CURLM* multi;                 ///< the multi handle it is added to
  CurlPtr easy;                 ///< made by setup()
  CurlSlistPtr headers;         ///< the request headers the easy handle sends
  bool added = false;           ///< added to `multi` (removed when destroyed)

  /// The URL now being fetched (credentials kept: relative Locations resolve against it).
  std::string current_url;
  /// The response whose headers are arriving; a new status line starts a new one.
  long status = 0;
  std::vector<Header> response_headers;  ///< the headers of the response arriving
  bool last_was_redirect = false;        ///< the last response was a redirect it follows
  std::vector<Redirect> redirects;       ///< the redirects followed, in order
  std::string body;                      ///< the body of the response arriving
  Abort abort = Abort::none;             ///< why it stopped itself, if it did
  std::uint64_t declared_length = 0;     ///< the Content-Length it refused
  char errbuf[CURL_ERROR_SIZE] = {};     ///< libcurl's own words for a failure
  // What this transfer itself saw, for the reason of a timeout: CURLINFO_CONNECT_TIME_T reads
  // 0 for a transfer that was connected and receiving when it timed out beside others in the
  // same multi handle (the trial's "no connection within 5 s" for a server that was sending).
  bool connected = false;  ///< libcurl had a connection ready for its request (prereq callback)
  bool responded = false;  ///< a response's first line arrived
  bool dialed = false;     ///< libcurl opened a socket of its own for it (open_socket)
  // The redirect policy (FetchRequest::allow_private_redirects).
  /// The class of address later hops may reach besides the Internet: the request's own URL's
  /// (or, for a link that came with data, FetchRequest::link_from).
  std::optional<AddressClass> origin_class;
  std::optional<AddressClass> first_hop_class;  ///< what the request's own URL connected to
  std::string refused;                          ///< why a hop was refused; "" when none was

  /// Whether a redirected hop may connect to an address of this class.
  bool may_reach(AddressClass c) const {
    return request.allow_private_redirects || c == AddressClass::global ||
           (origin_class && *origin_class == c);
  }
  /// Whether the hop about to connect is held to the policy: every redirect, and the first
  /// hop of a link that came with data.
  bool policed() const { return !redirects.empty() || request.link_from.has_value(); }
  /// Notes that the hop to `ip` of class c (the last redirect, or the link itself) is refused.
  void refuse(AddressClass c, const std::string& ip);
  /// At each response: whether the address it came from is one the policy allows.
  bool check_hop();
  /// The response header of that name (case-insensitive); null when there is none.
  const Header* find(std::string_view name) const;
  /// Called at the blank line that ends a response's headers; false aborts the transfer.
  bool headers_done();
  /// One header line as libcurl hands it; false aborts the transfer.
  bool on_header_line(std::string_view line);
  /// Body bytes as libcurl hands them (decoded); false aborts the transfer.
  bool on_body(std::string_view data);
};

/// An internal error of a request: its URL (redacted), then what went wrong.
Error internal_error(const FetchRequest& request, std::string_view what);

/// Makes the easy handle for a request; the request's URL has passed check_url.
std::optional<Error> setup(Transfer& t, const FetchOptions& options);

/// The response of a finished transfer, or the error it ended with (describe_failure).
Result<FetchResponse> finish(CURLcode code, Transfer& t);

/// Plain words for what went wrong (failure.cc), prefixed with the request's URL.
Error describe_failure(CURLcode code, Transfer& t);

}  // namespace feeddiff::fetch_detail
