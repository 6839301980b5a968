// `feeddiff trust`'s service called as a library: the hooks feeddiff.toml holds, how each is
// described, and consent to one kind leaving the other waiting.

#include <catch2/catch.hpp>
#include <string>

#include "feeddiff/notify.h"
#include "support/recorded_archive.h"

using namespace feeddiff;
using namespace feeddiff::test;

TEST_CASE("trust_current_hooks consents to the kinds asked for and leaves the others waiting",
          "[notify]") {
  RecordedArchive recorded("trust-hooks", {});
  auto archive = recorded.open();
  Config config;
  SourceConfig news;
  news.name = "news";
  news.url = "https://example.com/news.xml";
  config.sources.push_back(news);
  config.notify.exec = "cat >> /tmp/never-run";
  config.notify.webhook = "https://user:secret@hooks.example.com/t/TOKEN";
  CommitRequest request;
  request.message = "feeddiff: hooks\n";
  request.author_time = request.commit_time = *parse_iso8601("2024-12-31T00:00:00Z");
  request.files.push_back({"feeddiff.toml", format_config(config)});
  REQUIRE(archive.commit(request));

  auto hooks = current_hooks(archive);
  REQUIRE(hooks);
  REQUIRE(hooks->size() == 2);
  for (const HookValue& hook : *hooks) CHECK_FALSE(hook.trusted);

  auto trusted = trust_current_hooks(archive, {"webhook", "webhook"});
  REQUIRE(trusted);
  REQUIRE(trusted->size() == 1);
  const std::string described = hook_description(trusted->front());
  CHECK(described.find("secret") == std::string::npos);
  CHECK(described.find("hooks.example.com") != std::string::npos);
  CHECK(described.ends_with(", for news"));

  hooks = current_hooks(archive);
  REQUIRE(hooks);
  for (const HookValue& hook : *hooks) CHECK(hook.trusted == (hook.kind == "webhook"));
}
