// Containment: whatever one source serves, a poll finishes, every other source's change is
// committed, and the hostile source's body is archived raw (its unreadable items named in
// `status`) or refused with a clear line there. Served beside good feeds, over two polls so
// that the second derives item summaries of both versions.

#include <catch2/catch.hpp>
#include <map>
#include <mutex>

#include "poll/poll_helpers.h"

using namespace feeddiff::test;

namespace {

constexpr std::string_view kRssHead =
    "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title>";
constexpr std::string_view kRssTail = "</channel></rss>";
constexpr std::string_view kJsonHead = R"({"version":"https://jsonfeed.org/version/1.1",)";

std::string rss_with(std::string_view inner) {
  return std::string(kRssHead) + std::string(inner) + std::string(kRssTail);
}

// Each hostile body, in the version `v` (0 or 1: the second poll sees a change).
std::map<std::string, std::string> hostile_bodies(int v) {
  const std::string mark = v ? "b" : "a";
  std::map<std::string, std::string> b;
  b["json-arrays"] = std::string(kJsonHead) + R"("title":")" + mark + R"(","items":[)" +
                     repeat("[", 100000) + repeat("]", 100000) + "]}";
  b["json-objects"] = std::string(kJsonHead) + R"("items":[{"id":")" + mark + R"(","x":)" +
                      repeat(R"({"a":)", 100000) + "1" + repeat("}", 100000) + "}]}";
  b["xml-deep"] = rss_with("<item><guid>" + mark + "</guid>" + repeat("<a>", 100000) +
                           repeat("</a>", 100000) + "</item>");
  b["html-deep"] =
      rss_with("<item><guid>g</guid><description><![CDATA[" + mark + repeat("<div>", 100000) + "x" +
               repeat("</div>", 100000) + "]]></description></item>");
  std::string laughs = "<?xml version=\"1.0\"?><!DOCTYPE rss [<!ENTITY a \"aaaaaaaaaa\">";
  for (char c = 'b'; c <= 'j'; ++c)
    laughs += std::string("<!ENTITY ") + c + " \"" +
              repeat(std::string("&") + char(c - 1) + ";", 10) + "\">";
  b["laughs"] =
      laughs + "]><rss version=\"2.0\"><channel><title>&j;" + mark + "</title></channel></rss>";
  std::string items;
  for (int i = 0; i < 120000; ++i)
    items += "<item><guid>" + mark + std::to_string(i) + "</guid></item>";
  b["many-items"] = rss_with(items);
  std::string attrs;
  for (int i = 0; i < 200000; ++i) attrs += " a" + std::to_string(i) + "=\"" + mark + "\"";
  b["many-attributes"] = rss_with("<item" + attrs + "><guid>g</guid></item>");
  b["long-line"] = rss_with("<item><guid>g</guid><description>" + repeat("word ", 4000000) + mark +
                            "</description></item>");
  b["huge-numbers"] = std::string(kJsonHead) + R"("items":[{"id":1e999999,"title":)" +
                      repeat("9", 200000) + mark + "}]}";
  b["huge-ttl"] = rss_with("<ttl>99999999999999999999999999" + std::string(v ? "9" : "") +
                           "</ttl><item><guid>g</guid></item>");
  b["nul-bytes"] = rss_with("<item><title>a" + std::string(1, '\0') + mark + "</title></item>") +
                   std::string(1000, '\0');
  std::string utf16 = "\xFF\xFE";
  for (char c : std::string("<?xml version=\"1.0\" encoding=\"UTF-16\"?><rss><channel><title>")) {
    utf16 += c;
    utf16 += '\0';
  }
  b["broken-utf16"] = utf16 + std::string("\x00\xD8\x00\xDC\x00\xD8", 6) + mark;
  std::string prefixes;
  for (int i = 0; i < 100000; ++i) prefixes += "<q" + std::to_string(i) + ":x/>";
  b["undeclared-prefixes"] = rss_with(prefixes + "<item><guid>" + mark + "</guid></item>");
  b["amplified-indent"] =
      rss_with("<item><guid>" + mark + "</guid>" +
               repeat(repeat("<a>", 990) + repeat("</a>", 990), 60) + "</item>");
  return b;
}

}  // namespace

TEST_CASE("hostile bodies beside good feeds: both polls finish and every good change is committed",
          "[poll]") {
  std::mutex mu;
  int version = 0;
  std::map<std::string, std::string> served = hostile_bodies(0);
  const std::vector<std::string> good = {"good-1", "good-2", "good-3"};
  auto good_body = [&](const std::string& name, int v) {
    return rss(name + "-v" + std::to_string(v));
  };
  HttpServer server([&](const RecordedRequest& req) {
    std::lock_guard lock(mu);
    const std::string name = req.target.substr(1);
    if (name.starts_with("good-")) return Reply{200, {}, good_body(name, version)};
    return Reply{200, {}, served.at(name)};
  });

  CliArchive archive("hostile");
  for (const auto& name : good)
    REQUIRE(archive({"add", name, server.url("/" + name)}).exit_code == 0);
  for (const auto& [name, body] : served)
    REQUIRE(archive({"add", name, server.url("/" + name)}).exit_code == 0);
  // One hostile source parsed before its commit too: skip_cosmetic compares both versions.
  std::string toml = slurp(archive.dir() + "/feeddiff.toml");
  const std::string table = "[sources.json-arrays]\n";
  REQUIRE(toml.find(table) != std::string::npos);
  toml.insert(toml.find(table) + table.size(), "skip_cosmetic = true\n");
  spit(archive.dir() + "/feeddiff.toml", toml);
  REQUIRE(archive
              .git({"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m",
                    "skip_cosmetic", "feeddiff.toml"})
              .exit_code == 0);

  for (int poll = 0; poll < 2; ++poll) {
    {
      std::lock_guard lock(mu);
      version = poll;
      served = hostile_bodies(poll);
    }
    INFO("poll " << poll + 1);
    auto r = archive({"poll", "--force", "--timeout", "60s"});
    INFO("stdout: " << r.out << "\nstderr: " << r.err.substr(0, 4000));
    // 0 or 1 (some failed), never a signal (128+N) or an error (2).
    REQUIRE((r.exit_code == 0 || r.exit_code == 1));
    for (const auto& name : good) {
      INFO(name);
      CHECK(archive({"cat", "HEAD", name}).out == good_body(name, poll));
    }
    for (const auto& [name, body] : served) {
      INFO(name);
      auto st = status_json(archive, name);
      INFO(st.dump());
      if (st["last_result"] == "failed") {
        // Refused: a clear line in status.
        CHECK_FALSE(st["last_error"].get<std::string>().empty());
        CHECK(status_text(archive, name).find("failed") != std::string::npos);
      } else {
        // Archived raw, byte for byte.
        CHECK(archive({"cat", "HEAD", name}).out == body);
      }
    }
  }

  // Every hostile body here is accepted by HTTP, so each was archived; the second poll read
  // the items of both versions and names, in status, each body whose items it could not read.
  const std::map<std::string, std::string> unreadable = {
      {"json-arrays", "JSON nested deeper than 256 levels"},
      {"json-objects", "JSON nested deeper than 256 levels"},
      {"xml-deep", "elements nested deeper than 1000 levels"},
      {"many-items", "a feed of more than 100000 items"},
      {"many-attributes", "more than 4096 attributes"},
      {"undeclared-prefixes", "more than 1024 namespaces"},
      {"amplified-indent", "a canonical form over"},
  };
  for (const auto& [name, reason] : unreadable) {
    INFO(name);
    auto st = status_json(archive, name);
    CHECK(st["last_result"] == "changed");
    CHECK(st["items_error"].get<std::string>().find(reason) != std::string::npos);
    CHECK(status_text(archive, name).find("its items cannot be read: ") != std::string::npos);
  }
  // JSON that the parser refuses (an exponent that overflows) and XML cut short inside a
  // document are no feed: archived as such (raw/NAME/not-a-feed), named in status.
  for (const auto& [name, reason] :
       std::map<std::string, std::string>{{"huge-numbers", "JSON that does not parse: "},
                                          {"broken-utf16", "XML that does not parse: "}}) {
    INFO(name);
    auto st = status_json(archive, name);
    CHECK(st["last_result"] == "not-a-feed");
    CHECK(st["not_a_feed"]["reason"].get<std::string>().starts_with(reason));
    CHECK(status_text(archive, name).find("not a feed since ") != std::string::npos);
  }
  for (const std::string name : {"html-deep", "long-line", "laughs", "good-1"}) {
    INFO(name);
    CHECK(status_json(archive, name)["items_error"].is_null());
  }
  // The items of a readable change were summarized after the commits (the cache).
  CHECK(archive({"show", "HEAD"}).exit_code == 0);
  auto fsck = archive.git({"fsck", "--strict"});
  INFO(fsck.err);
  CHECK(fsck.exit_code == 0);
  CHECK(archive.git({"status", "--porcelain", "--untracked-files=all"}).out.empty());
}
