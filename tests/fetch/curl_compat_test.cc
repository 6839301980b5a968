// fetch on the oldest libcurl the package accepts (7.80): the options added later are
// refused there as unknown, as curl_api's switch makes them be refused here.

#include <catch2/catch.hpp>
#include <string>

#include "feeddiff/fetch.h"
#include "fetch/curl_api.h"  // the test switch, internal to fetch
#include "fetch/fetch_helpers.h"
#include "support/http_server.h"

namespace feeddiff::test {
namespace {

// libcurl acts as 7.80 to 7.84 do for the test's length.
struct AsLibcurl780 {
  AsLibcurl780() { fetch_detail::curl::act_as_7_80(true); }
  ~AsLibcurl780() { fetch_detail::curl::act_as_7_80(false); }
  AsLibcurl780(const AsLibcurl780&) = delete;
  AsLibcurl780& operator=(const AsLibcurl780&) = delete;
};

TEST_CASE("a libcurl without the _STR protocol options (7.80 to 7.84) still fetches", "[fetch]") {
  HttpServer server([](const RecordedRequest&) { return Reply{.body = "<rss/>"}; });
  AsLibcurl780 old_libcurl;

  auto response = fetch(quick_request(server.url("/feed")));

  INFO((response.ok() ? std::string() : response.error().message));
  REQUIRE(response.ok());
  CHECK(response->status == 200);
  CHECK(response->body == "<rss/>");
}

TEST_CASE("a libcurl without the _STR protocol options still follows no redirect to ftp",
          "[fetch]") {
  // Without the bitmask fallback, libcurl's own default would follow it (and fail to connect).
  HttpServer server([](const RecordedRequest&) {
    return Reply{.status = 301, .headers = {{"Location", "ftp://127.0.0.1/feed"}}};
  });
  AsLibcurl780 old_libcurl;

  auto response = fetch(quick_request(server.url("/feed")));

  REQUIRE_FALSE(response.ok());
  CHECK(response.error().code == Errc::bad_url);
  CHECK(response.error().message == server.url("/feed") +
                                        ": redirected to ftp://127.0.0.1/feed, which is not an "
                                        "http or https URL");
}

}  // namespace
}  // namespace feeddiff::test
