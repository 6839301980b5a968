// The status service called as a library: what status reads of an archive recorded in the
// test, which sources it is asked about, what it counts and what it holds back. The text and
// JSON it prints are checked end to end in tests/cli/status_json_test.cc and tests/poll.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "feeddiff/status.h"
#include "support/recorded_archive.h"

using namespace feeddiff;
using namespace feeddiff::test;

TEST_CASE("read_status gathers the config, the state and the shard asked for", "[status]") {
  RecordedArchive recorded("status-read", {"alpha", "beta"});
  const Archive archive = recorded.open();

  auto data = read_status(archive, {.names = {}, .shard = "2/3"});
  REQUIRE(data);
  CHECK(data->config.sources.size() == 2);
  CHECK(data->state.sources.empty());
  REQUIRE(data->shard);
  CHECK(data->shard->index == 2);
  CHECK(data->shard->count == 3);
  CHECK(data->hooks.empty());
  CHECK(data->credentials.empty());
  CHECK(state_of(*data, "alpha").last_result.empty());

  auto bad = read_status(archive, {.names = {}, .shard = "4/3"});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == Errc::usage);
}

TEST_CASE("chosen_sources keeps the order named and refuses a name that is none", "[status]") {
  RecordedArchive recorded("status-chosen", {"alpha", "beta"});
  auto data = read_status(recorded.open(), {});
  REQUIRE(data);

  auto all = chosen_sources(data->config, {});
  REQUIRE(all);
  REQUIRE(all->size() == 2);
  CHECK((*all)[0]->name == "alpha");
  auto named = chosen_sources(data->config, {"beta", "alpha"});
  REQUIRE(named);
  CHECK((*named)[0]->name == "beta");
  auto missing = chosen_sources(data->config, {"gamma"});
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == Errc::not_found);
  CHECK(missing.error().message == "no source named 'gamma'");
}

TEST_CASE("count_status counts failing, disabled and due sources; withheld names credentials",
          "[status]") {
  RecordedArchive recorded("status-count", {"alpha", "beta", "gamma"});
  auto data = read_status(recorded.open(), {});
  REQUIRE(data);
  data->state.sources["alpha"].consecutive_failures = 2;
  data->state.sources["alpha"].next_due = 5'000;
  data->state.sources["beta"].disabled = true;
  auto sources = chosen_sources(data->config, {});
  REQUIRE(sources);

  const StatusCounts n = count_status(*data, *sources, 1'000);
  CHECK(n.failing == 1);
  CHECK(n.disabled == 1);
  CHECK(n.due == 1);  // gamma: never polled, due now
  CHECK(n.untrusted == 0);

  data->credentials["gamma"] = {"gamma", "me:secret", "https://elsewhere.example.com:443"};
  const Withheld held = withheld(*(*sources)[2], data->hooks, data->credentials);
  REQUIRE(held.credentials);
  CHECK_FALSE(held.credentials_sent);  // given for another origin than the URL's
  CHECK(withheld(*(*sources)[0], data->hooks, data->credentials).credentials == nullptr);
}

TEST_CASE("status_text gives a line per source and the counts; status_json the same sources",
          "[status]") {
  RecordedArchive recorded("status-text", {"alpha", "beta"});
  const Archive archive = recorded.open();
  auto data = read_status(archive, {});
  REQUIRE(data);
  auto sources = chosen_sources(data->config, {});
  REQUIRE(sources);
  const TimeMs now = *parse_iso8601("2026-01-01T00:00:00Z");

  const std::string text = status_text(archive, *data, *sources, now);
  CHECK(text.find("alpha  never polled; due now\n") != std::string::npos);
  CHECK(text.find("beta   never polled; due now\n") != std::string::npos);
  CHECK(text.find("2 sources: 0 failing, 0 disabled, 2 due now;") != std::string::npos);

  const std::string json = status_json(*data, *sources, now);
  CHECK(json.find("\"now\": \"2026-01-01T00:00:00.000Z\"") != std::string::npos);
  CHECK(json.find("\"name\": \"alpha\"") < json.find("\"name\": \"beta\""));
}
