// `feeddiff status --json` is JSON whatever text a source, a server or an error put in the
// state: quotes, backslashes, control characters and non-ASCII round-trip through a JSON
// parser unchanged.

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/cli_helpers.h"

using namespace feeddiff::test;

TEST_CASE("status --json keeps quotes, backslashes, controls and non-ASCII text intact", "[cli]") {
  CliArchive archive("status-json");
  // Every kind of character a JSON writer must escape, or must pass through unharmed.
  const std::string hostile = std::string("q\"uote \\back\\slash\t\n\r\x01\x1f\x7f end ") +
                              "é 日本 \xF0\x9F\x98\x80 \xE2\x80\xA8 \xE2\x80\xAE";
  // TOML escapes for the URL: a basic string with \" \\ \u0001 \u007f, the rest as is.
  spit(archive.dir() + "/feeddiff.toml",
       "[sources.odd-name_1]\nurl = "
       "\"http://user:pw@example.com/a\\\"b\\\\c/é?q=\\u0001\\u007f\"\n");
  nlohmann::json state = {{"version", 1},
                          {"sources",
                           {{"odd-name_1",
                             {{"last_result", "failed"},
                              {"last_error", hostile},
                              {"last_status", 503},
                              {"last_attempt", 1790834000000},
                              {"consecutive_failures", 2},
                              {"etag", "W/\"" + hostile + "\""},
                              {"last_modified", hostile},
                              {"pending_redirect", "http://example.com/\"new\"\\" + hostile},
                              {"pending_redirect_count", 1},
                              {"disabled", true},
                              {"disabled_reason", hostile},
                              {"items_error", hostile}}}}}};
  std::filesystem::create_directories(archive.dir() + "/.git/feeddiff");
  spit(archive.dir() + "/.git/feeddiff/state.json", state.dump(2));

  auto r = archive({"status", "--json"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  nlohmann::json doc;
  REQUIRE_NOTHROW(doc = nlohmann::json::parse(r.out));
  CHECK(doc["now"] == "2026-10-01T05:54:04.027Z");
  REQUIRE(doc["sources"].size() == 1);
  const nlohmann::json& s = doc["sources"][0];
  CHECK(s["name"] == "odd-name_1");
  CHECK(s["url"] == "http://example.com/a\"b\\c/é?q=\x01\x7f");  // credentials redacted
  CHECK(s["last_error"] == hostile);
  CHECK(s["etag"] == "W/\"" + hostile + "\"");
  CHECK(s["last_modified"] == hostile);
  CHECK(s["disabled_reason"] == hostile);
  CHECK(s["items_error"] == hostile);
  CHECK(s["pending_redirect"]["target"] == "http://example.com/\"new\"\\" + hostile);
  // The types of every field, as docs and scripts read them.
  CHECK(s["every_seconds"] == 3600);
  CHECK(s["last_status"] == 503);
  CHECK(s["consecutive_failures"] == 2);
  CHECK(s["disabled"] == true);
  CHECK(s["due"] == false);
  CHECK(s["pending_redirect"]["seen"] == 1);
  CHECK(s["pending_redirect"]["adopted_after"] == 3);
  CHECK(s["last_result"] == "failed");
  CHECK(s["last_success"].is_null());
  CHECK(s["last_change"].is_null());
  CHECK(s["last_attempt"] == "2026-10-01T05:53:20.000Z");
  const std::vector<std::string> keys = {"name",
                                         "url",
                                         "every_seconds",
                                         "last_result",
                                         "last_attempt",
                                         "last_status",
                                         "last_error",
                                         "last_success",
                                         "last_change",
                                         "consecutive_failures",
                                         "next_due",
                                         "due",
                                         "pending_redirect",
                                         "disabled",
                                         "disabled_reason",
                                         "etag",
                                         "last_modified",
                                         "items_error",
                                         "hooks_waiting_for_trust",
                                         "pending_notifications",
                                         "held_notifications",
                                         "notify_reverted",
                                         "pending_notification_commits",
                                         "notify_error",
                                         "not_a_feed",
                                         "credentials"};
  std::vector<std::string> got;
  for (const auto& [key, value] : s.items()) got.push_back(key);
  std::sort(got.begin(), got.end());
  std::vector<std::string> want = keys;
  std::sort(want.begin(), want.end());
  CHECK(got == want);
  // Nothing a terminal would act on is written raw: controls are escaped.
  CHECK(r.out.find('\x01') == std::string::npos);
  CHECK(r.out.find('\x1f') == std::string::npos);
}
