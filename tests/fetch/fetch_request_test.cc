// What fetch sends, and how it reports what came back.

#include <algorithm>
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "feeddiff/core.h"
#include "feeddiff/fetch.h"
#include "fetch/fetch_helpers.h"
#include "support/http_server.h"

namespace feeddiff::test {
namespace {

constexpr const char* kFeedAccept =
    "application/rss+xml, application/atom+xml, application/feed+json, "
    "application/xml;q=0.9, text/xml;q=0.9, application/json;q=0.8, */*;q=0.5";

TEST_CASE("stored validators are sent back byte for byte, weak ETags included", "[fetch]") {
  HttpServer server([](const RecordedRequest&) { return Reply{.status = 304}; });
  FetchRequest request = quick_request(server.url("/feed.xml"));
  request.if_none_match = "W/\"x-1;q\"";
  request.if_modified_since = "Wed, 21 Oct 2015 07:28:00 GMT";

  auto response = fetch(request);

  REQUIRE(response.ok());
  auto seen = server.requests();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].method == "GET");
  CHECK(seen[0].target == "/feed.xml");
  CHECK(seen[0].header("If-None-Match") == "W/\"x-1;q\"");
  CHECK(seen[0].header("If-Modified-Since") == "Wed, 21 Oct 2015 07:28:00 GMT");
}

TEST_CASE("no conditional headers are sent when nothing is stored", "[fetch]") {
  HttpServer server([](const RecordedRequest&) { return Reply{.body = "<rss/>"}; });

  REQUIRE(fetch(quick_request(server.url("/"))).ok());

  auto seen = server.requests();
  REQUIRE(seen.size() == 1);
  CHECK_FALSE(seen[0].header("If-None-Match"));
  CHECK_FALSE(seen[0].header("If-Modified-Since"));
}

TEST_CASE("a validator with a line break is not sent, so it cannot inject a header", "[fetch]") {
  HttpServer server([](const RecordedRequest&) { return Reply{.body = "<rss/>"}; });
  FetchRequest request = quick_request(server.url("/"));
  request.if_none_match = "\"a\"\r\nX-Injected: yes";

  REQUIRE(fetch(request).ok());

  auto seen = server.requests();
  REQUIRE(seen.size() == 1);
  CHECK_FALSE(seen[0].header("X-Injected"));
  CHECK_FALSE(seen[0].header("If-None-Match"));
}

TEST_CASE("every request asks for feeds and names feeddiff in its User-Agent", "[fetch]") {
  HttpServer server([](const RecordedRequest&) { return Reply{.body = "<rss/>"}; });

  REQUIRE(fetch(quick_request(server.url("/"))).ok());

  auto seen = server.requests();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].header("Accept") == kFeedAccept);
  CHECK(seen[0].header("User-Agent") == default_user_agent());
  auto encodings = seen[0].header("Accept-Encoding");
  REQUIRE(encodings);
  CHECK_THAT(*encodings, Catch::Contains("gzip"));
}

TEST_CASE("the default User-Agent is feeddiff/<version> (+<project url>)", "[fetch]") {
  CHECK(default_user_agent() ==
        "feeddiff/" + std::string(version()) + " (+" + std::string(project_url()) + ")");
}

TEST_CASE("a User-Agent set in the options replaces the default", "[fetch]") {
  HttpServer server([](const RecordedRequest&) { return Reply{.body = "<rss/>"}; });
  FetchOptions options;
  options.user_agent = "feeddiff-test/1";

  REQUIRE(fetch(quick_request(server.url("/")), options).ok());

  REQUIRE(server.request_count() == 1);
  CHECK(server.requests()[0].header("User-Agent") == "feeddiff-test/1");
}

TEST_CASE("no Cookie and no Referer are sent, even after Set-Cookie and a redirect", "[fetch]") {
  HttpServer server([](const RecordedRequest& r) {
    if (r.target == "/start")
      return Reply{.status = 302,
                   .headers = {{"Set-Cookie", "session=abc; Path=/"}, {"Location", "/feed"}}};
    return Reply{.headers = {{"Set-Cookie", "tracker=1; Path=/"}}, .body = "<rss/>"};
  });
  const std::vector<FetchRequest> requests{quick_request(server.url("/start")),
                                           quick_request(server.url("/start"))};
  FetchOptions options;
  options.jobs = 1;  // one after the other: the second could replay the first's cookies

  int ok = 0;
  fetch_all(requests, options, [&](std::size_t, Result<FetchResponse> r) { ok += r.ok(); });

  CHECK(ok == 2);
  auto seen = server.requests();
  REQUIRE(seen.size() == 4);
  for (const auto& request : seen) {
    CHECK_FALSE(request.header("Cookie"));
    CHECK_FALSE(request.header("Referer"));
  }
}

TEST_CASE("a 304 is a response with status 304 and an empty body", "[fetch]") {
  HttpServer server([](const RecordedRequest&) {
    return Reply{.status = 304, .headers = {{"ETag", "\"v2\""}}};
  });
  FetchRequest request = quick_request(server.url("/feed"));
  request.if_none_match = "\"v1\"";

  auto response = fetch(request);

  REQUIRE(response.ok());
  CHECK(response->status == 304);
  CHECK(response->body.empty());
  REQUIRE(response->header("etag"));
  CHECK(response->header("etag")->value == "\"v2\"");
}

TEST_CASE("a 304 declaring the full Content-Length is not taken for a body", "[fetch]") {
  HttpServer server([](const RecordedRequest&) {
    return Reply{.status = 304, .content_length = std::size_t{5} << 20};
  });
  FetchRequest request = quick_request(server.url("/feed"));
  request.max_body_bytes = 1 << 20;

  auto response = fetch(request);

  REQUIRE(response.ok());
  CHECK(response->status == 304);
  CHECK(response->body.empty());
}

TEST_CASE("404 and 500 are responses, not errors, bodies kept", "[fetch]") {
  HttpServer server([](const RecordedRequest& r) {
    if (r.target == "/missing") return Reply{.status = 404, .body = "no such feed"};
    return Reply{.status = 500, .body = "oops"};
  });

  auto missing = fetch(quick_request(server.url("/missing")));
  auto broken = fetch(quick_request(server.url("/broken")));

  REQUIRE(missing.ok());
  CHECK(missing->status == 404);
  CHECK(missing->body == "no such feed");
  REQUIRE(broken.ok());
  CHECK(broken->status == 500);
  CHECK(broken->body == "oops");
}

TEST_CASE("the final response's headers come back in order, name case kept, values trimmed",
          "[fetch]") {
  HttpServer server([](const RecordedRequest& r) {
    if (r.target == "/old")
      return Reply{.status = 301, .headers = {{"Location", "/new"}, {"X-Hop", "1"}}};
    return Reply{.headers = {{"X-First", "  padded value \t"},
                             {"content-TYPE", "application/rss+xml"},
                             {"X-Repeat", "a"},
                             {"X-Repeat", "b"}},
                 .body = "<rss/>"};
  });

  auto response = fetch(quick_request(server.url("/old")));

  REQUIRE(response.ok());
  const auto& h = response->headers;
  std::vector<std::string> names;
  for (const auto& header : h) names.push_back(header.name);
  auto position = [&](std::string_view name) {
    return std::find(names.begin(), names.end(), name) - names.begin();
  };
  REQUIRE(position("X-First") < position("content-TYPE"));
  CHECK(position("content-TYPE") < position("X-Repeat"));
  CHECK(response->header("x-first")->value == "padded value");
  CHECK(response->header("Content-Type")->value == "application/rss+xml");
  CHECK(response->header("X-Repeat")->value == "a");
  CHECK(std::count(names.begin(), names.end(), "X-Repeat") == 2);
  CHECK_FALSE(response->header("X-Hop"));
  CHECK_FALSE(response->header("Location"));
  CHECK(response->header("X-Absent") == nullptr);
}

TEST_CASE("a gzip body is decoded; wire_bytes counts what was transferred", "[fetch]") {
  std::string feed;
  for (int i = 0; i < 2000; ++i)
    feed += "<item><title>item " + std::to_string(i) + "</title></item>\n";
  const std::string compressed = gzip_bytes(feed);
  REQUIRE(compressed.size() < feed.size());
  HttpServer server([&](const RecordedRequest&) {
    return Reply{.headers = {{"Content-Encoding", "gzip"}}, .body = compressed};
  });

  auto response = fetch(quick_request(server.url("/feed")));

  REQUIRE(response.ok());
  CHECK(response->body == feed);
  CHECK(response->wire_bytes == compressed.size());
  CHECK(response->http_version == "1.1");
}

TEST_CASE("a chunked body is reassembled", "[fetch]") {
  std::string feed(100'000, 'x');
  for (std::size_t i = 0; i < feed.size(); i += 7) feed[i] = static_cast<char>('a' + i % 26);
  HttpServer server([&](const RecordedRequest&) { return Reply{.body = feed, .chunked = true}; });

  auto response = fetch(quick_request(server.url("/feed")));

  REQUIRE(response.ok());
  CHECK(response->body == feed);
}

TEST_CASE("an empty 200 body comes back empty, for poll to judge", "[fetch]") {
  HttpServer server([](const RecordedRequest&) { return Reply{}; });

  auto response = fetch(quick_request(server.url("/feed")));

  REQUIRE(response.ok());
  CHECK(response->status == 200);
  CHECK(response->body.empty());
}

TEST_CASE("a redirect chain 301, 302, 200 is recorded in order", "[fetch]") {
  HttpServer server([](const RecordedRequest& r) {
    if (r.target == "/a")
      return Reply{.status = 301, .headers = {{"Location", "/b"}}, .body = "moved to /b"};
    if (r.target == "/b") return Reply{.status = 302, .headers = {{"Location", "c?x=1"}}};
    return Reply{.body = "<feed/>"};
  });

  auto response = fetch(quick_request(server.url("/a")));

  REQUIRE(response.ok());
  CHECK(response->status == 200);
  CHECK(response->body == "<feed/>");
  REQUIRE(response->redirects.size() == 2);
  CHECK(response->redirects[0].status == 301);
  CHECK(response->redirects[0].target == server.url("/b"));
  CHECK(response->redirects[1].status == 302);
  CHECK(response->redirects[1].target == server.url("/c?x=1"));
  CHECK(response->final_url == server.url("/c?x=1"));
  CHECK(server.request_count() == 3);
}

TEST_CASE("with max_redirects 0 the redirect itself is the response", "[fetch]") {
  HttpServer server([](const RecordedRequest&) {
    return Reply{.status = 308, .headers = {{"Location", "/elsewhere"}}};
  });
  FetchRequest request = quick_request(server.url("/feed"));
  request.max_redirects = 0;

  auto response = fetch(request);

  REQUIRE(response.ok());
  CHECK(response->status == 308);
  CHECK(response->redirects.empty());
  CHECK(response->header("Location")->value == "/elsewhere");
  CHECK(server.request_count() == 1);
}

TEST_CASE("credentials in the URL are sent but appear in no output field", "[fetch]") {
  HttpServer server([](const RecordedRequest& r) {
    if (r.target == "/feed") return Reply{.status = 302, .headers = {{"Location", "/moved"}}};
    return Reply{.body = "<rss/>"};
  });
  std::string url = server.url("/feed");
  url.insert(url.find("127.0.0.1"), "user:secret@");

  auto response = fetch(quick_request(url));

  REQUIRE(response.ok());
  auto seen = server.requests();
  REQUIRE(seen.size() == 2);
  CHECK(seen[0].header("Authorization") == "Basic dXNlcjpzZWNyZXQ=");  // user:secret
  CHECK(response->final_url == server.url("/moved"));
  REQUIRE(response->redirects.size() == 1);
  CHECK(response->redirects[0].target == server.url("/moved"));
  for (const auto& h : response->headers) CHECK_THAT(h.value, !Catch::Contains("secret"));
  CHECK_THAT(response->final_url + response->body, !Catch::Contains("secret"));
}

TEST_CASE("fetch_all runs 50 requests four at a time, never over two connections to a host",
          "[fetch]") {
  HttpServer server(
      [](const RecordedRequest& r) { return Reply{.body = "body of " + r.target, .delay_ms = 5}; });
  std::vector<FetchRequest> requests;
  for (int i = 0; i < 50; ++i)
    requests.push_back(quick_request(server.url("/" + std::to_string(i))));
  FetchOptions options;
  options.jobs = 4;
  options.per_host = 2;
  const auto caller = std::this_thread::get_id();

  std::vector<int> done(requests.size(), 0);
  bool all_ok = true, on_caller = true;
  fetch_all(requests, options, [&](std::size_t index, Result<FetchResponse> r) {
    on_caller = on_caller && std::this_thread::get_id() == caller;
    REQUIRE(index < done.size());
    ++done[index];
    all_ok = all_ok && r.ok() && r->body == "body of /" + std::to_string(index);
  });

  CHECK(std::count(done.begin(), done.end(), 1) == 50);
  CHECK(all_ok);
  CHECK(on_caller);
  CHECK(server.request_count() == 50);
  CHECK(server.max_concurrent_connections() <= 2);
  CHECK(server.max_concurrent_connections() >= 1);
}

TEST_CASE("a request waiting for its host's slot does not spend its timeout waiting", "[fetch]") {
  // One connection to the host at a time, each answer 400 ms: the sixth request is sent
  // about 2 s after the first. Its own transfer takes 400 ms, well within its 1.5 s limit.
  HttpServer server(
      [](const RecordedRequest&) { return Reply{.body = "<rss/>", .delay_ms = 400}; });
  std::vector<FetchRequest> requests;
  for (int i = 0; i < 6; ++i) {
    requests.push_back(quick_request(server.url("/" + std::to_string(i))));
    requests.back().total_timeout_ms = 1500;
  }
  FetchOptions options;
  options.jobs = 16;
  options.per_host = 1;

  std::vector<std::string> errors;
  int ok = 0;
  fetch_all(requests, options, [&](std::size_t, Result<FetchResponse> r) {
    if (r.ok())
      ++ok;
    else
      errors.push_back(r.error().message);
  });

  INFO((errors.empty() ? std::string() : errors.front()));
  CHECK(ok == 6);
  CHECK(server.max_concurrent_connections() == 1);
}

TEST_CASE("a host with many feeds does not hold back the feeds of other hosts", "[fetch]") {
  // "127.0.0.1" and "localhost" are two hosts to feeddiff. The slow host's ten requests come
  // first in the list; the fast host's one request still finishes before most of them.
  HttpServer slow([](const RecordedRequest&) { return Reply{.body = "<rss/>", .delay_ms = 150}; });
  HttpServer fast([](const RecordedRequest&) { return Reply{.body = "<rss/>"}; });
  std::vector<FetchRequest> requests;
  for (int i = 0; i < 10; ++i) requests.push_back(quick_request(slow.url("/" + std::to_string(i))));
  std::string fast_url = fast.url("/feed");
  fast_url.replace(fast_url.find("127.0.0.1"), 9, "localhost");
  requests.push_back(quick_request(fast_url));
  FetchOptions options;
  options.jobs = 2;
  options.per_host = 2;

  std::vector<std::size_t> order;
  fetch_all(requests, options, [&](std::size_t index, Result<FetchResponse> r) {
    CHECK(r.ok());
    order.push_back(index);
  });

  REQUIRE(order.size() == 11);
  const auto at = std::find(order.begin(), order.end(), std::size_t{10}) - order.begin();
  CHECK(at <= 3);
}

TEST_CASE("fetch_all reuses one connection for requests made one at a time", "[fetch]") {
  HttpServer server([](const RecordedRequest&) { return Reply{.body = "<rss/>"}; });
  std::vector<FetchRequest> requests(10, quick_request(server.url("/feed")));
  FetchOptions options;
  options.jobs = 1;

  int ok = 0;
  fetch_all(requests, options, [&](std::size_t, Result<FetchResponse> r) { ok += r.ok(); });

  CHECK(ok == 10);
  CHECK(server.request_count() == 10);
  CHECK(server.connection_count() == 1);
}

TEST_CASE("fetch_all reports bad URLs without fetching them, and fetches the rest", "[fetch]") {
  HttpServer server([](const RecordedRequest&) { return Reply{.body = "<rss/>"}; });
  const std::vector<FetchRequest> requests{quick_request("ftp://example.com/feed"),
                                           quick_request(server.url("/feed")),
                                           quick_request("feed.xml")};

  std::vector<std::optional<Result<FetchResponse>>> results(requests.size());
  fetch_all(requests, {},
            [&](std::size_t i, Result<FetchResponse> r) { results[i] = std::move(r); });

  REQUIRE(results[0]);
  REQUIRE_FALSE(results[0]->ok());
  CHECK(results[0]->error().code == Errc::bad_url);
  REQUIRE(results[1]);
  CHECK(results[1]->ok());
  REQUIRE(results[2]);
  REQUIRE_FALSE(results[2]->ok());
  CHECK(results[2]->error().code == Errc::bad_url);
  CHECK(server.request_count() == 1);
}

TEST_CASE("fetch_all with no requests calls nothing", "[fetch]") {
  int calls = 0;
  fetch_all({}, {}, [&](std::size_t, Result<FetchResponse>) { ++calls; });
  CHECK(calls == 0);
}

}  // namespace
}  // namespace feeddiff::test
