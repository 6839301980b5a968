// Which URLs fetch will try, and what it says about the others.

#include <catch2/catch.hpp>
#include <string>

#include "feeddiff/fetch.h"

namespace feeddiff::test {
namespace {

TEST_CASE("check_url accepts absolute http and https URLs with a host", "[fetch]") {
  for (const char* url :
       {"http://example.com/feed.xml", "https://example.com/", "https://example.com",
        "HTTPS://EXAMPLE.COM/Feed?x=1&y=%20#top", "http://127.0.0.1:8080/rss",
        "http://[::1]:8080/rss", "https://user:pw@example.com/private.xml"}) {
    INFO(url);
    CHECK(check_url(url).ok());
  }
}

TEST_CASE("check_url rejects other schemes and names the scheme", "[fetch]") {
  auto status = check_url("ftp://example.com/feed.xml");

  REQUIRE_FALSE(status.ok());
  CHECK(status.error().code == Errc::bad_url);
  CHECK(status.error().message ==
        "ftp://example.com/feed.xml: unsupported URL scheme 'ftp' (use http or https)");
  CHECK_FALSE(check_url("file:///etc/passwd").ok());
  CHECK_FALSE(check_url("gopher://example.com/").ok());
}

TEST_CASE("check_url rejects URLs without a host", "[fetch]") {
  for (const char* url : {"http:///feed.xml", "http://", "https://:80/feed"}) {
    INFO(url);
    auto status = check_url(url);
    REQUIRE_FALSE(status.ok());
    CHECK(status.error().code == Errc::bad_url);
    CHECK_THAT(status.error().message, Catch::Contains("no host") || Catch::Contains("malformed"));
  }
}

TEST_CASE("check_url rejects relative references and says a scheme is needed", "[fetch]") {
  for (const char* url : {"/feed.xml", "feed.xml", "example.com/feed", "//example.com/feed"}) {
    INFO(url);
    auto status = check_url(url);
    REQUIRE_FALSE(status.ok());
    CHECK(status.error().code == Errc::bad_url);
    CHECK_THAT(status.error().message,
               Catch::Contains("not an absolute URL (it must start with http:// or https://)"));
  }
}

TEST_CASE("check_url rejects empty URLs, spaces and typos of the scheme", "[fetch]") {
  CHECK(check_url("").error().message == "the URL is empty");
  CHECK_THAT(check_url("http://exa mple.com/").error().message, Catch::Contains("space"));
  CHECK_THAT(check_url("http:/example.com/").error().message, Catch::Contains("malformed"));
  CHECK_THAT(check_url("http://example.com:99999/").error().message, Catch::Contains("port"));
}

TEST_CASE("check_url never repeats the password of a URL it rejects", "[fetch]") {
  auto status = check_url("ftp://bob:hunter2@example.com/");
  REQUIRE_FALSE(status.ok());
  CHECK_THAT(status.error().message, !Catch::Contains("hunter2"));
  CHECK_THAT(status.error().message, Catch::StartsWith("ftp://example.com/: "));
}

}  // namespace
}  // namespace feeddiff::test
