// feeddiff.toml's `insignificant` rules: a change they cover is committed all the same,
// marked minor on every page, and runs no hook unless the hook asks with `minor = true`.
#include <catch2/catch.hpp>
#include <filesystem>

#include "poll/poll_helpers.h"

using namespace feeddiff::test;

namespace {

std::string numbered_feed(const std::vector<std::string>& titles) {
  std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel>"
      "<title>Feed</title><link>http://example.com/</link><description>d</description>\n";
  for (std::size_t i = 0; i < titles.size(); ++i)
    body += "<item><title>" + titles[i] + "</title><guid>item-" + std::to_string(i) +
            "</guid></item>\n";
  return body + "</channel></rss>\n";
}

std::size_t hook_runs(const std::string& dir) {
  const std::string log = dir + "/log";
  return std::filesystem::exists(log) ? count_lines(slurp(log)) : 0;
}

}  // namespace

TEST_CASE("a punctuation-only change is committed, marked minor, and runs no hook", "[poll]") {
  std::string body = numbered_feed({"Hello world", "Second item"});
  HttpServer server = serve_changing(&body);
  CliArchive archive("minor");
  const std::string hooks = make_temp_dir("minor-hook");
  REQUIRE(archive({"add", "news", server.url("/feed")}).exit_code == 0);
  spit(archive.dir() + "/feeddiff.toml",
       slurp(archive.dir() + "/feeddiff.toml") +
           "\n[sources.news.insignificant]\npunctuation = true\n"
           "\n[notify]\nexec = \"cat > /dev/null; echo $FEEDDIFF_COMMIT >> '" +
           hooks + "/log'\"\n");
  REQUIRE(archive
              .git({"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "rules",
                    "feeddiff.toml"})
              .exit_code == 0);
  trust_all_hooks(archive);
  poll_ok(archive);
  CHECK(hook_runs(hooks) == 1);  // the first version is news

  body = numbered_feed({"Hello, world!", "Second item"});
  const int before = commit_count(archive);
  poll_ok(archive);
  CHECK(commit_count(archive) == before + 1);  // kept: nothing is lost
  CHECK(hook_runs(hooks) == 1);

  auto text = archive({"show"});
  INFO(text.out);
  CHECK(text.out.find("Items: 1 changed (minor)") != std::string::npos);
  CHECK(text.out.find("Hello, world! (title) [minor]") != std::string::npos);
  const auto doc = nlohmann::json::parse(archive({"show", "--format", "json"}).out);
  CHECK(doc["items"]["minor"] == true);
  CHECK(doc["items"]["changes"][0]["minor"] == true);
  CHECK(archive({"show", "--format", "markdown"}).out.find("\\[minor\\]") != std::string::npos);
  CHECK(archive({"show", "--format", "html"}).out.find("[minor]") != std::string::npos);
  CHECK(archive({"log", "news", "--items"}).out.find("changed    Hello, world! [minor]") !=
        std::string::npos);

  // A word that changes is news.
  body = numbered_feed({"Hello, world!", "Second thing"});
  poll_ok(archive);
  CHECK(hook_runs(hooks) == 2);
  CHECK(archive({"show"}).out.find("minor") == std::string::npos);

  // The hook asks for minor changes too.
  spit(archive.dir() + "/feeddiff.toml",
       slurp(archive.dir() + "/feeddiff.toml") + "minor = true\n");
  REQUIRE(archive
              .git({"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "minor",
                    "feeddiff.toml"})
              .exit_code == 0);
  body = numbered_feed({"Hello, world!", "Second thing."});
  poll_ok(archive);
  CHECK(hook_runs(hooks) == 3);
}
