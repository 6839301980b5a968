// How fetch fails: each misbehaving server maps to one Errc and a one-line message.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <thread>

#include "feeddiff/fetch.h"
#include "fetch/fetch_helpers.h"
#include "support/http_server.h"

namespace feeddiff::test {
namespace {

TEST_CASE("a gzip bomb stops at the body limit", "[fetch]") {
  const std::string bomb = gzip_zeros(60'000'000);
  REQUIRE(bomb.size() < (1u << 20));
  HttpServer server([&](const RecordedRequest&) {
    return Reply{.headers = {{"Content-Encoding", "gzip"}}, .body = bomb};
  });
  FetchRequest request = quick_request(server.url("/feed"));
  request.max_body_bytes = 1 << 20;

  auto response = fetch(request);

  REQUIRE_FALSE(response.ok());
  CHECK(response.error().code == Errc::body);
  CHECK(response.error().message == server.url("/feed") + ": body exceeds the 1 MiB limit");
}

TEST_CASE("the default body limit is named 50 MiB", "[fetch]") {
  HttpServer server([](const RecordedRequest&) {
    return Reply{.body = "x", .content_length = (std::size_t{50} << 20) + 1};
  });

  auto response = fetch(quick_request(server.url("/feed")));

  REQUIRE_FALSE(response.ok());
  CHECK(response.error().code == Errc::body);
  CHECK_THAT(response.error().message, Catch::Contains("body exceeds the 50 MiB limit"));
}

TEST_CASE("a declared Content-Length over the limit is refused before the body", "[fetch]") {
  HttpServer server(
      [](const RecordedRequest&) { return Reply{.body = std::string(2 << 20, 'x')}; });
  FetchRequest request = quick_request(server.url("/feed"));
  request.max_body_bytes = 1 << 20;

  auto response = fetch(request);

  REQUIRE_FALSE(response.ok());
  CHECK(response.error().code == Errc::body);
  CHECK(response.error().message ==
        server.url("/feed") + ": body exceeds the 1 MiB limit (Content-Length: 2097152)");
}

TEST_CASE("a chunked body over the limit is cut off at the limit", "[fetch]") {
  HttpServer server([](const RecordedRequest&) {
    return Reply{.body = std::string(3 << 20, 'x'), .chunked = true};
  });
  FetchRequest request = quick_request(server.url("/feed"));
  request.max_body_bytes = 1 << 20;

  auto response = fetch(request);

  REQUIRE_FALSE(response.ok());
  CHECK(response.error().code == Errc::body);
  CHECK_THAT(response.error().message, Catch::Contains("body exceeds the 1 MiB limit"));
}

TEST_CASE("a body exactly at the limit is accepted", "[fetch]") {
  HttpServer server([](const RecordedRequest&) { return Reply{.body = std::string(1000, 'y')}; });
  FetchRequest request = quick_request(server.url("/feed"));
  request.max_body_bytes = 1000;

  auto response = fetch(request);

  REQUIRE(response.ok());
  CHECK(response->body.size() == 1000);
}

TEST_CASE("a Content-Length larger than the body sent is a truncated body", "[fetch]") {
  HttpServer server(
      [](const RecordedRequest&) { return Reply{.body = "0123456789", .content_length = 100}; });

  auto response = fetch(quick_request(server.url("/feed")));

  REQUIRE_FALSE(response.ok());
  CHECK(response.error().code == Errc::body);
  CHECK(response.error().message == server.url("/feed") + ": body truncated: got 10 of 100 bytes");
}

TEST_CASE("a chunked body cut short is a truncated body", "[fetch]") {
  HttpServer server([](const RecordedRequest&) {
    return Reply{.body = std::string(10'000, 'z'), .chunked = true, .close_early = true};
  });

  auto response = fetch(quick_request(server.url("/feed")));

  REQUIRE_FALSE(response.ok());
  CHECK(response.error().code == Errc::body);
  CHECK_THAT(response.error().message, Catch::StartsWith(server.url("/feed") + ": body truncated"));
  CHECK(one_line(response.error().message));
}

TEST_CASE("a body that is not in its declared Content-Encoding is a body error", "[fetch]") {
  HttpServer server([](const RecordedRequest&) {
    return Reply{.headers = {{"Content-Encoding", "gzip"}}, .body = "this is not gzip at all"};
  });

  auto response = fetch(quick_request(server.url("/feed")));

  REQUIRE_FALSE(response.ok());
  CHECK(response.error().code == Errc::body);
  CHECK(response.error().message ==
        server.url("/feed") + ": body cannot be decoded (Content-Encoding: gzip)");
}

TEST_CASE("a server dripping bytes below the low-speed limit times out", "[fetch]") {
  HttpServer server([](const RecordedRequest&) {
    return Reply{.body = std::string(1000, 'd'), .drip_ms_per_byte = 100};
  });
  FetchRequest request = quick_request(server.url("/feed"));
  request.low_speed_bytes_per_second = 100;
  request.low_speed_seconds = 1;

  auto response = fetch(request);

  REQUIRE_FALSE(response.ok());
  CHECK(response.error().code == Errc::timeout);
  CHECK(response.error().message == server.url("/feed") + ": too slow: under 100 bytes/s for 1 s");
}

TEST_CASE("a server that never answers hits the total timeout", "[fetch]") {
  HttpServer server([](const RecordedRequest&) { return Reply{.silent = true}; });
  FetchRequest request = quick_request(server.url("/feed"));
  request.total_timeout_ms = 1000;

  auto response = fetch(request);

  REQUIRE_FALSE(response.ok());
  CHECK(response.error().code == Errc::timeout);
  CHECK_THAT(response.error().message,
             Catch::StartsWith(server.url("/feed") + ": timed out after 1 s"));
  CHECK(server.request_count() == 1);
}

TEST_CASE("a connection reset is a network error", "[fetch]") {
  HttpServer server([](const RecordedRequest&) { return Reply{.reset = true}; });

  auto response = fetch(quick_request(server.url("/feed")));

  REQUIRE_FALSE(response.ok());
  CHECK(response.error().code == Errc::network);
  CHECK_THAT(response.error().message, Catch::StartsWith(server.url("/feed") + ": "));
  CHECK(one_line(response.error().message));
}

TEST_CASE("a refused connection is a network error that says so", "[fetch]") {
  std::string url;
  {
    HttpServer gone([](const RecordedRequest&) { return Reply{}; });
    url = gone.url("/feed");
  }  // the port is free again, and nothing listens on it

  auto response = fetch(quick_request(url));

  REQUIRE_FALSE(response.ok());
  CHECK(response.error().code == Errc::network);
  CHECK(response.error().message == url + ": connection refused");
}

// Answers whoever connects first with a plain HTTP error, whatever they sent, then closes:
// to a TLS client that is a handshake failure.
class PlainTextListener {
 public:
  PlainTextListener() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    REQUIRE(fd_ >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(fd_, 4) == 0);
    REQUIRE(::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 10'000) != 1) return;
      int client = ::accept(fd_, nullptr, nullptr);
      if (client < 0) return;
      const char reply[] = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
      (void)!::send(client, reply, sizeof reply - 1, MSG_NOSIGNAL);
      ::shutdown(client, SHUT_WR);
      ::close(client);
    });
  }
  ~PlainTextListener() {
    thread_.join();
    ::close(fd_);
  }
  PlainTextListener(const PlainTextListener&) = delete;
  PlainTextListener& operator=(const PlainTextListener&) = delete;
  int port() const { return port_; }

 private:
  int fd_;
  int port_ = 0;
  std::thread thread_;
};

TEST_CASE("a TLS handshake that fails is a network error", "[fetch]") {
  PlainTextListener plain;
  const std::string url = "https://127.0.0.1:" + std::to_string(plain.port()) + "/feed";

  auto response = fetch(quick_request(url));

  REQUIRE_FALSE(response.ok());
  CHECK(response.error().code == Errc::network);
  CHECK_THAT(response.error().message, Catch::StartsWith(url + ": TLS failed: "));
  CHECK(one_line(response.error().message));
}

TEST_CASE("a TLS handshake that never finishes is a timeout that says so", "[fetch]") {
  HttpServer plain([](const RecordedRequest&) { return Reply{.body = "<rss/>"}; });
  std::string url = plain.url("/feed");
  url.replace(0, 4, "https");  // the server waits for a request line that never comes
  FetchRequest request = quick_request(url);
  request.connect_timeout_ms = 500;

  auto response = fetch(request);

  REQUIRE_FALSE(response.ok());
  CHECK(response.error().code == Errc::timeout);
  CHECK(response.error().message == url + ": TLS handshake not finished within 500 ms");
}

TEST_CASE("a host that does not resolve is a network error naming the host", "[fetch]") {
  auto response = fetch(quick_request("http://no-such-host.invalid/feed"));

  REQUIRE_FALSE(response.ok());
  CHECK(response.error().code == Errc::network);
  CHECK(response.error().message ==
        "http://no-such-host.invalid/feed: could not resolve host 'no-such-host.invalid'");
}

TEST_CASE("a redirect loop is an error that names the loop", "[fetch]") {
  HttpServer server([](const RecordedRequest&) {
    return Reply{.status = 302, .headers = {{"Location", "/loop"}}};
  });
  FetchRequest request = quick_request(server.url("/loop"));
  request.max_redirects = 5;

  auto response = fetch(request);

  REQUIRE_FALSE(response.ok());
  CHECK(response.error().code == Errc::http_status);
  CHECK(response.error().message ==
        server.url("/loop") + ": redirect loop (stopped after 5 redirects)");
  CHECK(server.request_count() == 6);
}

TEST_CASE("a redirect to an ftp URL is refused", "[fetch]") {
  HttpServer server([](const RecordedRequest&) {
    return Reply{.status = 301, .headers = {{"Location", "ftp://127.0.0.1/feed"}}};
  });

  auto response = fetch(quick_request(server.url("/feed")));

  REQUIRE_FALSE(response.ok());
  CHECK(response.error().code == Errc::bad_url);
  CHECK(response.error().message == server.url("/feed") +
                                        ": redirected to ftp://127.0.0.1/feed, which is not an "
                                        "http or https URL");
}

TEST_CASE("credentials appear in no error message", "[fetch]") {
  HttpServer reset([](const RecordedRequest&) { return Reply{.reset = true}; });
  HttpServer truncated(
      [](const RecordedRequest&) { return Reply{.body = "abc", .content_length = 10}; });
  HttpServer looping([](const RecordedRequest&) {
    return Reply{.status = 307, .headers = {{"Location", "/again"}}};
  });
  std::string refused_url;
  {
    HttpServer gone([](const RecordedRequest&) { return Reply{}; });
    refused_url = gone.url("/feed");
  }
  auto with_secret = [](std::string url) {
    url.insert(url.find("://") + 3, "alice:s3cr%3At@");
    return url;
  };
  const std::vector<FetchRequest> requests{
      quick_request(with_secret(reset.url("/feed"))),
      quick_request(with_secret(truncated.url("/feed"))),
      quick_request(with_secret(looping.url("/feed"))),
      quick_request(with_secret(refused_url)),
      quick_request(with_secret("http://no-such-host.invalid/")),
      quick_request(with_secret("ftp://example.com/")),
  };

  int errors = 0;
  fetch_all(requests, {}, [&](std::size_t, Result<FetchResponse> r) {
    REQUIRE_FALSE(r.ok());
    ++errors;
    CHECK(one_line(r.error().message));
    CHECK_THAT(r.error().message, !Catch::Contains("s3cr") && !Catch::Contains("alice"));
  });
  CHECK(errors == 6);
  auto seen = reset.requests();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].header("Authorization"));
}

TEST_CASE("redact_url removes user and password and nothing else", "[fetch]") {
  CHECK(redact_url("https://user:pw@example.com:8443/feed?a=b#c") ==
        "https://example.com:8443/feed?a=b#c");
  CHECK(redact_url("http://token@example.com/") == "http://example.com/");
  CHECK(redact_url("http://a:b@c@example.com/x@y") == "http://example.com/x@y");
  CHECK(redact_url("http://example.com/path@not-userinfo") ==
        "http://example.com/path@not-userinfo");
  CHECK(redact_url("HTTP://Example.COM") == "HTTP://Example.COM");
  CHECK(redact_url("not a url") == "not a url");
}

}  // namespace
}  // namespace feeddiff::test
