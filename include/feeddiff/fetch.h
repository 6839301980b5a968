#pragma once
// fetch: the only module that talks to the network (libcurl). It turns requests into
// responses, whatever their HTTP status; deciding what a status means is poll's job.
// Transfers run concurrently through libcurl's multi interface.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/core.h"
#include "feeddiff/result.h"

namespace feeddiff {

/// One response header, name and value as received (name case kept, value trimmed).
struct Header {
  std::string name;   ///< as received
  std::string value;  ///< leading and trailing whitespace removed
};

/// One redirect that was followed: the status that sent us on and where to.
struct Redirect {
  long status = 0;     ///< 301, 302, 303, 307 or 308
  std::string target;  ///< absolute URL it pointed to, credentials removed
};

/// What kind of network an IP address belongs to, for the redirect policy.
enum class AddressClass {
  global,           ///< anything else: the Internet
  loopback,         ///< 127.0.0.0/8, ::1
  private_network,  ///< 10/8, 172.16/12, 192.168/16, 100.64/10 (CGNAT), fc00::/7, fec0::/10
  link_local,       ///< 169.254/16 (cloud metadata at 169.254.169.254), fe80::/10
  unspecified,      ///< 0.0.0.0/8, ::
};

/// What to fetch and how politely.
struct FetchRequest {
  std::string url;                ///< http or https; may carry user:password@ (never echoed)
  std::string if_none_match;      ///< the stored ETag, sent back verbatim when not empty
  std::string if_modified_since;  ///< the stored Last-Modified, verbatim when not empty
  std::size_t max_body_bytes = std::size_t{50} << 20;  ///< decoded bytes; more is an error
  long connect_timeout_ms = 15'000;                    ///< to establish the connection
  long total_timeout_ms = 120'000;                     ///< for the whole transfer
  long low_speed_bytes_per_second = 16;  ///< slower than this for low_speed_seconds aborts
  long low_speed_seconds = 30;           ///< see low_speed_bytes_per_second
  /// Redirects followed before giving up; 0 follows none (the 3xx is the response).
  int max_redirects = 8;
  /// When set, the request is a POST of these bytes (a webhook) instead of a GET.
  std::optional<std::string> post_body;
  /// The Content-Type of post_body.
  std::string post_content_type = "application/json";
  /// Follow redirects into any address class. When false (the default), a redirect whose
  /// host resolves to a loopback, private, link-local or unspecified address (AddressClass)
  /// is refused, unless the URL's own first hop connected to an address of that same class
  /// (a LAN feed that redirects within the LAN); the check is on the address each hop
  /// connects to, so a name that resolves to 127.0.0.1 is caught as well as the literal.
  bool allow_private_redirects = false;
  /// Set for a URL that arrived with data rather than from the user: a link in a feed (an
  /// article's page). Its own first hop is then held to the redirect policy too, as if the
  /// feed had redirected there: besides the Internet it may reach only addresses of this
  /// class (the class of the address the feed itself came from), so a feed cannot make a
  /// poller fetch its loopback, its LAN or the cloud's metadata service (169.254.169.254)
  /// and archive the answer. Redirects from there follow the same rule. nullopt: a URL the
  /// user configured, whose first hop may go anywhere.
  std::optional<AddressClass> link_from;
};

/// The class of a numeric IPv4 or IPv6 address as libcurl reports one ("10.0.0.1", "::1",
/// "fe80::1%eth0"); an IPv4 address mapped or embedded in IPv6 (::ffff:127.0.0.1,
/// 64:ff9b::a00:1) has its IPv4 class. nullopt for text that is not a numeric address (other
/// spellings such as 0x7f.1 are the resolver's business and never reach here).
std::optional<AddressClass> classify_address(std::string_view ip);

/// "a loopback address", "a private address", ...: for messages.
std::string_view address_class_words(AddressClass c);

/// What the server said.
struct FetchResponse {
  long status = 0;                  ///< HTTP status of the final response
  std::vector<Header> headers;      ///< headers of the final response, in order received
  std::string body;                 ///< content-encoding undone; empty for 304
  std::string final_url;            ///< the URL that answered, credentials removed
  std::vector<Redirect> redirects;  ///< each redirect followed, in order
  std::string http_version;         ///< "1.1", "2"
  std::uint64_t wire_bytes = 0;     ///< body bytes as transferred (before decoding)
  double seconds = 0;               ///< total transfer time
  /// The class of the address the request's own URL connected to (nullopt when libcurl did
  /// not say): what the links of this response may reach (FetchRequest::link_from).
  std::optional<AddressClass> address_class;

  /// The first header with this name (case-insensitive), or nullptr.
  const Header* header(std::string_view name) const;
};

/// How many transfers at once, and the identity sent with each.
struct FetchOptions {
  int jobs = 16;           ///< transfers in flight at once
  int per_host = 2;        ///< connections to one host at once
  std::string user_agent;  ///< default: feeddiff/<version> (+<project url>)
};

/// Called as each transfer completes, on the thread that called fetch_all, with the
/// request's index.
using FetchDone = std::function<void(std::size_t index, Result<FetchResponse> response)>;

/// Fetches every request concurrently within the options' limits. Errors are
/// Errc::network (DNS, refused, reset, TLS), Errc::timeout, Errc::body (too large, truncated,
/// undecodable), Errc::bad_url (also a redirect to a non-http(s) URL), Errc::http_status
/// (too many redirects, or a redirect loop). Each message is one line: the URL, redacted,
/// and the reason. Messages never contain credentials.
void fetch_all(std::span<const FetchRequest> requests, const FetchOptions& options,
               const FetchDone& on_done);

/// One request, on its own.
Result<FetchResponse> fetch(const FetchRequest& request, const FetchOptions& options = {});

/// Accepts absolute http and https URLs with a host; rejects everything else with
/// Errc::bad_url and a reason.
Status check_url(std::string_view url);

/// `feeddiff/<version> (+<project url>)`.
std::string default_user_agent();

/// The version of the libcurl that fetch loads (dlopen), e.g. "7.88.1", as that library
/// reports it (curl_version_info): the one in use, not the headers'. Loads it if needed;
/// Errc::network with the loader's reason when it cannot.
Result<std::string> libcurl_version();

}  // namespace feeddiff
