// A URL that came with data (FetchRequest::link_from: a feed's link to an article) is held
// to the redirect policy from its first hop: it reaches loopback only when the feed itself
// came from loopback. The scripted server listens on 127.0.0.1, so a link "from the
// Internet" to it is what a hostile feed pointing a poller at its own loopback looks like.

#include <catch2/catch.hpp>
#include <string>

#include "feeddiff/fetch.h"
#include "fetch/fetch_helpers.h"
#include "support/http_server.h"

namespace feeddiff::test {
namespace {

TEST_CASE("a link from a feed on the Internet to a loopback address is refused before it is sent",
          "[fetch]") {
  HttpServer server([](const RecordedRequest&) { return Reply{.body = "secret"}; });
  FetchRequest request = quick_request(server.url("/latest/meta-data"));
  request.link_from = AddressClass::global;
  auto response = fetch(request);
  REQUIRE_FALSE(response.ok());
  CHECK(response.error().code == Errc::bad_url);
  CHECK(response.error().message.find("refused to fetch this link: it leads to 127.0.0.1, a "
                                      "loopback address") != std::string::npos);
  CHECK(one_line(response.error().message));
  CHECK(server.requests().empty());
}

TEST_CASE("a link from a feed on loopback may reach loopback, and says where it connected",
          "[fetch]") {
  HttpServer server([](const RecordedRequest&) { return Reply{.body = "<p>article</p>"}; });
  FetchRequest request = quick_request(server.url("/article"));
  request.link_from = AddressClass::loopback;
  auto response = fetch(request);
  REQUIRE(response.ok());
  CHECK(response->body == "<p>article</p>");
  CHECK(response->address_class == AddressClass::loopback);
  // A URL the user configured goes anywhere, and reports its class for the links it holds.
  auto configured = fetch(quick_request(server.url("/feed.xml")));
  REQUIRE(configured.ok());
  CHECK(configured->address_class == AddressClass::loopback);
}

TEST_CASE("a link from the Internet that redirects into loopback is refused at the redirect",
          "[fetch]") {
  // The first hop is loopback too here; allowed as the feed's own class, its redirect to
  // another loopback port is followed, and the same link with the Internet as its origin is
  // refused at its first hop already.
  HttpServer target([](const RecordedRequest&) { return Reply{.body = "inside"}; });
  HttpServer hop([&](const RecordedRequest&) {
    return Reply{.status = 302, .headers = {{"Location", target.url("/x")}}};
  });
  FetchRequest request = quick_request(hop.url("/a"));
  request.link_from = AddressClass::loopback;
  auto followed = fetch(request);
  REQUIRE(followed.ok());
  CHECK(followed->body == "inside");
  request.link_from = AddressClass::global;
  auto refused = fetch(request);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find("refused to fetch this link") != std::string::npos);
}

}  // namespace
}  // namespace feeddiff::test
