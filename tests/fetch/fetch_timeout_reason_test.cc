// A timeout says what really happened to that transfer, even beside others in one poll: a
// server that connected and was sending is not "no connection".

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "feeddiff/fetch.h"
#include "fetch/fetch_helpers.h"
#include "support/http_server.h"

namespace feeddiff::test {
namespace {

TEST_CASE("concurrent transfers that time out each get their true reason", "[fetch]") {
  HttpServer server([](const RecordedRequest& request) {
    if (request.target == "/trickle")
      return Reply{.body = std::string(20'000, 't'), .drip_ms_per_byte = 5};
    return Reply{.silent = true};
  });
  std::vector<FetchRequest> requests;
  // Two transfers: the per-host limit (2) lets both connect at once.
  for (const char* path : {"/trickle", "/hang"}) {
    FetchRequest r = quick_request(server.url(path));
    r.total_timeout_ms = 2000;
    r.low_speed_bytes_per_second = 0;  // only the total limit applies
    requests.push_back(r);
  }
  std::map<std::size_t, Result<FetchResponse>> done;
  fetch_all(requests, FetchOptions{}, [&](std::size_t i, Result<FetchResponse> response) {
    done.emplace(i, std::move(response));
  });
  REQUIRE(done.size() == 2);
  CHECK(server.request_count() == 2);  // both were connected and sent

  REQUIRE_FALSE(done.at(0).ok());
  const std::string trickle = done.at(0).error().message;
  INFO(trickle);
  CHECK(done.at(0).error().code == Errc::timeout);
  CHECK_THAT(trickle, Catch::StartsWith(server.url("/trickle") + ": timed out after 2 s (") &&
                          Catch::EndsWith(" bytes received)"));
  CHECK(trickle.find(" (0 bytes") == std::string::npos);

  REQUIRE_FALSE(done.at(1).ok());
  const std::string hang = done.at(1).error().message;
  INFO(hang);
  CHECK(done.at(1).error().code == Errc::timeout);
  CHECK(hang == server.url("/hang") +
                    ": timed out after 2 s waiting for a response (connected, 0 bytes received)");
}

}  // namespace
}  // namespace feeddiff::test
