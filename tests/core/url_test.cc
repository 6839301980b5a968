#include <catch2/catch.hpp>

#include "feeddiff/core.h"

using namespace feeddiff;

TEST_CASE("split_url takes apart userinfo, host, port, path, query and fragment", "[core]") {
  const UrlParts p = split_url("https://me:s3cret@Example.com:8443/a/feed.xml?x=1&y=2#top");
  CHECK(p.has_authority);
  CHECK(p.scheme == "https");
  REQUIRE(p.userinfo);
  CHECK(*p.userinfo == "me:s3cret");
  CHECK(p.host == "Example.com");
  REQUIRE(p.port);
  CHECK(*p.port == "8443");
  CHECK(p.path == "/a/feed.xml");
  REQUIRE(p.query);
  CHECK(*p.query == "x=1&y=2");
  REQUIRE(p.fragment);
  CHECK(*p.fragment == "top");
}

TEST_CASE("split_url takes the last @ of the authority and none from the path", "[core]") {
  const UrlParts p = split_url("http://a:b@c@example.com/x@y");
  REQUIRE(p.userinfo);
  CHECK(*p.userinfo == "a:b@c");
  CHECK(p.host == "example.com");
  CHECK(p.path == "/x@y");
  const UrlParts token = split_url("http://token@example.com");
  REQUIRE(token.userinfo);
  CHECK(*token.userinfo == "token");
  CHECK_FALSE(split_url("https://example.com/a@b").userinfo);
  CHECK_FALSE(split_url("https://example.com?u=a@b").userinfo);
  // An empty userinfo is still one: "@" is removed with it.
  REQUIRE(split_url("http://@example.com/").userinfo);
  CHECK(split_url("http://@example.com/").userinfo->empty());
}

TEST_CASE("split_url keeps an IPv6 literal whole and finds the port after it", "[core]") {
  const UrlParts p = split_url("http://u:p@[2001:db8::1]:8080/feed");
  CHECK(p.host == "[2001:db8::1]");
  REQUIRE(p.port);
  CHECK(*p.port == "8080");
  CHECK(*p.userinfo == "u:p");
  const UrlParts no_port = split_url("http://[::1]/feed");
  CHECK(no_port.host == "[::1]");
  CHECK_FALSE(no_port.port);
}

TEST_CASE("split_url handles a URL with no path, only a query, or no authority", "[core]") {
  const UrlParts bare = split_url("https://example.com");
  CHECK(bare.host == "example.com");
  CHECK(bare.path.empty());
  CHECK_FALSE(bare.query);
  CHECK_FALSE(bare.fragment);
  CHECK_FALSE(bare.port);

  const UrlParts query = split_url("https://example.com?feed=rss#x?y");
  CHECK(query.host == "example.com");
  CHECK(query.path.empty());
  CHECK(*query.query == "feed=rss");
  CHECK(*query.fragment == "x?y");

  const UrlParts empty_port = split_url("http://example.com:/x");
  REQUIRE(empty_port.port);
  CHECK(empty_port.port->empty());

  const UrlParts network_path = split_url("//cdn.example.com/f");
  CHECK(network_path.has_authority);
  CHECK(network_path.scheme.empty());
  CHECK(network_path.host == "cdn.example.com");

  const UrlParts relative = split_url("not a url?q");
  CHECK_FALSE(relative.has_authority);
  CHECK(relative.host.empty());
  CHECK(relative.path == "not a url");
  CHECK(*relative.query == "q");
  // A scheme must be letters, digits, + - . starting with a letter.
  CHECK_FALSE(split_url("1http://example.com/").has_authority);
}

TEST_CASE("redact_url removes the userinfo of any URL and keeps every other byte", "[core]") {
  CHECK(redact_url("https://user:pw@example.com:8443/feed?a=b#c") ==
        "https://example.com:8443/feed?a=b#c");
  CHECK(redact_url("http://u:p@[::1]:8080/f") == "http://[::1]:8080/f");
  CHECK(redact_url("//u:p@host/x") == "//host/x");
  CHECK(redact_url("http://host/x@y") == "http://host/x@y");
  CHECK(redact_url("") == "");
}
