// The scripted test server itself, spoken to over raw sockets: other modules' tests rely on
// its keep-alive, HEAD, recording and prompt shutdown.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>
#include <thread>

#include "support/http_server.h"

namespace feeddiff::test {
namespace {

// A blocking client socket with a generous guard against hanging the suite.
class RawClient {
 public:
  explicit RawClient(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    REQUIRE(fd_ >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  }
  ~RawClient() { ::close(fd_); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  void send(std::string_view data) {
    REQUIRE(::send(fd_, data.data(), data.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(data.size()));
  }

  // Reads until the text contains `until`, the peer closes, or 10 s pass without data.
  std::string read(std::string_view until = {}) {
    std::string got;
    while (until.empty() || got.find(until) == std::string::npos) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 10'000) <= 0) break;
      char buf[4096];
      ssize_t r = ::recv(fd_, buf, sizeof buf, 0);
      if (r <= 0) {
        closed_ = true;
        break;
      }
      got.append(buf, static_cast<std::size_t>(r));
    }
    return got;
  }
  bool closed() const { return closed_; }

 private:
  int fd_;
  bool closed_ = false;
};

TEST_CASE("the test server keeps a connection alive across requests", "[fetch]") {
  HttpServer server([](const RecordedRequest& r) { return Reply{.body = "at " + r.target}; });
  RawClient client(server.port());

  client.send("GET /one HTTP/1.1\r\nHost: x\r\n\r\n");
  std::string first = client.read("at /one");
  client.send("GET /two HTTP/1.1\r\nHost: x\r\n\r\n");
  std::string second = client.read("at /two");

  CHECK_THAT(first, Catch::StartsWith("HTTP/1.1 200 OK\r\n"));
  CHECK_THAT(first, Catch::Contains("Content-Length: 7\r\n"));
  CHECK_THAT(second, Catch::EndsWith("\r\n\r\nat /two"));
  CHECK(server.connection_count() == 1);
  CHECK(server.request_count() == 2);
}

TEST_CASE("the test server answers HEAD with headers only and records headers in order",
          "[fetch]") {
  HttpServer server([](const RecordedRequest&) {
    return Reply{.headers = {{"ETag", "\"e\""}}, .body = "twelve bytes"};
  });
  RawClient client(server.port());

  client.send("HEAD /h HTTP/1.1\r\nHost: x\r\nX-B:  2 \r\nx-a: 1\r\nConnection: close\r\n\r\n");
  std::string reply = client.read();

  CHECK(client.closed());
  CHECK_THAT(reply, Catch::Contains("Content-Length: 12\r\n"));
  CHECK_THAT(reply, Catch::Contains("ETag: \"e\"\r\n"));
  CHECK_THAT(reply, Catch::EndsWith("\r\n\r\n"));
  auto seen = server.requests();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].method == "HEAD");
  CHECK(seen[0].target == "/h");
  using Pair = std::pair<std::string, std::string>;
  CHECK(seen[0].headers ==
        std::vector<Pair>{{"Host", "x"}, {"X-B", "2"}, {"x-a", "1"}, {"Connection", "close"}});
  CHECK(seen[0].header("X-A") == "1");
}

TEST_CASE("the test server frames a chunked reply", "[fetch]") {
  HttpServer server(
      [](const RecordedRequest&) { return Reply{.body = "abcdefg", .chunked = true}; });
  RawClient client(server.port());

  client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  std::string reply = client.read("0\r\n\r\n");

  CHECK_THAT(reply, Catch::Contains("Transfer-Encoding: chunked\r\n"));
  CHECK_THAT(reply, Catch::EndsWith("\r\n\r\n1\r\na\r\n4\r\nbcde\r\n2\r\nfg\r\n0\r\n\r\n"));
}

TEST_CASE("the test server stops promptly while clients hang on silent and dripping replies",
          "[fetch]") {
  auto server = std::make_unique<HttpServer>([](const RecordedRequest& r) {
    if (r.target == "/silent") return Reply{.silent = true};
    return Reply{.body = std::string(100'000, 'x'), .drip_ms_per_byte = 1000};
  });
  RawClient silent(server->port());
  RawClient drip(server->port());
  silent.send("GET /silent HTTP/1.1\r\nHost: x\r\n\r\n");
  drip.send("GET /drip HTTP/1.1\r\nHost: x\r\n\r\n");
  drip.read("\r\n\r\n");
  while (server->request_count() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));

  server.reset();  // must not wait for the clients or the drip

  silent.read();
  drip.read();
  CHECK(silent.closed());
  CHECK(drip.closed());
}

TEST_CASE("the test server resets a connection when told to", "[fetch]") {
  HttpServer server([](const RecordedRequest&) { return Reply{.reset = true}; });
  RawClient client(server.port());

  client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  std::string reply = client.read();

  CHECK(reply.empty());
  CHECK(client.closed());
}

}  // namespace
}  // namespace feeddiff::test
