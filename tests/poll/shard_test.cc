// poll --shard K/N: which poller of a fleet polls which source.

#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "feeddiff/poll.h"
#include "poll/poll_helpers.h"

namespace feeddiff::test {
namespace {

SourceConfig source_at(std::string url, std::optional<unsigned> pin = std::nullopt) {
  SourceConfig s;
  s.name = "s";
  s.url = std::move(url);
  s.shard = pin;
  return s;
}

TEST_CASE("a shard is read as K/N with K counted from 0 and below N", "[poll][shard]") {
  auto ok = parse_shard("2/4");
  REQUIRE(ok);
  CHECK(*ok == Shard{2, 4});
  CHECK(parse_shard("0/1"));
  for (const char* bad : {"4/4", "1", "a/4", "1/0", "-1/4", "1/4x", "/4", "1/", "0/5000"}) {
    INFO(bad);
    auto r = parse_shard(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == Errc::usage);
  }
}

TEST_CASE("every source of one host falls in one shard, whatever its port, path or case",
          "[poll][shard]") {
  const unsigned n = 7;
  const unsigned k = shard_of(source_at("https://blog.example.com/feed.xml"), n);
  CHECK(k < n);
  CHECK(shard_of(source_at("http://BLOG.example.com:8080/other/rss"), n) == k);
  CHECK(shard_of(source_at("https://user:pw@blog.example.com/atom?x=1"), n) == k);
}

TEST_CASE("hosts spread over every shard, and a pinned source stays where it is pinned",
          "[poll][shard]") {
  std::map<unsigned, int> counts;
  for (int i = 0; i < 400; ++i)
    ++counts[shard_of(source_at("https://host" + std::to_string(i) + ".example/feed"), 4)];
  REQUIRE(counts.size() == 4);
  for (const auto& [shard, count] : counts) {
    INFO("shard " << shard);
    CHECK(count > 50);  // 100 expected; a hash that ignored the host would put all in one
  }
  CHECK(shard_of(source_at("https://host1.example/feed", 3u), 4) == 3);
  CHECK(shard_of(source_at("https://host1.example/feed", 3u), 16) == 3);
  CHECK(shard_of(source_at("https://anything/", 0u), 1) == 0);
}

// Eight sources on the loopback server: four pinned to shards 0..3, four unpinned (all on
// 127.0.0.1, so all in the shard that host hashes to).
struct Fleet {
  HttpServer server{[](const RecordedRequest& request) {
    return Reply{.headers = {{"ETag", "\"v1\""}}, .body = rss(request.target)};
  }};
  CliArchive archive{"shard"};
  Fleet() {
    std::string toml;
    for (int i = 0; i < 8; ++i) {
      toml += "[sources.s" + std::to_string(i) + "]\nurl = \"" +
              server.url("/feed" + std::to_string(i)) + "\"\n";
      if (i < 4) toml += "shard = " + std::to_string(i) + "\n";
    }
    spit(archive.dir() + "/feeddiff.toml", toml);
    REQUIRE(archive.git({"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "sources"})
                .exit_code == 0);
  }
  std::set<std::string> fetched_since(std::size_t before) const {
    std::set<std::string> out;
    auto requests = server.requests();
    for (std::size_t i = before; i < requests.size(); ++i) out.insert(requests[i].target);
    return out;
  }
};

TEST_CASE("four pollers with --shard K/4 fetch every source exactly once between them",
          "[poll][shard]") {
  Fleet fleet;
  SourceConfig loopback;
  loopback.url = fleet.server.url("/");
  const unsigned hashed = shard_of(loopback, 4);
  std::multiset<std::string> all;
  for (unsigned k = 0; k < 4; ++k) {
    const std::size_t before = fleet.server.request_count();
    auto r = fleet.archive({"poll", "--shard", std::to_string(k) + "/4"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    std::set<std::string> expected = {"/feed" + std::to_string(k)};
    if (k == hashed)
      for (int i = 4; i < 8; ++i) expected.insert("/feed" + std::to_string(i));
    const auto fetched = fleet.fetched_since(before);
    CHECK(fetched == expected);
    all.insert(fetched.begin(), fetched.end());
  }
  CHECK(all.size() == 8);
  CHECK(std::set<std::string>(all.begin(), all.end()).size() == 8);
  CHECK(commit_count(fleet.archive) == 2 + 8);  // init, the config, one version each

  auto status = fleet.archive({"status", "--shard", "1/4"});
  REQUIRE(status.exit_code == 0);
  CHECK_THAT(status.out, Catch::Contains("s1  ") && Catch::Contains("shard 1 (pinned) (this one)"));
  CHECK_THAT(status.out, Catch::Contains("in shard 1/4"));
  auto json = fleet.archive({"status", "--json", "--shard", "1/4", "s5"});
  REQUIRE(json.exit_code == 0);
  auto doc = nlohmann::json::parse(json.out);
  CHECK(doc["shard"]["count"] == 4);
  CHECK(doc["sources"][0]["shard"] == hashed);
}

TEST_CASE("a poll refuses a fleet size that would leave a pinned source to nobody",
          "[poll][shard]") {
  Fleet fleet;
  auto r = fleet.archive({"poll", "--shard", "0/2"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("source 's2' has shard = 2") &&
                        Catch::Contains("--shard says the fleet has 2"));
  CHECK(fleet.server.request_count() == 0);
  auto named = fleet.archive({"poll", "--shard", "0/4", "s1"});
  CHECK(named.exit_code == 2);
  CHECK_THAT(named.err, Catch::Contains("'s1' belongs to shard 1/4, not 0/4"));
  auto bad = fleet.archive({"poll", "--shard", "4/4"});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("K counts from 0"));
}

}  // namespace
}  // namespace feeddiff::test
